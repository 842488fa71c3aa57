"""`tddgit cycle` end to end: the real SDK, the local fake Messages API, real gates and
real worktrees; the user's tree checked byte for byte."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tests.agent.fakeapi import FakeMessagesAPI
from tests.conftest import GitRepo
from tests.cycle.helpers import Terminal, cycle, cycle_branches, red_step, worktrees
from tests.project import snapshot_state

NOT_IN_BUILD = "is not available in this build"


@pytest.fixture
def no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


@pytest.fixture
def red_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build with red generation only (green and refactor removed if present)."""
    from tddgit.agent.phases import PHASES

    for name in ("green", "refactor"):
        monkeypatch.delitem(PHASES, name, raising=False)


@pytest.fixture
def all_phases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Green and refactor as this build has them; where it has none yet, the same kind of
    value (production files writable, judged by the real green and refactor gates)."""
    from tddgit.agent.phases import PHASES, Phase
    from tddgit.paths import Kind

    for name in ("green", "refactor"):
        if name not in PHASES:
            phase = Phase(
                name=name,
                writable=frozenset({Kind.PRODUCTION}),
                read_only_reason="tests are read-only in this step",
                task=f"The {name} step.",
                done_when=f"`finish` runs the {name} gate.",
            )
            monkeypatch.setitem(PHASES, name, phase)


def test_yes_approves_and_fast_forwards_the_users_branch(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, red_only: None
) -> None:
    project.write("notes.txt", "the user's own untracked file\n")
    project.write("calc.py", (project.root / "calc.py").read_text() + "# the user's edit\n")
    base = project.head()
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--yes")
    assert code == 0, out + err
    assert f"generate green {NOT_IN_BUILD}: the cycle stops after red" in err
    assert "approved: main fast-forwarded to tddgit/SPEC-SUB-1" in out
    head = project.head()
    assert project.git("rev-parse", "HEAD^") == base + "\n"
    trailers = project.git("log", "-1", "--format=%(trailers)")
    assert "GSD-Phase: red" in trailers and "GSD-Agent: claude-sonnet-4-6" in trailers
    note = json.loads(project.git("notes", "--ref=tddgit", "show", head))
    assert note["phase"] == "red" and note["agent"]["cycle"]["worktree_head"] == base
    assert note["agent"]["cycle"]["python"]
    assert [t["light"] for t in note["targets"]] == ["red", "red"]
    assert len(worktrees(project)) == 1
    assert cycle_branches(project) == []  # merged: nothing left behind
    # the user's uncommitted edit and untracked file survived the fast-forward
    assert (project.root / "calc.py").read_text().endswith("# the user's edit\n")
    assert (project.root / "notes.txt").is_file()
    assert (project.root / "tests" / "test_sub.py").read_text().startswith("import calc")
    # the review: commit with phase and lights, diff stat, tokens, transcript
    assert "red      SPEC-SUB: Subtraction (tests)" in out
    assert "red    tests/test_sub.py::test_tc_1_five_minus_three" in out
    assert "tests/test_sub.py | 9 +++++++++" in out
    assert "tokens: 200 in / 40 out" in out and "transcript (red): " in out


def test_abort_deletes_the_branch_and_leaves_the_tree_byte_identical(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch, red_only: None
) -> None:
    project.write("notes.txt", "untracked\n")
    project.write("calc.py", (project.root / "calc.py").read_text() + "# dirty\n")
    project.add("calc.py")
    project.git("stash", "list")
    before = snapshot_state(project)
    index_before = (project.root / ".git" / "index").read_bytes()
    fake_api.push(*red_step())
    monkeypatch.setattr(sys, "stdin", Terminal("maybe\nabort\n"))
    code, out, err = cycle(project, "specs/sub.yaml", "--no-refactor")
    assert code == 1, out + err
    assert "Type approve to merge, abort to discard:" in err
    assert "please type approve or abort" in err
    assert "aborted: the branch tddgit/SPEC-SUB-1 is deleted; nothing was merged" in out
    assert snapshot_state(project) == before
    assert (project.root / ".git" / "index").read_bytes() == index_before
    assert cycle_branches(project) == [] and len(worktrees(project)) == 1


def test_abort_with_keep_branch_keeps_it(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch, red_only: None
) -> None:
    fake_api.push(*red_step())
    monkeypatch.setattr(sys, "stdin", Terminal("abort\n"))
    code, out, _ = cycle(project, "specs/sub.yaml", "--keep-branch")
    assert code == 1
    assert "kept (--keep-branch)" in out
    assert cycle_branches(project) == ["tddgit/SPEC-SUB-1"]
    assert len(worktrees(project)) == 1


def test_no_terminal_keeps_the_branch_and_prints_the_merge_command(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, red_only: None
) -> None:
    before = snapshot_state(project)
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert "kept: no terminal to ask; the branch tddgit/SPEC-SUB-1 is kept" in out
    assert "merge with: git merge --ff-only tddgit/SPEC-SUB-1" in out
    after = snapshot_state(project)
    assert after["files"] == before["files"] and after["index"] == before["index"]
    assert cycle_branches(project) == ["tddgit/SPEC-SUB-1"]
    assert len(worktrees(project)) == 1
    # a second cycle of the same spec gets the next number
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--json")
    assert code == 0, out + err
    data = json.loads(out)
    assert data["branch"] == "tddgit/SPEC-SUB-2" and data["decision"] == "keep"
    assert data["steps"][0]["phase"] == "red" and data["steps"][0]["holds"]


def test_the_users_branch_moved_during_the_cycle_nothing_is_merged(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch, red_only: None
) -> None:
    from tddgit.cycle import engine

    real = engine.run_steps

    def and_the_user_commits(*args: object, **kwargs: object) -> engine.CycleRun:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        project.write("README.md", "meanwhile\n")
        project.commit("the user's own commit", "README.md")
        return result

    monkeypatch.setattr(engine, "run_steps", and_the_user_commits)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--yes")
    moved = project.head()
    assert code == 1, out + err
    assert "not merged: main moved during the cycle" in out
    assert "merge later with: git merge --ff-only tddgit/SPEC-SUB-1" in out
    assert project.head() == moved
    assert project.git("log", "-1", "--format=%s").strip() == "the user's own commit"
    assert cycle_branches(project) == ["tddgit/SPEC-SUB-1"]
    assert not (project.root / "tests" / "test_sub.py").exists()


def test_an_uncommitted_user_change_in_a_file_the_cycle_changed_keeps_the_branch(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, red_only: None
) -> None:
    project.write("tests/test_sub.py", "# the user's own draft\n")
    before = snapshot_state(project)
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--yes")
    assert code == 1, out + err
    assert "your uncommitted changes touch files the cycle changed: tests/test_sub.py" in out
    assert snapshot_state(project)["files"] == before["files"]
    assert cycle_branches(project) == ["tddgit/SPEC-SUB-1"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--max-turns", "1"), "stopped: red: max turns: 1 requests without a holding red gate"),
        ((), "stopped: red: the model provider"),  # the script runs out: HTTP 500
    ],
)
def test_a_step_that_does_not_hold_stops_the_cycle_and_yes_does_not_merge(
    project: GitRepo,
    fake_api: FakeMessagesAPI,
    no_terminal: None,
    args: tuple[str, ...],
    said: str,
) -> None:
    base = project.head()
    fake_api.push(red_step()[0])  # the tests written, finish never called
    code, out, err = cycle(project, "specs/sub.yaml", "--yes", *args)
    assert code == 1, out + err
    assert said in out
    assert "nothing to merge: the cycle made no commit" in out
    assert project.head() == base
    assert len(worktrees(project)) == 1 and cycle_branches(project) == []


def test_no_key_is_exit_2_and_leaves_no_branch(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    code, _, err = cycle(project, "specs/sub.yaml")
    assert code == 2
    assert "ANTHROPIC_API_KEY is not set" in err
    assert cycle_branches(project) == [] and len(worktrees(project)) == 1


def test_a_detached_head_is_exit_2(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    project.git("checkout", "-q", "--detach")
    code, _, err = cycle(project, "specs/sub.yaml")
    assert code == 2
    assert "HEAD is detached" in err
    assert fake_api.requests == [] and len(worktrees(project)) == 1


def test_an_editable_install_does_not_run_the_main_checkouts_code(
    project: GitRepo,
    fake_api: FakeMessagesAPI,
    no_terminal: None,
    red_only: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user's checkout already has ``sub`` (uncommitted) and is installed editable
    (a path entry in the venv's site-packages, as setuptools makes): had the worktree's
    tests imported it, the new tests would pass and the red gate refuse them."""
    import subprocess
    import sysconfig

    # a src layout without `pythonpath`: `python -m pytest` puts the run's directory first
    # on the import path, but not src/; nothing but tddgit's own run puts the worktree's first
    pyproject = (project.root / "pyproject.toml").read_text()
    project.write("pyproject.toml", pyproject.replace('pythonpath = ["."]\n', ""), dedent=False)
    (project.root / "src").mkdir()
    project.git("mv", "calc.py", "src/calc.py")
    project.commit("src layout")
    project.write(
        "src/calc.py",
        (project.root / "src" / "calc.py").read_text() + "\n\ndef sub(a, b):\n    return a - b\n",
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    ours = sysconfig.get_paths()["purelib"]  # pytest and the probe's dependencies
    (site / "deps.pth").write_text(ours + "\n")
    (site / "__editable__calc.pth").write_text(str(project.root / "src") + "\n")
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import calc; print(calc.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.strip() == str(project.root / "src" / "calc.py")  # the install works
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--json")
    assert code == 0, out + err
    data = json.loads(out)
    assert data["steps"][0]["holds"], err
    note = json.loads(project.git("notes", "--ref=tddgit", "show", data["steps"][0]["commit"]))
    assert note["agent"]["cycle"]["python"] == str(venv / "bin" / "python")
    assert [t["light"] for t in note["targets"]] == ["red", "red"]


def test_approve_after_red_green_and_refactor(
    project: GitRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
    all_phases: None,
) -> None:
    from tests.agent.fakeapi import reply, tool
    from tests.project import CALC_SUB

    base = project.head()
    refactored = CALC_SUB.replace("return a - b", "difference = a - b\n    return difference")
    fake_api.push(
        *red_step(),
        reply(tool("write_file", path="calc.py", content=CALC_SUB)),
        reply(tool("finish", summary="sub")),
        reply(tool("write_file", path="calc.py", content=refactored)),
        reply(tool("finish", summary="named the result")),
    )
    monkeypatch.setattr(sys, "stdin", Terminal("approve\n"))
    code, out, err = cycle(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert "approved: main fast-forwarded to tddgit/SPEC-SUB-1" in out
    shas = project.git("rev-list", "--reverse", f"{base}..").split()
    phases = [
        project.git("log", "-1", "--format=%(trailers:key=GSD-Phase,valueonly)", sha).strip()
        for sha in shas
    ]
    assert phases == ["red", "green", "refactor"]
    for sha, phase in zip(shas, phases, strict=True):
        note = json.loads(project.git("notes", "--ref=tddgit", "show", sha))
        assert note["phase"] == phase and note["agent"]["cycle"]["worktree_head"]
    assert (project.root / "calc.py").read_text() == refactored
    assert len(worktrees(project)) == 1 and cycle_branches(project) == []
    for phase in ("red", "green", "refactor"):
        assert f"  {phase}: held" in out


def test_max_cost_bounds_the_whole_cycle_within_a_step(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, all_phases: None
) -> None:
    # Each reply costs ~$0.0006: red's two spend $0.0012 of the $0.0015; green gets what is
    # left, so its first reply already ends it (it does not run on to $0.0024).
    from tests.agent.fakeapi import reply, tool
    from tests.project import CALC_SUB

    fake_api.push(
        *red_step(),
        reply(tool("write_file", path="calc.py", content=CALC_SUB)),
        reply(tool("finish", summary="sub")),
    )
    code, out, err = cycle(project, "specs/sub.yaml", "--max-cost", "0.0015", "--yes")
    assert code == 1, out + err
    assert len(fake_api.requests) == 3
    assert "stopped: green: cost budget: ~$0.0006 spent in 1 turns" in out
    assert "llm.max_cost is $0.0003 (what was left of the cycle's --max-cost $0.0015)" in out
    assert "  red: held" in out


def test_max_cost_stops_the_first_step_that_reaches_it(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, all_phases: None
) -> None:
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--max-cost", "0.0001", "--yes")
    assert code == 1, out + err
    assert "stopped: red: cost budget: ~$0.0006 spent in 1 turns" in out
    assert "llm.max_cost is $0.0001" in out
    assert len(fake_api.requests) == 1  # red's first reply reached the budget
    assert "nothing to merge: the cycle made no commit" in out
    assert cycle_branches(project) == []


def test_yes_merges_red_and_green_when_nothing_is_left_to_refactor(
    project: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None, all_phases: None
) -> None:
    from tests.agent.fakeapi import reply, text, tool
    from tests.project import CALC_SUB

    base = project.head()
    fake_api.push(
        *red_step(),
        reply(tool("write_file", path="calc.py", content=CALC_SUB)),
        reply(tool("finish", summary="sub")),
        reply(text("The code is already clean: nothing to refactor."), stop="end_turn"),
    )
    code, out, err = cycle(project, "specs/sub.yaml", "--yes")
    assert code == 0, out + err
    assert "  refactor: nothing to refactor" in out and "stopped:" not in out
    assert "approved: main fast-forwarded to tddgit/SPEC-SUB-1" in out
    assert "turn 1: nothing to refactor" in err  # the step's progress line
    assert len(project.git("rev-list", f"{base}..").split()) == 2
    assert cycle_branches(project) == []

"""The tree check's fast path (guard/quick.py): it answers "nothing changed" only when that
is true. Real repositories, the installed hooks fired as the agent fires them; the fast
path asked in-process after each kind of change the full check must see."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tddgit.guard import quick, quickjson
from tddgit.guard.adapters import AGENTS, adapter
from tddgit.guard.model import POST_WRITE
from tests.conftest import GitRepo
from tests.guard.conftest import fire, project_at, reply
from tests.hookprobe import loaded_modules

SESSION = "quick-session"


def post(repo: GitRepo, command: str = "ls") -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "cwd": str(repo.root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
    }


def fast(repo: GitRepo) -> bool:
    return quick.answer("claude-code", json.dumps(post(repo)).encode())


def full_check(repo: GitRepo) -> dict[str, Any]:
    """The installed hook with the fast path ruled out: the full check, which records."""
    return reply(fire(repo, "claude-code", post(repo), env={quick.FULL_ENV: "1"}))


def settled(repo: GitRepo) -> None:
    """The full check has accepted the tree and recorded it; the record is newer than
    every file (else the racy rule would rightly turn the fast path down)."""
    time.sleep(0.02)
    assert full_check(repo) == {}
    assert fast(repo), "the fast path did not answer for an unchanged tree"


def installed(templates: dict[str, Path], stage: str, tmp_path: Path) -> GitRepo:
    """A project at ``stage`` with Claude Code's hooks, a session started and settled."""
    repo = project_at(templates, stage, tmp_path)
    repo.tddgit("agent", "install", "claude-code", check=True)
    (repo.root / "notes.md").write_text("notes\n")  # untracked, not code
    start = {"session_id": SESSION, "cwd": str(repo.root), "hook_event_name": "SessionStart"}
    reply(fire(repo, "claude-code", start))
    settled(repo)
    return repo


@pytest.fixture
def repo(templates: dict[str, Path], tmp_path: Path) -> GitRepo:
    return installed(templates, "green", tmp_path)


def test_post_events_are_the_adapters_post_tool_events() -> None:
    for agent in AGENTS:
        kinds = adapter(agent).KINDS
        assert set(quick.POST_EVENTS[agent]) == {k for k, v in kinds.items() if v == POST_WRITE}
    assert set(quick.POST_EVENTS) == set(AGENTS)


def test_the_fast_path_imports_nothing_of_tddgit_but_itself(repo: GitRepo) -> None:
    loaded = loaded_modules(repo.root, ["agent", "hook", "claude-code"], json.dumps(post(repo)))
    assert loaded.code == 0, loaded.stderr
    ours = [m for m in loaded.modules if m.startswith("tddgit")]
    assert sorted(ours) == [
        "tddgit",
        "tddgit.__main__",
        "tddgit.guard",
        "tddgit.guard.quick",
        "tddgit.guard.quickjson",  # the payload's reader, stdlib only
    ]


# untracked and protected (the agent's hook configuration): never free, so its stat counts
GUARDED = ".claude/settings.json"


def _same_size_change(repo: GitRepo, name: str = GUARDED) -> None:
    path = repo.root / name
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.swapcase())  # the same size, and the old mtime put back
    assert path.read_bytes() != data
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


CHANGES = {
    "same size, same mtime": _same_size_change,
    "a new untracked file": lambda r: (r.root / "more.md").write_text("x\n"),
    "a deleted tracked file": lambda r: (r.root / "calc.py").unlink(),
    "a deleted untracked file": lambda r: (r.root / "notes.md").unlink(),
    "a staged change": lambda r: r.git("add", "notes.md"),
    "a chmod of a tracked file": lambda r: (r.root / "calc.py").chmod(0o755),
    "a chmod of an untracked file": lambda r: (r.root / GUARDED).chmod(0o600),
    "a commit": lambda r: r.git("commit", "-q", "--allow-empty", "-m", "x", "--no-verify"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_goes_to_the_full_check(repo: GitRepo, change: str) -> None:
    CHANGES[change](repo)
    assert not fast(repo)


def test_a_file_changed_back_goes_to_the_full_check(repo: GitRepo) -> None:
    """calc.py modified and accepted (a refactor), then put back to HEAD's content by hand:
    git status no longer lists it, the record does."""
    head = (repo.root / "calc.py").read_text()
    (repo.root / "calc.py").write_text(head.replace("return a + b", "return b + a"))
    settled(repo)
    (repo.root / "calc.py").write_text(head)
    assert not fast(repo)
    assert full_check(repo) == {}
    assert fast(repo)


def test_a_file_changed_in_the_records_clock_tick_is_not_trusted(repo: GitRepo) -> None:
    """git's racy-clean rule: a file not older than the record could change again within
    the same tick keeping size and times, so its stat proves nothing."""
    record = Path(quick.record_path(str(repo.root / ".git/tddgit/guard"), str(repo.root)))
    assert record.is_file()
    guarded = (repo.root / GUARDED).stat()
    os.utime(record, ns=(guarded.st_mtime_ns, guarded.st_mtime_ns))
    assert not fast(repo)


def test_a_pre_write_snapshot_in_flight_goes_to_the_full_check(repo: GitRepo) -> None:
    pre = {
        "session_id": "other",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo.root / "calc.py")},
    }
    assert reply(fire(repo, "claude-code", pre)) == {}
    assert not fast(repo)


def test_a_shell_write_after_a_fast_answer_is_still_put_back(repo: GitRepo) -> None:
    """Through the installed hook: fast when nothing changed, the full check (and its
    revert) the moment production code changes."""
    assert reply(fire(repo, "claude-code", post(repo))) == {}
    before = (repo.root / "calc.py").read_text()
    breaking = "sed -i 's/return a + b/return a + b + 1/' calc.py"
    subprocess.run(["bash", "-c", breaking], cwd=repo.root, check=True)
    out = reply(fire(repo, "claude-code", post(repo, breaking)))
    assert out.get("decision") == "block", out
    assert (repo.root / "calc.py").read_text() == before
    time.sleep(0.02)
    assert reply(fire(repo, "claude-code", post(repo))) == {}


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"[]",
        b'{"hook_event_name": "PostToolUse", "cwd": 3}',
        b'{"hook_event_name": "PostToolUse" "cwd": "/"}',
        b'{"hook_event_name": "PostToolUse", "x": NaN, "cwd": "/"}',
        b'{"hook_event_name": "PreToolUse", "cwd": "/"}',
    ],
)
def test_payloads_it_cannot_read_go_to_the_full_check(raw: bytes) -> None:
    assert not quick.answer("claude-code", raw)


def test_the_payload_reader_agrees_with_json() -> None:
    payload = {
        "cwd": '/tmp/a "b" \\ é \u2028',
        "hook_event_name": "PostToolUse",
        "tool_input": {"command": 'x "}" ]', "n": [1, 2.5e3, -3, None, True, {"a": "}"}]},
        "n": -0.5,
        "flag": False,
    }
    raw = json.dumps(payload).encode()
    strings = {k: v for k, v in payload.items() if isinstance(v, str)}
    assert quickjson.top_strings(raw) == strings
    assert (
        quickjson.top_strings(json.dumps(payload, indent=2, ensure_ascii=False).encode()) == strings
    )

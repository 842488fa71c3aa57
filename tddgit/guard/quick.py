"""The tree check's fast path: "nothing changed since the guard last accepted the tree",
answered before click, yaml or the rest of tddgit is imported.

Most of an agent's tool calls change nothing (reads, searches, test runs), yet each fires
the post-tool hook. Whenever the full check (``aftertool.check_tree``) leaves the tree with
nothing outstanding — every change accepted, none put back, none left to another session —
it records here, beside its ledger, the exact output of the one ``git status`` both run and
the stat (size, mtime, ctime, inode, mode, device) of every path that output lists. The
fast path runs the same ``git status`` and stats the same paths: when every byte and every
number is the same, the full check would find nothing new either, and the answer is the
agents' "allow" (silence, exit 0). git's index stat cache vouches for the paths it does not
list (clean, so at HEAD's content, which is what the guard accepts for them).

A listed path the full check found *free* is the exception: one whose every change it keeps
whatever the content, for as long as HEAD, the index and the configuration stay as they are
(``aftertool.free_paths``: not code, a test file with no red open, production code while a
red is open). Its stat is not compared, so an agent editing notes, tests or the open red's
code keeps getting the fast answer. The ledger is left as it was: the next full check sees
the change and keeps it then (the verdict cannot differ). The configuration files of the
top (``CONFIG_FILES``) are stat-ed with the listed paths, so a change to them (ignored by
git, say) falls through.

Anything else falls through to the full check, which records a new state when it can: no
record, another status (a new, deleted, staged or chmod-ed file, HEAD moved), another stat,
a listed file whose mtime or ctime is not older than the record (git's "racily clean" rule:
a write within the same clock tick can keep every number), a file on another device than
the record (another clock granularity), a pre-write snapshot or a deferred change of any
session, an environment that redirects git, or a payload this reader does not take.

Stdlib only, and its cheap parts: no ``json`` (its decoder imports ``re``), no
``subprocess`` (``threading``, ``selectors``), no ``hashlib``.
"""

from __future__ import annotations

import os
import sys

from tddgit.guard.quickjson import top_strings

# Shared with the full check (tree.status): the fast path compares this exact output.
STATUS = (
    "-c",
    "core.quotepath=off",
    "status",
    "--porcelain=v2",
    "-z",
    "--branch",  # "# branch.oid": a commit or a checkout moves HEAD
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=all",
)
MAGIC = b"tddgit-guard-quick 2\n"
# what decides whether a path is free (config.find_config_file's sources at the top)
CONFIG_FILES = (b".tddgit.yaml", b".tddgit.yml", b"pyproject.toml")
# the post-tool events of each agent (tests/guard/test_quick.py holds them to the adapters)
POST_EVENTS = {
    "claude-code": ("PostToolUse", "PostToolUseFailure"),
    "codex": ("PostToolUse",),
    "gemini": ("AfterTool",),
    "cursor": ("postToolUse", "afterShellExecution", "afterFileEdit"),
}
# set to force the full check (tests compare both; a person can rule the fast path out)
FULL_ENV = "TDDGIT_GUARD_FULL"
CRASH_ENV = "TDDGIT_HOOK_TEST_CRASH"  # the hooks' test seam (= tddgit.hooks.dispatch's)
# a redirected repository, or the crash seam of the full path: the full path handles them
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")
_OUTSTANDING = (".blob", ".pending")  # a pre-write snapshot, a deferred change
# The fast path's git status, handed to the full check in the same process when no guard
# check has written the ledger since (one git status per hook call, not two): (work tree,
# the ledger's stat before the status ran, the output).
_handed: tuple[str, tuple[int, int, int], bytes] | None = None
# The repository as the fast path found it, for the full check in the same process (no
# `git rev-parse`): (the payload's cwd, work tree, git dir, common git dir, HEAD or None).
_found: tuple[str, str, str, str, str | None] | None = None


def answer(agent: str, raw: bytes) -> bool:
    """True when the event is a post-tool event and nothing changed since the full check
    last accepted the tree (the reply is silence, exit 0); False: run the full check."""
    if os.environ.get(FULL_ENV) or os.environ.get(CRASH_ENV):
        return False
    if any(os.environ.get(name) for name in _GIT_ENV):
        return False
    try:
        top = top_strings(raw)
    except (ValueError, IndexError):
        return False
    if top is None or top.get("hook_event_name") not in POST_EVENTS.get(agent, ()):
        return False
    cwd = top.get("cwd")
    if not cwd or not os.path.isdir(cwd):
        return False
    found = work_tree(cwd)
    if found is None:
        return False
    root, git_dir, common = found
    guard = os.path.join(common, "tddgit", "guard")
    if outstanding(guard):
        return False
    record = read_record(record_path(guard, root))
    if record is None:
        return False
    recorded_root, free, stats, status_out, when, device = record
    if recorded_root != root.encode("utf-8", "surrogateescape"):
        return False
    global _handed, _found
    before = ledger_stat(guard, root)
    out = git_status(root)
    if out is not None and before is not None:
        _handed = (root, before, out)
    if out is not None:
        _found = (cwd, root, git_dir, common, _head(out))
    if out is None or out != status_out:
        return False
    if stat_line(root, [*listed(out), *CONFIG_FILES], when, device, free) != stats:
        return False
    session = top.get("conversation_id" if agent == "cursor" else "session_id")
    if session:
        end_call(guard, session)
    return True


def record_path(guard: str, root: str) -> str:
    """One record per work tree, keyed as the ledger is (tree.ledger_path)."""
    import zlib

    return os.path.join(guard, f"quick-{zlib.crc32(root.encode('utf-8', 'surrogateescape')):08x}")


def ledger_stat(guard: str, root: str) -> tuple[int, int, int] | None:
    """The ledger's (inode, mtime, size): every guard check that changes the tree saves
    the ledger after, through a new file (os.replace), so an equal stat means none did."""
    name = os.path.basename(record_path(guard, root)).replace("quick-", "tree-") + ".json"
    try:
        st = os.stat(os.path.join(guard, name))
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def handed_over(guard: str, root: str) -> bytes | None:
    """The fast path's git status output, when no guard check saved the ledger since it
    ran (the caller holds the ledger lock); taken once."""
    global _handed
    handed, _handed = _handed, None
    if handed is None or handed[0] != root or handed[1] != ledger_stat(guard, root):
        return None
    return handed[2]


def found(cwd: str | None) -> tuple[str, str, str, str | None] | None:
    """(work tree, git dir, common git dir, HEAD) of ``cwd`` as the fast path found them
    (HEAD from its ``git status``: the state the full check then judges); taken once."""
    global _found
    seen, _found = _found, None
    if seen is None or seen[0] != cwd:
        return None
    return seen[1:]


def _head(out: bytes) -> str | None:
    """HEAD's commit from the ``# branch.oid`` line (None: an unborn branch)."""
    first = out.split(b"\0", 1)[0]
    oid = first[len(b"# branch.oid ") :] if first.startswith(b"# branch.oid ") else b""
    return oid.decode("ascii") if oid and oid != b"(initial)" else None


def work_tree(cwd: str) -> tuple[str, str, str] | None:
    """(top of the work tree, git dir, common git dir) for ``cwd``, found as git finds
    them; None when it takes more than looking for ``.git`` upwards."""
    here = os.path.realpath(cwd)
    while True:
        if os.path.basename(here) == ".git":
            return None  # inside a git dir: git's answer differs
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            return (here, dot, dot) if os.path.isfile(os.path.join(dot, "HEAD")) else None
        if os.path.isfile(dot):
            return _linked(here, dot)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _linked(root: str, dot: str) -> tuple[str, str, str] | None:
    """A linked work tree (or a submodule): ``.git`` is a file naming its git dir."""
    try:
        with open(dot, encoding="utf-8") as fh:
            line = fh.readline().strip()
    except (OSError, UnicodeError):
        return None
    if not line.startswith("gitdir: "):
        return None
    git_dir = os.path.realpath(os.path.join(root, line[len("gitdir: ") :]))
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.normpath(os.path.join(git_dir, fh.read().strip()))
    except FileNotFoundError:
        common = git_dir
    except (OSError, UnicodeError):
        return None
    return root, git_dir, os.path.realpath(common)


def outstanding(guard: str) -> bool:
    """Whether any session has a pre-write snapshot or a deferred change: the full check
    has work to do with those even when nothing changed."""
    try:
        sessions = [e.path for e in os.scandir(guard) if e.is_dir(follow_symlinks=False)]
        for path in sessions:
            if any(e.name.endswith(_OUTSTANDING) for e in os.scandir(path)):
                return True
    except OSError:
        return True
    return False


def git_status(root: str) -> bytes | None:
    """``git status`` (STATUS) in ``root``: its output, None when it failed."""
    read_fd, write_fd = os.pipe()
    try:
        null = os.open(os.devnull, os.O_RDWR)
        try:
            pid = os.posix_spawnp(
                "git",
                ["git", "-C", root, *STATUS],
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, write_fd, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                    (os.POSIX_SPAWN_CLOSE, read_fd),
                ],
            )
        finally:
            os.close(null)
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    os.close(write_fd)
    chunks = []
    with os.fdopen(read_fd, "rb") as fh:
        while chunk := fh.read(1 << 16):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def listed(out: bytes) -> list[bytes]:
    """The paths a porcelain v2 ``-z`` output lists (as tree.status reads them)."""
    paths = []
    for record in out.split(b"\0"):
        if record[:2] == b"1 ":
            paths.append(record.split(b" ", 8)[8])
        elif record[:2] == b"u ":
            paths.append(record.split(b" ", 10)[10])
        elif record[:2] in (b"? ", b"2 "):
            paths.append(record[2:])  # "2 ": renames are off; never trusted below
    return paths


def stat_line(
    root: str, paths: list[bytes], when: int, device: int, free: frozenset[int] = frozenset()
) -> bytes | None:
    """The paths' stats as one line; None when one is racy (not older than ``when``, the
    record's own mtime) or on another device than the record. The paths at the ``free``
    positions are not looked at: any change of them is kept."""
    base = root.encode("utf-8", "surrogateescape")
    parts = []
    for i, rel in enumerate(paths):
        if i in free:
            parts.append(b"*")
            continue
        try:
            st = os.lstat(os.path.join(base, rel))
        except FileNotFoundError:
            parts.append(b"-")
            continue
        except OSError:
            return None
        if st.st_mtime_ns >= when or st.st_ctime_ns >= when or st.st_dev != device:
            return None
        parts.append(
            b"%d,%d,%d,%d,%d" % (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)
        )
    return b" ".join(parts)


def read_record(path: str) -> tuple[bytes, frozenset[int], bytes, bytes, int, int] | None:
    """(root, the free positions, stat line, status output, the record's mtime, its
    device)."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    root, nl, rest = data[len(MAGIC) :].partition(b"\n")
    free_line, nl1, rest = rest.partition(b"\n")
    stats, nl2, status_out = rest.partition(b"\n")
    if not nl or not nl1 or not nl2:
        return None
    try:
        free = frozenset(int(i) for i in free_line.split())
    except ValueError:
        return None
    return root, free, stats, status_out, st.st_mtime_ns, st.st_dev


def write_record(
    guard: str, root: str, status_out: bytes, stats: bytes, free: frozenset[int] = frozenset()
) -> None:
    """Record the accepted tree (written whole or not at all); its mtime, taken by the
    file system after the stats, is the line the racy rule draws. ``free``: the positions
    (in ``listed(status_out)``) of the paths whose changes are all kept."""
    base = root.encode("utf-8", "surrogateescape")
    if b"\n" in base or b"\n" in stats:
        return
    path = record_path(guard, root)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as fh:
        free_line = b" ".join(b"%d" % i for i in sorted(free))
        fh.write(MAGIC + base + b"\n" + free_line + b"\n" + stats + b"\n" + status_out)
    os.replace(tmp, path)


def call_marker(guard: str, session: str) -> str:
    """Where a session's running tool call is recorded (inflight.py); the session id is in
    the file, telling crc32 collisions apart."""
    import zlib

    key = zlib.crc32(session.encode("utf-8", "surrogateescape"))
    return os.path.join(guard, f"call-{key:08x}")


def end_call(guard: str, session: str) -> None:
    """The session's tool call is over: it claims no change any more (inflight.py)."""
    path = call_marker(guard, session)
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read().partition("\n")[2] == session:
                os.unlink(path)
    except (OSError, UnicodeError):
        pass


def forget(guard: str, root: str) -> None:
    try:
        os.unlink(record_path(guard, root))
    except FileNotFoundError:
        pass


def main(agent: str) -> int:
    """The hook: answered here when nothing changed, else by the full check (dispatch)."""
    raw = sys.stdin.buffer.read()
    if answer(agent, raw):
        return 0
    from tddgit.guard.dispatch import main as full

    return full(agent, raw)

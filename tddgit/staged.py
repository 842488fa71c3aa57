"""The staged change: exactly the tree being committed, and how it differs from HEAD.

``git write-tree`` honours ``GIT_INDEX_FILE``, so inside ``git commit -a`` (where the index
being committed is ``.git/index.lock``) we judge the right tree. Nothing here writes to the
work tree or the index; write-tree only adds tree objects to the object store.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tddgit.errors import GitError, UsageError
from tddgit.git import EMPTY_TREE, Repo, zsplit
from tddgit.model import FileChange
from tddgit.paths import Classifier, Kind


@dataclass(frozen=True)
class StagedChange:
    """The tree to commit, its base (HEAD's tree) and the files between them."""

    tree: str
    head: str | None
    base_tree: str
    files: tuple[FileChange, ...]
    kinds: dict[str, Kind]  # path -> kind, for every changed path

    def paths(self, kind: Kind, *, include_deleted: bool = True) -> list[str]:
        return [
            f.path
            for f in self.files
            if self.kinds[f.path] is kind and (include_deleted or f.status != "D")
        ]

    @property
    def touches_tests(self) -> bool:
        return any(k is Kind.TEST for k in self.kinds.values())

    @property
    def touches_production(self) -> bool:
        return any(k is Kind.PRODUCTION for k in self.kinds.values())

    def summary(self) -> dict[str, list[str]]:
        return {k.value: self.paths(k) for k in Kind}

    def within(self, owns: Callable[[str], bool]) -> StagedChange:
        """The same change cut down to the files ``owns`` accepts (one project's part)."""
        files = tuple(f for f in self.files if owns(f.path))
        return replace(self, files=files, kinds={f.path: self.kinds[f.path] for f in files})


def write_index_tree(repo: Repo) -> str:
    """The tree id of the index being committed (``$GIT_INDEX_FILE`` honoured).

    ``git write-tree`` locks the index it reads (to store its cache tree), so run on the
    user's index it fails beside any other git command (a second gate, an editor's
    `git status`) and rewrites a file of the user's. It runs on a private copy instead:
    the index is replaced atomically by git, so the copy is the old or the new one, whole.
    """
    import shutil

    with _index_copy() as copy:
        try:
            shutil.copyfile(repo.index_file(), copy)
        except FileNotFoundError:
            pass  # no index yet: git reads a missing file as an empty index
        except OSError as exc:
            raise UsageError(f"cannot read the index: {exc}", "check `git status`") from exc
        proc = repo.run("write-tree", env={**os.environ, "GIT_INDEX_FILE": str(copy)}, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        if "unmerged" in err or "conflict" in err.lower():
            raise UsageError(
                "the index has unresolved merge conflicts",
                "resolve them and `git add` the files first",
            )
        raise UsageError(f"cannot read the index: {err.strip()[:200]}", "check `git status`")
    return proc.stdout.decode().strip()


@contextlib.contextmanager
def _index_copy() -> Iterator[Path]:
    """A private path for a copy of the index (git writes ``PATH.lock`` beside it), removed
    on exit: a file in this process's scratch directory (``tddgit.snapshot``), which is
    private already; elsewhere a directory of its own. A file, where it can be: removing
    a directory may wait on the file system's journal (0.2-4 ms on ext4, tens of ms under
    I/O load), and a gate does this while its tests run (issue 29)."""
    import tempfile

    from tddgit.snapshot import in_scratch

    if not in_scratch():
        with tempfile.TemporaryDirectory(prefix="tddgit-index-") as tmp:
            yield Path(tmp) / "index"
        return
    # Not made here: a missing copy is how git reads a repository without an index yet.
    name = os.path.join(tempfile.gettempdir(), f"index-{os.urandom(6).hex()}")
    try:
        yield Path(name)
    finally:
        for path in (name, f"{name}.lock"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _head_and_tree(repo: Repo, rev: str = "HEAD") -> tuple[str | None, str]:
    """``rev``'s commit and tree in one git call; (None, empty tree) when there is none (an
    unborn branch, the parent of a root commit)."""
    proc = repo.run("rev-parse", f"{rev}^{{commit}}", f"{rev}^{{tree}}", check=False)
    lines = proc.stdout.decode().split()
    if proc.returncode != 0 or len(lines) != 2:
        return None, EMPTY_TREE
    return lines[0], lines[1]


def tree_of(repo: Repo, commit: str | None) -> str:
    if commit is None:
        return EMPTY_TREE
    return repo.git("rev-parse", f"{commit}^{{tree}}").strip()


def diff_trees(repo: Repo, old: str, new: str, paths: Iterable[str] = ()) -> list[FileChange]:
    """Files that differ between two trees, with rename detection (``-z``: any name)."""
    out = repo.run(
        "diff-tree", "-r", "-z", "--no-commit-id", "--name-status", "-M", old, new, "--", *paths
    ).stdout.decode("utf-8", "surrogateescape")
    fields = zsplit(out)
    changes: list[FileChange] = []
    i = 0
    while i < len(fields):
        status = fields[i]
        letter = status[:1]
        if letter in ("R", "C"):
            changes.append(FileChange(letter, fields[i + 2], fields[i + 1]))
            i += 3
        else:
            changes.append(FileChange(letter, fields[i + 1]))
            i += 2
    return changes


def staged_change(
    repo: Repo,
    classifier: Classifier,
    *,
    amend: bool = False,
    head: tuple[str | None, str] | None = None,
) -> StagedChange:
    """The index against HEAD, or against HEAD's first parent for a commit that will
    replace HEAD (``git commit --amend``). ``head``: HEAD's commit and tree as the caller
    read them already (``find_repo_at_head``; not used for ``amend``)."""
    if head is not None and not amend:
        tree = write_index_tree(repo)
        return _change(repo, classifier, tree, *head)
    # The two git calls do not depend on each other: one round trip, not two, before a
    # gate can start its tests.
    found: list[tuple[str | None, str]] = []
    rev = "HEAD^1" if amend else "HEAD"
    thread = threading.Thread(target=lambda: found.append(_head_and_tree(repo, rev)))
    thread.start()
    try:
        tree = write_index_tree(repo)
    finally:
        thread.join()
    return _change(repo, classifier, tree, *(found[0] if found else _head_and_tree(repo, rev)))


def _change(
    repo: Repo, classifier: Classifier, tree: str, head: str | None, base: str
) -> StagedChange:
    files = tuple(diff_trees(repo, base, tree))
    kinds = {f.path: classifier.kind(f.path) for f in files}
    return StagedChange(tree=tree, head=head, base_tree=base, files=files, kinds=kinds)


class DirtyScan:
    """Tracked files whose work-tree content differs from the index, and untracked files
    that are not ignored: what could make a run in the work tree disagree with the index.

    Both git calls start at construction and run while the caller does other work (the
    gate reads the staged tree meanwhile); ``paths()`` collects them, ``close()`` reaps."""

    _ARGS = (
        ("diff-files", "-z", "--name-only"),
        ("ls-files", "-z", "--others", "--exclude-standard"),
    )

    def __init__(self, repo: Repo) -> None:
        self._procs = [
            subprocess.Popen(
                ["git", *args],
                cwd=repo.root,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for args in self._ARGS
        ]
        self._paths: list[str] | None = None

    def paths(self) -> list[str]:
        if self._paths is None:
            found: set[str] = set()
            for args, proc in zip(self._ARGS, self._procs, strict=True):
                out, err = proc.communicate()
                if proc.returncode != 0:
                    msg = err.decode("utf-8", "replace").strip().splitlines()
                    raise GitError(f"git {args[0]} failed: {msg[-1] if msg else proc.returncode}")
                found.update(zsplit(out.decode("utf-8", "surrogateescape")))
            self._paths = sorted(found)
        return self._paths

    def close(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


def read_blob(repo: Repo, tree: str, path: str) -> bytes | None:
    """The content of ``path`` in ``tree``, or None when it is not there."""
    proc = repo.run("cat-file", "blob", f"{tree}:{path}", check=False)
    return proc.stdout if proc.returncode == 0 else None


def base_blob(repo: Repo, change: StagedChange, f: FileChange) -> bytes | None:
    """``f``'s content before the change; None for a file the change adds (known from
    the diff: no git call, as none can find it)."""
    if f.status == "A":
        return None
    return read_blob(repo, change.base_tree, f.old_path or f.path)


def read_blobs(repo: Repo, names: Sequence[tuple[str, str]]) -> list[bytes | None]:
    """``read_blob`` of many (tree, path) pairs, through one ``git cat-file``."""
    import sys

    from tddgit.blobs import BlobReader

    with BlobReader(repo, probe=False) as reader:
        return list(reader.read_many(names, limit=sys.maxsize))


def work_tree_tree(repo: Repo) -> str | None:
    """The work tree as a tree object, the user's uncommitted and untracked (not ignored)
    files included: a private copy of the index, ``git add -A``, ``git write-tree``. The
    user's index and files are never touched; only objects are added to the store. None
    when git cannot (a conflicted index)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tddgit-index-") as tmp:
        copy = Path(tmp) / "index"
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(repo.index_file(), copy)
        env = {**os.environ, "GIT_INDEX_FILE": str(copy)}
        if repo.run("add", "-A", env=env, check=False).returncode != 0:
            return None
        proc = repo.run("write-tree", env=env, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None

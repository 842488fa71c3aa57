"""Does a change add real production code, or only stubs? (``pre-test-code``.)

The check (``tddgit.audit.rules.check_pre_test_code``) only collects candidates; the
``StubJudge`` judges them in batches, their blobs read in one pipelined read, during the
pass or at its end (``resolve``), and keeps each answer for the next audit
(``tddgit.audit.answercache``). It also holds the other checks' work that waits for the
end of the pass (``later``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tddgit.audit.answercache import AnswerCache, question
from tddgit.audit.checkview import finding
from tddgit.audit.model import Finding
from tddgit.model import Commit, FileChange

if TYPE_CHECKING:
    from tddgit.blobs import BlobReader


class Deferred(Protocol):
    """A check's work that waits for the end of the pass (to read blobs in one batch)."""

    def resolve(self) -> list[Finding]: ...


STUB_BATCH = 256
# Files of the pending candidates at most: their blobs (old and new, up to 512 KB each)
# are held together while the batch is judged, and one reformat of a big project touches
# thousands (peak RSS, issue 27 item 9).
STUB_BATCH_FILES = 512
# Outside a red, a modified file up to this size is judged for stubs (a version string, a
# declaration); a longer one that adds code is code: parsing every long module of a real
# history would break the audit's speed budget.
STUB_JUDGED_BYTES = 30_000  # stub candidates judged together (one pipelined read of their blobs)


class StubJudge:
    """Does a change add real production code, or only stubs? (Python files by AST, JS/TS
    by the detectors' tokenizer.)

    Judging needs file contents, so candidates are collected during the pass and judged
    together at the end (``resolve``), their blobs read in one pipelined batch.
    """

    def __init__(self, blobs: BlobReader, answers: AnswerCache | None = None) -> None:
        self.blobs = blobs
        # answers of earlier audits (tddgit.audit.answercache): a judged change is not read
        self.answers = answers if answers is not None else AnswerCache(None)
        # (commit, changed files, where, files it deleted or renamed: code may move from them)
        self._pending: list[tuple[Commit, tuple[FileChange, ...], str, tuple[FileChange, ...]]] = []
        self._pending_files = 0  # the files of _pending's changes
        self.settled: list[Finding] = []  # findings of batches judged during the pass
        self._later: dict[str, Deferred] = {}

    def defer(
        self,
        commit: Commit,
        changes: tuple[FileChange, ...],
        where: str,
        gone: tuple[FileChange, ...] = (),
    ) -> None:
        """Judge ``changes`` later: with a batch of others, during the pass (their blob
        reads then overlap with git's stream; the findings wait in ``settled`` for the
        pass to take them), or at the end (``resolve``)."""
        self._pending.append((commit, changes, where, gone))
        self._pending_files += len(changes) + len(gone)
        if len(self._pending) >= STUB_BATCH or self._pending_files >= STUB_BATCH_FILES:
            self.settled += self._resolve_stubs()

    def later(self, key: str, make: Callable[[BlobReader], Deferred]) -> Deferred:
        """This audit's instance of another check's deferred work (made on first use)."""
        found = self._later.get(key)
        if found is None:
            found = self._later[key] = make(self.blobs)
        return found

    def resolve(self) -> list[Finding]:
        """The findings of all deferred work not yet taken: stubs first, then the other
        checks'."""
        out = self.settled + self._resolve_stubs()
        self.settled = []
        for work in self._later.values():
            out += work.resolve()
        self._later.clear()
        return out

    def _resolve_stubs(self) -> list[Finding]:
        """The ``pre-test-code`` findings of every deferred candidate."""
        answers = self.answers
        known: list[str | None] = []  # the first non-stub line of each ("": none)
        keys: list[str] = []
        wanted: list[tuple[str, str]] = []
        for c, changes, where, gone in self._pending:
            key = question("stubs", c.sha, where, *change_names(changes), "", *change_names(gone))
            keys.append(key)
            found = answers.get(key)
            known.append(found)
            if found is not None:
                continue
            for f in _judged(changes):
                wanted.append((c.sha, f.path))
                if c.parents and f.status in ("M", "R", "C", "T"):
                    wanted.append((c.parents[0], f.old_path or f.path))
            if c.parents:
                wanted += [(c.parents[0], f.old_path or f.path) for f in gone]
        blobs = dict(zip(wanted, self.blobs.read_many(wanted), strict=True))
        out = []
        for (c, changes, where, gone), key, found in zip(self._pending, keys, known, strict=True):
            if found is None:
                lines = _non_stub(c, changes, blobs, gone, where)
                answers.put(key, lines[0] if lines else "")
            else:
                lines = [found] if found else []
            if lines:
                out.append(
                    finding(
                        "pre-test-code",
                        c.sha,
                        f"{where} production code with no failing test: {lines[0]}",
                        files=tuple(f.path for f in changes),
                    )
                )
        self._pending.clear()
        self._pending_files = 0
        return out


def change_names(files: tuple[FileChange, ...]) -> list[str]:
    """The files of a question, as its key names them (status, old path, path)."""
    return [f"{f.status}:{f.old_path or ''}:{f.path}" for f in files]


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _is_js(path: str) -> bool:
    return path.endswith((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"))


def _judged(changes: tuple[FileChange, ...]) -> list[FileChange]:
    """The files of a change whose contents are read to judge it (all of them: whether a
    change adds code at all is read from any language's lines)."""
    return list(changes)


def _non_stub(
    c: Commit,
    changes: tuple[FileChange, ...],
    blobs: dict[tuple[str, str], bytes | None],
    gone: tuple[FileChange, ...] = (),
    where: str = "",
) -> list[str]:
    from tddgit.audit.changes import adds_code, lines_of, only_stubs
    from tddgit.audit.stubunits import non_stub_additions_py
    from tddgit.audit.typingonly import same_at_runtime
    from tddgit.blobs import as_text
    from tddgit.detectors.jsstubs import non_stub_additions_js

    # Lines the commit's other files had before: code moved between files is not new.
    elsewhere: set[str] = set()
    if c.parents and (gone or len(changes) > 1):
        for f in (*changes, *gone):
            if f.status != "A":
                elsewhere |= lines_of(as_text(blobs.get((c.parents[0], f.old_path or f.path))))
    for f in changes:
        is_js = _is_js(f.path)
        new = as_text(blobs.get((c.sha, f.path)))
        if new is None:
            return [f"{f.path}: unreadable or too large to judge"]
        old = None
        if c.parents and f.status in ("M", "R", "C", "T"):
            old = as_text(blobs.get((c.parents[0], f.old_path or f.path)))
        if not adds_code(old, new, f.path, elsewhere):
            continue  # deletions, comments, docstrings, annotations: no code added
        if not _is_python(f.path) and only_stubs(old, new):
            continue  # declarations and stubs, line by line (C#, Kotlin, Java, JS, Go ...)
        if not is_js and not _is_python(f.path):
            return [f"{f.path}: production code"]  # stubs are judged for Python and JS/TS
        if where == "adds" and f.status != "A" and len(new) > STUB_JUDGED_BYTES:
            lines = [f"{f.path}: production code"]
        else:
            with warnings.catch_warnings():  # old code's invalid escapes warn when parsed
                warnings.simplefilter("ignore")
                judge = non_stub_additions_js if is_js else non_stub_additions_py
                lines = judge(old, new, f.path)
        # Typing and exception chaining change no behaviour (a refactor): asked last, of
        # the files that would be found only (tddgit.audit.typingonly).
        if lines and not (not is_js and same_at_runtime(old, new, f.path)):
            return lines
    return []

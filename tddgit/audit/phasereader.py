"""The phase of each non-merge commit of the audit's pass (``tddgit.audit.engine``), and
the file reads that decide it.

A phase comes from the commit's ``GSD-Phase`` trailer, its message or its files
(``tddgit.audit.phases``). A commit that changes only tests is red when its tests check
something new (``tddgit.audit.changes``) and were not written after code that came just
before them; its scope is what they import. The answers are kept for the next audit
(``tddgit.audit.answercache``), and the texts read are served again to test-after-fact
(``text_of``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tddgit.audit.afterfact import placeholder
from tddgit.audit.answercache import MAX_VALUE, question
from tddgit.audit.importlines import pack, unpack
from tddgit.audit.imports import drives_app
from tddgit.audit.lineage import continues_green
from tddgit.audit.model import PHASES, CommitRecord
from tddgit.audit.naming import Key, imported_keys, module_key, production_key, test_key
from tddgit.audit.phases import (
    AGENT_KEY,
    TRAILER_KEY,
    leading_mark,
    match_message,
    reverted_commit,
    says_tests_after,
    trailer_phase,
)
from tddgit.audit.state import State, red_covers
from tddgit.blobs import as_text
from tddgit.model import Commit, FileChange

if TYPE_CHECKING:
    from collections.abc import Callable

    from tddgit.audit.answercache import AnswerCache
    from tddgit.audit.imports import ImportResolver
    from tddgit.blobs import BlobReader

# Commits with no phase looked back over for the code new tests were written after.
PREVIOUS_WINDOW = 3


def nearest_step(index: dict[str, int], steps: list[int], parents: tuple[str, ...]) -> int:
    """The nearest non-merge record on the line of ``parents[0]`` (-1: none); ``steps``
    holds it for each record (the engine's ``_fp_step``)."""
    at = index.get(parents[0]) if parents else None
    return -1 if at is None else steps[at]


class PhaseReader:
    """The phase of each commit the pass feeds it (``phase``), parents first."""

    def __init__(
        self,
        blobs: BlobReader,
        answers: AnswerCache,
        imports: ImportResolver,
        kind: Callable[[str], str],
        kinds: dict[str, str],
        records: list[CommitRecord],
        index: dict[str, int],
        fp_step: list[int],
    ) -> None:
        self._blobs = blobs
        self._read_text = blobs.text
        self._answers = answers  # the engine's (its StubJudge's): kept across audits
        self._imports = imports
        self._kind = kind  # the engine's classification of a path, cached in kinds
        self._kinds = kinds
        # the engine's records so far, sha -> position, and the nearest non-merge record
        # of each on its first parent's line (read by _tests_previous)
        self._records = records
        self._index = index
        self._fp_step = fp_step
        # the test files _test_only read for the commit being judged: test-after-fact
        # reads the same new test files again (sha, {path: text})
        self._texts: tuple[str, dict[str, str | None]] = ("", {})
        self.scope: frozenset[str] | None = None  # the scope of the red phase just found
        self.agents: dict[str, str] = {}  # sha -> the model its GSD-Agent trailer names

    def phase(
        self,
        c: Commit,
        subject: str,
        tests: tuple[FileChange, ...],
        prods: tuple[FileChange, ...],
        before: State,
    ) -> tuple[str | None, str, str | None, str | None]:
        """(phase, source, rule, attempt) of a non-merge commit."""
        if c.trailers:
            agent = c.trailer(AGENT_KEY)
            if agent:
                self.agents[c.sha] = agent.strip()
            declared = trailer_phase(c.trailer(TRAILER_KEY))
            if declared:
                return declared, "trailer", "trailer", None
        if reverted_commit(c.message):
            return None, "message", "revert", "revert"
        m = match_message(subject)
        if m is not None:
            if m.phase in PHASES:
                return m.phase, "message", m.rule, None
            if m.phase.startswith("tcr-"):
                return None, "message", m.rule, m.phase
            if m.phase == "red-if-tests" and any(f.status != "D" for f in tests):
                if prods:
                    return "red", "message", m.rule, None
                # a `test:` commit is red only when it checks something new
                judged = self._test_only(c, subject, tests)
                return ("red", "message", m.rule, None) if judged[0] == "red" else judged
            if m.phase == "green-if-red" and before.red is not None:
                return "green", "message", m.rule, None
        elif tests and not subject.isascii():
            mark = leading_mark(subject)
            if mark == "cross" and any(f.status != "D" for f in tests):
                return "red", "message", "cross-mark", None
            if mark == "check" and not prods and before.red is None:
                return None, "message", "test-after:message", None
        if tests and not prods and any(f.status != "D" for f in tests):
            return self._test_only(c, subject, tests)
        if prods and before.red is not None and red_covers(before, tuple(f.path for f in prods)):
            return "green", "files", "files:mixed" if tests else "files:production", None
        if prods and not tests and continues_green(before, tuple(f.path for f in prods)):
            return "green", "files", "files:green-continues", None
        return None, "none", None, None

    def _test_only(
        self, c: Commit, subject: str, tests: tuple[FileChange, ...]
    ) -> tuple[str | None, str, str | None, str | None]:
        """A commit that changes only tests: red when it adds or changes what they check
        and says nothing of tests written after the code (docs/audit.md)."""
        changed = [f for f in tests if f.status != "D"]
        # Whether the change adds test behaviour, answered by an earlier audit (then no
        # test file is read).
        key = question("tests", c.sha, *(f"{f.status}:{f.old_path or ''}:{f.path}" for f in tests))
        known = self._answers.get(key)  # "0", or "1" and the files' import lines
        if known == "0":
            self._texts = (c.sha, {})
            return None, "files", "files:tests-unchanged", None
        # what the rest reads of the texts: their import lines (tddgit.audit.importlines)
        texts = unpack(known[1:], [f.path for f in changed]) if known else None
        if texts is not None:
            self._texts = (c.sha, texts)
        else:  # "1" alone: it adds, but its import lines were too long to keep
            texts = self._judge_tests(c, tests, changed, key, known == "1")
            if texts is None:
                return None, "files", "files:tests-unchanged", None
        if says_tests_after(subject):
            return None, "message", "test-after:message", None
        if self._tests_previous(c, texts):
            return None, "files", "test-after:previous", None
        # its scope: what the tests import; none (any production) when they drive the
        # whole application through a test client or a browser
        self.scope = (
            frozenset()
            if any(drives_app(t) for t in texts.values())
            else frozenset().union(
                *(self._imports.resolve(p, t, self._is_production) for p, t in texts.items())
            )
        )
        return "red", "files", "files:test", None

    def _judge_tests(
        self,
        c: Commit,
        tests: tuple[FileChange, ...],
        changed: list[FileChange],
        key: str,
        adds: bool = False,
    ) -> dict[str, str | None] | None:
        """The changed test files' texts when the change adds test behaviour (``adds``:
        known to), else None; the answer is kept (with the import lines, when they are
        short enough) for the next audit."""
        wanted: list[tuple[str, str]] = []
        for f in changed:
            wanted.append((c.sha, f.path))
            if not adds and c.parents and f.status not in ("A", "C"):
                wanted.append((c.parents[0], f.old_path or f.path))
        blobs = dict(zip(wanted, self._blobs.read_many(wanted), strict=True))
        texts: dict[str, str | None] = {}
        self._texts = (c.sha, texts)
        versions: list[tuple[str, str | None, str | None]] = []
        for f in changed:
            new = as_text(blobs.get((c.sha, f.path)))
            texts[f.path] = new
            old = None
            if not adds and c.parents and f.status not in ("A", "C"):
                old = as_text(blobs.get((c.parents[0], f.old_path or f.path)))
            versions.append((f.path, old, new))
        if adds:
            # "1" alone was kept (import lines longer than an answer could be): keep them
            # now that they fit, so the next audit reads nothing
            self._answers.put(key, "1" + pack(texts))
            return texts
        # tests deleted in the same commit may have moved into the changed files
        for f in tests:
            if f.status == "D" and c.parents:
                wanted_old = as_text(self._blobs.read(c.parents[0], f.path))
                versions.append((f.path, wanted_old, ""))
        # imported here: a warm audit has every answer and never parses a test
        from tddgit.audit.changes import adds_test_behaviour_many

        if not adds_test_behaviour_many(versions):
            self._answers.put(key, "0")
            return None
        value = "1" + pack(texts)
        self._answers.put(key, value if len(value) <= MAX_VALUE else "1")
        return texts

    def text_of(self, sha: str, path: str) -> str | None:
        """A file's text at a commit, without reading again what ``_test_only`` read."""
        at, texts = self._texts
        if at == sha and path in texts:
            return texts[path]
        if self._kind(path) != "test":
            return self._read_text(sha, path)
        # A test file's text serves only its imports: kept as its import lines
        # (tddgit.audit.importlines) for the next audit, which then reads nothing.
        key = question("imports", sha, path)
        known = self._answers.get(key)
        found = unpack(known, [path]) if known is not None else None
        if found is not None:
            return found[path]
        text = self._read_text(sha, path)
        self._answers.put(key, pack({path: text}))
        return text

    def is_placeholder(self, sha: str, path: str) -> bool:
        """Is the file an empty placeholder at ``sha`` (``afterfact.placeholder``)? Kept
        for the next audit, which then reads no production file for it."""
        key = question("placeholder", sha, path)
        known = self._answers.get(key)
        if known is not None:
            return known == "1"
        empty = placeholder(self._read_text(sha, path))
        self._answers.put(key, "1" if empty else "0")
        return empty

    def resolve(self, path: str, text: str | None) -> frozenset[str]:
        return self._imports.resolve(path, text, self._is_production)

    def _is_production(self, path: str) -> bool:
        return (self._kinds.get(path) or self._kind(path)) == "production"

    def _tests_previous(self, c: Commit, texts: dict[str, str | None]) -> bool:
        """The tests import a module that one of the few commits just before (on the first
        parent's line, back to the last phase) changed with no phase: they were written
        after that code."""
        made: set[Key] = set()
        at = nearest_step(self._index, self._fp_step, c.parents)
        seen = 0
        while at >= 0 and seen < PREVIOUS_WINDOW:
            prev = self._records[at]  # no merge: merges are skipped by _fp_step
            if prev.phase is not None or prev.attempt is not None or prev.kind == "mixed":
                break  # a step, or code that came with its tests: the new tests are new
            seen += 1
            for f, k in zip(prev.files, prev.file_kinds, strict=True):
                if k == "production":
                    key = module_key(f.path)
                    if key is not None:
                        made.add(key)
            at = nearest_step(self._index, self._fp_step, prev.parents)
        if not made:
            return False
        for path, text in texts.items():
            family = (test_key(path) or production_key(path) or ("", ""))[1]
            if text and family and made & imported_keys(text, family):
                return True
        return False

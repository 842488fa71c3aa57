"""The detector rules in the audit: ``over-mocking`` and ``broad-assertion`` (``yagni``,
from the evidence notes, is in ``tddgit.audit.yagni`` and runs in every audit).

``over-mocking`` and ``broad-assertion`` are the static detectors of ``tddgit detect``
(``tddgit.detectors``) applied to every version of every test file in the history, and
reported at the commit where a test *first crosses* the threshold: the test is over in the
commit's version of the file and was not over (or did not exist) in its first parent's.
A test that stays over is not reported again; one that drops below and crosses again is.
They run only in audits with detectors on (``tddgit audit --detectors``).

Cost (PRODUCT.md §11). With detectors on, the audit reads the history with each file's
blob ids (``git log --raw``), so during the pass the check only notes the versions of the
test files a commit changes (its own and its parent's blob); at the end only blobs never
analysed before are read, through the audit's ``git cat-file`` processes, in two halves
split by path. Each blob is analysed once and the result kept by blob id in
``<git common dir>/tddgit/`` (``tddgit.audit.blobcache``), so a second audit reads almost
nothing. Analysing a blob is itself screened (``tddgit.audit.blobscan``): test functions
whose text cannot reach a threshold are left out of the parse.
Conftest fixtures are not followed in the audit (``tddgit detect`` follows them).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

# The commit rules' checks (yagni's last) are registered before these (``active_checks``).
import tddgit.audit.yagni  # noqa: F401
from tddgit.audit.blobcache import BlobCache, Hit
from tddgit.audit.blobscan import forget, hits_in
from tddgit.audit.checkview import CommitView, finding
from tddgit.audit.model import Finding
from tddgit.audit.parallel import in_two
from tddgit.audit.registry import DETECTORS, DetectorSettings, register_check
from tddgit.audit.stubjudge import StubJudge

if TYPE_CHECKING:
    from tddgit.blobs import BlobReader

_NONE: tuple[Finding, ...] = ()
_KEY = "test-detectors"
_PATH = itemgetter(1)


# --- over-mocking and broad-assertion, across versions of the test files ------------


def check_test_detectors(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    """Notes the test files the commit changes; judged at the end (``resolve``). The
    audit reads the history with blob ids when detectors are on (``Commit.blobs``)."""
    if v.tests:
        work = stubs.later(_KEY, _make_work)
        assert isinstance(work, TestDetectors)
        work.observe(v)
    return _NONE


def _make_work(blobs: BlobReader) -> TestDetectors:
    return TestDetectors(blobs, DETECTORS.get() or DetectorSettings())


class _Change(NamedTuple):  # one per version of a test file: a tuple is quick to make
    sha: str
    new: str  # the blob id of the test file's version
    old: str | None  # the blob id of the version before (None: an added file)
    path: str


class TestDetectors:
    """The deferred work of one audit: which test files changed where, then judged."""

    __test__ = False  # not a pytest test class

    def __init__(self, blobs: BlobReader, settings: DetectorSettings) -> None:
        from tddgit import __version__
        from tddgit.detectors import language_of

        self.blobs = blobs
        self.settings = settings
        self._language_of = language_of
        key = f"{__version__}|mocks={settings.max_mocks}|asserts={settings.max_asserts}"
        directory = blobs.repo.tddgit_dir if settings.use_cache else None
        self.cache = BlobCache(directory, key)
        self.changes: list[_Change] = []
        self._languages: dict[str, str | bool | None] = {}  # path -> its language, once

    def observe(self, v: CommitView) -> None:
        c = v.commit
        if len(c.files) == 1:  # most commits
            ids = {c.files[0]: c.blobs[0]} if c.blobs else {}
        else:
            ids = dict(zip(c.files, c.blobs, strict=False))
        languages = self._languages
        for f in v.tests:
            language = languages.get(f.path, False)
            if language is False:
                language = languages[f.path] = self._language_of(f.path)
            if f.status == "D" or language is None:
                continue
            new, old = ids.get(f) or (None, None)
            if new is not None:  # always, in a history read with blob ids
                self.changes.append(_Change(c.sha, new, old, f.path))

    def resolve(self) -> list[Finding]:
        if not self.changes:
            return []
        self.cache.load()
        changes = self.changes
        paths: dict[str, str] = {}
        for c in changes:
            if c.new and c.new not in paths:
                paths[c.new] = c.path
            if c.old and c.old not in paths:
                paths[c.old] = c.path
        cache = self.cache
        self._analyse([(b, p) for b, p in paths.items() if cache.get(b) is None])
        cache.save()
        forget()
        out = []
        for c in changes:
            hits = cache.get(c.new) if c.new else None
            if hits:  # most versions have no test over a threshold
                was = cache.get(c.old) if c.old else None
                out += self._crossings(c, hits, was or ())
        return out

    def _analyse(self, todo: list[tuple[str, str]]) -> None:
        # By path, so that the versions of one file go to the same process: most of a
        # version's tests are unchanged from the one before, and a process judges each
        # test's text once (``blobscan``). Split in history order, half its work was new.
        todo = sorted(todo, key=_PATH)
        for (blob, _), hits in zip(todo, in_two(todo, self._hits, self.blobs), strict=True):
            self.cache.put(blob, hits)

    def _hits(self, todo: Sequence[tuple[str, str]], blobs: BlobReader) -> list[tuple[Hit, ...]]:
        from tddgit.blobs import as_text

        out: list[tuple[Hit, ...]] = []
        for start in range(0, len(todo), 2048):  # a slice at a time: memory stays flat
            part = todo[start : start + 2048]
            contents = blobs.contents_many([b for b, _ in part])
            for (_, path), data in zip(part, contents, strict=True):
                text = as_text(data)
                out.append(hits_in(text, path, self.settings) if text else ())
        return out

    def _crossings(self, c: _Change, new: tuple[Hit, ...], old: tuple[Hit, ...]) -> list[Finding]:
        if not new:
            return []
        before = {(rule, test) for rule, test, _, _ in old}
        out, seen = [], set()
        for rule, test, count, message in new:
            if (rule, test) in before or (rule, test) in seen:
                continue
            seen.add((rule, test))
            out.append(self._finding(c, rule, test, count, message))
        return out

    def _finding(self, c: _Change, rule: str, test: str, count: int, message: str) -> Finding:
        s = self.settings
        threshold = s.max_mocks if rule == "over-mocking" else s.max_asserts
        test_id = f"{c.path}::{test}"
        return finding(
            rule,
            c.sha,
            f"{test_id}: {message}",
            files=(c.path,),
            data={"test": test_id, "file": c.path, "count": count, "threshold": threshold},
        )


register_check(check_test_detectors, detector=True)

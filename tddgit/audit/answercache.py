"""The audit's answers about file contents, kept across audits in the git dir (issue 27,
item 9: a second audit of the same history reads the log and this file, not the blobs).

The content questions (does a production change add code beyond stubs, does a test-only
change add test behaviour) are pure functions of the files' two versions. A commit id
names its tree, so (question, commit, the files asked about) names those versions
exactly and an answer keyed by them never goes stale; the key of the whole file holds
the tddgit version and a digest of the modules that compute the answers, so a changed
analysis starts from an empty cache instead of trusting old answers.

The file lives in ``<git common dir>/tddgit/`` (shared by worktrees), is written
atomically (temp file, then rename; entries another audit saved meanwhile are kept) and
read as untrusted input: anything that is not exactly the expected shape makes the whole
file ignored (and rewritten), never trusted in part. Size is bounded (``MAX_ENTRIES``,
the oldest half dropped beyond it).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

try:  # hashlib would load OpenSSL for it (~3 ms of every audit's start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

from tddgit.audit.blobcache import read_json, write_atomically

SCHEMA = "tddgit.audit-answers/1"
FILE_NAME = "audit-answers.json"
MAX_BYTES = 64 * 1024 * 1024  # a larger file is not ours: ignored
MAX_ENTRIES = 500_000  # ~25 MB of JSON at most; beyond it the oldest half is dropped
# A longer answer is not kept (recomputed). The import lines of a commit's test files
# reach tens of kilobytes on real histories (a test module with hundreds of imports, a
# commit touching dozens of test files): at 4096, 86 of pytest's commits were read and
# parsed again by every warm audit.
MAX_VALUE = 256 * 1024
_KEY = re.compile(r"[0-9a-f]{24}")
_KINDS = frozenset(("test", "production", "other"))  # tddgit.paths.Kind's values
MAX_CLASSIFIERS = 8  # kinds of paths kept for this many classifiers

# The modules whose code decides the cached answers: a change to any of them is a new
# analysis (the digest of their files is part of the file's key).
_ANALYSIS = (
    "tddgit.audit.addedlines",
    "tddgit.audit.afterfact",  # placeholder()
    "tddgit.audit.answercache",
    "tddgit.audit.changes",
    "tddgit.audit.engine",
    "tddgit.audit.importlines",
    "tddgit.audit.imports",
    "tddgit.audit.naming",
    "tddgit.audit.phasereader",
    "tddgit.audit.pycode",
    "tddgit.audit.pychunks",
    "tddgit.audit.pystmts",
    "tddgit.audit.pytestchecks",
    "tddgit.audit.stubunits",
    "tddgit.audit.rules",
    "tddgit.audit.stubjudge",
    "tddgit.audit.typingnorm",
    "tddgit.audit.typingonly",
    "tddgit.detectors.stubs",
    "tddgit.detectors.jsstubs",
    "tddgit.detectors.jstokens",
)


def question(*parts: str) -> str:
    """The key of one question (its kind, the commit, the files it is about)."""
    data = "\0".join(parts).encode("utf-8", "surrogateescape")
    return blake2b(data, digest_size=12).hexdigest()


class AnswerCache:
    """Question key -> answer text. ``directory`` None: nothing is read or kept."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / FILE_NAME if directory is not None else None
        self.entries: dict[str, str] = {}
        self.added: dict[str, str] = {}
        # the kind of each path of the history, per classifier (``kinds``)
        self.kinds_by: dict[str, dict[str, str]] = {}
        self._kinds_added: dict[str, dict[str, str]] = {}
        self._loaded = False
        self._key = ""

    def load(self) -> None:
        """Read the file now (else on the first ``get``)."""
        if not self._loaded:
            self._load()

    def get(self, key: str) -> str | None:
        if not self._loaded:
            self._load()
        return self.entries.get(key)

    def put(self, key: str, value: str) -> None:
        if self.path is not None and len(value) <= MAX_VALUE:
            self.entries[key] = value
            self.added[key] = value

    def kinds(self, of: str) -> dict[str, str]:
        """The kinds (``test``, ``production``, ``other``) an earlier audit gave the
        history's paths with the classifier ``of`` names (``classifier_digest``): a
        warm audit classifies only the paths that are new (pytest: 4,700 paths, 13 ms
        of globs against 1 ms to read them back)."""
        if not self._loaded:
            self._load()
        return self.kinds_by.get(of, {})

    def keep_kinds(self, of: str, kinds: dict[str, str]) -> None:
        """Keep ``kinds`` (paths the audit classified with ``of``) for the next audit."""
        if self.path is not None:
            self._kinds_added[of] = kinds

    def save(self) -> None:
        """Write the answers this audit added (with those already saved, re-read now: two
        audits of one repository keep both). Failures only cost the next run."""
        if self.path is None or not (self.added or self._kinds_added):
            return
        entries, kinds_by = _read_all(self.path, self.analysis())
        entries.update(self.added)
        if len(entries) > MAX_ENTRIES:  # dicts keep insertion order: keep the newest half
            entries = dict(list(entries.items())[-MAX_ENTRIES // 2 :])
        for of, kinds in self._kinds_added.items():
            kinds_by.pop(of, None)
            kinds_by[of] = kinds
        # a few classifiers (a monorepo's projects, a changed config): the newest kept
        kinds_by = dict(list(kinds_by.items())[-MAX_CLASSIFIERS:])
        while True:
            doc: dict[str, object] = {"schema": SCHEMA, "key": self.analysis(), "answers": entries}
            if kinds_by:
                doc["kinds"] = kinds_by
            text = json.dumps(doc, separators=(",", ":"))
            # a larger file would be ignored by the next audit: the oldest half goes
            if len(text) <= MAX_BYTES or len(entries) <= 1:
                break
            entries = dict(list(entries.items())[len(entries) // 2 :])
            kinds_by = {}
        with contextlib.suppress(OSError):
            write_atomically(self.path, text)
        self.added = {}
        self._kinds_added = {}

    def _load(self) -> None:
        self._loaded = True
        if self.path is not None:
            self.entries, self.kinds_by = _read_all(self.path, self.analysis())

    def analysis(self) -> str:
        if not self._key:
            self._key = analysis_key(_ANALYSIS)
        return self._key


def analysis_key(modules: Iterable[str]) -> str:
    """The tddgit version and a digest of the sources of ``modules``: what makes a
    cached answer valid. The sources are read, not imported: a warm audit never runs most
    of the analysis (the cold-only modules cost ~15 ms to import)."""
    import tddgit
    from tddgit import __version__

    digest = blake2b(digest_size=16)
    top = Path(tddgit.__file__).parent
    for name in modules:
        digest.update(name.encode())
        # the source, also beside a compiled module (rules.cpython-311-....so next to
        # rules.py): both builds give the same answers, so they share the cache
        source = top.joinpath(*name.split(".")[1:]).with_suffix(".py")
        with contextlib.suppress(OSError):
            digest.update(source.read_bytes() if source.is_file() else _compiled(name))
    return f"{__version__}|{digest.hexdigest()}"


def _compiled(name: str) -> bytes:
    """The file a module without its source beside it is loaded from (a build that ships
    compiled extensions only)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    return Path(origin).read_bytes() if origin else b""


def classifier_digest(classifier: object) -> str:
    """A name for what a classifier says of paths: its globs (its ``repr``, a frozen
    dataclass of tuples of strings) and the code that reads them."""
    digest = blake2b(repr(classifier).encode("utf-8", "surrogateescape"), digest_size=12)
    digest.update(analysis_key(("tddgit.paths",)).encode())
    return digest.hexdigest()


def _read_all(path: Path, key: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """(the answers, the kinds of paths per classifier) of the file, both empty for a
    file that is not exactly the expected shape."""
    doc = read_json(path, MAX_BYTES)
    answers = _validated(doc, key)
    if answers is None:
        return {}, {}
    kinds_by = doc.get("kinds", {})
    try:
        if not isinstance(kinds_by, dict) or not all(
            _KEY.fullmatch(of) and isinstance(kinds, dict) and _KINDS.issuperset(kinds.values())
            for of, kinds in kinds_by.items()
        ):
            return {}, {}
    except TypeError:  # a kind that is a list or an object
        return {}, {}
    return answers, kinds_by


def _validated(doc: Any, key: str) -> dict[str, str] | None:
    """The entries of a well-formed document for ``key``; None for anything else."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("key") != key:
        return None
    answers = doc.get("answers")
    if not isinstance(answers, dict):
        return None
    match = _KEY.fullmatch
    for k, v in answers.items():
        if match(k) is None or not isinstance(v, str) or len(v) > MAX_VALUE:
            return None
    return answers

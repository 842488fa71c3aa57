"""Analysing one test blob for the audit's detector rules (``over-mocking``,
``broad-assertion``): ``hits_in(text, path, settings)`` -> the blob's over-threshold hits.

Pure functions of a file's text and the thresholds, run once per never-seen blob id by
``tddgit.audit.detector_rules`` (and in a forked child for half of them). The results are
cached by blob id (``tddgit.audit.blobcache``), so they must depend on nothing else.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tddgit.audit.blobcache import Hit
from tddgit.audit.rules import DetectorSettings

# Parsing every version of every test file of a long history is the one thing here that
# would cost seconds, and most test functions are far below the thresholds. So a Python
# file is cut textually into its top-level statements; a test function whose text cannot
# reach a threshold is blanked out (its lines kept, empty) before the file is parsed, and
# a file with no test left is not parsed at all. What is parsed goes through the
# detector itself, so every reported count and message is the detector's own.
#
# "Cannot reach" is judged by upper bounds: every mock the detector counts is a call
# whose name (or an `as` alias) is one of _MOCK_WORDS; every assertion subject comes
# from an assert-like word or an `and`. A function that imports, defines a fixture, sits
# in a class, or whose assertions might be constant or absent is always parsed. (An
# assertion whose word appears only inside a string could be missed: a screen, stated.)

_MOCK_WORDS = (
    "patch|Mock|MagicMock|AsyncMock|NonCallableMock|NonCallableMagicMock|PropertyMock|"
    "create_autospec|spy|stub|async_stub|setattr|setitem|delattr|delitem"
)
_ASSERT_WORDS = re.compile(
    r"\b(?:assert\w*|check_\w*|expect\w*|raises|warns|deprecated_call|and)\b"
)
_HAS_ASSERT = re.compile(r"\b(?:assert\w*|check_\w*|expect\w*|raises|warns|deprecated_call|fail)\b")
_CONSTANT = re.compile(
    r"\bassert\w*\s*\(?\s*(?:[(\[{'\"\d.+\-~\\]|True\b|False\b|None\b|not\b|lambda\b|"
    r"[rRbBuUfF]{1,2}['\"]|$)",
    re.M,
)
_COMMENT = re.compile(r"#[^\n]*")
_TOP = re.compile(r"^(?=[^\s#)\]}])", re.M)  # a line that starts a top-level statement
_TEST_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(test\w*)", re.M)
_ALIAS = re.compile(r"\bas[ \t]+(\w+)")
_JS_MOCKS = re.compile(r"\b(?:jest|vi|sinon)\s*\.\s*(?:mock|doMock|fn|spyOn|stub|spy|fake)\b")


def hits_in(text: str, path: str, s: DetectorSettings) -> tuple[Hit, ...]:
    """The over-threshold findings of the tests in one test file's text."""
    from tddgit.detectors import language_of

    if language_of(path) == "js":
        return _js_hits(text, path, s)
    if "def test" not in text:
        return ()
    reduced = _screened(text, s)
    if reduced is None:
        return ()
    return _python_hits(reduced[0], reduced[1], text, path, s)


def _js_hits(text: str, path: str, s: DetectorSettings) -> tuple[Hit, ...]:
    if len(_JS_MOCKS.findall(text)) <= s.max_mocks:
        return ()  # no test can get more mocks than the whole file makes
    from tddgit.detectors.js import analyze_js

    found = analyze_js(text, path, max_mocks=s.max_mocks)
    return tuple((f.rule, f.test or "", f.count, f.message) for f in found if f.test)


def _units(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the top-level statements, decorators joined to their def."""
    starts = [m.start() for m in _TOP.finditer(text)]
    # a statement right after a decorator line is the def or class it decorates
    merged = [a for i, a in enumerate(starts) if not i or not text.startswith("@", starts[i - 1])]
    return list(zip(merged, [*merged[1:], len(text)], strict=True))


def _screened(text: str, s: DetectorSettings) -> tuple[str, list[str]] | None:
    """The text with the tests that cannot cross a threshold blanked out, and the names of
    the top-level tests left in; None when no test is left."""
    units = _units(text)
    tests: list[tuple[int, int, str]] = []
    context: list[str] = []
    for a, b in units:
        m = _TEST_DEF.search(text, a, b)
        unit = text[a:b]
        if m is not None and (m.start() == a or unit.startswith("@")) and _is_plain(unit):
            tests.append((a, b, m.group(1)))
        else:
            context.append(unit)
    aliases = {n for u in context for n in _ALIAS.findall(u) if "import" in u}
    mock_words = _mock_words(tuple(sorted(aliases)))
    shared = sum(
        len(mock_words.findall(u)) for u in context if not u.startswith(("from", "import"))
    )
    # Most test functions are unchanged from the file's previous version: judge each text
    # once per audit (valid while nothing outside the function can add mocks).
    seen = _SEEN.setdefault((s, mock_words.pattern), {}) if not shared else {}
    kept: list[str] = []
    parts: list[str] = []
    last = 0
    for a, b, name in tests:
        unit = text[a:b]
        crosses = seen.get(unit)
        if crosses is None:
            crosses = seen[unit] = _may_cross(unit, mock_words, shared, s)
        if crosses:
            kept.append(name)
        else:
            parts += [text[last:a], "\n" * unit.count("\n")]
            last = b
    if not kept and not any("def test" in u for u in context):
        return None  # every test is a plain function, none can cross
    parts.append(text[last:])
    return "".join(parts), kept


# Test function texts already judged, per (settings, mock words): see ``_screened``.
_SEEN: dict[tuple[DetectorSettings, str], dict[str, bool]] = {}


def forget() -> None:
    """Drop what this process remembers of judged test functions (once per audit: the
    texts of a whole history's test functions add up)."""
    _SEEN.clear()


@lru_cache(maxsize=64)
def _mock_words(aliases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{_MOCK_WORDS}{''.join('|' + a for a in aliases)})\b")


def _is_plain(unit: str) -> bool:
    """A top-level test function that no other test depends on (see the comment above)."""
    return "import" not in unit and "fixture" not in unit


def _may_cross(unit: str, mock_words: re.Pattern[str], shared: int, s: DetectorSettings) -> bool:
    if len(mock_words.findall(unit)) + shared > s.max_mocks:
        return True
    body = _COMMENT.sub("", unit.split("\n", 1)[1] if "\n" in unit else "")
    if _HAS_ASSERT.search(body) is None or _CONSTANT.search(body) is not None:
        return True  # maybe no assertion, or one on a constant
    return len(_ASSERT_WORDS.findall(body)) > s.max_asserts


def _python_hits(
    reduced: str, kept: list[str], text: str, path: str, s: DetectorSettings
) -> tuple[Hit, ...]:
    from tddgit.detectors.python import findings_for, test_metrics

    metrics = test_metrics(reduced, path, max_subjects=s.max_asserts)
    if any(name not in metrics for name in kept):
        # the cut went wrong (say, inside a string)
        metrics = test_metrics(text, path, max_subjects=s.max_asserts)
    out: list[Hit] = []
    for m in metrics.values():
        for f in findings_for(m, path, max_mocks=s.max_mocks, max_asserts=s.max_asserts):
            out.append((f.rule, f.test or m.name, f.count, f.message))
    return tuple(out)

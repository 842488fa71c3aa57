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
from tddgit.audit.registry import DetectorSettings

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
# (Each word's first letter comes before the look-behind for a word character ahead of it,
# in place of a leading \b: the regex engine then jumps from candidate letter to candidate
# letter instead of trying every position. Same matches, several times faster.)
_CONSTANT = re.compile(
    r"assert(?<!\wassert)\w*\s*\(?\s*(?:[(\[{'\"\d.+\-~\\]|True\b|False\b|None\b|not\b|lambda\b|"
    r"[rRbBuUfF]{1,2}['\"]|$)",
    re.M,
)
_COMMENT = re.compile(r"#[^\n]*")
_TOP = re.compile(r"^(?=[^\s#)\]}])", re.M)  # a line that starts a top-level statement
# One top-level statement: its first line and the lines after it that start no statement
# (indented, blank, comments, closing brackets), the next statement joined when the first
# is a decorator. The statements of a text follow each other with nothing in between.
_LINES = r"[^\n]*(?:\n|\Z)(?:(?=[\s#)\]}])[^\n]*(?:\n|\Z))*"
_UNIT = re.compile(rf"(?:@{_LINES})*(?=[^\s#)\]}}@]){_LINES}|(?:@{_LINES})+")
_TEST_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(test\w*)", re.M)
_ALIAS = re.compile(r"\bas[ \t]+(\w+)")
_DIGIT = re.compile(r"[0-9]")
_ZEROS = str.maketrans("123456789", "000000000")
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


def _units(text: str) -> tuple[str, list[str]]:
    """The text before the first top-level statement, and the texts of the top-level
    statements (decorators joined to their def) that follow it, end to end."""
    first = _TOP.search(text)
    if first is None:
        return text, []
    return text[: first.start()], _UNIT.findall(text, first.start())


def _screened(text: str, s: DetectorSettings) -> tuple[str, list[str]] | None:
    """The text with the tests that cannot cross a threshold blanked out, and the names of
    the top-level tests left in; None when no test is left."""
    head, units = _units(text)
    names = list(map(_KINDS.get, units))  # most statements were seen in an earlier version
    if None in names:
        names = [_kind(u) if n is None else n for u, n in zip(units, names, strict=True)]
    context = [u for u, n in zip(units, names, strict=True) if not n]
    tests = [u for u, n in zip(units, names, strict=True) if n]
    aliases = {n for u in context if "import" in u and "as" in u for n in _ALIAS.findall(u)}
    mock_words = _mock_words(tuple(sorted(aliases)))
    shared = sum(
        len(mock_words.findall(u)) for u in context if not u.startswith(("from", "import"))
    )
    # Most test functions are unchanged from the file's previous version: judge each text
    # once per audit (valid while nothing outside the function can add mocks).
    seen, alike = _SEEN.setdefault((s, mock_words.pattern), ({}, {})) if not shared else ({}, {})
    crosses = list(map(seen.get, tests))
    if None in crosses:
        crosses = [
            _judged(seen, alike, u, mock_words, shared, s) if c is None else c
            for u, c in zip(tests, crosses, strict=True)
        ]
    test_names = [n for n in names if n]
    if len(set(test_names)) < len(test_names):
        # A later `def` of the same name replaces the earlier one, as Python and pytest
        # read the module: keep every definition of a repeated name, so the detector sees
        # the last one as it does unscreened (blanking the later one made the earlier
        # one's mocks count).
        repeated = {n for n in test_names if test_names.count(n) > 1}
        crosses = [c or n in repeated for c, n in zip(crosses, test_names, strict=True)]
    if True not in crosses and not any("def test" in u for u in context):
        return None  # every test is a plain function, none can cross
    kept = [n for n, c in zip(filter(None, names), crosses, strict=True) if c]
    verdicts = iter(crosses)
    parts = [
        u if not n or next(verdicts) else "\n" * u.count("\n")
        for u, n in zip(units, names, strict=True)
    ]
    return head + "".join(parts), kept


def _kind(unit: str) -> str:
    name = _KINDS[unit] = _plain_test(unit)
    return name


def _judged(
    seen: dict[str, bool],
    alike: dict[str, bool],
    unit: str,
    mock_words: re.Pattern[str],
    shared: int,
    s: DetectorSettings,
) -> bool:
    """``_may_cross`` for a test text not judged before (``seen``), through ``alike``."""
    # Tests written from one template differ only in numbers (test_func_55, test_func_56):
    # with every ASCII digit made 0 they are one text. No word _may_cross looks for holds a
    # digit, and a digit stays a digit (\d, \w), so the verdict is the same for both texts;
    # an alias with a digit in it could start to match, hence the pattern check.
    if _DIGIT.search(mock_words.pattern) is not None:
        seen[unit] = crosses = _may_cross(unit, mock_words, shared, s)
        return crosses
    same = unit.translate(_ZEROS)
    known = alike.get(same)
    if known is None:
        known = alike[same] = _may_cross(same, mock_words, shared, s)
    seen[unit] = known
    return known


def _plain_test(unit: str) -> str:
    """The name of the test a top-level statement defines, when it is a plain test
    function (see ``_is_plain``); "" for anything else."""
    m = _TEST_DEF.search(unit)
    if m is not None and (m.start() == 0 or unit.startswith("@")) and _is_plain(unit):
        return m.group(1)
    return ""


# Test function texts already judged, per (settings, mock words), and what each
# top-level statement is (``_plain_test``): see ``_screened``.
# (``alike``: the same with every digit made 0, see ``_judged``.)
_SEEN: dict[tuple[DetectorSettings, str], tuple[dict[str, bool], dict[str, bool]]] = {}
_KINDS: dict[str, str] = {}


def forget() -> None:
    """Drop what this process remembers of judged test functions (once per audit: the
    texts of a whole history's test functions add up)."""
    _SEEN.clear()
    _KINDS.clear()


@lru_cache(maxsize=64)
def _mock_words(aliases: tuple[str, ...]) -> re.Pattern[str]:
    """Whole words that may name a mock (see the note at _CONSTANT on the look-behinds)."""
    words = "|".join(rf"{w[0]}(?<!\w.){w[1:]}" for w in (*_MOCK_WORDS.split("|"), *aliases))
    return re.compile(rf"(?:{words})(?!\w)")


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

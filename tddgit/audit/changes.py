"""What a change to one file does, read from its two versions (issue 27: read what
changed, not only which files).

- ``adds_code``: does a production change add code at all? Not when it only deletes, or
  only changes comments, docstrings or type annotations (Python by AST; every language by
  its added lines).
- ``adds_test_behaviour``: does a test change add or change what the tests check? A new
  test case, a changed expectation, a new failure; not a rename, formatting, lint, a
  helper extracted, a conflict resolved, tests converted to parametrize.

Both are deliberately simple and language-light: a reviewer's first glance, not a proof.
Only the evidence of a run proves anything (``--verify``).
"""

from __future__ import annotations

import re

from tddgit.audit.addedlines import added_lines, meaningful, squash
from tddgit.audit.pycode import same_code
from tddgit.audit.pytestchecks import analysed, analysed_all, judge
from tddgit.textmemo import text_memo

# Lines of other languages' tests that add a case or a check.
_TEST_LINE = re.compile(
    r"@Test\b|@ParameterizedTest|\[(?:Fact|Theory|Test|TestMethod|TestCase|InlineData)\b"
    r"|\bassert|\bAssert\.|\bexpect\s*\(|\.should|\bShould[A-Z]|\bfail\s*\("
    r"|\b(?:it|test|specify|describe)(?:\.each|\.only)?\s*\(\s*['\"`]|#\[test\]|\bfunc Test"
)
_JS_TITLE = re.compile(r"\b(?:it|test|specify)(?:\.\w+)?\s*\(\s*(['\"`])(.*?)\1")
_JS_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`]*`|\b\d+(?:\.\d+)?\b")
_JS_CHECK_LINE = re.compile(r"\bexpect\s*\(|\bassert\w*|\bt\.\w+\s*\(|\.should|\bfail\s*\(")


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _is_js(path: str) -> bool:
    return path.endswith((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"))


# --- production -------------------------------------------------------------------------


def lines_of(text: str | None) -> frozenset[str]:
    """The meaningful lines of a text, without their spacing (for ``adds_code``)."""
    return _lines_of(text) if text else frozenset()


@text_memo()
def _lines_of(text: str) -> frozenset[str]:
    return frozenset(squash(ln) for ln in meaningful(text.splitlines()))


def adds_code(
    old: str | None, new: str | None, path: str, elsewhere: set[str] | None = None
) -> bool:
    """False when the change from ``old`` (None: a new file) to ``new`` only deletes, or only
    changes comments, blank lines, docstrings or type annotations, or only adds lines that
    ``elsewhere`` (``lines_of`` the commit's other files before it) had: code moved."""
    if new is None:
        return True  # unreadable: the audit cannot tell, so it counts as code
    # Lines first (linear); the AST only for the few lines a docstring or annotation
    # change leaves: parsing every long module of a real history is the audit's cost.
    added = meaningful(added_lines(old or "", new))
    if elsewhere:
        added = [ln for ln in added if squash(ln) not in elsewhere]
    if not added:
        return False
    # the same code (an empty new module: a placeholder) adds none
    return not (
        _is_python(path)
        and len(added) <= AST_LINES
        and len(new) <= AST_BYTES
        and same_code(old if old is not None else "", new)
    )


AST_LINES = 40  # added lines up to which a Python change is compared by AST
AST_BYTES = 200_000


# A line that only declares or stubs, in the C-like languages (C#, Java, Kotlin, JS/TS,
# Go, Rust, Swift): braces, imports and exports, type and method signatures, a default
# return, a not-implemented throw.
_STUB_LINE = re.compile(
    r"^\s*(?:[{}()\[\];,]*"
    r"|(?:(?:import|using|package|namespace|module|use|mod)\b|export\s*\{).*"
    r"|(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|data"
    r"|override|virtual|async|export|default|pub|suspend|inline)\s+)*"
    r"(?:class|interface|object|enum|struct|record|trait|impl|type|fun|fn|func|function"
    r"|void|def)\b[^=;]*[{(]?[^;]*$"
    r"|(?:(?:public|private|protected|internal|static|override|virtual|abstract|async)\s+)+"
    r"[\w<>\[\],.? ]+\([^)]*\)\s*(?:\{|=>)?\s*\}?$"
    r"|return\s*(?:null|nil|None|0|false|true|\[\]|\{\}|\"\"|''|default|string\.Empty"
    r"|emptyList\(\)|undefined)?\s*;?\s*\}?"
    r"|throw\s+new\s+\w*(?:NotImplemented|UnsupportedOperation)\w*\([^)]*\)\s*;?"
    r"|(?:TODO|todo!|unimplemented!|panic)\([^)]*\)\s*;?"
    r"|.*=\s*TODO\(\)\s*;?)\s*$"
)


def only_stubs(old: str | None, new: str) -> bool:
    """Does the change add only declarations and stubs (judged line by line, for the
    languages the AST-based stub judges do not read)?"""
    return all(_STUB_LINE.match(ln) for ln in meaningful(added_lines(old or "", new)))


# --- tests ------------------------------------------------------------------------------


def _py_behaviour(old: str | None, new: str) -> bool | None:
    return judge(analysed(old if old is not None else ""), analysed(new))


def _js_behaviour(old: str | None, new: str) -> bool:
    old = old or ""
    old_titles = {t for _, t in _JS_TITLE.findall(old)}
    new_titles = [t for _, t in _JS_TITLE.findall(new)]
    fresh = [t for t in new_titles if t not in old_titles]
    if fresh and len(new_titles) > len(old_titles):
        return True
    # A check line that the old file does not have, even re-wrapped: a new expectation.
    flat = squash(old)
    return any(
        _JS_CHECK_LINE.search(line) and squash(line) not in flat
        for line in meaningful(added_lines(old, new))
    )


def adds_test_behaviour_many(changes: list[tuple[str, str | None, str | None]]) -> bool:
    """``adds_test_behaviour`` over all the test files a commit changes, (path, old, new)
    each: tests moved from one file to another (a split, a rename) are not new. Python
    files are judged together, the others one by one."""
    py = [(o, n) for p, o, n in changes if _is_python(p)]
    if py:
        if any(n is None for _, n in py):
            return True
        judged = judge(analysed_all([o for o, _ in py if o]), analysed_all([n for _, n in py if n]))
        if judged is None:  # one of them does not parse: one by one
            judged = any(adds_test_behaviour(o, n, "x.py") for o, n in py)
        if judged:
            return True
    return any(adds_test_behaviour(o, n, p) for p, o, n in changes if not _is_python(p))


def adds_test_behaviour(old: str | None, new: str | None, path: str) -> bool:
    """Does the change from ``old`` (None: a new file) to ``new`` add a test case or change
    what a test checks? True when it cannot tell (an unreadable file)."""
    if new is None:
        return True
    if _is_python(path):
        judged = _py_behaviour(old, new)
        if judged is not None:
            return judged
    elif _is_js(path):
        return _js_behaviour(old, new)
    return any(_TEST_LINE.search(ln) for ln in meaningful(added_lines(old or "", new)))


def changes_existing_checks(old: str | None, new: str | None, path: str) -> bool:
    """Does the change remove or alter a check ``old`` had (the test bent, not extended)?"""
    if old is None or new is None:
        return new is None
    if _is_python(path):
        o, n = analysed(old), analysed(new)
        if o is None or n is None:
            return True
        return any(c > n.checks[k] for k, c in o.checks.items())
    flat = squash(new)
    check = _JS_CHECK_LINE if _is_js(path) else _TEST_LINE
    return any(check.search(ln) and squash(ln) not in flat for ln in meaningful(old.splitlines()))

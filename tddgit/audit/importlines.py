"""What the audit reads of a test file's text after judging its change: the imports (its
scope, test-after-fact) and whether it drives the whole application. Kept in the answers
cache (``tddgit.audit.answercache``) in place of the text, so a second audit reads no
test file at all (issue 27, item 9).

``import_lines(text)`` is every match of the readers' own patterns (``tddgit.audit.imports``
and ``tddgit.audit.naming``, used, not copied), each on its own line, and one line that
drives the application when the text does. Each reader finds in it exactly the imports it
finds in the text: a match read again alone is the same match (the patterns do not cross
a line end inside their groups, and a shorter match of one pattern is a prefix that the
other pattern reads as a subset of the same words); no match of one family's pattern
reads as an import of another family's (a JS specifier starts with a quote, never a
word).
"""

from __future__ import annotations

import json

from tddgit.audit import imports, naming

_PATTERNS = (
    imports._PY_IMPORT,
    naming._PY_IMPORT,
    imports._JS_IMPORT,
    naming._JS_IMPORT,
    naming._JVM_IMPORT,
)
_DRIVES = "self.client"  # a line imports.drives_app recognises


def import_lines(text: str) -> str:
    """The parts of ``text`` the import readers and ``drives_app`` read, each once.

    The same import is matched by several patterns (both ``import x`` readers, and the
    JVM one): kept once each, without its indent, the lines are half as many on sympy's
    tests, and a warm audit reads them all again for every test-only commit. The indent
    cannot change what a reader finds: every pattern allows spaces and tabs before its
    keyword, and none reads across a line end."""
    parts = dict.fromkeys(m.group(0).lstrip(" \t") for p in _PATTERNS for m in p.finditer(text))
    if imports.drives_app(text):
        parts[_DRIVES] = None
    return "\n".join(parts)


def pack(texts: dict[str, str | None]) -> str:
    """Test files' texts as kept in the cache: their import lines (None: unreadable)."""
    return json.dumps({p: None if t is None else import_lines(t) for p, t in texts.items()})


def unpack(value: str, paths: list[str]) -> dict[str, str | None] | None:
    """``pack``'s texts for exactly ``paths``; None when ``value`` is not that."""
    try:
        doc = json.loads(value)
    except ValueError:
        return None
    if not isinstance(doc, dict) or sorted(doc) != sorted(paths):
        return None
    if not all(v is None or isinstance(v, str) for v in doc.values()):
        return None
    return doc

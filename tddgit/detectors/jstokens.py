"""A tolerant JS/TS tokenizer (PRODUCT.md §9): no JS toolchain, nothing run.

It skips strings, template literals (with their ``${}`` expressions), comments and regex
literals well enough to match brackets, which is all the detectors (``js``, ``jsstubs``)
and the JS cause rules (``runners/jscauses``) need. docs/detectors.md lists its limits.
"""

from __future__ import annotations

from dataclasses import dataclass

# After these, a `/` starts a regex literal rather than a division.
_REGEX_AFTER_WORDS = frozenset(
    {
        "return",
        "typeof",
        "instanceof",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "case",
        "do",
        "else",
        "yield",
        "await",
    }
)
_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Token:
    kind: str  # "id" | "punct" | "str" | "num" | "regex"
    text: str  # for "str": the literal's contents (templates included, unparsed)
    line: int
    pos: int  # offset in the source


class _Scanner:
    """Turns source text into tokens; never raises on malformed input."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0
        self.line = 1
        self.tokens: list[Token] = []

    def _advance_to(self, end: int) -> None:
        self.line += self.src.count("\n", self.i, end)
        self.i = end

    def _regex_allowed(self) -> bool:
        if not self.tokens:
            return True
        prev = self.tokens[-1]
        if prev.kind == "id":
            return prev.text in _REGEX_AFTER_WORDS
        return prev.kind == "punct" and prev.text not in (")", "]")

    def run(self) -> list[Token]:
        src, n = self.src, len(self.src)
        if src.startswith("#!"):
            self._advance_to(_line_end(src, 0))
        while self.i < n:
            c = src[self.i]
            start, line = self.i, self.line
            if c.isspace():
                self._advance_to(self.i + 1)
            elif src.startswith("//", self.i):
                self._advance_to(_line_end(src, self.i))
            elif src.startswith("/*", self.i):
                end = src.find("*/", self.i + 2)
                self._advance_to(n if end < 0 else end + 2)
            elif c in "'\"":
                end = _string_end(src, self.i)
                self.tokens.append(Token("str", src[start + 1 : end - 1], line, start))
                self._advance_to(end)
            elif c == "`":
                end = _template_end(src, self.i)
                self.tokens.append(Token("str", src[start + 1 : end - 1], line, start))
                self._advance_to(end)
            elif c == "/" and self._regex_allowed() and (end := _regex_end(src, self.i)) > 0:
                self.tokens.append(Token("regex", src[start:end], line, start))
                self._advance_to(end)
            elif c.isalpha() or c in "_$":
                end = self.i + 1
                while end < n and (src[end].isalnum() or src[end] in "_$"):
                    end += 1
                self.tokens.append(Token("id", src[start:end], line, start))
                self.i = end
            elif c.isdigit():
                end = self.i + 1
                while end < n and (src[end].isalnum() or src[end] in "._"):
                    end += 1
                self.tokens.append(Token("num", src[start:end], line, start))
                self.i = end
            else:
                self.tokens.append(Token("punct", c, line, start))
                self.i += 1
        return self.tokens


def _line_end(src: str, i: int) -> int:
    end = src.find("\n", i)
    return len(src) if end < 0 else end


def _string_end(src: str, i: int) -> int:
    """End (exclusive) of a quoted string; an unterminated one stops at the line's end."""
    quote, j, n = src[i], i + 1, len(src)
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
        elif c == quote:
            return j + 1
        elif c == "\n":
            return j
        else:
            j += 1
    return n


def _template_end(src: str, i: int) -> int:
    """End (exclusive) of a template literal, skipping nested ``${ ... }`` expressions."""
    j, n = i + 1, len(src)
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1
        elif src.startswith("${", j):
            j = _expression_end(src, j + 2)
        else:
            j += 1
    return n


def _expression_end(src: str, j: int) -> int:
    """Just past the ``}`` closing a template expression that starts at ``j``."""
    depth, n = 1, len(src)
    while j < n:
        c = src[j]
        if c in "'\"":
            j = _string_end(src, j)
        elif c == "`":
            j = _template_end(src, j)
        elif src.startswith("//", j):
            j = _line_end(src, j)
        elif src.startswith("/*", j):
            end = src.find("*/", j + 2)
            j = n if end < 0 else end + 2
        else:
            depth += {"{": 1, "}": -1}.get(c, 0)
            j += 1
            if depth == 0:
                return j
    return n


def _regex_end(src: str, i: int) -> int:
    """End (exclusive) of a regex literal at ``i``, or -1 when it is not one (a division)."""
    j, n, in_class = i + 1, len(src), False
    if j < n and src[j] in "/*":
        return -1
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return -1
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            j += 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            return j
        j += 1
    return -1


def tokenize(source: str) -> list[Token]:
    """The tokens of JS/TS source; comments and whitespace dropped."""
    return _Scanner(source).run()


def match_brackets(tokens: list[Token]) -> dict[int, int]:
    """Opening bracket index -> closing index; unmatched openers close at the last token."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for k, tok in enumerate(tokens):
        if tok.kind != "punct":
            continue
        if tok.text in _OPEN:
            stack.append(k)
        elif tok.text in (")", "]", "}"):
            # tolerate a stray closer: pop to its opener if there is one, else ignore it
            openers = [s for s in stack if _OPEN[tokens[s].text] == tok.text]
            if openers:
                while stack:
                    s = stack.pop()
                    pairs[s] = k
                    if _OPEN[tokens[s].text] == tok.text:
                        break
    for s in stack:
        pairs[s] = len(tokens) - 1
    return pairs

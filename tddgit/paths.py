"""Path classification (PRODUCT.md §1): test, production or other, by configurable globs.

Glob rules (like .gitignore): a pattern without ``/`` matches the file's base name in any
directory; a pattern with ``/`` matches the whole repo-relative path; ``*`` stays inside
one path segment; ``**`` spans any number of segments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property, lru_cache

from tddgit.config import Config


class Kind(str, Enum):
    TEST = "test"
    PRODUCTION = "production"
    OTHER = "other"


def _translate(pattern: str) -> str:
    """A glob as a regex body (anchored by the caller)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


_ANY_DIR = "(?:.*/)?"  # what "**/" becomes
_BELOW = "(?:/.*)?"  # what a trailing "/**" becomes


def _alternation(bodies: list[str]) -> str:
    """The bodies as one alternation, those that start with ``**/`` or end with ``/**``
    factored by that shape: ``(?:.*/)?(?:vendor|venv|...)(?:/.*)?`` matches the same paths
    as the ten branches it replaces (``P(?:A|B)S`` is ``PAS|PBS``), but backtracks over a
    path once instead of once per branch (an audit classifies every path of a history)."""
    groups: dict[tuple[str, str], list[str]] = {}
    rest: list[str] = []
    for body in bodies:
        lead = _ANY_DIR if body.startswith(_ANY_DIR) else ""
        core = body[len(lead) :]
        tail = _BELOW if core.endswith(_BELOW) else ""
        core = core[: len(core) - len(tail)]
        if lead or tail:
            groups.setdefault((lead, tail), []).append(core)
        else:
            rest.append(body)
    out = [f"{lead}(?:{'|'.join(cores)}){tail}" for (lead, tail), cores in groups.items()]
    return "|".join(out + rest)


@lru_cache(maxsize=64)
def compile_globs(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(full-path matcher, base-name matcher) for a tuple of globs."""
    full = [_translate(p.lstrip("/")) for p in patterns if "/" in p]
    base = [_translate(p) for p in patterns if "/" not in p]
    never = "(?!)"
    return (
        re.compile("^(?:" + (_alternation(full) or never) + ")$", re.DOTALL),
        re.compile("^(?:" + ("|".join(base) or never) + ")$", re.DOTALL),
    )


def matches(path: str, patterns: tuple[str, ...]) -> bool:
    full, base = compile_globs(patterns)
    return bool(full.match(path) or base.match(path.rsplit("/", 1)[-1]))


class _Stage:
    """One glob set of a classifier and its kind. Its matchers are compiled at the first
    path that reaches it (``full`` and ``name`` are the stage itself until then): a gate
    classifies a file or two, mostly test files, decided before the production globs
    (the longest alternation) are ever needed; CPU beside the test command (issue 29)."""

    __slots__ = ("full", "globs", "kind", "name")

    def __init__(self, globs: tuple[str, ...], kind: Kind) -> None:
        self.globs, self.kind = globs, kind
        self.full: re.Pattern[str] | _Stage = self
        self.name: re.Pattern[str] | _Stage = self

    def match(self, text: str) -> re.Match[str] | None:
        """The first match asked of ``full`` (``kind`` always asks it first): compile
        both matchers, and answer with the full-path one."""
        full, self.name = compile_globs(self.globs)
        self.full = full
        return full.match(text)


@dataclass(frozen=True)
class Classifier:
    """Classifies repo-relative paths (``/``-separated) by the configured globs."""

    test_globs: tuple[str, ...]
    source_globs: tuple[str, ...]
    other_globs: tuple[str, ...]
    exempt_globs: tuple[str, ...]
    vendored_globs: tuple[str, ...] = ()  # neither test nor production, checked first

    @classmethod
    def from_config(cls, config: Config) -> Classifier:
        return cls(
            test_globs=config.globs("test_globs"),
            source_globs=config.globs("source_globs"),
            other_globs=config.globs("other_globs"),
            exempt_globs=config.globs("exempt"),
            vendored_globs=config.globs("vendored_globs"),
        )

    def with_vendored(self, patterns: Iterable[str]) -> Classifier:
        """This classifier with more vendored or generated paths (from .gitattributes)."""
        more = tuple(p for p in patterns if p not in self.vendored_globs)
        if not more:
            return self
        return replace(self, vendored_globs=self.vendored_globs + more)

    @cached_property
    def _order(self) -> tuple[_Stage, ...]:
        """Each glob set's matchers with its kind, in the order ``kind`` tries them:
        compiled once per classifier, not looked up by globs on every call (an audit asks
        once per path of the history), and each set only when a path gets that far."""
        order = [(self.test_globs, Kind.TEST), (self.other_globs, Kind.OTHER)]
        order.append((self.source_globs, Kind.PRODUCTION))
        if self.vendored_globs:
            order.insert(0, (self.vendored_globs, Kind.OTHER))
        return tuple(_Stage(globs, kind) for globs, kind in order)

    def kind(self, path: str) -> Kind:
        base = path.rsplit("/", 1)[-1]
        for stage in self._order:
            if stage.full.match(path) or stage.name.match(base):
                return stage.kind
        return Kind.OTHER

    def is_test(self, path: str) -> bool:
        return self.kind(path) is Kind.TEST

    def is_production(self, path: str) -> bool:
        return self.kind(path) is Kind.PRODUCTION

    def is_exempt(self, path: str) -> bool:
        return bool(self.exempt_globs) and matches(path, self.exempt_globs)

    def split(self, paths: Iterable[str]) -> dict[Kind, list[str]]:
        out: dict[Kind, list[str]] = {k: [] for k in Kind}
        for p in paths:
            out[self.kind(p)].append(p)
        return out


def linguist_vendored(gitattributes: str) -> tuple[str, ...]:
    """The patterns a ``.gitattributes`` text marks ``linguist-vendored`` or
    ``linguist-generated`` (set, not ``-`` or ``=false``), as globs for ``with_vendored``."""
    out: list[str] = []
    for line in gitattributes.splitlines():
        parts = line.split()
        if len(parts) < 2 or parts[0].startswith("#"):
            continue
        for attr in parts[1:]:
            name, _, value = attr.partition("=")
            if name in ("linguist-vendored", "linguist-generated") and value != "false":
                pattern = parts[0]
                # a directory pattern ("dir/" or "dir/**") covers what is below it
                if pattern.endswith("/"):
                    pattern += "**"
                out.append(pattern)
                break
    return tuple(out)

"""Mutants of given lines of a Python file, made from its AST and applied as text.

Each operator changes one small piece of one line (its column span, from the AST), so the
rest of the file stays byte for byte what the step committed and a surviving mutant reads
as a one-line diff. Operators are ranked by how often a surviving mutant of theirs pointed
at a real gap in the tests (the order Google's code-review mutation settled on: skipped
branches, negated conditions and removed statements first, then relational, boolean and arithmetic
operators, constants, return values); a line gets the first ``per_line`` that apply.

Arid lines are never mutated: they carry no behaviour a test could demand (logging and
printing, docstrings, imports, type-only lines, ``pass``/``...``, stub bodies, ``assert``
statements, ``def``/``class`` headers and decorators).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

# rank: lower first
_COMPARE = {
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Lt: "<=",
    ast.LtE: "<",
    ast.Gt: ">=",
    ast.GtE: ">",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
_ARITH = {
    ast.Add: "-",
    ast.Sub: "+",
    ast.Mult: "/",
    ast.Div: "*",
    ast.FloorDiv: "*",
    ast.Mod: "*",
    ast.Pow: "*",
}
_BOOL = {ast.And: "or", ast.Or: "and"}
_LOGGERS = {"print", "log", "logger", "logging", "warn", "warnings", "debug", "info"}


@dataclass(frozen=True)
class Mutant:
    """One change to one line: ``source`` is the whole mutated file."""

    path: str
    line: int
    operator: str
    original: str  # the line as committed (stripped)
    mutated: str  # the same line mutated (stripped)
    source: str


@dataclass(frozen=True)
class Candidate:
    """A mutant before it is applied: ``source[start:end]`` becomes ``replacement``."""

    rank: int
    operator: str
    line: int
    start: int
    end: int
    replacement: str


def candidates(source: str, lines: set[int] | frozenset[int]) -> list[Candidate]:
    """Every mutant of ``lines`` (1-based) that are not arid, as spans of ``source``, in
    the order of the operators' usefulness; nothing for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    text_lines = source.splitlines(keepends=True)
    offsets = line_offsets(text_lines)
    arid = _arid_lines(tree)
    found = []
    for rank, name, span, replacement in _candidates(tree, text_lines):
        line = span[0][0]
        if line not in lines or line in arid:
            continue
        start = offsets[span[0][0] - 1] + span[0][1]
        end = offsets[span[1][0] - 1] + span[1][1]
        found.append(Candidate(rank, name, line, start, end, replacement))
    found.sort(key=lambda c: (c.line, c.rank))  # stable: the AST's order within a rank
    return found


def apply(path: str, source: str, c: Candidate) -> Mutant | None:
    """``c`` applied to ``source`` (None: it changes nothing)."""
    mutated = source[: c.start] + c.replacement + source[c.end :]
    if mutated == source:
        return None
    text_lines = source.splitlines()
    original = text_lines[c.line - 1].strip()
    after = mutated.splitlines()[c.line - 1].strip() if "\n" not in c.replacement else ""
    return Mutant(path, c.line, c.operator, original, after or "pass", mutated)


def mutants(
    path: str, source: str, lines: set[int] | frozenset[int], per_line: int
) -> list[Mutant]:
    """At most ``per_line`` mutants of each of ``lines`` (1-based) that is not arid;
    nothing for a file that does not parse."""
    out: list[Mutant] = []
    seen: set[str] = set()
    made: dict[int, int] = {}
    for c in candidates(source, lines):
        if made.get(c.line, 0) >= per_line:
            continue
        m = apply(path, source, c)
        if m is None or m.source in seen:
            continue
        seen.add(m.source)
        out.append(m)
        made[c.line] = made.get(c.line, 0) + 1
    return out


def line_offsets(text_lines: list[str]) -> list[int]:
    offsets, total = [], 0
    for text in text_lines:
        offsets.append(total)
        total += len(text)
    offsets.append(total)
    return offsets


Span = tuple[tuple[int, int], tuple[int, int]]


def _span(node: ast.AST) -> Span:
    return (
        (node.lineno, node.col_offset),  # type: ignore[attr-defined]
        (node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
    )


def _between(left: ast.AST, right: ast.AST) -> Span:
    """The text between two nodes (where a binary or comparison operator is written)."""
    return (
        (left.end_lineno, left.end_col_offset),  # type: ignore[attr-defined]
        (right.lineno, right.col_offset),  # type: ignore[attr-defined]
    )


def _segment(text_lines: list[str], span: Span) -> str:
    (l1, c1), (l2, c2) = span
    if l1 == l2:
        return text_lines[l1 - 1][c1:c2]
    parts = [text_lines[l1 - 1][c1:], *text_lines[l1 : l2 - 1], text_lines[l2 - 1][:c2]]
    return "".join(parts)


def _candidates(tree: ast.AST, text_lines: list[str]) -> Iterator[tuple[int, str, Span, str]]:
    """(rank, operator, the span of text replaced, the replacement)."""
    # an f-string's literal parts are Constants whose text is not a Python literal
    in_fstring = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in ast.walk(node)
    }
    identities = _identity_names(tree)
    for node in ast.walk(tree):
        if id(node) in in_fstring:
            continue
        if isinstance(node, ast.If):
            # the branch never taken: survives when no test needs what it does
            yield 0, "skip-branch", _span(node.test), "False"
        if isinstance(node, ast.IfExp):
            # the `else` alternative never taken (`x if c else y` -> `x if True else y`)
            yield 0, "skip-branch", _span(node.test), "True"
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            test = _span(node.test)
            yield 1, "negate-condition", test, f"not ({_segment(text_lines, test)})"
        if isinstance(
            node, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise)
        ) and not _is_docstring_or_call_to_logger(node):
            yield 2, "delete-statement", _span(node), _deleted(node)
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                other = _COMPARE.get(type(op))
                if other is not None:
                    yield 3, "compare", _between(left, right), f" {other} "
                left = right
        if isinstance(node, ast.BoolOp):
            other = _BOOL[type(node.op)]
            for left, right in zip(node.values, node.values[1:], strict=False):
                yield 4, "boolean", _between(left, right), f" {other} "
        if isinstance(node, ast.BinOp):
            other = _ARITH.get(type(node.op))
            if other is not None and not _identity(node.op, node.right, identities):
                yield 5, "arithmetic", _between(node.left, node.right), f" {other} "
        if isinstance(node, ast.AugAssign):
            other = _ARITH.get(type(node.op))
            if other is not None and not _identity(node.op, node.value, identities):
                yield 5, "arithmetic", _between(node.target, node.value), f" {other}= "
        if isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
            replacement = _constant(node.value)
            if replacement is not None:
                yield 6, "constant", _span(node), replacement
        if isinstance(node, ast.Return) and not _returns_none(node):
            assert node.value is not None
            yield 7, "return-value", _span(node.value), "None"


# `x + 0` -> `x - 0`, `x * 1` -> `x / 1`, `x ** 1` -> `x * 1`: the same program (an
# equivalent mutant no test can kill), noise in a report of unpinned lines
_IDENTITY: dict[type[ast.operator], int] = {
    ast.Add: 0,
    ast.Sub: 0,
    ast.Mult: 1,
    ast.Div: 1,
    ast.Pow: 1,
}


def _identity_names(tree: ast.AST) -> dict[str, object]:
    """Module-level names bound once, to a number, and never rebound anywhere in the
    module (``OFFSET = 0``): what ``_identity`` reads them as."""
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bound[name] = bound.get(name, 0) + 2  # rebound from a function
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = bound.get(node.name, 0) + 1
        elif isinstance(node, ast.arg):
            bound[node.arg] = bound.get(node.arg, 0) + 1  # a parameter shadows it
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = alias.asname or alias.name.partition(".")[0]
                bound[name] = bound.get(name, 0) + 1
    values: dict[str, object] = {}
    for stmt in getattr(tree, "body", []):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if isinstance(target, ast.Name) and bound.get(target.id) == 1 and _number(value):
            assert isinstance(value, ast.Constant)
            values[target.id] = value.value
    return values


def _number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def _identity(op: ast.operator, right: ast.AST, names: dict[str, object]) -> bool:
    """Whether ``<left> op right`` is ``left`` itself (the right operand is the operator's
    identity: a literal, or a module constant bound to it)."""
    want = _IDENTITY.get(type(op))
    if want is None:
        return False
    if _number(right):
        assert isinstance(right, ast.Constant)
        value: object = right.value
    elif isinstance(right, ast.Name) and right.id in names:
        value = names[right.id]
    else:
        return False
    return value == want


def _returns_none(node: ast.Return) -> bool:
    value = node.value
    return value is None or (isinstance(value, ast.Constant) and value.value is None)


def _deleted(node: ast.AST) -> str:
    # keeps the line count: `pass` then the statement's other lines as blank lines
    first: int = node.lineno  # type: ignore[attr-defined]
    last: int = node.end_lineno or first  # type: ignore[attr-defined]
    return "pass" + "\n" * (last - first)


def _constant(value: object) -> str | None:
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, int):
        return repr(value + 1)
    if isinstance(value, float):
        return repr(value + 1.0)
    if isinstance(value, str):
        return '""' if value else '"XX"'
    return None


def _is_docstring_or_call_to_logger(node: ast.AST) -> bool:
    if not isinstance(node, ast.Expr):
        return False
    value = node.value
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Call) and _is_logger_call(value)


def _is_logger_call(call: ast.Call) -> bool:
    func = call.func
    while isinstance(func, ast.Attribute):
        if func.attr in _LOGGERS:
            return True
        func = func.value
    return isinstance(func, ast.Name) and func.id in _LOGGERS


def _arid_lines(tree: ast.AST) -> set[int]:
    """Lines no mutant is made on (see the module's docstring)."""
    from tddgit.detectors.stubs import is_stub_body

    arid: set[int] = set()

    def cover(node: ast.AST) -> None:
        first = node.lineno  # type: ignore[attr-defined]
        last = node.end_lineno or first  # type: ignore[attr-defined]
        arid.update(range(first, last + 1))

    for node in ast.walk(tree):
        if _is_arid_statement(node):
            cover(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for deco in node.decorator_list:
                cover(deco)
            arid.add(node.lineno)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.returns is not None:
                    cover(node.returns)
                if is_stub_body(node.body):
                    for stmt in node.body:
                        cover(stmt)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            cover(node)
    return arid


def _is_arid_statement(node: ast.AST) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass, ast.Assert, ast.Global)):
        return True
    if isinstance(node, ast.AnnAssign):
        return node.value is None  # a type-only line
    return isinstance(node, ast.Expr) and _is_docstring_or_call_to_logger(node)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"

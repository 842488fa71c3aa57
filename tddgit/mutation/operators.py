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


def mutants(
    path: str, source: str, lines: set[int] | frozenset[int], per_line: int
) -> list[Mutant]:
    """At most ``per_line`` mutants of each of ``lines`` (1-based) that is not arid;
    nothing for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    text_lines = source.splitlines(keepends=True)
    offsets = _line_offsets(text_lines)
    arid = _arid_lines(tree)
    found: dict[int, list[tuple[int, str, tuple[int, int], str]]] = {}
    for rank, name, span, replacement in _candidates(tree, text_lines):
        line = span[0][0]
        if line not in lines or line in arid:
            continue
        start = offsets[span[0][0] - 1] + span[0][1]
        end = offsets[span[1][0] - 1] + span[1][1]
        found.setdefault(line, []).append((rank, name, (start, end), replacement))
    out = []
    for line in sorted(found):
        seen: set[str] = set()
        for _rank, name, (start, end), replacement in sorted(found[line], key=lambda c: c[0]):
            mutated = source[:start] + replacement + source[end:]
            if mutated == source or mutated in seen:
                continue
            seen.add(mutated)
            original = text_lines[line - 1].strip()
            after = mutated.splitlines()[line - 1].strip() if replacement.count("\n") == 0 else ""
            out.append(Mutant(path, line, name, original, after or "pass", mutated))
            if len([m for m in out if m.line == line]) >= per_line:
                break
    return out


def _line_offsets(text_lines: list[str]) -> list[int]:
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
    for node in ast.walk(tree):
        if id(node) in in_fstring:
            continue
        if isinstance(node, ast.If):
            # the branch never taken: survives when no test needs what it does
            yield 0, "skip-branch", _span(node.test), "False"
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
            if other is not None:
                yield 5, "arithmetic", _between(node.left, node.right), f" {other} "
        if isinstance(node, ast.AugAssign):
            other = _ARITH.get(type(node.op))
            if other is not None:
                yield 5, "arithmetic", _between(node.target, node.value), f" {other}= "
        if isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
            replacement = _constant(node.value)
            if replacement is not None:
                yield 6, "constant", _span(node), replacement
        if isinstance(node, ast.Return) and not _returns_none(node):
            assert node.value is not None
            yield 7, "return-value", _span(node.value), "None"


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

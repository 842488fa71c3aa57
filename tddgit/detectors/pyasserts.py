"""Assertions in Python tests (PRODUCT.md §9, ``broad-assertion``): the subjects a test
asserts on (``resp.json()["id"]`` and ``resp.json()["name"]`` are one), whether it asserts
at all, and its first assertion that can never fail.

docs/detectors.md states every counting rule and why.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count

from tddgit.detectors.pyast import FuncDef, body_nodes, call_name, dotted

_RAISES = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call"})
_HELPER_PREFIXES = ("assert", "check_", "expect")
_SUBJECT_OF_FIRST_ARG = frozenset({"isinstance", "issubclass", "hasattr", "callable"})


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        return _is_literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    return False


def _always_true(node: ast.expr) -> bool:
    """An ``assert`` operand that can never fail."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        # `assert (x == 1, "msg")` is the classic always-passing assert
        return len(node.keys if isinstance(node, ast.Dict) else node.elts) > 0
    if isinstance(node, ast.Compare):
        return all(_is_literal(e) for e in (node.left, *node.comparators))
    return False


class _Placeholder(ast.NodeTransformer):
    """``resp.json()["id"]`` and ``resp.json()["name"]`` are one subject: the payload."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Constant):
            node.slice = ast.Name(id="…", ctx=ast.Load())
        return node


def _subject(node: ast.expr) -> str:
    if isinstance(node, ast.Await):
        node = node.value
    import copy

    tree = _Placeholder().visit(copy.deepcopy(node))
    return " ".join(ast.unparse(tree).split())


def _assert_subjects(node: ast.expr, subject: Callable[[ast.expr], str] = _subject) -> list[str]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [s for v in node.values for s in _assert_subjects(v, subject)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _assert_subjects(node.operand, subject)
    if isinstance(node, ast.Compare):
        for side in (node.left, *node.comparators):
            if not _is_literal(side):
                return [subject(side)]
        return []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return [subject(node.args[0] if node.func.id in _SUBJECT_OF_FIRST_ARG else node)]
    return [subject(node)]


def _counting() -> Callable[[ast.expr], str]:
    """A stand-in for ``_subject`` giving every expression its own name: the number of
    distinct names is then an upper bound of the number of distinct subjects, found
    without copying and unparsing each expression."""
    numbers = count()
    return lambda node: f"\0{next(numbers)}"


@dataclass
class Assertions:
    subjects: dict[str, None]  # ordered set
    subject: Callable[[ast.expr], str] = _subject  # how an expression names its subject
    has: bool = False
    constant: str | None = None
    constant_line: int | None = None

    def add(self, subjects: list[str]) -> None:
        self.has = True
        for s in subjects:
            self.subjects.setdefault(s, None)

    def const(self, node: ast.AST) -> None:
        self.has = True
        if self.constant is None:
            self.constant = " ".join(ast.unparse(node).split())
            self.constant_line = getattr(node, "lineno", None)


def _self_assert_always_passes(method: str, args: list[ast.expr]) -> bool:
    if not args:
        return False
    first = args[0]
    if method in ("assertTrue", "assert_"):
        return _always_true(first)
    if method == "assertFalse":
        return isinstance(first, ast.Constant) and not first.value
    if method == "assertIsNotNone":
        return isinstance(first, ast.Constant) and first.value is not None
    # assertEqual(1, 1), assertIn("a", "abc"): nothing under test is compared
    return len(args) >= 2 and _is_literal(first) and _is_literal(args[1])


def _self_assert(call: ast.Call, method: str, acc: Assertions) -> None:
    if _self_assert_always_passes(method, call.args):
        acc.const(call)
        return
    # the subject is the first non-literal of the first two arguments (yoda style too)
    subjects = [acc.subject(a) for a in call.args[:2] if not _is_literal(a)]
    acc.add(subjects[:1] or [method])


def _scan_call(call: ast.Call, aliases: Mapping[str, str], acc: Assertions) -> None:
    name = dotted(call.func, aliases) or ""
    last = call_name(call.func)
    arg0 = call.args[0] if call.args else None
    if name in _RAISES:
        acc.add([f"{last}({acc.subject(arg0)})" if arg0 is not None else last])
    elif name == "pytest.fail":
        acc.has = True
    elif isinstance(call.func, ast.Attribute) and call_name(call.func.value) == "self":
        if last.startswith("assert"):
            _self_assert(call, last, acc)
        elif last == "fail":
            acc.has = True
    elif isinstance(call.func, ast.Attribute) and last.startswith("assert_"):
        acc.add([acc.subject(call.func.value)])  # mock.assert_called_once_with(...)
    elif last.startswith(_HELPER_PREFIXES):
        acc.add([acc.subject(arg0)] if arg0 is not None and not _is_literal(arg0) else [last])


def _assertions(
    func: FuncDef,
    aliases: Mapping[str, str],
    subject: Callable[[ast.expr], str] = _subject,
    nodes: Sequence[ast.AST] | None = None,
) -> Assertions:
    acc = Assertions(subjects={}, subject=subject)
    for node in body_nodes(func) if nodes is None else nodes:
        if isinstance(node, ast.Assert):
            if _always_true(node.test):
                acc.const(node)
            else:
                acc.add(_assert_subjects(node.test, subject))
        elif isinstance(node, ast.Call):
            _scan_call(node, aliases, acc)
    return acc


def assertions_of(
    func: FuncDef, aliases: Mapping[str, str], max_subjects: int | None, nodes: Sequence[ast.AST]
) -> Assertions:
    """The assertions of a test; with ``max_subjects``, subjects are only named (the costly
    part) when there may be more than that many, and left empty otherwise."""
    if max_subjects is None:
        return _assertions(func, aliases, nodes=nodes)
    acc = _assertions(func, aliases, _counting(), nodes)
    if len(acc.subjects) > max_subjects:
        return _assertions(func, aliases, nodes=nodes)
    acc.subjects = {}
    return acc

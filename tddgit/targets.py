"""Which tests a step is about: the tests defined or changed in the staged test files.

For Python test files the old and new versions are compared function by function on
their AST (formatting and line moves don't count as changes); JS/TS test files test block
by test block (``targets_js``). Other languages' test files are targeted as whole files;
the runner maps results back to them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from tddgit.config import DEFAULT_SOURCE_GLOBS
from tddgit.detectors import language_of
from tddgit.git import Repo
from tddgit.paths import Kind, matches
from tddgit.staged import StagedChange, read_blob


def _is_test_class(node: ast.ClassDef) -> bool:
    if node.name.startswith("Test"):
        return True
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def python_tests(source: str) -> dict[str, str] | None:
    """``{"Class::test_name": fingerprint}`` for every test in a Python test module, or
    None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, str] = {}

    def visit(body: Iterable[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("test") and (in_class or not prefix):
                    found[prefix + node.name] = ast.dump(node)
            elif isinstance(node, ast.ClassDef) and _is_test_class(node):
                visit(node.body, f"{prefix}{node.name}::", True)

    visit(tree.body, "", False)
    return found


def _decode(data: bytes | None) -> str | None:
    if data is None:
        return None
    return data.decode("utf-8", "replace")


def staged_targets(
    repo: Repo, change: StagedChange, source_globs: tuple[str, ...] = DEFAULT_SOURCE_GLOBS
) -> list[str]:
    """Test ids (pytest node ids, or test file paths) new or changed in the staged test
    files compared with HEAD's tree."""
    targets: list[str] = []
    for f in change.files:
        if f.status == "D" or change.kinds.get(f.path) is not Kind.TEST:
            continue
        name = f.path.rsplit("/", 1)[-1]
        if name == "conftest.py" or name == "__init__.py":
            continue
        if language_of(f.path) == "js":
            from tddgit.targets_js import js_targets

            new_js = _decode(read_blob(repo, change.tree, f.path)) or ""
            old_js = _decode(read_blob(repo, change.base_tree, f.old_path or f.path))
            targets.extend(js_targets(f.path, new_js, old_js))
            continue
        if not f.path.endswith(".py"):
            # Test data (fixtures, .json, binaries) is part of a test change but holds no
            # test to run; only test *code* in other languages is targeted, as a whole file.
            if matches(f.path, source_globs):
                targets.append(f.path)
            continue
        new = python_tests(_decode(read_blob(repo, change.tree, f.path)) or "")
        if new is None:
            targets.append(f.path)  # unparseable: the run will show why (amber syntax)
            continue
        old_path = f.old_path or f.path
        old_src = _decode(read_blob(repo, change.base_tree, old_path))
        old = python_tests(old_src) if old_src is not None else {}
        old = old or {}
        for qual, fingerprint in new.items():
            if old.get(qual) != fingerprint:
                targets.append(f"{f.path}::{qual}")
    return targets


def belongs(test_id: str, test_file: str | None, target: str) -> bool:
    """Whether a runner's test id is (a parametrization of) ``target`` or lies in it."""
    if test_id == target or test_file == target:
        return True
    return test_id.startswith((target + "[", target + "::"))

"""Which tests a step is about: the tests defined or changed in the staged test files.

For Python test files the old and new versions are compared function by function on
their AST (formatting and line moves don't count as changes); JS/TS test files test block
by test block (``targets_js``), Go test files function by function and table row by
table row (``targets_go``), Rust files ``#[test]`` by ``#[test]``, in integration test
files and in a source file's inline test module (``targets_rust``). Other languages' test files are targeted as whole files;
the runner maps results back to them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from tddgit.config import DEFAULT_SOURCE_GLOBS
from tddgit.git import Repo
from tddgit.languages import language_of
from tddgit.paths import Kind, matches
from tddgit.staged import StagedChange, base_blob, read_blob, read_blobs


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
    found = python_test_cases(source)
    return None if found is None else {k: v.fingerprint for k, v in found.items()}


class TestDef:
    """One test function's fingerprint: the whole of it, the part that is not its list of
    parametrize cases, and each case (its explicit id, when it has one, and its dump)."""

    __test__ = False  # not a pytest test class

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.fingerprint = ast.dump(node)
        self.cases: list[tuple[str | None, str]] = []
        core = []
        for dec in node.decorator_list:
            if _is_parametrize(dec):
                assert isinstance(dec, ast.Call)
                self.cases.extend(_cases(dec))
                core.append(ast.dump(dec.args[0]) if dec.args else "")
            else:
                core.append(ast.dump(dec))
        body = ast.dump(ast.Module(body=list(node.body), type_ignores=[]))
        self.core = "|".join([node.name, ast.dump(node.args), *core, body])


def _is_parametrize(dec: ast.expr) -> bool:
    if not isinstance(dec, ast.Call):
        return False
    f = dec.func
    return isinstance(f, ast.Attribute) and f.attr == "parametrize"


def _cases(dec: ast.Call) -> list[tuple[str | None, str]]:
    values = dec.args[1] if len(dec.args) > 1 else None
    ids: list[str | None] = []
    for kw in dec.keywords:
        if kw.arg == "argvalues":
            values = kw.value
        elif kw.arg == "ids" and isinstance(kw.value, (ast.List, ast.Tuple)):
            ids = [
                e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None
                for e in kw.value.elts
            ]
    if not isinstance(values, (ast.List, ast.Tuple)):
        return [(None, ast.dump(values) if values is not None else "")]
    out: list[tuple[str | None, str]] = []
    for i, elt in enumerate(values.elts):
        case_id = ids[i] if i < len(ids) else None
        if isinstance(elt, ast.Call) and getattr(elt.func, "attr", "") == "param":
            for kw in elt.keywords:
                if kw.arg == "id" and isinstance(kw.value, ast.Constant):
                    case_id = str(kw.value.value)
        out.append((case_id, ast.dump(elt)))
    return out


def python_test_cases(source: str) -> dict[str, TestDef] | None:
    """Every test of a Python test module by its qualified name, or None when it does not
    parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, TestDef] = {}

    def visit(body: Iterable[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("test") and (in_class or not prefix):
                    found[prefix + node.name] = TestDef(node)
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
    return staged_test_changes(repo, change, source_globs)[0]


def staged_test_changes(
    repo: Repo, change: StagedChange, source_globs: tuple[str, ...] = DEFAULT_SOURCE_GLOBS
) -> tuple[list[str], dict[str, list[str]]]:
    """The staged targets, and for each test whose only change is its list of parametrize
    cases, the explicit ids of the cases whose values changed (its new cases are found by
    id after the run: ``tddgit.gates.ids.narrow``)."""
    targets: list[str] = []
    cases: dict[str, list[str]] = {}
    for f in change.files:
        if f.status != "D" and f.path.endswith(".rs"):
            targets.extend(_rust_targets(repo, change, f.path, f.old_path or f.path))
            continue
        if f.status == "D" or change.kinds.get(f.path) is not Kind.TEST:
            continue
        name = f.path.rsplit("/", 1)[-1]
        if name == "conftest.py" or name == "__init__.py":
            continue
        if language_of(f.path) == "js":
            from tddgit.targets_js import js_targets

            new_js = _decode(read_blob(repo, change.tree, f.path)) or ""
            old_js = _decode(base_blob(repo, change, f))
            targets.extend(js_targets(f.path, new_js, old_js))
            continue
        if f.path.endswith(".go"):
            from tddgit.targets_go import go_targets

            new_go = _decode(read_blob(repo, change.tree, f.path)) or ""
            old_go = _decode(base_blob(repo, change, f))
            targets.extend(go_targets(f.path, new_go, old_go))
            continue
        if not f.path.endswith(".py"):
            # Test data (fixtures, .json, binaries) is part of a test change but holds no
            # test to run; only test *code* in other languages is targeted, as a whole file.
            if matches(f.path, source_globs):
                targets.append(f.path)
            continue
        new = python_test_cases(_decode(read_blob(repo, change.tree, f.path)) or "")
        if new is None:
            targets.append(f.path)  # unparseable: the run will show why (amber syntax)
            continue
        old_src = _decode(base_blob(repo, change, f))
        old = (python_test_cases(old_src) if old_src is not None else {}) or {}
        for qual, test in new.items():
            before = old.get(qual)
            if before is not None and before.fingerprint == test.fingerprint:
                continue
            target = f"{f.path}::{qual}"
            targets.append(target)
            if before is not None and before.core == test.core and test.cases:
                was = dict(c for c in before.cases if c[0] is not None)
                cases[target] = [
                    i for i, dump in test.cases if i is not None and was.get(i, dump) != dump
                ]
    return targets, cases


def _rust_targets(repo: Repo, change: StagedChange, path: str, old_path: str) -> list[str]:
    """A Rust file's new or changed tests: an integration test file's, or those of a
    source file's inline ``#[cfg(test)] mod`` (the test side of a production file)."""
    from tddgit.targets_rust import crate_of, manifests_above, rust_targets

    # One `git cat-file` for every blob this needs (a process per blob was most of it).
    manifests = manifests_above(path)
    names = [(change.tree, m) for m in [*manifests, path]] + [(change.base_tree, old_path)]
    blobs = read_blobs(repo, names)
    texts = {m: _decode(b) for m, b in zip(manifests, blobs[: len(manifests)], strict=True)}
    crate = crate_of(path, texts.get)
    if crate is None:
        return [path] if change.kinds.get(path) is Kind.TEST else []
    new = _decode(blobs[len(manifests)]) or ""
    old = _decode(blobs[-1])
    return rust_targets(path, crate, new, old)


def belongs(test_id: str, test_file: str | None, target: str) -> bool:
    """Whether a runner's test id is (a parametrization of) ``target`` or lies in it."""
    if test_id == target or test_file == target:
        return True
    if "::" in test_id and target.startswith(test_id + "/"):
        return True  # a Go test fails with its failing subtest: part of that target
    return test_id.startswith((target + "[", target + "::"))

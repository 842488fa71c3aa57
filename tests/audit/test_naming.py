"""Test file <-> production file matching for test-after-fact."""

from __future__ import annotations

import pytest

from tddgit.audit import naming


@pytest.mark.parametrize(
    ("prod", "test"),
    [
        ("src/pprint.py", "tests/test_pprint.py"),
        ("pkg/pprint.py", "pkg/pprint_test.py"),
        ("src/foo.js", "src/foo.test.js"),
        ("src/foo.ts", "test/foo.spec.ts"),
        ("lib/foo.jsx", "__tests__/foo.js"),
        ("src/main/java/a/Foo.java", "src/test/java/a/FooTest.java"),
        ("src/main/java/a/Foo.java", "src/test/java/a/TestFoo.java"),
        ("Foo.kt", "FooTests.kt"),
        ("foo.go", "foo_test.go"),
        ("Widget.cs", "WidgetTests.cs"),
        ("lib/parser.rb", "spec/parser_spec.rb"),
    ],
)
def test_names_that_match(prod, test):
    assert naming.production_key(prod) is not None
    assert naming.production_key(prod) == naming.test_key(test)


@pytest.mark.parametrize(
    ("prod", "test"),
    [
        ("src/foo.py", "tests/test_foo.js"),  # another language
        ("src/foo.py", "tests/test_foobar.py"),
        ("src/foo.go", "src/bar_test.go"),
    ],
)
def test_names_that_do_not_match(prod, test):
    assert naming.production_key(prod) != naming.test_key(test)


@pytest.mark.parametrize(
    "path", ["src/__init__.py", "src/index.js", "cmd/main.go", "tests/conftest.py", "Makefile"]
)
def test_generic_names_never_match(path):
    assert naming.production_key(path) is None or naming.test_key(path) is None
    assert naming.test_key(path) is None


def test_python_imports():
    text = "import os\nfrom pkg.pprint import pformat, saferepr as s\nimport a.b as c, d\n"
    keys = naming.imported_keys(text, "py")
    assert keys == {(n, "py") for n in ("os", "pprint", "pformat", "saferepr", "b", "d")}


def test_js_imports_only_relative():
    text = 'import {x} from "../src/foo.js";\nconst y = require("./bar");\nimport "lodash";\n'
    assert naming.imported_keys(text, "js") == {("foo", "js"), ("bar", "js")}


def test_java_imports():
    text = "package a;\nimport com.acme.Parser;\nimport static com.acme.Util.x;\n"
    assert ("parser", "jvm") in naming.imported_keys(text, "jvm")


def test_kotlin_imports_without_semicolons_are_each_read() -> None:
    """Each import on its own line: the pattern read the next line's indent as part of
    an import without a semicolon, and the indented import after it went unread."""
    text = "import com.example.Calculator\n    import com.example.Strings\nclass T\n"
    assert naming.imported_keys(text, "jvm") == {("calculator", "jvm"), ("strings", "jvm")}

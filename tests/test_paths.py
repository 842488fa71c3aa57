"""Path classification across the layouts of the common ecosystems."""

from __future__ import annotations

import pytest

from tddgit.config import default_config
from tddgit.paths import Classifier, Kind, matches

C = Classifier.from_config(default_config())


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        # Python
        ("tests/test_calc.py", Kind.TEST),
        ("test_calc.py", Kind.TEST),
        ("pkg/calc_test.py", Kind.TEST),
        ("conftest.py", Kind.TEST),
        ("src/pkg/tests/test_x.py", Kind.TEST),
        ("testing/helpers.py", Kind.TEST),
        ("tests/data/input.json", Kind.TEST),
        ("src/pkg/calc.py", Kind.PRODUCTION),
        ("calc.py", Kind.PRODUCTION),
        ("setup.py", Kind.OTHER),
        ("docs/conf.py", Kind.OTHER),
        # JS / TS
        ("src/sum.test.js", Kind.TEST),
        ("src/sum.spec.ts", Kind.TEST),
        ("src/__tests__/sum.js", Kind.TEST),
        ("src/sum.ts", Kind.PRODUCTION),
        ("jest.config.js", Kind.OTHER),
        ("vite.config.ts", Kind.OTHER),
        ("node_modules/x/index.js", Kind.OTHER),
        # Go
        ("pkg/sum_test.go", Kind.TEST),
        ("pkg/sum.go", Kind.PRODUCTION),
        # Java / Kotlin
        ("src/test/java/com/x/SumTest.java", Kind.TEST),
        ("src/main/java/com/x/Sum.java", Kind.PRODUCTION),
        ("app/src/test/kotlin/SumTest.kt", Kind.TEST),
        ("build.gradle.kts", Kind.OTHER),
        # Rust
        ("tests/integration.rs", Kind.TEST),
        ("src/lib.rs", Kind.PRODUCTION),
        # C#
        ("Calc.Tests/CalcTests.cs", Kind.TEST),
        ("Calc/Calc.cs", Kind.PRODUCTION),
        # other
        ("README.md", Kind.OTHER),
        ("poetry.lock", Kind.OTHER),
        ("assets/logo.png", Kind.OTHER),
        ("Makefile", Kind.OTHER),
        ("a dir/with spaces ü.py", Kind.PRODUCTION),
    ],
)
def test_default_classification(path: str, kind: Kind) -> None:
    assert C.kind(path) is kind


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("*.py", "a/b/c.py", True),
        ("tests/**", "tests/a/b.py", True),
        ("tests/**", "src/tests/a.py", False),
        ("**/tests/**", "src/tests/a.py", True),
        ("src/*.py", "src/a/b.py", False),
        ("src/**/*.py", "src/b.py", True),
        ("test_?.py", "x/test_a.py", True),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "b.py", False),
    ],
)
def test_glob_rules(pattern: str, path: str, hit: bool) -> None:
    assert matches(path, (pattern,)) is hit


def test_custom_globs_and_exempt() -> None:
    c = Classifier(
        test_globs=("spec/**",),
        source_globs=("*.rb",),
        other_globs=(),
        exempt_globs=("db/migrate/**",),
    )
    assert c.kind("spec/models/user_spec.rb") is Kind.TEST
    assert c.kind("app/models/user.rb") is Kind.PRODUCTION
    assert c.kind("tests/test_x.py") is Kind.OTHER
    assert c.is_exempt("db/migrate/001.rb") and not c.is_exempt("app/x.rb")

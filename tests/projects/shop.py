"""The repositories of the monorepo tests: a backend (pytest, src layout, its own
pyproject.toml) and a frontend (TypeScript tested by vitest, its own package.json), each
with helpers to write one step of a cycle."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import TDDGIT, GitRepo
from tests.jsdeps import PINNED, Unavailable, node_modules
from tests.npmcache import unavailable

BACKEND_PYPROJECT = """\
[project]
name = "shop"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]

[tool.tddgit]
green.yagni = "off"
"""

CART = "def total(prices):\n    return sum(prices)\n"
CART_TEST = "from shop.cart import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
CART_TEST_COUNT = CART_TEST + (
    "\n\ndef test_count():\n    from shop.cart import count\n\n    assert count([1, 2]) == 2\n"
)
CART_COUNT = CART + "\n\ndef count(prices):\n    return len(prices)\n"
CART_TEST_RENAMED = CART_TEST_COUNT.replace("def test_count(", "def test_count_items(")
CART_COUNT_REFACTORED = (
    "def total(prices):\n    return sum(prices)\n\n\ndef count(prices):\n"
    "    return len(list(prices))\n"
)

VITEST = "import { describe, test, expect } from 'vitest';\n"
NEG = "export function neg(x: number): number {\n  return -x;\n}\n"
NEG_TEST = (
    VITEST
    + "import { neg } from '../src/neg';\n\n"
    + "describe('neg', () => {\n  test('negates', () => {\n    expect(neg(2)).toBe(-2);\n  });\n});\n"
)
NEG_TEST_TWICE = (
    NEG_TEST.replace(VITEST, VITEST + "import * as lib from '../src/neg';\n")
    + "\ntest('doubles', () => {\n  expect((lib as any).twice(2)).toBe(4);\n});\n"
)
NEG_TWICE = NEG + "\nexport function twice(x: number): number {\n  return 2 * x;\n}\n"


def linked_node_modules(where: Path) -> None:
    """vitest from the shared npm cache (``make jsdeps``), linked into ``where``."""
    try:
        modules = node_modules()
    except Unavailable as exc:
        unavailable("vitest", exc)
    os.symlink(modules, where / "node_modules")


def backend(repo: GitRepo, at: str = "backend") -> None:
    repo.write(f"{at}/pyproject.toml", BACKEND_PYPROJECT, dedent=False)
    repo.write(f"{at}/src/shop/__init__.py", "", dedent=False)
    repo.write(f"{at}/src/shop/cart.py", CART, dedent=False)
    repo.write(f"{at}/tests/test_cart.py", CART_TEST, dedent=False)


def frontend(repo: GitRepo, at: str = "frontend") -> None:
    package = {"name": "web", "type": "module", "devDependencies": {"vitest": PINNED["vitest"]}}
    repo.write(f"{at}/package.json", json.dumps(package), dedent=False)
    repo.write(f"{at}/src/neg.ts", NEG, dedent=False)
    repo.write(f"{at}/test/neg.test.ts", NEG_TEST, dedent=False)
    linked_node_modules(repo.root / at)


def shop(repo: GitRepo) -> None:
    """The backend + frontend repository, committed."""
    repo.write(".gitignore", "node_modules\n.venv\n__pycache__/\n.pytest_cache/\n", dedent=False)
    repo.write("README.md", "# shop\n", dedent=False)
    backend(repo)
    frontend(repo)
    repo.commit("start")


def tddgit_in(repo: GitRepo, where: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TDDGIT, *args], cwd=repo.root / where, capture_output=True, text=True, check=False
    )


def git_in(repo: GitRepo, where: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo.root / where, capture_output=True, text=True, check=False
    )


def note(repo: GitRepo, rev: str = "HEAD") -> dict[str, object]:
    return dict(json.loads(repo.git("notes", "--ref=tddgit", "show", rev)))


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc

"""The audit keeps cycles per project (docs/monorepo.md, docs/audit.md): in a backend
(pytest) + frontend (vitest) repository a backend red is never closed by a frontend green,
a commit touching both projects is judged in each, and every format shows each project's
figures."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import GitRepo
from tests.projects.shop import (
    CART_COUNT,
    CART_TEST_COUNT,
    NEG_TEST_TWICE,
    NEG_TWICE,
    ok,
    shop,
    tddgit_in,
)

CART_TEST_MEAN = CART_TEST_COUNT + (
    "\n\ndef test_mean():\n    from shop.cart import mean\n\n    assert mean([1, 3]) == 2\n"
)
CART_MEAN = CART_COUNT + "\n\ndef mean(prices):\n    return sum(prices) / len(prices)\n"
NEG_TEST_THRICE = NEG_TEST_TWICE + (
    "\ntest('thrice', () => {\n  expect((lib as any).thrice(2)).toBe(6);\n});\n"
)
NEG_THRICE = NEG_TWICE + "\nexport function thrice(x: number): number {\n  return 3 * x;\n}\n"


def audit_json(repo: GitRepo) -> dict[str, Any]:
    proc = ok(repo.tddgit("audit", "--format", "json"))
    return dict(json.loads(proc.stdout))


def cycles_of(report: dict[str, Any]) -> dict[str, list[str]]:
    """project -> the status of each of its cycles."""
    out: dict[str, list[str]] = {}
    for cycle in report["cycles"]:
        out.setdefault(cycle.get("project"), []).append(cycle["status"])
    return out


def projects_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["project"]: p for p in report["metrics"].get("projects", [])}


def subjects(report: dict[str, Any], rule: str) -> list[str]:
    by_sha = {c["sha"]: c["subject"] for c in report["commits"]}
    return [by_sha[f["commit"]] for f in report["findings"] if f["rule"] == rule]


def test_interleaved_cycles_made_by_the_gates_are_kept_per_project(repo: GitRepo) -> None:
    shop(repo)

    def step(where: str, phase: str, message: str, *args: str) -> None:
        repo.add()
        ok(tddgit_in(repo, where, phase, *args, "-m", message))

    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    step("backend", "red", "test count", "tests/test_cart.py::test_count")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    step("frontend", "red", "test twice")
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    step(".", "green", "twice")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    step(".", "green", "count")
    repo.write("frontend/src/neg.ts", NEG_TWICE.replace("2 * x", "x + x"), dedent=False)
    step("frontend", "refactor", "twice by adding")
    # one red spanning both projects: a red in each, each closed by its own green
    repo.write("backend/tests/test_cart.py", CART_TEST_MEAN, dedent=False)
    repo.write("frontend/test/neg.test.ts", NEG_TEST_THRICE, dedent=False)
    step(".", "red", "test mean and thrice")
    repo.write("backend/src/shop/cart.py", CART_MEAN, dedent=False)
    step("backend", "green", "mean")
    repo.write("frontend/src/neg.ts", NEG_THRICE, dedent=False)
    step("frontend", "green", "thrice")

    report = audit_json(repo)
    assert cycles_of(report) == {
        "backend": ["complete", "complete"],
        "frontend": ["complete", "complete"],
    }
    for rule in ("green-without-red", "refactor-without-green", "red-without-green"):
        assert subjects(report, rule) == [], rule
    spanning = next(c for c in report["commits"] if c["subject"] == "test mean and thrice")
    assert spanning["projects"] == {"backend": "red", "frontend": "red"}
    per = projects_of(report)
    assert sorted(per) == ["backend", "frontend"]
    assert per["backend"]["cycles"]["complete"] == 2
    assert per["frontend"]["cycles"]["complete"] == 2
    # the first commit, its reds (one shared), greens and refactor
    assert per["frontend"]["commits"] == 6
    assert per["backend"]["commits"] == 5
    # the refactor belongs to the frontend's first cycle
    frontend_cycles = [c for c in report["cycles"] if c["project"] == "frontend"]
    assert len(frontend_cycles[0]["refactors"]) == 1
    assert report["metrics"]["cycles"]["complete"] == 4

    text = ok(repo.tddgit("audit", "--format", "text")).stdout
    assert "Projects" in text and "backend" in text and "frontend" in text
    markdown = ok(repo.tddgit("audit", "--format", "markdown")).stdout
    assert "## Projects" in markdown
    assert "| backend | 5 |" in markdown and "| frontend | 6 |" in markdown


def test_plain_commits_are_inferred_per_project(repo: GitRepo) -> None:
    """The same interleaving with no trailer and no gate: the files alone say red and
    green, and each project's green closes its own red."""
    shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.commit("count the items")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.commit("double a number")
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    repo.commit("twice")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.commit("count")

    report = audit_json(repo)
    assert cycles_of(report) == {"backend": ["complete"], "frontend": ["complete"]}
    phases = {c["subject"]: (c["phase"], c["phase_source"]) for c in report["commits"]}
    assert phases["count"] == ("green", "files")
    assert phases["twice"] == ("green", "files")
    per = projects_of(report)
    assert per["backend"]["cycles"] == {**per["backend"]["cycles"], "complete": 1, "total": 1}
    assert per["frontend"]["cycles"]["complete"] == 1


def test_every_format_shows_the_projects(repo: GitRepo) -> None:
    """The HTML report (which `tddgit ci` writes beside the Markdown summary) shows each
    project's figures too."""
    shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.commit("count the items")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.commit("double a number")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.commit("count")

    html = repo.root / "audit.html"
    ok(repo.tddgit("audit", "--format", "html", "-o", str(html)))
    page = html.read_text(encoding="utf-8")
    assert "Per project" in page and ">backend<" in page and ">frontend<" in page

    per = projects_of(audit_json(repo))
    assert per["backend"]["cycles"]["complete"] == 1
    assert per["frontend"]["cycles"]["open"] == 1


def test_one_project_repository_has_no_projects_key(repo: GitRepo) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n", dedent=False)
    repo.write("tests/test_a.py", "def test_a():\n    assert 1\n", dedent=False)
    repo.commit("first")
    report = audit_json(repo)
    assert "projects" not in report["metrics"]
    assert all("project" not in c for c in report["cycles"])

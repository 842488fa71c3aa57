"""`tddgit plan SPEC`: a deterministic plan from a YAML spec, on real files and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from tests.conftest import GitRepo
from tests.plans.conftest import SCHEMA

# Written in an order the plan must not keep: dependencies decide it.
SPEC = """\
spec_id: calc
title: Calculator
components:
  - name: Evaluator
    type: module
    file_path: calc/evaluate.py
    description: Evaluates an expression. Uses the parser.
    interface:
      methods:
        - signature: "evaluate(text: str) -> float"
  - name: Parser
    type: class
    file_path: calc/parser.py
    description: Builds a tree from tokens
    interface:
      methods:
        - signature: "parse(self, tokens: list[Token]) -> Node"
          description: precedence climbing
  - name: Lexer
    type: class
    file_path: calc/lexer.py
    interface:
      methods:
        - signature: "tokenize(self, text: str) -> list[Token]"
  - name: Token
    type: class
    file_path: calc/tokens.py
    description: A lexeme and its kind
    interface:
      methods:
        - signature: "from_lexer(lexer: Lexer) -> Token"
test_cases:
  - {id: TC-1, component: Token, given: a number lexeme, when: a Token is made, then: its kind is NUMBER}
  - {id: TC-2, component: Lexer, given: "1 + 2", when: tokenize, then: three tokens}
  - {id: TC-3, component: Token, given: "+", when: a Token is made, then: its kind is PLUS}
  - {id: TC-4, component: Lexer, given: an empty string, when: tokenize, then: no tokens}
  - {id: TC-5, component: Parser, given: "1 + 2 * 3", when: parse, then: "* binds tighter"}
  - {id: TC-6, component: Lexer, type: edge, given: "1 $", when: tokenize, then: an error names column 3}
  - {id: TC-7, component: Evaluator, type: integration, given: "2 * (3 + 4)", when: evaluate, then: "14"}
  - {id: TC-8, component: Parser, given: "(1", when: parse, then: an error says ')' is missing}
acceptance_criteria:
  - evaluate("1 + 2") == 3
implementation_order: [Lexer, Parser, Evaluator]
"""


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_four_components_in_dependency_order(repo: GitRepo) -> None:
    repo.write("specs/calc.yaml", SPEC, dedent=False)
    (repo.root / "sub").mkdir()
    proc = repo.tddgit("-C", "sub", "plan", "../specs/calc.yaml", check=True)
    out_dir = repo.root / ".tddgit" / "plans" / "calc"
    assert "plan calc: 4 tasks, 8 test cases" in proc.stdout
    data = json.loads((out_dir / "plan.json").read_text())
    assert list(Draft202012Validator(SCHEMA).iter_errors(data)) == []
    tasks = data["tasks"]
    assert [(t["id"], t["components"], t["depends_on"]) for t in tasks] == [
        ("IMPL-1", ["Token"], []),
        ("IMPL-2", ["Lexer"], ["IMPL-1"]),
        ("IMPL-3", ["Parser"], ["IMPL-1", "IMPL-2"]),
        ("IMPL-4", ["Evaluator"], ["IMPL-3"]),
    ]
    assert [t["red"]["count"] for t in tasks] == [2, 3, 2, 1]
    assert [c["id"] for c in tasks[1]["red"]["test_cases"]] == ["TC-2", "TC-4", "TC-6"]
    assert tasks[1]["red"]["test_cases"][2] == {
        "id": "TC-6",
        "type": "edge",
        "description": "",
        "given": "1 $",
        "when": "tokenize",
        "then": "an error names column 3",
    }
    assert data["totals"] == {"tasks": 4, "test_cases": 8, "files": 8}
    assert data["spec"] == "specs/calc.yaml"
    assert tasks[2]["files"] == ["calc/parser.py", "tests/test_parser.py"]
    assert tasks[2]["green"]["implement"] == [
        "parse(self, tokens: list[Token]) -> Node — precedence climbing"
    ]
    assert (
        "how Parser uses Lexer (IMPL-2): through its interface only"
        in tasks[2]["refactor"]["look_at"]
    )
    assert tasks[3]["title"] == "Evaluator: Evaluates an expression"
    assert data["notes"] == [
        "Token's interface names Lexer, which already depends on Token (implementation_order "
        "or its own interface); that dependency is left out so the order has no cycle"
    ]
    plan_md = (out_dir / "IMPL_PLAN.md").read_text()
    assert "## IMPL-2: Lexer (class)" in plan_md
    assert "### Red — 3 test cases (in `tests/test_lexer.py`)" in plan_md
    assert "3. **TC-6** (edge)\n   - given 1 $\n   - when tokenize" in plan_md
    todo = (out_dir / "TODO_LIST.md").read_text()
    assert "- [ ] IMPL-3: Parser: Builds a tree from tokens" in todo
    assert "  - [ ] red: 2 test cases — `tddgit red --task IMPL-3`" in todo

    first = _files(out_dir)
    assert set(first) == {"plan.json", "IMPL_PLAN.md", "TODO_LIST.md"}
    again = repo.tddgit("plan", "specs/calc.yaml", "--json", check=True)
    assert _files(out_dir) == first  # byte-identical
    assert json.loads(again.stdout) == data
    valid = repo.tddgit("plan", "validate", ".tddgit/plans/calc")
    assert valid.returncode == 0, valid.stdout


def test_output_directory(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("calc.yaml", SPEC, dedent=False)
    repo.tddgit("plan", "calc.yaml", "-o", "docs/plan", check=True)
    assert (repo.root / "docs" / "plan" / "plan.json").is_file()
    assert not (repo.root / ".tddgit").exists()


def test_too_many_components_says_split(repo: GitRepo) -> None:
    components = "".join(
        f"  - {{name: C{i}, type: module, file_path: pkg/c{i}.py}}\n" for i in range(25)
    )
    cases = "".join(f"  - {{id: T{i}, component: C{i}}}\n" for i in range(25))
    repo.write(
        "big.yaml",
        f"spec_id: big\ntitle: Big\ncomponents:\n{components}test_cases:\n{cases}",
        dedent=False,
    )
    proc = repo.tddgit("plan", "big.yaml")
    assert proc.returncode == 1
    assert "has 25 components, one task each; a plan holds at most 18 tasks" in proc.stderr
    assert "split the spec into smaller specs" in proc.stderr
    assert not (repo.root / ".tddgit").exists()


def test_free_form_spec_needs_a_model(repo: GitRepo) -> None:
    repo.write("idea.md", "# A calculator\n\nIt adds numbers.\n", dedent=False)
    proc = repo.tddgit("plan", "idea.md")
    assert proc.returncode == 2
    assert "is a free-form spec" in proc.stderr and "--llm" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_component_without_test_cases_is_bad_input(repo: GitRepo) -> None:
    spec = SPEC.replace("  - {id: TC-7, component: Evaluator", "  - {id: TC-7, component: Parser")
    repo.write("calc.yaml", spec, dedent=False)
    proc = repo.tddgit("plan", "calc.yaml")
    assert proc.returncode == 2
    assert "component Evaluator has no test cases" in proc.stderr


def test_bad_spec_names_its_line(repo: GitRepo) -> None:
    repo.write("calc.yaml", SPEC.replace("type: module", "type: 7", 1), dedent=False)
    proc = repo.tddgit("plan", "calc.yaml")
    assert proc.returncode == 2 and "calc.yaml:" in proc.stderr and "Traceback" not in proc.stderr


def test_spec_file_outside_the_repository_is_bad_input(repo: GitRepo) -> None:
    repo.write("calc.yaml", SPEC.replace("calc/parser.py", "../parser.py"), dedent=False)
    proc = repo.tddgit("plan", "calc.yaml")
    assert proc.returncode == 2
    assert "$.tasks[2].files[0]: '../parser.py' is outside the repository" in proc.stderr
    assert not (repo.root / ".tddgit").exists()

"""The mutation check on a JS green: node's own test runner (nothing to install), the real
CLI, mutants made from the tokenizer and run on snapshots."""

from __future__ import annotations

from tests.conftest import GitRepo
from tests.runners.test_js_gates import CALC, FLAVOURS, gate, open_red, stage, start

MUL_UNPINNED = CALC + (
    "\nexport function mul(a, b) {\n  if (b === 7) return 0;\n  return a * b;\n}\n"
)


def test_a_js_green_with_an_unpinned_branch_is_warned(repo: GitRepo) -> None:
    flavour = FLAVOURS["node"]
    start(repo, flavour)
    open_red(repo, flavour)
    stage(repo, {"src/calc.js": MUL_UNPINNED})
    code, data = gate(repo, "green")
    assert code == 0, data
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    found = [f for f in evidence["findings"] if f["rule"] == "unpinned-green-line"]
    assert [(f["file"], f["line"], f["mutant"]) for f in found] == [
        ("src/calc.js", 6, "if (false) return 0;")
    ]
    # `return a * b;` became `return a / b;` and the red's test (mul(2, 3) == 6) killed it
    assert "mutation: 1 of 2 mutants killed" in data["notes"]
    assert (repo.root / "src/calc.js").read_text() == MUL_UNPINNED

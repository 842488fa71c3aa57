"""The kinds of error a careful reviewer finds in the audit of real histories (issue 27).

Each test is a small real repository aimed at one kind of error, not at one history: a
test-only commit that checks nothing new, tests written after the code, an inferred red
that never ends, a green made over several commits, changes that add no code.
"""

from __future__ import annotations

from tests.audit.helpers import Steps, audit, by_subject, rules_fired

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def started(repo) -> Steps:
    """A project with code and a test, made together (no phase)."""
    s = Steps(repo)
    s.commit("calc with its test", {"calc.py": CALC, "tests/test_calc.py": TEST})
    return s


def test_renaming_and_reformatting_tests_is_not_red(repo):
    s = started(repo)
    s.commit(
        "rename and reformat",
        {
            "tests/test_calc.py": "from calc import add\n\ndef test_adds_two( ):\n    assert add(1,2)==3\n"
        },
    )
    s.commit(
        "lint: comment",
        {
            "tests/test_calc.py": "from calc import add\n\n# sums\ndef test_adds_two():\n    assert add(1, 2) == 3\n"
        },
    )
    report = audit(repo)
    recs = by_subject(report)
    assert recs["rename and reformat"].phase is None
    assert recs["lint: comment"].phase is None
    assert rules_fired(report) == []


def test_converting_tests_to_parametrize_is_not_red(repo):
    s = Steps(repo)
    two = TEST + "\n\ndef test_add_more():\n    assert add(2, 2) == 4\n"
    s.commit("calc with tests", {"calc.py": CALC, "tests/test_calc.py": two})
    s.commit(
        "tests: parametrize",
        {
            "tests/test_calc.py": "import pytest\nfrom calc import add\n\n\n"
            '@pytest.mark.parametrize("a, b, total", [(1, 2, 3), (2, 2, 4)])\n'
            "def test_add(a, b, total):\n    assert add(a, b) == total\n"
        },
    )
    assert by_subject(audit(repo))["tests: parametrize"].phase is None


def test_a_new_test_case_or_a_changed_expectation_is_red(repo):
    s = started(repo)
    s.commit(
        "a new case",
        {"tests/test_calc.py": TEST + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"},
    )
    s.commit("green", {"calc.py": CALC + "\n"})
    s.commit("expect more", {"tests/test_calc.py": TEST.replace("== 3", "== 4")})
    recs = by_subject(audit(repo))
    assert recs["a new case"].phase == "red"
    assert recs["expect more"].phase == "red"


def test_js_test_renamed_is_not_red_and_a_new_case_is(repo):
    s = Steps(repo)
    spec = "import { add } from './add'\n\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3)\n})\n"
    s.commit(
        "add with spec",
        {"src/add.js": "export const add = (a, b) => a + b\n", "src/add.test.js": spec},
    )
    s.commit("rename the test", {"src/add.test.js": spec.replace("'adds'", "'adds two numbers'")})
    s.commit(
        "negatives",
        {
            "src/add.test.js": spec
            + "\ntest('negatives', () => {\n  expect(add(-1, -2)).toBe(-3)\n})\n"
        },
    )
    recs = by_subject(audit(repo))
    assert recs["rename the test"].phase is None
    assert recs["negatives"].phase == "red"


def test_tests_for_the_code_of_the_commit_just_before_are_tests_after(repo):
    s = started(repo)
    s.commit("fix: negative zero", {"calc.py": CALC.replace("a + b", "(a + b) or 0")})
    s.commit(
        "cover it",
        {"tests/test_calc.py": TEST + "\n\ndef test_zero():\n    assert add(0.0, -0.0) == 0\n"},
    )
    s.commit("docs", {"README.md": "calc\n"})
    s.commit("speed up", {"calc.py": CALC.replace("a + b", "b + a")})
    report = audit(repo)
    recs = by_subject(report)
    assert recs["cover it"].phase is None
    assert recs["cover it"].rule == "test-after:previous"
    # no knock-on: the later production change is not the green of a red
    assert recs["speed up"].phase is None
    assert ("pre-test-code", "speed up") in rules_fired(report)


def test_a_message_saying_the_tests_pass_or_came_after_is_tests_after(repo):
    s = started(repo)
    more = TEST + "\n\ndef test_more():\n    assert add(5, 5) == 10\n"
    s.commit("add comprehensive test suite with 76 passing tests", {"tests/test_calc.py": more})
    s.commit(
        "Add tests for add",
        {"tests/test_calc.py": more + "\n\ndef test_x():\n    assert add(1, 1) == 2\n"},
    )
    recs = by_subject(audit(repo))
    assert recs["add comprehensive test suite with 76 passing tests"].phase is None
    assert recs["Add tests for add"].phase is None


def test_an_inferred_red_lapses_once_and_opens_nothing_later(repo):
    s = started(repo)
    s.commit(
        "typo test",
        {"tests/test_calc.py": TEST + "\n\ndef test_big():\n    assert add(10, 10) == 20\n"},
    )
    for i in range(11):
        s.commit(f"docs {i}", {"README.md": f"v{i}\n"})
    s.commit("refactor: tidy", {"calc.py": CALC.replace("a, b", "x, y").replace("a + b", "x + y")})
    s.commit("new feature", {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"})
    report = audit(repo)
    recs = by_subject(report)
    fired = rules_fired(report)
    assert recs["typo test"].phase == "red"
    assert fired.count(("red-lapsed", "typo test")) == 1
    assert ("refactor-while-red", "refactor: tidy") not in fired
    assert recs["new feature"].phase is None  # not the green of a red a year old
    assert ("pre-test-code", "new feature") in fired


def test_a_red_lapses_after_its_time_window_too(repo):
    s = started(repo)
    s.commit(
        "red by files",
        {"tests/test_calc.py": TEST + "\n\ndef test_t():\n    assert add(2, 3) == 5\n"},
    )
    s.commit(
        "much later", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return a * b\n"}, at=60 * 24 * 30
    )
    report = audit(repo)
    assert by_subject(report)["much later"].phase is None
    assert ("red-lapsed", "red by files") in rules_fired(report)


def test_a_green_made_over_several_commits(repo):
    s = started(repo)
    s.commit(
        "test mul",
        {
            "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
        },
    )
    s.commit("mul placeholder", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return None\n"})
    s.commit("mul for real", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return a * b\n"})
    report = audit(repo)
    recs = by_subject(report)
    assert recs["mul placeholder"].phase == "green"
    assert recs["mul for real"].phase == "green"
    assert rules_fired(report) == []


def test_deletion_only_and_comment_or_docstring_only_commits_add_no_code(repo):
    s = Steps(repo)
    spike = CALC + "\n\ndef spike(x):\n    return x * 42\n"
    s.commit("calc with its test", {"calc.py": spike, "tests/test_calc.py": TEST})
    s.commit("Revert spike", {"calc.py": CALC})
    s.commit(
        "docstring", {"calc.py": '"""Sums."""\n\n\n' + CALC.replace("return", "# add\n    return")}
    )
    s.commit(
        "types",
        {
            "calc.py": '"""Sums."""\n\n\ndef add(a: int, b: int) -> int:\n    # add\n    return a + b\n'
        },
    )
    s.commit("js comment", {"web/a.js": "export const f = () => 1\n"})
    s.commit("js doc", {"web/a.js": "/**\n  The answer.\n*/\nexport const f = () => 1 // one\n"})
    fired = rules_fired(audit(repo))
    assert [f for f in fired if f[1] != "js comment"] == []


def test_a_green_that_adds_a_case_to_its_reds_test_bends_nothing(repo):
    s = started(repo)
    red = TEST + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"
    s.commit("red: negatives", {"tests/test_calc.py": red})
    s.commit(
        "green: negatives",
        {
            "calc.py": CALC + "\n",
            "tests/test_calc.py": red + "\n\ndef test_n2():\n    assert add(-2, 0) == -2\n",
        },
    )
    s.commit(
        "red: big",
        {
            "tests/test_big.py": "from calc import add\n\n\ndef test_big():\n    assert add(9, 9) == 18\n"
        },
    )
    s.commit(
        "green: big",
        {
            "calc.py": CALC + "\n\n",
            "tests/test_big.py": "from calc import add\n\n\ndef test_big():\n    assert add(9, 9) == 99\n",
        },
    )
    fired = rules_fired(audit(repo))
    assert ("test-edited-in-green", "green: negatives") not in fired
    assert ("test-edited-in-green", "green: big") in fired


def test_the_red_window_is_configurable(repo):
    s = started(repo)
    s.commit("config", {".tddgit.yml": "audit:\n  red_window_commits: 1\n"})
    s.commit(
        "red by files",
        {"tests/test_calc.py": TEST + "\n\ndef test_t():\n    assert add(2, 3) == 5\n"},
    )
    s.commit("docs 1", {"README.md": "1\n"})
    s.commit("docs 2", {"README.md": "2\n"})
    s.commit("code", {"calc.py": CALC + "\n\ndef mul(a, b):\n    return a * b\n"})
    report = audit(repo)
    assert by_subject(report)["code"].phase is None
    assert ("red-lapsed", "red by files") in rules_fired(report)

"""An inferred red opens a cycle only for the production its tests exercise: the modules
they import, resolved against the tree (issue 27 item 2)."""

from __future__ import annotations

from tests.audit.helpers import Steps, audit, by_subject, rules_fired

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
NEG = TEST + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"


def started(repo) -> Steps:
    s = Steps(repo)
    s.commit(
        "calc and a cli with the test",
        {"calc.py": CALC, "cli.py": "import sys\n", "tests/test_calc.py": TEST},
    )
    return s


def test_an_unrelated_production_commit_is_not_the_green_of_an_inferred_red(repo):
    s = started(repo)
    s.commit("negatives", {"tests/test_calc.py": NEG})
    s.commit("typo in the cli", {"cli.py": "import sys\n\nNAME = 'calc'\n"})
    s.commit("calc handles them", {"calc.py": CALC.replace("a + b", "int(a) + int(b)")})
    report = audit(repo)
    recs = by_subject(report)
    assert recs["negatives"].phase == "red"
    assert recs["typo in the cli"].phase is None
    assert ("pre-test-code", "typo in the cli") in rules_fired(report)
    assert recs["calc handles them"].phase == "green"
    assert recs["calc handles them"].cycle == recs["negatives"].cycle


def test_the_scope_is_the_module_imported_not_one_of_the_same_name(repo):
    s = Steps(repo)
    pkg_test = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    s.commit(
        "two calcs",
        {
            "calc.py": CALC,
            "pkg/__init__.py": "",
            "pkg/calc.py": CALC,
            "tests/test_calc.py": pkg_test,
        },
    )
    s.commit(
        "negatives",
        {"tests/test_calc.py": pkg_test + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"},
    )
    s.commit("the other calc", {"calc.py": CALC + "\nX = 1\n"})
    s.commit("the package's calc", {"pkg/calc.py": CALC + "\nY = 1\n"})
    recs = by_subject(audit(repo))
    assert recs["the other calc"].phase is None
    assert recs["the package's calc"].phase == "green"


def test_a_test_driving_the_app_through_a_client_is_not_scoped_to_its_imports(repo):
    s = Steps(repo)
    view_test = (
        "from lists.views import home\n\n\ndef test_root(client):\n"
        "    assert client.get('/').status_code == 200\n"
    )
    s.commit(
        "views",
        {"lists/views.py": "def home(request):\n    return None\n", "lists/tests.py": view_test},
    )
    s.commit(
        "root url",
        {
            "lists/tests.py": view_test
            + "\n\ndef test_home(client):\n    assert client.get('/home').status_code == 200\n"
        },
    )
    s.commit("urls make it pass", {"site/urls.py": "urlpatterns = ['home']\n"})
    assert by_subject(audit(repo))["urls make it pass"].phase == "green"


def test_a_refactor_under_an_outer_loop_red_or_outside_the_reds_scope_is_not_while_red(repo):
    s = started(repo)
    ft = (
        "from selenium import webdriver\n\n\ndef test_home():\n"
        "    browser = webdriver.Firefox()\n    browser.get('http://localhost:8000')\n"
        "    assert 'To-Do' in browser.title\n"
    )
    s.commit("the FT", {"functional_tests/test_home.py": ft})
    s.commit("refactor: templates use a base", {"cli.py": "import sys  # base\nimport os\n"})
    s.commit("negatives", {"tests/test_calc.py": NEG})
    s.commit("refactor: the cli", {"cli.py": "import os\nimport sys\n"})
    s.commit("refactor: calc", {"calc.py": CALC.replace("a, b", "x, y").replace("a + b", "x + y")})
    fired = rules_fired(audit(repo))
    assert ("refactor-while-red", "refactor: templates use a base") not in fired
    assert ("refactor-while-red", "refactor: the cli") not in fired
    assert ("refactor-while-red", "refactor: calc") in fired

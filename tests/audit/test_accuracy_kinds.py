"""More kinds of error a reviewer finds in the audit of real histories (issue 27, found on
the labelled corpus in bench/corpus): each test is a small real repository aimed at one
kind, never at one history's quirks."""

from __future__ import annotations

from tests.audit.helpers import T0, Steps, audit, by_subject, rules_fired

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def started(repo) -> Steps:
    s = Steps(repo)
    s.commit("calc with its test", {"calc.py": CALC, "tests/test_calc.py": TEST})
    return s


def commit_dated(repo, message: str, files: dict[str, str], author: float, committer: float):
    """A commit whose author and committer dates differ (minutes after T0): a rebased or
    cherry-picked history keeps the old author dates."""
    for path, content in files.items():
        repo.write(path, content)
        repo.add(path)
    env = {
        "GIT_AUTHOR_DATE": f"@{int(T0 + author * 60)} +0000",
        "GIT_COMMITTER_DATE": f"@{int(T0 + committer * 60)} +0000",
    }
    repo.git("commit", "-q", "-m", message, env=env)


def test_a_rebased_history_does_not_lapse_a_red_by_its_old_author_dates(repo):
    # A book's example project rebased chapter by chapter: the test was first written a
    # month before the code that makes it pass, but both were committed the same day.
    started(repo)
    model = "from models import Item\n\n\ndef test_item():\n"
    model += "    assert Item().text == ''\n"
    commit_dated(repo, "tests for a new model", {"tests/test_models.py": model}, 100, 200_000)
    commit_dated(
        repo,
        "the model",
        {"models.py": "class Item:\n    text = ''\n"},
        60 * 24 * 45,
        200_010,
    )
    report = audit(repo)
    recs = by_subject(report)
    assert recs["tests for a new model"].phase == "red"
    assert recs["the model"].phase == "green"
    assert not any(rule == "red-lapsed" for rule, _ in rules_fired(report))


def test_a_reworded_unittest_failure_message_is_not_red(repo):
    s = Steps(repo)
    ft = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_rows(self):\n"
        "        rows = ['1: a']\n        self.assertTrue(\n"
        "            any(r == '1: a' for r in rows),\n            {msg},\n        )\n"
        "        self.assertIn('1: a', rows, {msg})\n"
    )
    s.commit("calc", {"calc.py": CALC})
    s.commit("the FT", {"tests/test_ft.py": ft.format(msg="'no row'")})
    s.commit("make it pass", {"calc.py": CALC + "\nROWS = 1\n"})
    s.commit("better message", {"tests/test_ft.py": ft.format(msg="f'no row in {rows}'")})
    s.commit(
        "a real new check", {"tests/test_ft.py": ft.format(msg="'x'").replace("1: a'", "2: b'")}
    )
    recs = by_subject(audit(repo))
    assert recs["better message"].phase is None
    assert recs["better message"].rule == "files:tests-unchanged"
    assert recs["a real new check"].phase == "red"


def test_a_green_over_several_commits_goes_on_across_a_generated_migration(repo):
    s = started(repo)
    s.commit(
        "test the model",
        {"lists/tests.py": "from lists.models import Item\n\n\ndef test_item():\n"
         "    assert Item.text == ''\n"},
    )  # fmt: skip
    s.commit("placeholder model", {"lists/models.py": "class Item:\n    pass\n"})
    s.commit(
        "first migration",
        {"lists/migrations/0001_initial.py": "from django.db import migrations\n\n"
         "class Migration(migrations.Migration):\n    operations = []\n"},
    )  # fmt: skip
    s.commit("text field", {"lists/models.py": "class Item:\n    text = ''\n"})
    report = audit(repo)
    recs = by_subject(report)
    assert recs["placeholder model"].phase == "green"
    assert recs["text field"].phase == "green"
    assert rules_fired(report) == []


def test_a_message_saying_the_tests_are_finished_in_chinese_is_tests_after(repo):
    s = started(repo)
    more = TEST + "\n\ndef test_more():\n    assert add(5, 5) == 10\n"
    s.commit("完成了test_calc。接下来该进行功能测试。", {"tests/test_calc.py": more})
    s.commit(
        "写完了 calc 的测试",
        {"tests/test_calc.py": more + "\n\ndef test_x():\n    assert add(1, 1) == 2\n"},
    )
    s.commit(
        "新增失败的测试",
        {"tests/test_calc.py": more + "\n\ndef test_y():\n    assert add(1, 0) == 2\n"},
    )
    recs = by_subject(audit(repo))
    assert recs["完成了test_calc。接下来该进行功能测试。"].rule == "test-after:message"
    assert recs["写完了 calc 的测试"].rule == "test-after:message"
    assert recs["新增失败的测试"].phase == "red"  # "failing" in Chinese: never tests-after


def test_django_app_configuration_from_startapp_is_not_production_code(repo):
    s = Steps(repo)
    s.commit(
        "Add app for lists, with deliberately failing unit test",
        {
            "lists/apps.py": "from django.apps import AppConfig\n\n\n"
            "class ListsConfig(AppConfig):\n    name = 'lists'\n",
            "lists/tests.py": "from django.test import TestCase\n\n\nclass T(TestCase):\n"
            "    def test_bad_maths(self):\n        self.assertEqual(1 + 1, 3)\n",
        },
    )
    report = audit(repo)
    assert (
        by_subject(report)["Add app for lists, with deliberately failing unit test"].phase == "red"
    )
    assert rules_fired(report) == []


def test_tests_for_code_changed_a_few_commits_before_are_tests_after(repo):
    s = started(repo)
    s.commit("fix: negative zero", {"calc.py": CALC.replace("a + b", "(a + b) or 0")})
    s.commit("compat import", {"pkg/__init__.py": "from calc import add\n"})
    s.commit("a helper", {"helper.py": "def h():\n    return 1\n"})
    s.commit(
        "test iter",
        {"tests/test_calc.py": TEST + "\n\ndef test_zero():\n    assert add(0.0, -0.0) == 0\n"},
    )
    s.commit(
        "test the package",
        {
            "tests/test_pkg.py": "from pkg import add\n\n\ndef test_pkg():\n    assert add(2, 2) == 4\n"
        },
    )
    recs = by_subject(audit(repo))
    assert recs["test iter"].rule == "test-after:previous"
    assert recs["test the package"].rule == "test-after:previous"


def test_the_commits_just_before_are_found_across_a_run_of_merges(repo):
    # A history merged by pull requests: between the code and the tests written after it
    # the first parent's line holds only merges, which are no step of their own.
    s = started(repo)
    s.commit("fix: negative zero", {"calc.py": CALC.replace("a + b", "(a + b) or 0")})
    branch = repo.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    for n in range(6):
        repo.git("checkout", "-q", "-b", f"docs{n}")
        s.commit(f"docs {n}", {f"docs/page{n}.md": f"page {n}\n"})
        repo.git("checkout", "-q", branch)
        repo.git("merge", "-q", "--no-ff", "-m", f"Merge docs {n}", f"docs{n}")
    s.commit(
        "test iter",
        {"tests/test_calc.py": TEST + "\n\ndef test_zero():\n    assert add(0.0, -0.0) == 0\n"},
    )
    assert by_subject(audit(repo))["test iter"].rule == "test-after:previous"


def test_tests_after_a_phase_step_are_not_tests_after_the_code_before_it(repo):
    s = started(repo)
    s.commit("fix: negative zero", {"calc.py": CALC.replace("a + b", "(a + b) or 0")})
    s.commit("refactor: tidy", {"calc.py": CALC.replace("a + b", "(b + a) or 0")})
    s.commit(
        "negatives",
        {"tests/test_calc.py": TEST + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"},
    )
    assert by_subject(audit(repo))["negatives"].phase == "red"


def test_a_green_over_several_commits_spans_a_view_and_its_template(repo):
    s = started(repo)
    s.commit(
        "test POST",
        {"lists/tests.py": "from lists.views import home\n\n\ndef test_post():\n"
         "    assert 'x' in home('x')\n"},
    )  # fmt: skip
    s.commit("silly return", {"lists/views.py": "def home(text):\n    return 'x'\n"})
    s.commit("template variable", {"lists/templates/home.html": "<p>{{ new_item_text }}</p>\n"})
    s.commit("root script", {"run.py": "print('hi')\n"})
    report = audit(repo)
    recs = by_subject(report)
    assert recs["template variable"].phase == "green"
    assert recs["root script"].phase is None  # outside the green's directory
    assert ("pre-test-code", "root script") in rules_fired(report)


def test_a_subject_saying_a_test_was_added_with_other_work_is_tests_after(repo):
    # "Added test" alone already reads as tests written after the code; so does "Added
    # test and updated the README": a report of work done, not a failing step. A subject
    # that says the new test fails stays red.
    s = started(repo)
    zero = TEST + "\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
    s.commit(
        "zero-safe add, with its test",
        {"calc.py": CALC.replace("a + b", "(a + b) or 0"), "tests/test_calc.py": zero},
    )
    pinned = zero + "\n\ndef test_negative_zero():\n    assert str(add(-0.0, 0.0)) == '0.0'\n"
    s.commit(
        "Added test and updated README to ensure negative zero",
        {"tests/test_calc.py": pinned, "README.md": "add(-0.0, 0.0) is 0.0\n"},
    )
    s.commit(
        "Added tests, and a broken one for floats",
        {"tests/test_calc.py": pinned + "\n\ndef test_f():\n    assert add(0.1, 0.2) == 0.3\n"},
    )
    recs = by_subject(audit(repo))
    assert recs["Added test and updated README to ensure negative zero"].rule == (
        "test-after:message"
    )
    assert recs["Added tests, and a broken one for floats"].phase == "red"

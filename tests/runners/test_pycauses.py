"""Python cause rules and the assembly of probe records into results, on records shaped
exactly like the probe's (see tddgit/runners/_probe/tddgit_probe.py); no subprocess."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tddgit.model import Cause, Light, Outcome
from tddgit.runners.probelog import parse_probe, read_probe
from tddgit.runners.pycauses import classify, short
from tddgit.runners.pydeps import Project, declared_distributions
from tddgit.runners.pyresults import Ending, build_results


def exc(type_: str, message: str = "", *mro: str, **facts: Any) -> dict[str, Any]:
    return {"type": type_, "mro": list(mro), "message": message, **facts}


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"))


# -- classify ---------------------------------------------------------------------------------

MNF = ("ImportError",)


@pytest.mark.parametrize(
    ("when", "record", "cause"),
    [
        (
            "collect",
            exc("SyntaxError", "invalid syntax", file="/p/tests/t.py", line=3),
            Cause.SYNTAX,
        ),
        ("collect", exc("IndentationError", "unexpected indent", "SyntaxError"), Cause.SYNTAX),
        ("conftest", exc("SyntaxError", "bad"), Cause.SYNTAX),
        (
            "conftest",
            exc("ModuleNotFoundError", "x", *MNF, missing="x", project=None),
            Cause.COLLECTION,
        ),
        ("call", exc("AssertionError", "assert 1 == 2"), Cause.ASSERTION),
        ("call", exc("mylib.CustomAssert", "boom", "AssertionError"), Cause.ASSERTION),
        (
            "call",
            exc("Failed", "DID NOT RAISE", "_pytest.outcomes.OutcomeException"),
            Cause.ASSERTION,
        ),
        ("setup", exc("AssertionError", "in a fixture"), Cause.FIXTURE),
        ("call", exc("NotImplementedError", "", "RuntimeError"), Cause.NOT_IMPLEMENTED),
        (
            "call",
            exc("ModuleNotFoundError", "m", *MNF, missing="calc.x", project=True),
            Cause.NOT_IMPLEMENTED,
        ),
        (
            "call",
            exc("ModuleNotFoundError", "m", *MNF, missing="req.x", project=False, owner="req"),
            Cause.ENVIRONMENT,
        ),
        (
            "call",
            exc(
                "ImportError",
                "cannot import",
                missing="f",
                owner="calc",
                owner_file="/p/calc.py",
                project=True,
            ),
            Cause.NOT_IMPLEMENTED,
        ),
        (
            "call",
            exc(
                "ImportError",
                "cannot import",
                missing="f",
                owner="yaml",
                owner_file="/v/site-packages/yaml/__init__.py",
                project=False,
            ),
            Cause.ENVIRONMENT,
        ),
        ("call", exc("ImportError", "raised by hand"), Cause.OTHER),
        (
            "call",
            exc(
                "AttributeError",
                "no attr",
                missing="mul",
                owner="calc",
                owner_file="/p/calc.py",
                project=True,
            ),
            Cause.NOT_IMPLEMENTED,
        ),
        (
            "call",
            exc(
                "AttributeError",
                "no attr",
                missing="x",
                owner="yaml",
                owner_file="/v/site-packages/yaml/__init__.py",
                project=False,
            ),
            Cause.ENVIRONMENT,
        ),
        (
            "call",
            exc(
                "AttributeError",
                "'NoneType' object has no attribute 'x'",
                missing="x",
                project=None,
            ),
            Cause.OTHER,
        ),
        (
            "setup",
            exc("AttributeError", "a", owner="calc", owner_file="/p/calc.py", project=True),
            Cause.NOT_IMPLEMENTED,
        ),
        ("setup", exc("RuntimeError", "fixture broke"), Cause.FIXTURE),
        ("teardown", exc("RuntimeError", "cleanup broke"), Cause.FIXTURE),
        ("call", exc("NameError", "name 'x' is not defined", file="/p/tests/t.py"), Cause.OTHER),
        (
            "collect",
            exc("NameError", "name 'x' is not defined", file="/p/tests/t.py"),
            Cause.COLLECTION,
        ),
        ("collect", exc("ValueError", "at import"), Cause.COLLECTION),
        ("call", exc("ZeroDivisionError", "division by zero", "ArithmeticError"), Cause.OTHER),
    ],
)
def test_classify(when: str, record: dict[str, Any], cause: Cause) -> None:
    got, message = classify(record, when=when, test_file="tests/t.py", project=Project(Path("/p")))
    assert got is cause
    assert message


def test_name_error_in_the_test_file_says_the_test_is_broken(tmp_path: Path) -> None:
    project = Project(tmp_path)
    in_test = exc("NameError", "name 'helper' is not defined", file=str(tmp_path / "tests/t.py"))
    _, message = classify(in_test, when="call", test_file="tests/t.py", project=project)
    assert message.startswith("NameError in the test file") and "broken" in message
    elsewhere = exc("NameError", "name 'y' is not defined", file=str(tmp_path / "app.py"))
    _, message = classify(elsewhere, when="call", test_file="tests/t.py", project=project)
    assert message.startswith("NameError in app.py")


def test_syntax_message_names_the_file_and_line(tmp_path: Path) -> None:
    record = exc("SyntaxError", "invalid syntax", file=str(tmp_path / "tests/t.py"), line=7)
    _, message = classify(record, when="collect", test_file="tests/t.py", project=Project(tmp_path))
    assert message == "SyntaxError in tests/t.py:7: invalid syntax"


def missing_top(name: str, **facts: Any) -> dict[str, Any]:
    return exc("ModuleNotFoundError", f"No module named '{name}'", *MNF, missing=name, **facts)


def test_missing_top_level_module_project_or_third_party(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", '[project]\ndependencies = ["Requests>=2", "PyYAML"]\n')
    write(tmp_path, "src/shapes.py", "")
    write(tmp_path, "calc/__init__.py", "")
    project = Project(tmp_path)

    def judge(name: str, **facts: Any) -> tuple[Cause, str]:
        return classify(missing_top(name, **facts), when="call", test_file=None, project=project)

    assert judge("requests")[0] is Cause.ENVIRONMENT
    assert judge("yaml")[0] is Cause.ENVIRONMENT  # distribution name differs from import name
    assert judge("tomllib", stdlib=True)[0] is Cause.ENVIRONMENT
    cause, message = judge("geometry")
    assert cause is Cause.NOT_IMPLEMENTED and "assumed a project module not written yet" in message
    cause, message = judge("shapes")  # in src/ but not importable: a path problem, not red
    assert cause is Cause.ENVIRONMENT and "src/shapes.py" in message
    assert judge("calc.parser")[0] is Cause.NOT_IMPLEMENTED


def test_missing_module_judged_by_the_project_and_the_known_pypi_names(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", '[project]\nname = "shop-cart"\n')
    project = Project(tmp_path)

    def judge(name: str, test_file: str | None = "tests/test_orders.py") -> tuple[Cause, str]:
        return classify(missing_top(name), when="collect", test_file=test_file, project=project)

    cause, message = judge("pandas")  # widely used, never declared: install it
    assert cause is Cause.ENVIRONMENT and "third-party pandas" in message
    assert "(third-party scikit_learn, not installed nor declared)" in judge("sklearn")[1]
    assert judge("shop_cart")[0] is Cause.NOT_IMPLEMENTED  # the project's own name
    assert judge("orders")[0] is Cause.NOT_IMPLEMENTED  # tests/test_orders.py tests `orders`
    assert judge("orders", "tests/test_misc.py")[0] is Cause.NOT_IMPLEMENTED  # unknown name


def test_declared_distributions_from_every_usual_place(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        """
        [project]
        dependencies = ["click>=8", "Typing.Extensions ; python_version<'3.11'"]
        [project.optional-dependencies]
        docs = ["Sphinx[extra]==7"]
        [dependency-groups]
        dev = ["pytest-cov", {include-group = "docs"}]
        [tool.poetry.dependencies]
        python = "^3.10"
        httpx = "*"
        [tool.poetry.group.test.dependencies]
        respx = "*"
        """,
    )
    write(
        tmp_path,
        "requirements-dev.txt",
        """
        # a comment
        numpy==1.26  # pinned
        -r base.txt
        -e git+https://example.invalid/x.git#egg=local_pkg
        """,
    )
    write(tmp_path, "requirements/extra.txt", "attrs\n")
    write(
        tmp_path,
        "setup.cfg",
        """
        [options]
        install_requires =
            six
            python-dateutil>=2
        [options.extras_require]
        fast = ujson
        """,
    )
    names = declared_distributions(tmp_path)
    expected = {"click", "typing_extensions", "sphinx", "pytest_cov", "httpx", "respx"}
    expected |= {"numpy", "local_pkg", "attrs", "six", "python_dateutil", "ujson"}
    assert expected <= names
    assert "python" not in names  # poetry's interpreter constraint is not a dependency
    deps = Project(tmp_path).dependencies
    assert {"dateutil", "attr", "numpy"} <= deps


def test_broken_dependency_files_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[project\nbroken")
    write(tmp_path, "setup.cfg", "not an ini file [[[")
    assert declared_distributions(tmp_path) == frozenset()


def test_short() -> None:
    assert short("\n\n  first line  \nsecond") == "first line"
    assert short("x" * 300).endswith("…") and len(short("x" * 300)) == 200
    assert short("") == ""


# -- probe records -> results -----------------------------------------------------------------

SESSION = {"t": "session", "v": 1, "rootdir": "/p", "invocation_dir": "/p"}


def rec(**fields: Any) -> str:
    return json.dumps(fields)


def phases(tid: str, setup: str = "passed", call: str | None = "passed", **extra: Any) -> list[str]:
    lines = [
        rec(t="start", id=tid, line=1),
        rec(t="report", id=tid, when="setup", outcome=setup, duration=0.1),
    ]
    if call is not None:
        lines.append(rec(t="report", id=tid, when="call", outcome=call, duration=0.2, **extra))
    lines.append(rec(t="report", id=tid, when="teardown", outcome="passed", duration=0.1))
    return lines


def results(lines: list[str], ending: Ending | None = None, root: Path = Path("/p"), **kw: Any):  # type: ignore[no-untyped-def]
    tests, notes = build_results(
        parse_probe(lines), ending or Ending(0), project=Project(root), **kw
    )
    return {t.id: t for t in tests}, notes


def test_outcomes_from_phases() -> None:
    lines = [
        rec(**SESSION),
        rec(
            t="collected",
            ids=["t.py::ok", "t.py::xf", "t.py::xp", "t.py::sk", "t.py::skip_in_call"],
            missing=[],
        ),
        *phases("t.py::ok"),
        *phases("t.py::xf", call="skipped", wasxfail="known"),
        *phases("t.py::xp", call="passed", wasxfail="maybe"),
        *phases("t.py::sk", setup="skipped", call=None),
        *phases("t.py::skip_in_call", call="skipped", reason="Skipped: later"),
        rec(t="finish", exitstatus=0),
    ]
    by_id, notes = results(lines)
    assert by_id["t.py::ok"].outcome is Outcome.PASSED and by_id[
        "t.py::ok"
    ].duration == pytest.approx(0.4)
    assert by_id["t.py::xf"].outcome is Outcome.XFAILED and by_id["t.py::xf"].message == "known"
    assert by_id["t.py::xp"].outcome is Outcome.XPASSED
    assert by_id["t.py::sk"].outcome is Outcome.SKIPPED
    assert by_id["t.py::skip_in_call"].message == "Skipped: later"
    assert notes == ()


def test_strict_xpass_without_an_exception_is_a_failure_with_pytests_words() -> None:
    lines = [
        rec(**SESSION),
        *phases("t.py::x", call="failed", longrepr="[XPASS(strict)] why"),
        rec(t="finish", exitstatus=1),
    ]
    t = results(lines)[0]["t.py::x"]
    assert (t.outcome, t.cause, t.message) == (Outcome.FAILED, Cause.OTHER, "[XPASS(strict)] why")


def test_a_teardown_error_after_a_pass_is_an_error_but_does_not_hide_a_call_failure() -> None:
    boom = exc("RuntimeError", "cleanup")
    lines = [
        rec(**SESSION),
        rec(t="start", id="t.py::a", line=1),
        rec(t="report", id="t.py::a", when="setup", outcome="passed", duration=0),
        rec(t="report", id="t.py::a", when="call", outcome="passed", duration=0),
        rec(t="report", id="t.py::a", when="teardown", outcome="failed", duration=0, exc=boom),
        rec(t="start", id="t.py::b", line=5),
        rec(t="report", id="t.py::b", when="setup", outcome="passed", duration=0),
        rec(
            t="report",
            id="t.py::b",
            when="call",
            outcome="failed",
            duration=0,
            exc=exc("AssertionError", "x"),
        ),
        rec(t="report", id="t.py::b", when="teardown", outcome="failed", duration=0, exc=boom),
        rec(t="finish", exitstatus=1),
    ]
    by_id, _ = results(lines)
    assert (by_id["t.py::a"].outcome, by_id["t.py::a"].cause) == (Outcome.ERROR, Cause.FIXTURE)
    assert (by_id["t.py::b"].outcome, by_id["t.py::b"].cause) == (Outcome.FAILED, Cause.ASSERTION)


def test_timeout_marks_the_running_test_and_the_ones_never_started() -> None:
    lines = [
        rec(**SESSION),
        rec(t="collected", ids=["t.py::a", "t.py::b", "t.py::c"], missing=[]),
        *phases("t.py::a"),
        rec(t="start", id="t.py::b", line=3),
        rec(t="report", id="t.py::b", when="setup", outcome="passed", duration=0),
        '{"t":"report","id":"t.py::b","wh',  # the line being written when the run was killed
    ]
    by_id, notes = results(lines, Ending(-15, timed_out=True, timeout=5))
    assert by_id["t.py::a"].light is Light.GREEN
    assert (by_id["t.py::b"].outcome, by_id["t.py::b"].cause) == (Outcome.FAILED, Cause.TIMEOUT)
    assert (by_id["t.py::c"].outcome, by_id["t.py::c"].cause) == (Outcome.ERROR, Cause.TIMEOUT)
    assert "timed out after 5s" in notes[0]


def test_a_timeout_in_setup_is_an_error_and_a_dead_interpreter_a_crash() -> None:
    lines = [
        rec(**SESSION),
        rec(t="collected", ids=["t.py::a"], missing=[]),
        rec(t="start", id="t.py::a", line=1),
    ]
    timed = results(lines, Ending(-9, timed_out=True, timeout=1))[0]["t.py::a"]
    assert (timed.outcome, timed.cause) == (Outcome.ERROR, Cause.TIMEOUT)
    crashed, notes = results(lines, Ending(-11))
    assert crashed["t.py::a"].cause is Cause.CRASH and "signal 11" in crashed["t.py::a"].message
    assert "signal 11" in notes[0]


def test_tests_stopped_early_by_the_users_options_are_not_silently_dropped() -> None:
    lines = [
        rec(**SESSION),
        rec(t="collected", ids=["t.py::a", "t.py::b"], missing=[]),
        *phases("t.py::a", call="failed", exc=exc("AssertionError")),
        rec(t="finish", exitstatus=1),
    ]
    b = results(lines)[0]["t.py::b"]
    assert (b.outcome, b.cause) == (Outcome.ERROR, Cause.OTHER) and b.message.startswith("not run")


def test_collection_errors_are_file_entries_and_stand_for_requested_ids(tmp_path: Path) -> None:
    missing = missing_top("calc", project=None, file=str(tmp_path / "tests/t.py"), line=1)
    lines = [
        rec(**SESSION),
        rec(
            t="collect",
            id="tests/t.py",
            outcome="failed",
            exc={**missing, "wrapper": "CollectError"},
        ),
        rec(t="collect", id="tests/s.py", outcome="skipped", reason="no numpy"),
        rec(t="collected", ids=[], missing=["tests/t.py::test_a", "tests/u.py::gone"]),
        rec(t="finish", exitstatus=2),
    ]
    all_, _ = results(lines, root=tmp_path)
    assert all_["tests/t.py"].cause is Cause.NOT_IMPLEMENTED and all_["tests/t.py"].line == 1
    assert all_["tests/s.py"].outcome is Outcome.SKIPPED
    requested = ("tests/t.py::test_a", "tests/u.py::gone")
    by_id, _ = results(lines, root=tmp_path, requested=requested)
    assert "tests/t.py" not in by_id  # replaced by the requested test's own entry
    a = by_id["tests/t.py::test_a"]
    assert (a.outcome, a.cause, a.light) == (Outcome.ERROR, Cause.NOT_IMPLEMENTED, Light.RED)
    gone = by_id["tests/u.py::gone"]
    assert (gone.cause, gone.message) == (
        Cause.COLLECTION,
        "not collected: no test matches this id",
    )
    assert results(lines, root=tmp_path, requested=("tests/t.py", "tests/u.py::gone"))[0][
        "tests/t.py"
    ]


def test_a_broken_conftest_in_a_directory_covers_its_tests(tmp_path: Path) -> None:
    failure = {**exc("RuntimeError", "bad"), "wrapper": "_pytest.config.ConftestImportFailure"}
    lines = [
        rec(**SESSION),
        rec(t="collect", id="tests/sub", outcome="failed", exc=failure),
        rec(t="collected", ids=[], missing=["tests/sub/test_x.py::test_y"]),
        rec(t="finish", exitstatus=1),
    ]
    by_id, _ = results(lines, root=tmp_path, requested=("tests/sub/test_x.py::test_y",))
    t = by_id["tests/sub/test_x.py::test_y"]
    assert t.cause is Cause.COLLECTION and "broken conftest" in t.message


def test_initial_conftest_failure(tmp_path: Path) -> None:
    conftest = str(tmp_path / "conftest.py")
    lines = [
        rec(t="conftest", path=conftest, exc={**exc("SyntaxError", "bad", file=conftest, line=2)})
    ]
    by_id, notes = results(lines, Ending(4), root=tmp_path, requested=("tests/t.py::a",))
    assert by_id["tests/t.py::a"].cause is Cause.SYNTAX
    assert notes == ("conftest.py could not be imported, so pytest ran no test",)
    by_id, _ = results(lines, Ending(4), root=tmp_path)
    assert by_id["conftest.py"].cause is Cause.SYNTAX


@pytest.mark.parametrize(
    ("status", "fragment"),
    [(5, "no tests collected"), (4, "usage error"), (2, "interrupted"), (3, "internal error")],
)
def test_session_exit_status_notes(status: int, fragment: str) -> None:
    lines = [rec(**SESSION), rec(t="finish", exitstatus=status)]
    _, notes = results(lines, Ending(status, output_tail="E   x: error: bad thing\n"))
    assert fragment in notes[0]


def test_pytest_that_never_started_and_absent_files(tmp_path: Path) -> None:
    by_id, notes = results(
        [],
        Ending(
            4, output_tail="ERROR: usage\nx: error: unrecognized arguments: --nope\n  rootdir: /r\n"
        ),
        requested=("t.py::a", "gone.py::b"),
        absent=("gone.py::b",),
    )
    assert "unrecognized arguments: --nope" in notes[0]
    assert by_id["t.py::a"].message == "not collected: pytest stopped before collecting"
    assert by_id["gone.py::b"].message == "not collected: gone.py does not exist"


def test_read_probe_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    log = read_probe(tmp_path / "nope.jsonl")
    assert log.session is None and log.exitstatus is None and not log.reports


def test_parse_probe_skips_garbage_and_merges_worker_collections() -> None:
    log = parse_probe(
        [
            "not json",
            "[1, 2]",
            rec(t="collected", ids=["a", "b"], missing=["z"]),
            rec(t="collected", ids=["b", "a"], missing=["z"]),
            rec(t="collect", id="ok.py", outcome="passed"),
        ]
    )
    assert log.collected == ("a", "b") and log.missing == ("z",) and log.collect_failures == ()

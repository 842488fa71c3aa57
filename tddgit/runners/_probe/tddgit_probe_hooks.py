"""tddgit's pytest probe: records what pytest really saw, as JSON lines.

Loaded with ``-p tddgit_probe`` (its directory is put first on PYTHONPATH), whose module
only names the hooks defined here (see there why); the hooks write through
``tddgit_probe_out``, describe exceptions with ``tddgit_probe_exc`` and measure coverage with
``tddgit_probe_cover``, plain imports beside this one. It must stay
importable alone in any interpreter that has pytest: standard library only, no tddgit
import. It never changes an outcome; it only writes facts to the file named by
``TDDGIT_PROBE_OUT`` (one ``os.write`` per record, so a killed run leaves every completed
line readable, and xdist workers can append to the same file).

Environment:
  TDDGIT_PROBE_OUT      file to append records to (nothing is written without it)
  TDDGIT_PROBE_SELECT   optional JSON file: a list of test ids (relative to the invocation
                        directory) to keep; other items are deselected, and requested ids
                        that match nothing are reported in the ``collected`` record
  TDDGIT_PROBE_PROJECT  optional os.pathsep-separated directories whose files count as
                        the project's own code (besides pytest's rootdir and the cwd)
  TDDGIT_PYCACHE        optional directory for the project's bytecode (see _bytecode_aside)
  TDDGIT_PROBE_COVER    optional JSON file: a list of absolute file paths whose line
                        coverage to measure (the green gate's yagni check). Only then is
                        coverage.py imported: it starts when this module is imported (``-p``
                        loads it before any conftest or test module), measures only those
                        files (no branch data, no data file, the project's .coveragerc
                        ignored), and stops at session finish. Every process writes its own
                        record, so xdist workers' measurements are merged by the reader.

Records (format version 1; ``id`` = pytest node id made relative to the invocation
directory, which is pytest's rootdir in the usual case):
  {"t":"session","v":1,"rootdir":str,"invocation_dir":str,"python":str,"pytest":str}
  {"t":"conftest","path":str,"exc":EXC}      an initial conftest failed (pytest exits 4)
  {"t":"collect","id":str,"outcome":"passed|failed|skipped"[,"exc":EXC][,"reason":str]
     [,"longrepr":str]}                      every collect report (failures with details)
  {"t":"collected","ids":[str],"missing":[str]}   items to run after deselection; the
                                             requested ids that matched no item
  {"t":"start","id":str,"line":int|null}     a test is about to run (1-based def line)
  {"t":"report","id":str,"when":"setup|call|teardown","outcome":"passed|failed|skipped",
     "duration":float[,"exc":EXC][,"wasxfail":str][,"reason":str][,"longrepr":str]
     [,"tampered":{"reported":str,"plugins":[str]}]}
                                             ``tampered``: the call raised but the final
                                             report said ``reported`` (another plugin's
                                             hook rewrote it); ``outcome`` is then what
                                             the call did, ``plugins`` the non-builtin
                                             modules implementing report hooks
  {"t":"internal","exc":EXC}                  pytest internal error
  {"t":"finish","exitstatus":int}            the session ended normally
  {"t":"coverage","files":{path:{"statements":[int],"executed":[int],
     "tests":{line:[id]}}}[,"worker":str]}
                                             with TDDGIT_PROBE_COVER, from each process
                                             (controller and xdist workers) at session
                                             finish; ``path`` as requested, ``statements``
                                             coverage.py's executable lines (``# pragma: no
                                             cover`` excluded), ``executed`` those that ran,
                                             ``tests`` which tests ran each line (coverage's
                                             dynamic context, switched per test: the
                                             mutation check runs a mutant against those only);
                                             a file coverage could not analyse is left out
  {"t":"coverage","unavailable":str}         coverage was asked for but cannot be measured:
                                             coverage.py is not importable, or another
                                             measurement (pytest-cov's --cov) is active

EXC (the real exception; for collection errors the ``__cause__`` behind pytest's wrapper):
  {"type": qualified name ("AssertionError", "_pytest.outcomes.Failed"),
   "mro": [qualified names of the base classes, without object/BaseException/Exception],
   "message": str (at most 1000 chars), "file": str|null, "line": int|null (innermost
   frame, or where a SyntaxError is), "test_line": int|null (deepest frame in the test's
   own file), "wrapper": str (pytest's wrapper type, when unwrapped),
   "code_file": str, "code_line": int (when raised below the test in the project's own
   non-test code: the deepest such frame; absent otherwise),
   for ImportError/ModuleNotFoundError/AttributeError/NameError also:
   "missing": the missing module / attribute / name, "owner": the module or object that
   lacks it, "owner_file": its source file, "project": true|false|null (the owner's file is
   under the rootdir/cwd/project dirs and not in site-packages or the interpreter's prefix;
   null = cannot tell, e.g. a missing top-level module), "stdlib": bool (the missing top-level
   module is a standard-library name)}
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from json.encoder import encode_basestring_ascii as _json_str
from typing import Any

import pytest
import tddgit_pycache  # beside this module (standard library only, like it)
from tddgit_probe_cover import _finish_coverage, _start_coverage, _switch_context
from tddgit_probe_exc import _MAX_MESSAGE, _longrepr_text, _skip_reason, exc_record
from tddgit_probe_out import _emit, _is_project, _is_worker, _remember, _state, _tid, _write

tddgit_pycache.divert()  # before any project module is imported

VERSION = 1

_start_coverage()  # before any conftest or test module: see TDDGIT_PROBE_COVER


# -- hooks -----------------------------------------------------------------------------------


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[Any, Any, None]:
    outcome = yield
    excinfo = outcome.excinfo
    if excinfo is None or type(excinfo[1]).__name__ != "ConftestImportFailure":
        return
    _remember(early_config)
    failure = excinfo[1]
    path = str(getattr(failure, "path", "") or "")
    _emit({"t": "conftest", "path": path, "exc": exc_record(failure, path or None)})


def pytest_configure(config: pytest.Config) -> None:
    _remember(config)


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    _remember(config)
    if _is_worker(config):
        return
    _emit(
        {
            "t": "session",
            "v": VERSION,
            "rootdir": str(config.rootpath),
            "invocation_dir": str(config.invocation_params.dir),
            "python": sys.version.split()[0],
            "pytest": pytest.__version__,
        }
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[Any, Any, None]:
    outcome = yield
    report = outcome.get_result()
    call = report.__dict__.get("call")
    excinfo = getattr(call, "excinfo", None)
    if excinfo is not None and report.outcome == "failed":
        path = getattr(collector, "path", None)
        report.tddgit_exc = exc_record(excinfo.value, str(path) if path else None)


def _add_failure(rec: dict[str, Any], report: pytest.CollectReport | pytest.TestReport) -> None:
    """The failure's exception as the probe recorded it, else pytest's text of it."""
    exc = getattr(report, "tddgit_exc", None)
    if exc is not None:
        rec["exc"] = exc
    else:
        rec["longrepr"] = _longrepr_text(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    config = _state["config"]
    if config is None or _is_worker(config):
        return
    rec: dict[str, Any] = {"t": "collect", "id": _tid(report.nodeid), "outcome": report.outcome}
    if report.outcome == "failed":
        _add_failure(rec, report)
    elif report.outcome == "skipped":
        rec["reason"] = _skip_reason(report)
    _emit(rec)


def _matches(test_id: str, wanted: str) -> bool:
    if test_id == wanted or wanted in (".", ""):
        return True
    return test_id.startswith((wanted + "::", wanted + "[", wanted.rstrip("/") + "/"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    select = os.environ.get("TDDGIT_PROBE_SELECT")
    if not select:
        return
    with open(select, encoding="utf-8") as fh:
        wanted = [w[2:] if w.startswith("./") else w for w in json.load(fh)]
    found: set[str] = set()
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        tid = _tid(item.nodeid)
        hits = [w for w in wanted if _matches(tid, w)]
        found.update(hits)
        (keep if hits else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    _state["missing"] = [w for w in wanted if w not in found]


def pytest_collection_finish(session: pytest.Session) -> None:
    ids = [_tid(item.nodeid) for item in session.items]
    _emit({"t": "collected", "ids": ids, "missing": _state.get("missing") or []})


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _switch_context(_tid(nodeid))  # in xdist workers too: they run the tests
    if _is_worker(_state["config"]):
        return
    line = location[1] + 1 if location and isinstance(location[1], int) else None
    # Written by hand (the same bytes json.dumps writes): three records per test are the
    # probe's whole per-test cost, paid in every gate run.
    _write(f'{{"t":"start","id":{_json_str(_tid(nodeid))},"line":{line or "null"}}}\n')


def _raw_outcome(item: pytest.Item, call: pytest.CallInfo[None]) -> str | None:
    """What the call itself did: passed, skipped or failed (None: an expected failure,
    whose report pytest's own skipping plugin rightly turns around)."""
    excinfo = call.excinfo
    if excinfo is None:
        return "passed"  # (or an xpass: only a failed call is ever compared)
    if item.get_closest_marker("xfail") is not None:
        return None
    if isinstance(excinfo.value, pytest.xfail.Exception):
        return None
    if isinstance(excinfo.value, pytest.skip.Exception):
        return "skipped"
    return "failed"


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[Any, Any, None]:
    # The outermost wrapper: after every other plugin's makereport (unittest's own
    # included) ``call`` still holds what the test raised; the report may have been
    # rewritten. The raw outcome travels with the report (xdist serialises it), and
    # the report hook compares it with the report as it finally reads.
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    raw = _raw_outcome(item, call)
    if excinfo is not None and (report.outcome == "failed" or raw == "failed"):
        report.tddgit_exc = exc_record(excinfo.value, str(item.path))
    report.tddgit_raw = raw


def _suspects(config: pytest.Config) -> list[str]:
    """The non-builtin plugins that implement a report hook: who could rewrite a report
    (only the project's own modules and conftests when there are any)."""
    found: dict[str, bool] = {}
    hooks = config.pluginmanager.hook
    for name in ("pytest_runtest_makereport", "pytest_runtest_logreport"):
        for impl in getattr(hooks, name).get_hookimpls():
            module = str(getattr(impl.plugin, "__name__", None) or impl.plugin_name)
            if module.startswith(("_pytest.", "xdist.", "pluggy")) or module == "tddgit_probe":
                continue
            path = getattr(impl.plugin, "__file__", None)
            label = os.path.relpath(path) if path and module.endswith("conftest") else module
            found.setdefault(label, bool(_is_project(path)))
    mine = sorted(m for m, ours in found.items() if ours)
    return mine or sorted(found)


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # trylast: the report as every other report hook left it.
    if _is_worker(_state["config"]):
        return
    raw = getattr(report, "tddgit_raw", None)
    if report.outcome == "passed" and raw != "failed" and getattr(report, "wasxfail", None) is None:
        # The common record, written by hand (the same bytes json.dumps writes).
        _write(
            f'{{"t":"report","id":{_json_str(_tid(report.nodeid))},"when":"{report.when}",'
            f'"outcome":"passed","duration":{round(report.duration, 6)!r}}}\n'
        )
        return
    rec: dict[str, Any] = {
        "t": "report",
        "id": _tid(report.nodeid),
        "when": report.when,
        "outcome": report.outcome,
        "duration": round(report.duration, 6),
    }
    wasxfail = getattr(report, "wasxfail", None)
    if wasxfail is not None:
        rec["wasxfail"] = str(wasxfail)[:_MAX_MESSAGE]
    if raw == "failed" and report.outcome != "failed":
        # The call failed, the report says otherwise: judged as what the call did.
        rec["tampered"] = {"reported": report.outcome, "plugins": _suspects(_state["config"])}
        rec["outcome"] = "failed"
        rec.pop("wasxfail", None)
    if rec["outcome"] == "failed":
        _add_failure(rec, report)
    elif report.outcome == "skipped" and wasxfail is None:
        rec["reason"] = _skip_reason(report)
    _emit(rec)


def pytest_internalerror(excrepr: object, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    _emit({"t": "internal", "exc": exc_record(excinfo.value)})


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _finish_coverage(session.config)  # in xdist workers too: they ran the tests
    if _is_worker(session.config):
        return
    _emit({"t": "finish", "exitstatus": int(exitstatus)})


def pytest_unconfigure(config: pytest.Config) -> None:
    fd = _state["fd"]
    if isinstance(fd, int):
        os.close(fd)
        _state["fd"] = None

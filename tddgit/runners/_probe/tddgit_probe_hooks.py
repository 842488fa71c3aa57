"""tddgit's pytest probe: records what pytest really saw, as JSON lines.

Loaded with ``-p tddgit_probe`` (its directory is put first on PYTHONPATH), whose module
only names the hooks defined here (see there why). It must stay
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
import types
from collections.abc import Generator
from json.encoder import encode_basestring_ascii as _json_str
from typing import Any

import pytest
import tddgit_pycache  # beside this module (standard library only, like it)

tddgit_pycache.divert()  # before any project module is imported

VERSION = 1
_MAX_MESSAGE = 1000
_SKIP_BASES = ("object", "BaseException", "Exception")

_state: dict[str, Any] = {
    "fd": None,
    "prefix": None,
    "roots": None,
    "config": None,
    "missing": [],
    "cover": None,
}


# -- writing ---------------------------------------------------------------------------------


def _emit(record: dict[str, Any]) -> None:
    _write(json.dumps(record, separators=(",", ":"), default=str) + "\n")


def _write(line: str) -> None:
    """Append one whole record (an ASCII JSON line)."""
    fd = _state["fd"]
    try:
        if fd is None:
            path = os.environ.get("TDDGIT_PROBE_OUT")
            if not path:
                return
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            _state["fd"] = fd
        os.write(fd, line.encode("ascii"))
    except OSError:
        # A full disk must not turn into a pytest internal error: the missing records make
        # tddgit report the run as incomplete instead.
        pass


def _is_worker(config: object) -> bool:
    # Under xdist the controller re-fires the workers' reports; write them only there.
    return hasattr(config, "workerinput")


# -- ids and paths ---------------------------------------------------------------------------


def _remember(config: pytest.Config) -> None:
    if _state["config"] is not None:
        return
    _state["config"] = config
    rootdir = str(config.rootpath)
    here = str(config.invocation_params.dir)
    rel = os.path.relpath(rootdir, here).replace(os.sep, "/")
    _state["prefix"] = "" if rel == "." else rel


def _tid(nodeid: str) -> str:
    """A rootdir-relative node id made relative to the invocation directory."""
    prefix = _state["prefix"]
    if not prefix:
        return nodeid
    path, sep, rest = nodeid.partition("::")
    joined = os.path.normpath(os.path.join(str(prefix), path)) if path else str(prefix)
    return joined.replace(os.sep, "/") + sep + rest


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _roots() -> tuple[list[str], list[str]]:
    """(project roots, excluded prefixes), computed on first need only."""
    cached = _state["roots"]
    if cached is None:
        config = _state["config"]
        roots = [os.getcwd()]
        if config is not None:
            roots += [str(config.rootpath), str(config.invocation_params.dir)]
        extra = os.environ.get("TDDGIT_PROBE_PROJECT", "")
        roots += [p for p in extra.split(os.pathsep) if p]
        roots = [os.path.realpath(r) for r in roots]
        excluded = []
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
            real = os.path.realpath(prefix)
            # An interpreter prefix that contains the project (a system Python over a
            # project in /usr/src) must not exclude the project itself.
            if not any(_under(r, real) for r in roots):
                excluded.append(real)
        cached = (roots, excluded)
        _state["roots"] = cached
    return cached  # type: ignore[no-any-return]


def _is_project(path: object) -> bool | None:
    if not isinstance(path, str) or not path:
        return None
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    roots, excluded = _roots()
    if any(_under(real, e) for e in excluded):
        return False
    return any(_under(real, r) for r in roots)


# -- exceptions ------------------------------------------------------------------------------


def _qualname(cls: type) -> str:
    mod = getattr(cls, "__module__", None) or "builtins"
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if mod == "builtins" else f"{mod}.{name}"


def _module_file(modname: object) -> str | None:
    mod = sys.modules.get(modname) if isinstance(modname, str) else None
    if mod is None:
        return None
    f = getattr(mod, "__file__", None)
    if isinstance(f, str):
        return f
    path = getattr(mod, "__path__", None)  # a namespace package
    try:
        return next(iter(path)) if path is not None else None
    except (StopIteration, TypeError):
        return None


def _owner_module(obj: object) -> str | None:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        mod = getattr(obj, "__module__", None)
    else:
        mod = getattr(type(obj), "__module__", None)  # no user __getattr__ on instances
    return mod if isinstance(mod, str) else None


def _missing_module(exc: ModuleNotFoundError, out: dict[str, Any]) -> None:
    name = exc.name or ""
    out["missing"] = name
    out["stdlib"] = name.split(".")[0] in getattr(sys, "stdlib_module_names", ())
    out["project"] = None
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):  # the nearest imported parent package decides
        parent = ".".join(parts[:i])
        f = _module_file(parent)
        if f:
            out["owner"], out["owner_file"], out["project"] = parent, f, _is_project(f)
            return


def _import_error(exc: ImportError, out: dict[str, Any]) -> None:
    missing = getattr(exc, "name_from", None)
    if not missing:
        # "cannot import name 'x' from 'm' (...)": the first quoted word, on 3.10/3.11
        pieces = str(exc).split("'")
        missing = pieces[1] if len(pieces) > 2 else None
    out["missing"] = missing
    out["owner"] = exc.name
    f = exc.path or _module_file(exc.name)
    out["owner_file"] = f
    out["project"] = _is_project(f)


def _attribute_error(exc: AttributeError, out: dict[str, Any]) -> None:
    out["missing"] = getattr(exc, "name", None)
    obj = getattr(exc, "obj", None)
    if obj is None:
        out["project"] = None
        return
    modname = _owner_module(obj)
    if isinstance(obj, types.ModuleType):
        out["owner"] = modname
    else:
        cls = obj if isinstance(obj, type) else type(obj)
        out["owner"] = _qualname(cls)
    f = _module_file(modname)
    out["owner_file"] = f
    out["project"] = _is_project(f) if f else False


def _frames(exc: BaseException, test_file: str | None) -> tuple[str | None, int | None, int | None]:
    """(file, line) of the innermost frame, and the deepest line in the test's own file."""
    tb = exc.__traceback__
    file = line = test_line = None
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        line = tb.tb_lineno
        if test_file and file == test_file:
            test_line = line
        tb = tb.tb_next
    return file, line, test_line


def _looks_like_test(path: str) -> bool:
    name = os.path.basename(path)
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def _code_frame(exc: BaseException, test_file: str | None) -> tuple[str, int] | None:
    """The deepest frame below the test's own frames that lies in the project's own,
    non-test code: where an exception from the code under test was raised (or passed
    through last, when it came from a library the code called)."""
    if not test_file:
        return None
    tb = exc.__traceback__
    found: tuple[str, int] | None = None
    in_test = False
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        if file == test_file:
            in_test, found = True, None
        elif in_test and not _looks_like_test(file) and _is_project(file):
            found = (file, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _message(exc: BaseException) -> str:
    if type(exc).__name__ == "FixtureLookupError" and getattr(exc, "msg", None) is None:
        return f"fixture '{getattr(exc, 'argname', '?')}' not found"
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the probe
        text = f"<unprintable {type(exc).__name__}>"
    return text[:_MAX_MESSAGE]


def _real(exc: BaseException) -> tuple[BaseException, str | None]:
    """The exception behind pytest's collection wrappers."""
    name = type(exc).__name__
    if name in ("CollectError", "ConftestImportFailure"):
        inner = exc.__cause__ or getattr(exc, "cause", None)
        legacy = getattr(exc, "excinfo", None)  # pytest < 8: (type, value, tb)
        if inner is None and isinstance(legacy, tuple) and len(legacy) == 3:
            inner = legacy[1]
        if isinstance(inner, BaseException):
            return inner, _qualname(type(exc))
    return exc, None


def exc_record(exc: BaseException, test_file: str | None = None) -> dict[str, Any]:
    real, wrapper = _real(exc)
    cls = type(real)
    mro = [_qualname(c) for c in cls.__mro__[1:]]
    out: dict[str, Any] = {
        "type": _qualname(cls),
        "mro": [m for m in mro if m not in _SKIP_BASES],
        "message": _message(real),
    }
    out["file"], out["line"], out["test_line"] = _frames(real, test_file)
    code = _code_frame(real, test_file)
    if code is not None:
        out["code_file"], out["code_line"] = code
    if wrapper:
        out["wrapper"] = wrapper
    if isinstance(real, SyntaxError):
        out["file"], out["line"] = real.filename, real.lineno
        out["message"] = str(real.msg)[:_MAX_MESSAGE]
    try:
        if isinstance(real, ModuleNotFoundError):
            _missing_module(real, out)
        elif isinstance(real, ImportError):
            _import_error(real, out)
        elif isinstance(real, AttributeError):
            _attribute_error(real, out)
        elif isinstance(real, NameError):
            out["missing"] = getattr(real, "name", None)
    except Exception as err:  # never let introspection break the user's run
        out["probe_error"] = repr(err)[:200]
    return out


def _longrepr_text(report: object) -> str:
    try:
        text = str(getattr(report, "longreprtext", "") or getattr(report, "longrepr", ""))
    except Exception:
        return ""
    return text[-_MAX_MESSAGE:]


def _skip_reason(report: object) -> str | None:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])[:_MAX_MESSAGE]
    return None


# -- line coverage (only when TDDGIT_PROBE_COVER asks) ---------------------------------------

_NO_WARN = ["no-data-collected", "module-not-measured", "module-not-imported", "include-ignored"]


def _glob_safe(path: str) -> str:
    # coverage's `include` takes globs: a literal `*?[]` in a path becomes `?` (any one
    # character), which can only widen the match; results are read back by exact path.
    return "".join("?" if c in "*?[]" else c for c in path)


def _start_coverage() -> None:
    request = os.environ.get("TDDGIT_PROBE_COVER")
    if not request:
        return  # never import coverage unless asked: it costs time in every gate run
    try:
        with open(request, encoding="utf-8") as fh:
            files = [str(f) for f in json.load(fh)]
    except (OSError, ValueError) as exc:
        _state["cover"] = {"unavailable": f"cannot read the coverage request: {exc}"}
        return
    try:
        import coverage
    except ImportError as exc:
        reason = f"coverage.py is not importable by {sys.executable} ({exc})"
        _state["cover"] = {"unavailable": reason}
        return
    if coverage.Coverage.current() is not None:
        _state["cover"] = {"unavailable": "another coverage measurement is already running"}
        return
    try:
        cov = coverage.Coverage(
            data_file=None,
            include=[_glob_safe(f) for f in files],
            branch=False,
            config_file=False,
        )
        cov.set_option("run:disable_warnings", _NO_WARN)
        cov.start()
    except Exception as exc:  # a broken coverage install must not break the user's run
        _state["cover"] = {"unavailable": f"coverage.py failed to start: {exc!r}"[:300]}
        return
    _state["cover"] = {"cov": cov, "files": files}


def _finish_coverage(config: pytest.Config) -> None:
    cover = _state.get("cover")
    if not cover:
        return
    _state["cover"] = None
    worker = getattr(config, "workerinput", {}).get("workerid")
    rec: dict[str, Any] = {"t": "coverage"}
    if worker:
        rec["worker"] = worker
    cov = cover.get("cov")
    if cov is None:
        rec["unavailable"] = cover["unavailable"]
        _emit(rec)
        return
    try:
        cov.stop()
    except Exception as exc:
        rec["unavailable"] = f"coverage.py failed to stop: {exc!r}"[:300]
        _emit(rec)
        return
    if config.pluginmanager.get_plugin("_cov") is not None:
        # pytest-cov started its own tracer over ours: our data would be partial.
        rec["unavailable"] = "pytest-cov (--cov) is measuring this run"
        _emit(rec)
        return
    rec["files"] = _analysed(cov, cover["files"])
    _emit(rec)


def _switch_context(test_id: str) -> None:
    cover = _state.get("cover")
    cov = cover.get("cov") if cover else None
    if cov is None:
        return
    try:
        cov.switch_context(test_id)
    except Exception:  # an old coverage.py: lines are then known to have run, not by whom
        pass


def _analysed(cov: Any, files: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    try:
        data = cov.get_data()
    except Exception:
        data = None
    for path in files:
        try:
            _, statements, _, missing, _ = cov.analysis2(path)
        except Exception:  # gone, unreadable or not Python: the reader leaves it unjudged
            continue
        ran = sorted(set(statements) - set(missing))
        out[path] = {"statements": sorted(statements), "executed": ran}
        by_line = _tests_by_line(data, path)
        if by_line:
            out[path]["tests"] = by_line
    return out


def _tests_by_line(data: Any, path: str) -> dict[str, list[str]]:
    """line -> the tests that ran it (the empty context, code run outside any test such
    as at import, is left out)."""
    if data is None:
        return {}
    try:
        real = os.path.realpath(path)
        contexts = data.contexts_by_lineno(real) or data.contexts_by_lineno(path)
    except Exception:
        return {}
    return {str(n): sorted(c for c in ids if c) for n, ids in contexts.items() if any(ids)}


_start_coverage()


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

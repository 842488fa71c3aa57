"""Python cause rules (PRODUCT.md §4): the probe's exception facts -> a cause and a message.

Pure decisions over the records written by ``tddgit_probe``; the only I/O is reading the
project's dependency declarations (pyproject, requirements*.txt, setup.cfg) when a missing
top-level module has to be judged project vs third-party.
"""

from __future__ import annotations

import configparser
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tddgit.model import Cause, LineCoverage, Outcome, TestResult

SYNTAX_TYPES = frozenset({"SyntaxError", "IndentationError", "TabError"})
ASSERTION_TYPES = frozenset({"AssertionError", "Failed", "_pytest.outcomes.Failed"})
MESSAGE_LIMIT = 200

# Distribution names whose import name differs (the common cases; others import as named).
IMPORT_NAMES: Mapping[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "beautifulsoup4": ("bs4",),
    "pillow": ("pil",),
    "scikit_learn": ("sklearn",),
    "scikit_image": ("skimage",),
    "opencv_python": ("cv2",),
    "opencv_python_headless": ("cv2",),
    "python_dateutil": ("dateutil",),
    "attrs": ("attr", "attrs"),
    "protobuf": ("google",),
    "pyjwt": ("jwt",),
    "gitpython": ("git",),
    "psycopg2_binary": ("psycopg2",),
    "psycopg_binary": ("psycopg",),
    "python_dotenv": ("dotenv",),
    "pycryptodome": ("crypto",),
    "pymupdf": ("fitz",),
    "msgpack_python": ("msgpack",),
    "setuptools": ("setuptools", "pkg_resources"),
    "typing_extensions": ("typing_extensions",),
}

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """The first non-empty line of ``text``, cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


# -- the project: its tree and its declared dependencies --------------------------------------


class Project:
    """What the cause rules need to know about the project under test (read lazily)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._deps: frozenset[str] | None = None
        self._names: frozenset[str] | None = None

    def rel(self, path: str | None) -> str | None:
        """``path`` relative to the root (``/``-separated), or None when outside it."""
        if not path:
            return None
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError):
            return None

    def in_tree(self, module: str) -> str | None:
        """Where a top-level module lives in the project tree (root or ``src/``), if it does."""
        for base in ("", "src/"):
            if (self.root / f"{base}{module}.py").is_file():
                return f"{base}{module}.py"
            if (self.root / f"{base}{module}").is_dir():
                return f"{base}{module}/"
        return None

    def plausible(self, module: str, test_file: str | None) -> bool:
        """Whether a missing top-level ``module`` is plausibly the project's own: the
        project's name, or the module a test file's name says it tests (``test_calc.py``,
        ``calc_test.py`` -> ``calc``)."""
        wanted = _norm(module)
        if wanted in self.names:
            return True
        stem = (test_file or "").rsplit("/", 1)[-1].removesuffix(".py")
        tested = stem.removeprefix("test_").removesuffix("_test")
        return tested != stem and _norm(tested) == wanted

    @property
    def names(self) -> frozenset[str]:
        """The project's own names (normalised): its declared name in pyproject.toml."""
        if self._names is None:
            self._names = frozenset(filter(None, [_project_name(self.root)]))
        return self._names

    @property
    def dependencies(self) -> frozenset[str]:
        """Import names (lower case) of every declared dependency."""
        if self._deps is None:
            names: set[str] = set()
            for dist in declared_distributions(self.root):
                names.add(dist)
                names.update(IMPORT_NAMES.get(dist, ()))
                if dist.startswith("python_"):
                    names.add(dist[len("python_") :])
            self._deps = frozenset(names)
        return self._deps


def _requirement_names(lines: Iterable[object]) -> Iterator[str]:
    for raw in lines:
        if not isinstance(raw, str):
            continue
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            egg = _EGG.search(line)  # -e git+...#egg=name
            if egg:
                yield _norm(egg.group(1))
            continue
        egg = _EGG.search(line)
        m = egg or _REQ_NAME.match(line)
        if m:
            yield _norm(m.group(1))


def _pyproject_requirements(data: Mapping[str, Any]) -> Iterator[str]:
    project = data.get("project") or {}
    if isinstance(project, dict):
        yield from _requirement_names(project.get("dependencies") or [])
        for group in (project.get("optional-dependencies") or {}).values():
            yield from _requirement_names(group if isinstance(group, list) else [])
    for group in (data.get("dependency-groups") or {}).values():
        yield from _requirement_names(group if isinstance(group, list) else [])
    poetry = (data.get("tool") or {}).get("poetry") or {}
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        tables += [g.get("dependencies") for g in (poetry.get("group") or {}).values()]
        for table in tables:
            if isinstance(table, dict):
                yield from (_norm(k) for k in table if k != "python")


def _pyproject(root: Path) -> Mapping[str, Any]:
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - 3.10 only
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        return data
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _project_name(root: Path) -> str | None:
    project = _pyproject(root).get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return _norm(name) if isinstance(name, str) else None


def declared_distributions(root: Path) -> frozenset[str]:
    """Normalised names of the dependencies the project declares (best effort)."""
    names: set[str] = set(_pyproject_requirements(_pyproject(root)))
    reqs = list(root.glob("requirements*.txt")) + list(root.glob("requirements/*.txt"))
    for req in reqs:
        try:
            names.update(_requirement_names(req.read_text(encoding="utf-8").splitlines()))
        except (OSError, UnicodeDecodeError):
            continue
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(setup_cfg, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            return frozenset(names)
        if parser.has_option("options", "install_requires"):
            names.update(_requirement_names(parser.get("options", "install_requires").split("\n")))
        if parser.has_section("options.extras_require"):
            for _, value in parser.items("options.extras_require"):
                names.update(_requirement_names(value.split("\n")))
    return frozenset(names)


# -- exceptions -> causes --------------------------------------------------------------------


def _names(exc: Mapping[str, Any]) -> set[str]:
    return {str(exc.get("type", ""))} | {str(m) for m in exc.get("mro") or ()}


def _short_type(exc: Mapping[str, Any]) -> str:
    return str(exc.get("type", "Exception")).rsplit(".", 1)[-1]


def describe(exc: Mapping[str, Any]) -> str:
    """``Type: first line of the message``."""
    msg = short(str(exc.get("message") or ""))
    return f"{_short_type(exc)}: {msg}" if msg else _short_type(exc)


def _missing_module(
    exc: Mapping[str, Any], project: Project, test_file: str | None
) -> tuple[Cause, str]:
    """A module neither in the tree nor installed, judged by evidence: red when it is
    plausibly the project's own, amber (install it) when it is known third-party or stdlib."""
    name = str(exc.get("missing") or "")
    top = name.split(".")[0]
    base = describe(exc)
    flag = exc.get("project")
    if flag is True:
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    if flag is False:
        return Cause.ENVIRONMENT, f"{base} (inside third-party package {exc.get('owner')!s})"
    if exc.get("stdlib"):
        return Cause.ENVIRONMENT, f"{base} (standard-library module missing in this interpreter)"
    where = project.in_tree(top)
    if where is not None:
        if name == top:
            return Cause.ENVIRONMENT, f"{base} ({where} {NOT_IMPORTABLE})"
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    if top.lower() in project.dependencies:
        return Cause.ENVIRONMENT, f"{base} (declared dependency not installed)"
    if project.plausible(top, test_file):
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    dist = pypi_distribution(top)
    if dist is not None:
        return Cause.ENVIRONMENT, f"{base} (third-party {dist}, not installed nor declared)"
    return Cause.NOT_IMPLEMENTED, (
        f"{base} (not in the project tree nor a known third-party module: "
        "assumed a project module not written yet)"
    )


NOT_IMPORTABLE = "exists but is not importable"
_PYPI_NAMES: dict[str, str] | None = None


def pypi_distribution(module: str) -> str | None:
    """The PyPI distribution a widely used top-level import name comes from, if known
    (``pypi_names.json``, shipped data; its source is named inside)."""
    global _PYPI_NAMES
    if _PYPI_NAMES is None:
        path = Path(__file__).with_name("pypi_names.json")
        try:
            _PYPI_NAMES = dict(json.loads(path.read_text(encoding="utf-8"))["names"])
        except (OSError, ValueError, KeyError, TypeError):
            _PYPI_NAMES = {}
    return _PYPI_NAMES.get(module.lower())


def _missing_name(exc: Mapping[str, Any]) -> tuple[Cause, str] | None:
    """ImportError ("cannot import name") and AttributeError, judged by their owner."""
    flag = exc.get("project")
    owner = exc.get("owner")
    base = describe(exc)
    missing = exc.get("missing")
    if exc.get("type") == "ImportError" and missing and owner:
        # "cannot import name 'x' from 'm' (/abs/path)": the path adds nothing
        base = f"ImportError: cannot import name {missing!r} from {owner!r}"
    if flag is True:
        return Cause.NOT_IMPLEMENTED, f"{base} (not implemented yet in {owner})"
    if flag is False and exc.get("owner_file"):
        return Cause.ENVIRONMENT, f"{base} (third-party {owner}: wrong version installed?)"
    return None


def _name_error(exc: Mapping[str, Any], test_file: str | None, project: Project) -> str:
    where = project.rel(exc.get("file")) or exc.get("file") or "?"
    if test_file is not None and where == test_file:
        return f"NameError in the test file: {short(str(exc.get('message')))} (the test is broken)"
    return f"NameError in {where}: {short(str(exc.get('message')))}"


def _syntax(exc: Mapping[str, Any], project: Project) -> str:
    where = project.rel(exc.get("file")) or exc.get("file") or "?"
    line = exc.get("line")
    return f"{_short_type(exc)} in {where}{f':{line}' if line else ''}: {short(str(exc.get('message')))}"


def classify(
    exc: Mapping[str, Any], *, when: str, test_file: str | None, project: Project
) -> tuple[Cause, str]:
    """The cause and short message of one failure in phase ``when``
    (``collect``, ``conftest``, ``setup``, ``call`` or ``teardown``)."""
    names = _names(exc)
    if names & SYNTAX_TYPES:
        return Cause.SYNTAX, _syntax(exc, project)
    if when == "conftest":
        return Cause.COLLECTION, f"broken conftest: {describe(exc)}"
    if "NotImplementedError" in names:
        return Cause.NOT_IMPLEMENTED, describe(exc)
    if "ModuleNotFoundError" in names:
        return _missing_module(exc, project, test_file)
    if "ImportError" in names or "AttributeError" in names:
        verdict = _missing_name(exc)
        if verdict is not None:
            return verdict
    if when == "call" and names & ASSERTION_TYPES:
        return Cause.ASSERTION, describe(exc)
    if "NameError" in names:
        return (Cause.COLLECTION if when == "collect" else Cause.OTHER), _name_error(
            exc, test_file, project
        )
    if when in ("setup", "teardown"):
        return Cause.FIXTURE, f"{when} failed: {describe(exc)}"
    if when == "collect":
        return Cause.COLLECTION, f"collection failed: {describe(exc)}"
    return Cause.OTHER, describe(exc)


# -- probe records -> test results -----------------------------------------------------------


@dataclass(frozen=True)
class ProbeLog:
    """The probe's JSON lines, grouped (see the format at the top of ``tddgit_probe``)."""

    session: Mapping[str, Any] | None = None
    exitstatus: int | None = None  # None: the session did not finish
    conftests: tuple[Mapping[str, Any], ...] = ()
    collect_failures: tuple[Mapping[str, Any], ...] = ()  # failed or skipped collectors
    collected: tuple[str, ...] = ()
    collection_done: bool = False
    missing: tuple[str, ...] = ()  # requested ids that matched no collected item
    started: tuple[str, ...] = ()
    lines: Mapping[str, int] = field(default_factory=dict)
    reports: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    internal: tuple[Mapping[str, Any], ...] = ()
    coverage: tuple[Mapping[str, Any], ...] = ()  # one record per process (xdist workers)


def parse_probe(lines: Iterable[str]) -> ProbeLog:
    """Group probe lines; a truncated or foreign line (a killed run) is skipped."""
    acc: dict[str, Any] = {
        "conftests": [],
        "collect_failures": [],
        "started": [],
        "internal": [],
        "coverage": [],
    }
    collected: dict[str, None] = {}
    missing: dict[str, None] = {}
    lines_by_id: dict[str, int] = {}
    reports: dict[str, list[Mapping[str, Any]]] = {}
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        kind = rec.get("t")
        if kind == "session":
            acc["session"] = rec
        elif kind == "finish":
            acc["exitstatus"] = int(rec.get("exitstatus", 0))
        elif kind == "conftest":
            acc["conftests"].append(rec)
        elif kind == "collect" and rec.get("outcome") in ("failed", "skipped"):
            acc["collect_failures"].append(rec)
        elif kind == "collected":
            acc["collection_done"] = True
            collected.update(dict.fromkeys(map(str, rec.get("ids") or ())))
            missing.update(dict.fromkeys(map(str, rec.get("missing") or ())))
        elif kind == "start":
            tid = str(rec.get("id"))
            acc["started"].append(tid)
            if isinstance(rec.get("line"), int):
                lines_by_id[tid] = rec["line"]
        elif kind == "report":
            reports.setdefault(str(rec.get("id")), []).append(rec)
        elif kind == "internal":
            acc["internal"].append(rec)
        elif kind == "coverage":
            acc["coverage"].append(rec)
    return ProbeLog(
        session=acc.get("session"),
        exitstatus=acc.get("exitstatus"),
        conftests=tuple(acc["conftests"]),
        collect_failures=tuple(acc["collect_failures"]),
        collected=tuple(collected),
        collection_done=bool(acc.get("collection_done")),
        missing=tuple(missing),
        started=tuple(acc["started"]),
        lines=lines_by_id,
        reports={k: tuple(v) for k, v in reports.items()},
        internal=tuple(acc["internal"]),
        coverage=tuple(acc["coverage"]),
    )


def read_probe(path: Path) -> ProbeLog:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ProbeLog()
    return parse_probe(text.splitlines())


def _int_set(value: Any) -> frozenset[int]:
    if not isinstance(value, list):
        return frozenset()
    return frozenset(v for v in value if isinstance(v, int) and not isinstance(v, bool))


def merge_coverage(
    log: ProbeLog, asked: Mapping[str, str]
) -> tuple[dict[str, LineCoverage] | None, str]:
    """The line coverage of the ``asked`` files (probe path -> the caller's name for it),
    merged over every process's record (a line ran if it ran in any xdist worker); or None
    and the reason it could not be measured."""
    reasons = [str(r["unavailable"]) for r in log.coverage if r.get("unavailable")]
    if reasons:  # one process without data makes the union a guess: judge none of it
        return None, reasons[0]
    measured = [r for r in log.coverage if isinstance(r.get("files"), dict)]
    if not measured:
        return None, "the test run ended before coverage was saved"
    out: dict[str, LineCoverage] = {}
    for rec in measured:
        for path, lines in rec["files"].items():
            name = asked.get(path)
            if name is None or not isinstance(lines, dict):
                continue
            statements = _int_set(lines.get("statements"))
            executed = _int_set(lines.get("executed")) & statements
            if name in out:
                statements |= out[name].statements
                executed |= out[name].executed
            out[name] = LineCoverage(statements, executed)
    return out, ""


@dataclass(frozen=True)
class Ending:
    """How the pytest process ended, as the process runner saw it."""

    exit_code: int
    timed_out: bool = False
    timeout: float = 0.0
    output_tail: str = ""


def file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _test_result(
    tid: str, phases: Mapping[str, Mapping[str, Any]], log: ProbeLog, project: Project
) -> TestResult:
    """One test from its setup/call/teardown reports (an incomplete test is judged later)."""
    file = file_of(tid)
    duration = sum(float(r.get("duration") or 0) for r in phases.values())
    line = log.lines.get(tid)

    def failure(rec: Mapping[str, Any], when: str, outcome: Outcome) -> TestResult:
        exc = rec.get("exc")
        if not isinstance(exc, Mapping):
            text = short(str(rec.get("longrepr") or f"{when} failed"))
            return TestResult(tid, outcome, Cause.OTHER, text, file, line, duration)
        cause, message = classify(exc, when=when, test_file=file, project=project)
        at = exc.get("test_line") if isinstance(exc.get("test_line"), int) else line
        return TestResult(tid, outcome, cause, message, file, at, duration)

    setup, call, teardown = (phases.get(w) for w in ("setup", "call", "teardown"))
    if setup and setup.get("outcome") == "failed":
        return failure(setup, "setup", Outcome.ERROR)
    result: TestResult
    if call is None and setup is not None and setup.get("outcome") == "skipped":
        outcome = Outcome.XFAILED if "wasxfail" in setup else Outcome.SKIPPED
        reason = setup.get("wasxfail") if "wasxfail" in setup else setup.get("reason")
        result = TestResult(tid, outcome, None, short(str(reason or "")), file, line, duration)
    elif call is not None and call.get("outcome") == "failed":
        return failure(call, "call", Outcome.FAILED)
    elif call is not None and call.get("outcome") == "skipped":
        outcome = Outcome.XFAILED if "wasxfail" in call else Outcome.SKIPPED
        reason = call.get("wasxfail") if "wasxfail" in call else call.get("reason")
        result = TestResult(tid, outcome, None, short(str(reason or "")), file, line, duration)
    else:
        outcome = Outcome.XPASSED if call is not None and "wasxfail" in call else Outcome.PASSED
        result = TestResult(tid, outcome, None, "", file, line, duration)
    if teardown and teardown.get("outcome") == "failed":
        return failure(teardown, "teardown", Outcome.ERROR)
    return result


def _collect_entry(rec: Mapping[str, Any], project: Project) -> TestResult:
    cid = str(rec.get("id") or ".")
    file = file_of(cid)
    if rec.get("outcome") == "skipped":
        return TestResult(cid, Outcome.SKIPPED, None, short(str(rec.get("reason") or "")), file)
    exc = rec.get("exc")
    if not isinstance(exc, Mapping):
        text = short(str(rec.get("longrepr") or "collection failed"))
        return TestResult(cid, Outcome.ERROR, Cause.COLLECTION, text, file)
    when = "conftest" if "ConftestImportFailure" in str(exc.get("wrapper")) else "collect"
    cause, message = classify(exc, when=when, test_file=file, project=project)
    line = exc.get("line") if project.rel(exc.get("file")) == file else None
    return TestResult(cid, Outcome.ERROR, cause, message, file, line)


def _conftest_entry(rec: Mapping[str, Any], project: Project) -> TestResult:
    path = project.rel(str(rec.get("path") or "")) or str(rec.get("path") or "conftest.py")
    exc = rec.get("exc")
    if not isinstance(exc, Mapping):
        exc = {"type": "ImportError"}
    cause, message = classify(exc, when="conftest", test_file=path, project=project)
    return TestResult(path, Outcome.ERROR, cause, message, path)


def _broken_parent(test_id: str, broken: Mapping[str, TestResult]) -> TestResult | None:
    path = file_of(test_id)
    for bid, entry in broken.items():
        if bid.rsplit("/", 1)[-1] == "conftest.py":  # a conftest breaks its whole directory
            bid = bid.rsplit("/", 1)[0] if "/" in bid else "."
        if entry.outcome is Outcome.ERROR and (
            bid in (".", path) or path.startswith(bid.rstrip("/") + "/")
        ):
            return entry
    return None


def _covered(entry_id: str, requested: Sequence[str]) -> bool:
    if not requested:
        return True
    for r in requested:
        if r == entry_id or r in (".", "", "./"):
            return True
        if "::" not in r and entry_id.startswith(r.rstrip("/") + "/"):
            return True
    return False


def _unfinished(tid: str, phases: Mapping[str, Any], ending: Ending, file: str) -> TestResult:
    in_call = "setup" in phases and phases["setup"].get("outcome") == "passed"
    outcome = Outcome.FAILED if in_call else Outcome.ERROR
    if ending.timed_out:
        msg = f"timed out after {ending.timeout:g}s while this test was running"
        return TestResult(tid, outcome, Cause.TIMEOUT, msg, file)
    return TestResult(
        tid, outcome, Cause.CRASH, f"{_death(ending)} while this test was running", file
    )


def _death(ending: Ending) -> str:
    code = ending.exit_code
    if code < 0:
        return f"the test process was killed by signal {-code}"
    return f"the test process exited (code {code}) before pytest finished"


def _not_run(tid: str, log: ProbeLog, ending: Ending) -> TestResult:
    file = file_of(tid)
    if ending.timed_out:
        msg = "not run: the run timed out before this test started"
        return TestResult(tid, Outcome.ERROR, Cause.TIMEOUT, msg, file)
    if log.exitstatus is None:
        msg = f"not run: {_death(ending)} before this test started"
        return TestResult(tid, Outcome.ERROR, Cause.CRASH, msg, file)
    msg = f"not run: pytest stopped early (exit status {log.exitstatus})"
    return TestResult(tid, Outcome.ERROR, Cause.OTHER, msg, file)


def _tail_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # for display only: pytest's own "error:" line if any
        if "error:" in ln.lower():
            return short(ln)
    return short(lines[-1]) if lines else "no output"


def _notes(
    log: ProbeLog, ending: Ending, requested: Sequence[str], conftests: Sequence[str]
) -> list[str]:
    notes: list[str] = []
    if ending.timed_out:
        notes.append(f"timed out after {ending.timeout:g}s: the whole process group was killed")
    elif log.exitstatus is None and conftests:
        notes.append(f"{', '.join(conftests)} could not be imported, so pytest ran no test")
    elif log.exitstatus is None and log.session is None:
        notes.append(
            f"pytest did not start (exit code {ending.exit_code}): {_tail_line(ending.output_tail)}"
        )
    elif log.exitstatus is None:
        notes.append(f"{_death(ending)}: the session did not finish")
    elif log.exitstatus == 5:
        notes.append(
            "none of the requested tests were collected" if requested else "no tests collected"
        )
    elif log.exitstatus == 4:
        notes.append(f"pytest usage error: {_tail_line(ending.output_tail)}")
    elif log.exitstatus == 2:
        notes.append("pytest was interrupted")
    elif log.exitstatus == 3:
        notes.append(f"pytest internal error: {_tail_line(ending.output_tail)}")
    for rec in log.internal:
        exc = rec.get("exc")
        if isinstance(exc, Mapping):
            notes.append(f"pytest internal error: {describe(exc)}")
    return notes


def build_results(
    log: ProbeLog,
    ending: Ending,
    *,
    project: Project,
    requested: Sequence[str] = (),
    absent: Sequence[str] = (),
) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
    """Every test's result from the probe's records, and notes on the run as a whole.

    ``requested``: the ids or paths asked for (empty = all); ``absent``: those of them
    whose file does not exist (never given to pytest). A requested test never collected
    still gets an entry (``error``/``collection``, "not collected..."), so it cannot vanish.
    """
    broken: dict[str, TestResult] = {}
    for rec in log.conftests:
        entry = _conftest_entry(rec, project)
        broken[entry.id] = entry
    conftests = list(broken)
    for rec in log.collect_failures:
        entry = _collect_entry(rec, project)
        broken[entry.id] = entry
    tests: dict[str, TestResult] = {}
    order = list(dict.fromkeys([*log.collected, *log.started, *log.reports]))
    for tid in order:
        phases = {str(r.get("when")): r for r in log.reports.get(tid, ())}
        if "teardown" in phases:
            tests[tid] = _test_result(tid, phases, log, project)
        elif phases or tid in log.started:
            tests[tid] = _unfinished(tid, phases, ending, file_of(tid))
        else:
            tests[tid] = _not_run(tid, log, ending)
    unreported = list(absent) + list(log.missing)
    if not log.collection_done:
        unreported += list(requested)
    expanded: set[str] = set()
    for w in dict.fromkeys(unreported):
        if w in tests or w in broken:
            continue
        parent = _broken_parent(w, broken)
        if parent is not None:
            tests[w] = replace(parent, id=w, file=file_of(w), line=None)
            expanded.add(parent.id)
            continue
        if w in absent:
            msg = f"not collected: {file_of(w)} does not exist"
        elif log.collection_done:
            msg = "not collected: no test matches this id"
        elif broken:
            msg = f"not collected: pytest stopped on {next(iter(broken))}"
        else:
            msg = "not collected: pytest stopped before collecting"
        cause = Cause.TIMEOUT if ending.timed_out else Cause.COLLECTION
        tests[w] = TestResult(w, Outcome.ERROR, cause, msg, file_of(w))
    kept = [b for bid, b in broken.items() if bid not in expanded or _covered(bid, requested)]
    notes = _notes(log, ending, requested, conftests)
    return tuple(kept) + tuple(tests.values()), tuple(notes)

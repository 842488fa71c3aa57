"""The checks that run tests: after a production write outside an open red, and before the
agent stops. They call the project's runner as a library (``tddgit.runners``) and reuse
the yagni check's notion of an added line of code (``tddgit.yagni``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path

from tddgit.guard.facts import Facts
from tddgit.guard.model import ALLOW, Decision
from tddgit.guard.rules import after_write, before_stop
from tddgit.guard.snapshots import Snapshot
from tddgit.model import OK_OUTCOMES, LineCoverage, RunResult, TestResult

LINES_PLUGIN_DIR = Path(__file__).resolve().parent / "_probe"
LINES_PLUGIN = "tddgit_guard_lines"


class CheckFault(Exception):
    """The check could not decide (the runner timed out, coverage could not be measured
    ...): a fault of the guard's, never a verdict against the agent."""


def affected_tests(facts: Facts, rel: str) -> tuple[str, ...]:
    """The test files that import the module ``rel`` by name (empty: run them all)."""
    if not rel.endswith(".py"):
        return ()
    stem = Path(rel).stem
    module = rel[: -len(".py")].replace("/", ".")
    if stem == "__init__":
        module = module.rsplit(".", 1)[0]
        stem = module.rsplit(".", 1)[-1]
    names = {stem, module}
    pattern = re.compile(
        r"^\s*(?:from|import)\s+[\w., ]*\b(" + "|".join(map(re.escape, sorted(names))) + r")\b",
        re.MULTILINE,
    )
    listed = facts.repo.run("ls-files", "-z", "-co", "--exclude-standard", check=False).stdout
    found = []
    scope = facts.scope
    for path in listed.decode("utf-8", "surrogateescape").split("\0"):
        if not path.endswith(".py") or facts.kind(path) != "test":
            continue
        if scope is not None and not scope.owns(path):
            continue  # another project's test: its runner would not run it here
        try:
            text = (facts.repo.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if pattern.search(text):
            found.append(path)
    return tuple(found)


def run_tests(
    facts: Facts, tests: Sequence[str], cover: Sequence[str] = (), env: dict[str, str] | None = None
) -> RunResult:
    from tddgit.runners import RunRequest, get_runner

    root = facts.repo.root
    # the project's runner in its directory (docs/monorepo.md); "" at the top
    subdir = facts.config.project
    runner = get_runner(facts.config, root / subdir)
    request = RunRequest(
        root=root,
        subdir=subdir,
        tests=tuple(tests),
        timeout=facts.config.timeout,
        env=env,
        project_root=root,
        bytecode_cache=facts.repo.tddgit_dir / "pycache",
        cover=tuple(cover),
    )
    result = runner.run(request)
    if result.timed_out:
        raise CheckFault(f"the tests timed out after {facts.config.timeout:g} s")
    return result


def _run_measuring(
    facts: Facts, tests: Sequence[str], rel: str
) -> tuple[RunResult, LineCoverage | None]:
    """Run ``tests`` and measure which statements of ``rel`` ran: with the guard's own
    one-module plugin under pytest (``_probe/tddgit_guard_lines.py``), else (or when it
    could not see the module) with coverage.py through the runner."""
    import os
    import tempfile

    from tddgit.runners import get_runner

    if get_runner(facts.config, facts.repo.root / facts.config.project).name == "pytest":
        with tempfile.TemporaryDirectory(prefix="tddgit-guard-") as tmp:
            out = Path(tmp, "lines")
            env = {
                "PYTHONPATH": os.pathsep.join(
                    filter(None, [str(LINES_PLUGIN_DIR), os.environ.get("PYTHONPATH")])
                ),
                "PYTEST_PLUGINS": ",".join(
                    filter(None, [os.environ.get("PYTEST_PLUGINS"), LINES_PLUGIN])
                ),
                "TDDGIT_GUARD_LINES_FILE": str(facts.repo.root / rel),
                "TDDGIT_GUARD_LINES_OUT": str(out),
            }
            result = run_tests(facts, tests, env=env)
            lines = _read_lines(Path(tmp))
        if lines is not None or broken(result):
            return result, lines
    result = run_tests(facts, tests, cover=(rel,))
    return result, (result.coverage or {}).get(rel)


def _read_lines(directory: Path) -> LineCoverage | None:
    import json

    statements: set[int] = set()
    executed: set[int] = set()
    found = False
    for path in directory.glob("lines.*"):  # one file per process (xdist workers too)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            statements.update(int(n) for n in data["statements"])
            executed.update(int(n) for n in data["executed"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        found = True
    return LineCoverage(frozenset(statements), frozenset(executed)) if found else None


def broken(result: RunResult, skip: frozenset[str] = frozenset()) -> list[TestResult]:
    """Every test that neither passed nor was skipped on purpose, leaving out ``skip`` (an
    open red's targets)."""
    return [t for t in result.tests if t.outcome not in OK_OUTCOMES and t.id not in skip]


def describe(t: TestResult) -> str:
    return f"{t.id} ({t.outcome.value}" + (f", {t.cause.value})" if t.cause else ")")


def check_write(facts: Facts, snap: Snapshot) -> Decision:
    """Run the tests that cover ``snap.path`` with coverage, and judge the write."""
    rel = snap.path
    target = facts.repo.root / rel
    new = target.read_bytes() if target.exists() else None
    tests = affected_tests(facts, rel)
    python = rel.endswith(".py") and new is not None
    if python:
        result, cov = _run_measuring(facts, tests, rel)
    else:
        result, cov = run_tests(facts, tests), None
    failing = [describe(t) for t in broken(result)]
    untested: list[int] = []
    note = ""
    if not failing and python and new is not None:
        if cov is None:
            note = f"the lines of {rel} that ran could not be measured ({result.coverage_note or 'no data'})"
        else:
            untested = _untested(rel, snap.content, new, cov)
    decision = after_write(rel, failing, untested)
    if decision.rule == "kept" and python and new is not None:
        decision = _behaviour(facts, rel, snap.content, new, result) or decision
    ran = f"{len(result.tests)} test(s) from {', '.join(tests) if tests else 'the whole suite'}"
    details = {**decision.details, "ran": ran}
    return Decision(decision.verdict, decision.rule, decision.reason, note, details)


def _behaviour(
    facts: Facts, rel: str, old: bytes | None, new: bytes, result: RunResult
) -> Decision | None:
    """A kept refactor candidate's changed lines, mutated (``tddgit.mutation.refactor``):
    a behaviour change no test pins is told, or undone under ``guard.mutation = refuse``."""
    setting = str(facts.config.get("guard.mutation"))
    if setting == "off" or old is None:  # a new file: every line of it is new code
        return None
    from tddgit.guard.rules import behaviour_change
    from tddgit.mutation.refactor import check_refactor

    verdict = check_refactor(facts.repo, facts.config, rel, old, new, result)
    if not verdict.unpinned:
        return None
    survivors = [
        f"{u.mutant.path}:{u.mutant.line}: no test fails when `{u.mutant.original}` becomes "
        f"`{u.mutant.mutated}` ({u.mutant.operator}"
        + ("; the previous version's same mutant was killed)" if u.before else ")")
        for u in verdict.unpinned
    ]
    decision = behaviour_change(rel, survivors, refuse=setting == "refuse")
    details = {**decision.details, "mutation": verdict.note}
    return Decision(decision.verdict, decision.rule, decision.reason, details=details)


def _untested(rel: str, old: bytes | None, new: bytes, cov: LineCoverage) -> list[int]:
    from tddgit.yagni import added_code

    new_text = new.decode("utf-8", "replace")
    old_lines = (old or b"").decode("utf-8", "replace").split("\n") if old else []
    new_lines = new_text.split("\n")
    numbers: list[int] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            numbers.extend(range(j1 + 1, j2 + 1))
    added = added_code(rel, new_text, numbers)
    return added.unexecuted(cov)


def check_stop(facts: Facts, session: str, stop_hook_active: bool = False) -> Decision:
    """Run the whole suite; tests that fail or are amber block the stop, unless they are an
    open red's targets or already failed when the session started (``stops``); the targets
    of a red judged but not committed ask for the commit. Blocked stops are counted: after
    ``stops.MAX_BLOCKS`` in a row the stop goes through with a message for the person."""
    from tddgit.guard import stops

    parts = facts.each()  # each project's suite, with its runner in its directory
    skip = frozenset(t for f in parts if f.open_red for t in _open_red_targets(f))
    result = _suites(parts)
    bad = broken(result, skip)
    pending = set(facts.index_red.target_ids) if facts.index_red is not None else set()
    if result.coarse and result.exit_code != 0 and not skip:
        decision = before_stop(False, [], [f"the test command failed (exit {result.exit_code})"])
    elif facts.index_red is not None and not bad:
        decision = before_stop(False, sorted(pending), [])
    else:
        decision = before_stop(
            False,
            [describe(t) for t in bad if t.id in pending],
            [describe(t) for t in bad if t.id not in pending],
        )
    state = stops.read_state(facts, session)
    blocked = int(state.get("blocked", 0))
    if decision.verdict == ALLOW:
        if blocked:
            stops.write_state(facts, session, {**state, "blocked": 0})
        return decision
    ids = [t.id for t in bad if t.id not in pending]
    if (
        decision.rule == "stop-with-failing-tests"
        and ids
        and not result.coarse
        and (blocked or stop_hook_active)
        and stops.failed_at_start(facts, session, ids)
    ):
        stops.write_state(facts, session, {**state, "blocked": 0})
        return Decision(
            ALLOW,
            "stop-failed-before-session",
            warning=f"the session ends with tests that already failed when it started: "
            f"{'; '.join(ids[:5])}",
        )
    if blocked >= stops.MAX_BLOCKS:
        stops.write_state(facts, session, {**state, "blocked": 0})
        return Decision(
            ALLOW,
            "stop-limit-reached",
            warning=f"the agent stopped after {blocked} blocked stops and left this "
            f"unresolved — look at it before you go on: {decision.reason}",
        )
    stops.write_state(facts, session, {**state, "blocked": blocked + 1})
    return Decision(
        decision.verdict,
        decision.rule,
        f"{decision.reason} (blocked stop {blocked + 1} of {stops.MAX_BLOCKS})",
        decision.warning,
        decision.details,
    )


def _suites(parts: Sequence[Facts]) -> RunResult:
    """Every project's whole suite as one result (ids are repository-relative)."""
    import dataclasses

    results = [run_tests(f, ()) for f in parts]
    if len(results) == 1:
        return results[0]
    return dataclasses.replace(
        results[0],
        exit_code=next((r.exit_code for r in results if r.exit_code not in (0, 5)), 0),
        tests=tuple(t for r in results for t in r.tests),
        coarse=any(r.coarse for r in results),
    )


def _open_red_targets(facts: Facts) -> list[str]:
    from tddgit.notes import evidence_for_commit

    ids: list[str] = []
    for commit in facts.state.open_reds:
        tree = facts.repo.run("rev-parse", f"{commit}^{{tree}}", check=False)
        ev = evidence_for_commit(
            facts.repo, commit, tree.stdout.decode().strip(), "red", facts.scope
        )
        if ev is not None:
            ids.extend(ev.target_ids)
    return ids

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
from tddgit.guard.model import Decision
from tddgit.guard.rules import after_write, before_stop
from tddgit.guard.snapshots import Snapshot
from tddgit.model import OK_OUTCOMES, RunResult, TestResult


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
    for path in listed.decode("utf-8", "surrogateescape").split("\0"):
        if not path.endswith(".py") or facts.kind(path) != "test":
            continue
        try:
            text = (facts.repo.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if pattern.search(text):
            found.append(path)
    return tuple(found)


def run_tests(facts: Facts, tests: Sequence[str], cover: Sequence[str] = ()) -> RunResult:
    from tddgit.runners import RunRequest, get_runner

    root = facts.repo.root
    runner = get_runner(facts.config, root)
    request = RunRequest(
        root=root,
        tests=tuple(tests),
        timeout=facts.config.timeout,
        project_root=root,
        bytecode_cache=facts.repo.tddgit_dir / "pycache",
        cover=tuple(cover),
    )
    result = runner.run(request)
    if result.timed_out:
        raise CheckFault(f"the tests timed out after {facts.config.timeout:g} s")
    return result


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
    result = run_tests(facts, tests, cover=(rel,) if python else ())
    failing = [describe(t) for t in broken(result)]
    untested: list[int] = []
    note = ""
    if not failing and python and new is not None:
        cov = (result.coverage or {}).get(rel)
        if cov is None:
            note = f"coverage of {rel} could not be measured ({result.coverage_note or 'no data'})"
        else:
            untested = _untested(rel, snap.content, new, cov)
    decision = after_write(rel, failing, untested)
    ran = f"{len(result.tests)} test(s) from {', '.join(tests) if tests else 'the whole suite'}"
    details = {**decision.details, "ran": ran}
    return Decision(decision.verdict, decision.rule, decision.reason, note, details)


def _untested(rel: str, old: bytes | None, new: bytes, cov: object) -> list[int]:
    from tddgit.model import LineCoverage
    from tddgit.yagni import added_code

    assert isinstance(cov, LineCoverage)
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


def check_stop(facts: Facts, stop_hook_active: bool) -> Decision:
    """Run the whole suite; tests that fail or are amber block the stop, unless they are an
    open red's targets; the targets of a red judged but not committed ask for the commit."""
    if stop_hook_active:
        return before_stop(True, [], [])
    skip = frozenset(_open_red_targets(facts)) if facts.open_red else frozenset()
    result = run_tests(facts, ())
    if result.coarse and result.exit_code != 0 and not skip:
        return before_stop(False, [], [f"the test command failed (exit {result.exit_code})"])
    bad = broken(result, skip)
    pending = set(facts.index_red.target_ids) if facts.index_red is not None else set()
    if facts.index_red is not None and not bad:
        return before_stop(False, sorted(pending), [])
    return before_stop(
        False,
        [describe(t) for t in bad if t.id in pending],
        [describe(t) for t in bad if t.id not in pending],
    )


def _open_red_targets(facts: Facts) -> list[str]:
    from tddgit.evidence import evidence_for_commit

    ids: list[str] = []
    for commit in facts.state.open_reds:
        tree = facts.repo.run("rev-parse", f"{commit}^{{tree}}", check=False)
        ev = evidence_for_commit(facts.repo, commit, tree.stdout.decode().strip(), "red")
        if ev is not None:
            ids.extend(ev.target_ids)
    return ids

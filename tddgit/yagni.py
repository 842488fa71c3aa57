"""The ``yagni`` check (PRODUCT.md §9): production code a green step adds that no test needs.

When coverage.py is importable in the project's interpreter, the green gate asks the
runner to measure the Python production files the staged change adds lines to
(``RunRequest.cover``; the probe does the measuring) and reports every added line of code
the run did not execute, as ``file:line`` ranges. Without coverage (or for non-Python
files) a size heuristic stands in: the production lines the green adds against the test
lines its red(s) added, above ``RATIO``; the finding says it is a heuristic.

Only lines of code count: blank lines, comments, docstrings, stub statements (``pass``,
``...``, ``raise NotImplementedError``), ``# pragma: no cover`` lines (with the block they
head) and lines coverage.py calls non-executable are never reported. A line inside a
multi-line statement is judged by its statement.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tddgit.detectors.stubs import is_stub_body
from tddgit.git import Repo
from tddgit.lineage import State
from tddgit.model import FileChange, LineCoverage, RunResult
from tddgit.paths import Classifier, Kind
from tddgit.staged import StagedChange, diff_trees, read_blob, tree_of

RULE = "yagni"
# Heuristic: a finding when the green adds more than RATIO production lines per test line
# its red added, and at least MIN_LINES of them (a small green is never suspicious).
RATIO = 3.0
MIN_LINES = 10

# coverage.py's default exclusion pattern
_PRAGMA = re.compile(r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)")
_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_HASH_COMMENTS = (".py", ".pyi", ".pyx", ".rb", ".pl", ".pm", ".r", ".jl", ".ex", ".exs", ".nim")
_BINARY_SNIFF = 8000


@dataclass(frozen=True)
class Added:
    """The lines of code one file gains (numbers in the new version)."""

    path: str
    lines: tuple[int, ...]
    python: bool
    # Python: line -> (first, last) line of the statement (or compound header) it is part of
    spans: Mapping[int, tuple[int, int]] = field(default_factory=dict)

    def unexecuted(self, cov: LineCoverage) -> list[int]:
        """The added lines whose statement coverage.py saw as executable but not run."""
        missing = cov.missing
        out = []
        for line in self.lines:
            first, last = self.spans.get(line, (line, line))
            if any(n in missing for n in range(first, last + 1)):
                out.append(line)
        return out


# -- which lines a change adds -----------------------------------------------------------------


def _added_numbers(repo: Repo, old: str | None, new: str, length: int) -> list[int]:
    """Line numbers of ``new`` (a ``tree:path`` spec) that git's diff from ``old`` adds."""
    if old is None:
        return list(range(1, length + 1))
    proc = repo.run(
        "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", old, new, check=False
    )
    numbers: list[int] = []
    for m in _HUNK.finditer(proc.stdout):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        numbers.extend(range(start, start + count))
    return numbers


def _is_code_text(text: str, path: str) -> bool:
    stripped = text.strip()
    if not stripped:
        return False
    if path.endswith(_HASH_COMMENTS):
        return not stripped.startswith("#")
    return not stripped.startswith(("//", "/*", "*", "#!"))


def python_layout(source: str) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """(line -> span of its statement, trivia lines) of Python source; trivia are stub
    statements, docstrings and ``# pragma: no cover`` lines with the blocks they head."""
    lines = source.split("\n")
    pragma = {i for i, text in enumerate(lines, 1) if _PRAGMA.search(text)}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}, pragma
    spans: dict[int, tuple[int, int]] = {}
    trivia = set(pragma)
    for node in ast.walk(tree):  # breadth first: an inner statement overrides its parent
        if not isinstance(node, (ast.stmt, ast.excepthandler)):
            continue
        first, last = _header(node)
        for n in range(first, last + 1):
            spans[n] = (first, last)
        stub = isinstance(node, ast.stmt) and is_stub_body([node])
        if stub or pragma.intersection(range(first, last + 1)):
            trivia.update(range(first, (node.end_lineno or last) + 1))
    return spans, trivia


def _header(node: ast.stmt | ast.excepthandler) -> tuple[int, int]:
    """The lines a statement owns itself: a simple statement whole, a compound one up to
    its body (decorators included)."""
    decorators = getattr(node, "decorator_list", None) or []
    first = min([node.lineno, *(d.lineno for d in decorators)])
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return first, max(first, body[0].lineno - 1)
    return first, node.end_lineno or node.lineno


def added_code(path: str, new_text: str, numbers: Iterable[int]) -> Added:
    """The lines of code among ``numbers`` (added line numbers) of ``new_text``."""
    lines = new_text.split("\n")
    python = path.endswith(".py")
    spans, trivia = python_layout(new_text) if python else ({}, set())
    code = tuple(
        n
        for n in sorted(set(numbers))
        if 1 <= n <= len(lines) and n not in trivia and _is_code_text(lines[n - 1], path)
    )
    return Added(path, code, python, spans)


def _file_added(repo: Repo, old_tree: str, new_tree: str, f: FileChange) -> Added | None:
    blob = read_blob(repo, new_tree, f.path)
    if blob is None or b"\0" in blob[:_BINARY_SNIFF]:
        return None
    text = blob.decode("utf-8", "replace").replace("\r\n", "\n")
    old = None if f.status == "A" else f"{old_tree}:{f.old_path or f.path}"
    numbers = _added_numbers(repo, old, f"{new_tree}:{f.path}", text.count("\n") + 1)
    return added_code(f.path, text, numbers)


def added_production(repo: Repo, change: StagedChange) -> dict[str, Added]:
    """The lines of code the staged change adds to each production file."""
    out: dict[str, Added] = {}
    for f in change.files:
        if change.kinds[f.path] is not Kind.PRODUCTION or f.status == "D":
            continue
        added = _file_added(repo, change.base_tree, change.tree, f)
        if added is not None and added.lines:
            out[f.path] = added
    return out


def added_between(
    repo: Repo, classifier: Classifier, old_tree: str, new_tree: str
) -> dict[str, Added]:
    """The lines of code a commit (``old_tree`` -> ``new_tree``) adds to each production
    file: ``added_production`` for a commit of the history."""
    out: dict[str, Added] = {}
    for f in diff_trees(repo, old_tree, new_tree):
        if f.status == "D" or classifier.kind(f.path) is not Kind.PRODUCTION:
            continue
        added = _file_added(repo, old_tree, new_tree, f)
        if added is not None and added.lines:
            out[f.path] = added
    return out


# -- judging -----------------------------------------------------------------------------------


def ranges(flagged: Sequence[int], code: Sequence[int]) -> list[list[int]]:
    """``flagged`` lines as [first, last] ranges; a range runs on over lines that are not
    code (blank, comments), but stops at an unflagged line of code."""
    flagged_set = set(flagged)
    out: list[list[int]] = []
    for line in sorted(flagged_set):
        if out:
            last = out[-1][1]
            between = [c for c in code if last < c < line]
            if not between:  # code lines in between would all be unflagged
                out[-1][1] = line
                continue
        out.append([line, line])
    return out


def _where(path: str, spans: Sequence[Sequence[int]]) -> str:
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:6]]
    more = ", …" if len(spans) > 6 else ""
    return f"{path}:{', '.join(shown)}{more}"


def _finding(
    path: str, spans: list[list[int]], message: str, method: str, severity: str
) -> dict[str, Any]:
    return {
        "rule": RULE,
        "severity": severity,
        "file": path,
        "lines": spans,
        "message": message,
        "method": method,
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _coverage_finding(a: Added, cov: LineCoverage, severity: str) -> dict[str, Any] | None:
    flagged = a.unexecuted(cov)
    if not flagged:
        return None
    spans = ranges(flagged, a.lines)
    message = f"{_where(a.path, spans)}: {_plural(len(flagged), 'added line')} no test executed"
    if not cov.executed:
        message += " (no line of this file ran: no test imported it from the tree under test)"
    return _finding(a.path, spans, message, "coverage", severity)


def red_test_lines(repo: Repo, classifier: Classifier, reds: Iterable[str]) -> int:
    """Lines of test code the red commits added (blank lines and comments aside)."""
    total = 0
    for red in reds:
        parent = repo.run("rev-parse", "-q", "--verify", f"{red}^", check=False)
        base = tree_of(repo, parent.stdout.decode().strip() if parent.returncode == 0 else None)
        tree = tree_of(repo, red)
        for f in diff_trees(repo, base, tree):
            if f.status == "D" or classifier.kind(f.path) is not Kind.TEST:
                continue
            added = _file_added(repo, base, tree, f)
            total += len(added.lines) if added is not None else 0
    return total


@dataclass(frozen=True)
class Heuristic:
    production: int  # lines of code the green adds (in the files judged by size)
    tests: int  # lines of test code its red(s) added
    reason: str  # why coverage did not judge these files

    @property
    def fires(self) -> bool:
        return self.production >= MIN_LINES and self.production > RATIO * self.tests


def _heuristic_findings(
    h: Heuristic, files: Sequence[Added], severity: str
) -> list[dict[str, Any]]:
    if not h.fires:
        return []
    why = (
        f"heuristic, coverage not measured ({h.reason}): this green adds "
        f"{_plural(h.production, 'production line')} for {_plural(h.tests, 'test line')} "
        f"added by its red (more than {RATIO:g}x)"
    )
    out = []
    for a in files:
        spans = ranges(a.lines, a.lines)
        out.append(
            _finding(a.path, spans, f"{_where(a.path, spans)}: {why}", "heuristic", severity)
        )
    return out


def _unmeasured_reason(result: RunResult, python: bool) -> str:
    if not python:
        return "coverage is measured for Python files only"
    if result.coverage is None:
        return result.coverage_note or f"the {result.runner} runner does not measure coverage"
    return "coverage.py could not analyse the file"


def by_coverage(
    added: Mapping[str, Added], result: RunResult, severity: str
) -> tuple[list[dict[str, Any]], list[Added], list[str]]:
    """The coverage findings on ``added`` lines; the files coverage could not judge, and
    why (the reasons, each once)."""
    findings: list[dict[str, Any]] = []
    unmeasured: list[Added] = []
    reasons: dict[str, None] = {}
    measured = result.coverage or {}
    for a in added.values():
        cov = measured.get(a.path) if a.python else None
        if cov is None:
            unmeasured.append(a)
            reasons[_unmeasured_reason(result, a.python)] = None
            continue
        finding = _coverage_finding(a, cov, severity)
        if finding is not None:
            findings.append(finding)
    return findings, unmeasured, list(reasons)


def judge(
    repo: Repo,
    classifier: Classifier,
    state: State,
    added: Mapping[str, Added],
    result: RunResult,
    severity: str = "warning",
) -> tuple[list[dict[str, Any]], list[str]]:
    """Findings (evidence ``findings`` records) and notes for a green's added code."""
    findings, unmeasured, reasons = by_coverage(added, result, severity)
    notes: list[str] = []
    if unmeasured:
        tests = red_test_lines(repo, classifier, state.open_reds)
        production = sum(len(a.lines) for a in unmeasured)
        h = Heuristic(production, tests, "; ".join(reasons))
        findings += _heuristic_findings(h, unmeasured, severity)
        notes.append(
            f"yagni judged by size ({h.reason}): {_plural(production, 'production line')} "
            f"for {_plural(tests, 'test line')} in the red"
        )
    return findings, notes


def untested_lines(added: Mapping[str, Added], result: RunResult) -> tuple[list[str], list[str]]:
    """A refactor's added production lines that no test executed, as ``file:lines``
    messages (``untested-code``), by the same coverage measurement as the yagni check;
    and notes on the files coverage could not judge (those are not refused)."""
    findings, _unmeasured, reasons = by_coverage(added, result, "error")
    notes = [f"untested-code not judged for some files: {r}" for r in reasons]
    return [str(f["message"]) for f in findings], notes

"""The rules a plan must follow (docs/plans.md § Validation), each problem with its JSON
path: ``tddgit plan validate`` prints them, ``tddgit plan`` checks its own output with them.

A document that is not JSON, or not a ``tddgit.plan/1`` object at all, is bad input
(``NotAPlan``, exit 2); everything else is a list of problems (exit 1 when any).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from tddgit.errors import UsageError
from tddgit.plans import MAX_TASKS, PLAN_FILE, SCHEMA

SPLIT_ADVICE = "split the spec into smaller specs (one per area or layer) and plan each"


class NotAPlan(UsageError):
    """The file cannot be read as a plan at all."""


class Problem(NamedTuple):
    path: str  # JSON path, e.g. $.tasks[2].red.count
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def read_plan_json(path: Path) -> dict[str, Any]:
    """The JSON object of a plan file (or of ``plan.json`` in a directory)."""
    if path.is_dir():
        path = path / PLAN_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotAPlan(
            f"no plan at {path}", "pass a plan.json written by `tddgit plan SPEC`"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NotAPlan(f"cannot read {path}: {exc}", "pass a UTF-8 plan.json") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotAPlan(
            f"{path} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "pass a plan.json written by `tddgit plan SPEC`",
        ) from exc
    if not isinstance(data, dict):
        raise NotAPlan(f"{path} is not a plan: the document is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise NotAPlan(
            f"{path} is not a plan: $.schema is {json.dumps(data.get('schema'))}, "
            f"not {json.dumps(SCHEMA)}",
            "pass a plan.json written by `tddgit plan SPEC`",
        )
    return data


def problems(data: dict[str, Any], root: Path | None = None) -> list[Problem]:
    """Every rule ``data`` breaks, in document order. ``root``: the repository, whose
    inside every file must be (without it, the check is on the paths' text only)."""
    return list(_check(data, root))


def _check(data: dict[str, Any], root: Path | None) -> Iterator[Problem]:
    yield from _string(data, "spec_id", "$", nonempty=True)
    yield from _string(data, "title", "$")
    tasks = data.get("tasks")
    if not isinstance(tasks, list):
        yield Problem("$.tasks", "missing or not an array of tasks")
        return
    if not tasks:
        yield Problem("$.tasks", "no tasks: a plan needs at least one")
    if len(tasks) > MAX_TASKS:
        yield Problem(
            "$.tasks", f"{len(tasks)} tasks; a plan holds at most {MAX_TASKS} — {SPLIT_ADVICE}"
        )
    ids: dict[str, int] = {}
    cases: dict[str, str] = {}
    for i, task in enumerate(tasks):
        at = f"$.tasks[{i}]"
        if not isinstance(task, dict):
            yield Problem(at, "not an object")
            continue
        task_id = task.get("id")
        if isinstance(task_id, str) and task_id:
            if task_id in ids:
                yield Problem(f"{at}.id", f"{task_id!r} is also the id of $.tasks[{ids[task_id]}]")
            else:
                ids[task_id] = i
        yield from _task(task, at, cases, root)
    yield from _dependencies(tasks, ids)
    yield from _totals(data, tasks)


def _task(
    task: dict[str, Any], at: str, cases: dict[str, str], root: Path | None
) -> Iterator[Problem]:
    yield from _string(task, "id", at, nonempty=True)
    yield from _string(task, "title", at, nonempty=True)
    yield from _strings(task, "components", at, nonempty=True)
    yield from _strings(task, "depends_on", at)
    yield from _files(task, "files", at, root)
    phases = {name: task.get(name) for name in ("red", "green", "refactor")}
    for name, phase in phases.items():
        if not isinstance(phase, dict):
            yield Problem(
                f"{at}.{name}",
                f"the {name} phase is missing (every task has red, green and refactor)",
            )
    red, green, refactor = phases["red"], phases["green"], phases["refactor"]
    if isinstance(red, dict):
        yield from _red(red, f"{at}.red", cases, root)
    if isinstance(green, dict):
        yield from _strings(green, "implement", f"{at}.green", nonempty=True)
        if "files" in green:
            yield from _files(green, "files", f"{at}.green", root)
    if isinstance(refactor, dict):
        yield from _strings(refactor, "look_at", f"{at}.refactor", nonempty=True)


def _red(
    red: dict[str, Any], at: str, cases: dict[str, str], root: Path | None
) -> Iterator[Problem]:
    listed = red.get("test_cases")
    if not isinstance(listed, list):
        yield Problem(f"{at}.test_cases", "missing or not an array of test cases")
        listed = None
    elif not listed:
        yield Problem(f"{at}.test_cases", "no test cases: a red lists at least one")
    count = red.get("count")
    if not isinstance(count, int) or isinstance(count, bool):
        yield Problem(f"{at}.count", "missing or not an integer (the number of test cases)")
    elif listed is not None and count != len(listed):
        yield Problem(f"{at}.count", f"is {count} but the red lists {len(listed)} test cases")
    for j, case in enumerate(listed or ()):
        where = f"{at}.test_cases[{j}]"
        if not isinstance(case, dict):
            yield Problem(where, "not an object")
            continue
        yield from _string(case, "id", where, nonempty=True)
        case_id = case.get("id")
        if isinstance(case_id, str) and case_id:
            if case_id in cases:
                yield Problem(
                    f"{where}.id", f"test case {case_id!r} is also listed at {cases[case_id]}"
                )
            else:
                cases[case_id] = where
        for key in ("given", "when", "then"):
            yield from _string(case, key, where)
        for key in ("type", "description"):
            if key in case:
                yield from _string(case, key, where)
    if "files" in red:
        yield from _files(red, "files", at, root)


def _dependencies(tasks: Sequence[Any], ids: dict[str, int]) -> Iterator[Problem]:
    edges: dict[str, list[str]] = {}
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("depends_on"), list):
            continue
        own = task.get("id")
        for j, dep in enumerate(task["depends_on"]):
            if not isinstance(dep, str):
                continue
            where = f"$.tasks[{i}].depends_on[{j}]"
            if dep == own:
                yield Problem(where, f"{own} depends on itself")
            elif dep not in ids:
                yield Problem(where, f"{dep!r} names no task of this plan")
            else:
                if ids[dep] > i:
                    yield Problem(
                        where,
                        f"{own} depends on {dep}, which comes after it: order the tasks so "
                        "every dependency comes first",
                    )
                if isinstance(own, str) and ids.get(own) == i:
                    edges.setdefault(own, []).append(dep)
    cycle = _find_cycle(edges)
    if cycle:
        yield Problem(
            f"$.tasks[{ids[cycle[0]]}].depends_on",
            f"dependency cycle: {' → '.join(cycle)}",
        )


def _find_cycle(edges: dict[str, list[str]]) -> list[str]:
    """One dependency cycle (its first task repeated at the end), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in edges.get(node, ()):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for start in edges:
        if start not in state:
            found = visit(start)
            if found:
                return found
    return []


def _totals(data: dict[str, Any], tasks: Sequence[Any]) -> Iterator[Problem]:
    totals = data.get("totals")
    if not isinstance(totals, dict):
        yield Problem("$.totals", "missing or not an object")
        return
    counted = sum(
        len(t["red"]["test_cases"])
        for t in tasks
        if isinstance(t, dict)
        and isinstance(t.get("red"), dict)
        and isinstance(t["red"].get("test_cases"), list)
    )
    for key, actual in (("tasks", len(tasks)), ("test_cases", counted)):
        value = totals.get(key)
        if value != actual or isinstance(value, bool):
            yield Problem(f"$.totals.{key}", f"is {json.dumps(value)} but the plan has {actual}")


def _string(obj: dict[str, Any], key: str, at: str, *, nonempty: bool = False) -> Iterator[Problem]:
    value = obj.get(key)
    if not isinstance(value, str):
        yield Problem(f"{at}.{key}", "missing or not a string")
    elif nonempty and not value.strip():
        yield Problem(f"{at}.{key}", "is empty")


def _strings(
    obj: dict[str, Any], key: str, at: str, *, nonempty: bool = False
) -> Iterator[Problem]:
    value = obj.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        yield Problem(f"{at}.{key}", "missing or not an array of strings")
    elif nonempty and not value:
        yield Problem(f"{at}.{key}", "is empty: list at least one")


def _files(obj: dict[str, Any], key: str, at: str, root: Path | None) -> Iterator[Problem]:
    bad = list(_strings(obj, key, at))
    if bad:
        yield from bad
        return
    for j, path in enumerate(obj[key]):
        why = outside_reason(path, root)
        if why:
            yield Problem(f"{at}.{key}[{j}]", f"{path!r} {why}")


def outside_reason(path: str, root: Path | None) -> str | None:
    """Why ``path`` is not a file inside the repository (None when it is)."""
    if not path.strip():
        return "is empty"
    if "\\" in path or (len(path) > 1 and path[1] == ":"):
        return "is not a repository path (write it with / from the repository root)"
    pure = PurePosixPath(path)
    if pure.is_absolute():
        return "is absolute: write it relative to the repository root"
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        return "is outside the repository"
    if normal == ".":
        return "is not a file"
    if normal.split("/", 1)[0] == ".git":
        return "is inside .git/"
    if root is not None:
        real, top = (root / normal).resolve(), root.resolve()
        if real != top and top not in real.parents:
            return "is outside the repository (through a symbolic link)"
    return None

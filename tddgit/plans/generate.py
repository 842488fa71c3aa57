"""A plan from a structured (YAML) spec, deterministically: one task per component.

Dependencies: ``implementation_order`` is a chain (each component listed depends on the
one listed before it), and a component whose interface (a method's signature) names
another component depends on it, unless that would close a cycle with the explicit order
(the plan's notes say which were left out). Tasks come in dependency order; among tasks
that are free at the same time, the implementation order first, then the spec's order.
The same spec always gives the same plan, byte for byte.
"""

from __future__ import annotations

import heapq
import itertools
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tddgit.errors import Refused, UsageError
from tddgit.plans import MAX_TASKS
from tddgit.plans.model import Plan, PlannedTest, Task
from tddgit.plans.validate import SPLIT_ADVICE

if TYPE_CHECKING:
    from tddgit.spec import Component, Spec


class TooManyTasks(Refused):
    pass


def plan_from_spec(spec: Spec, spec_path: str) -> Plan:
    """The plan of ``spec`` (``spec_path``: how the plan names it)."""
    if not spec.structured:
        raise UsageError(
            f"{spec.path} is a free-form spec: only a model can plan it",
            "pass --llm, or write it as a YAML spec with components and test_cases (docs/plans.md)",
        )
    if len(spec.components) > MAX_TASKS:
        raise TooManyTasks(
            f"{spec.path} has {len(spec.components)} components, one task each; a plan holds "
            f"at most {MAX_TASKS} tasks",
            SPLIT_ADVICE,
        )
    untested = [c.name for c in spec.components if not _cases_of(spec, c.name)]
    if untested:
        raise UsageError(
            f"{spec.path}: component{'s' if len(untested) > 1 else ''} "
            f"{', '.join(untested)} {'have' if len(untested) > 1 else 'has'} no test cases, "
            "so the task's red would have nothing to write",
            "add test_cases for each component (or leave it out of this spec)",
        )
    deps, notes = _dependencies(spec)
    order = _ordered(spec, deps)
    ids = {name: f"IMPL-{n}" for n, name in enumerate(order, 1)}
    by_name = {c.name: c for c in spec.components}
    tasks = []
    for name in order:
        component = by_name[name]
        wanted = sorted(deps[name], key=order.index)
        tasks.append(_task(spec, component, ids[name], [(ids[d], by_name[d]) for d in wanted]))
    return Plan(
        spec_id=spec.spec_id,
        title=spec.title,
        spec=spec_path,
        source="spec",
        tasks=tuple(tasks),
        acceptance_criteria=spec.acceptance_criteria,
        notes=tuple(notes),
    )


def _cases_of(spec: Spec, name: str) -> list[PlannedTest]:
    return [
        PlannedTest(c.id, c.type, c.description, c.given, c.when, c.then)
        for c in spec.test_cases
        if c.component == name
    ]


def _dependencies(spec: Spec) -> tuple[dict[str, set[str]], list[str]]:
    """component -> the components it depends on; and notes on edges left out."""
    deps: dict[str, set[str]] = {c.name: set() for c in spec.components}
    chain = list(dict.fromkeys(spec.implementation_order))
    for before, after in itertools.pairwise(chain):
        deps[after].add(before)
    notes = []
    for c in spec.components:
        for other in spec.components:
            if other.name == c.name or other.name in deps[c.name]:
                continue
            if not _names(c, other.name):
                continue
            if _reaches(deps, other.name, c.name):
                notes.append(
                    f"{c.name}'s interface names {other.name}, which already depends on "
                    f"{c.name} (implementation_order or its own interface); that dependency "
                    "is left out so the order has no cycle"
                )
                continue
            deps[c.name].add(other.name)
    return deps, notes


def _names(component: Component, name: str) -> bool:
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return any(word.search(m.signature) for m in component.methods)


def _reaches(deps: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether ``start`` depends on ``goal``, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(deps[node])
    return False


def _ordered(spec: Spec, deps: dict[str, set[str]]) -> list[str]:
    """Topological order; ties by implementation order, then by the spec's order."""
    listed = {name: i for i, name in enumerate(dict.fromkeys(spec.implementation_order))}
    rank = {
        c.name: (0, listed[c.name], i) if c.name in listed else (1, i, i)
        for i, c in enumerate(spec.components)
    }
    waiting = {name: len(d) for name, d in deps.items()}
    users: dict[str, list[str]] = {name: [] for name in deps}
    for name, d in deps.items():
        for dep in d:
            users[dep].append(name)
    ready = [(rank[n], n) for n, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _, name = heapq.heappop(ready)
        out.append(name)
        for user in users[name]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (rank[user], user))
    assert len(out) == len(deps), "the dependencies were kept acyclic"
    return out


def _task(spec: Spec, c: Component, task_id: str, deps: Sequence[tuple[str, Component]]) -> Task:
    tests = tuple(_cases_of(spec, c.name))
    test_file = test_file_for(c.file_path)
    test_files = (test_file,) if test_file else ()
    implement = tuple(
        f"{m.signature} — {m.description}" if m.description else m.signature for m in c.methods
    ) or (f"{c.type} {c.name} in {c.file_path}" + (f": {c.description}" if c.description else ""),)
    look_at = [
        f"duplication and names in {c.file_path}, with the task's {len(tests)} "
        f"test case{'s' if len(tests) != 1 else ''} green",
        *(f"how {c.name} uses {d.name} ({d_id}): through its interface only" for d_id, d in deps),
    ]
    if test_file and len(tests) > 1:
        look_at.append(
            f"setup repeated across the {len(tests)} tests in {test_file} (its own refactor)"
        )
    return Task(
        id=task_id,
        title=_title(c),
        components=(c.name,),
        files=tuple(dict.fromkeys([c.file_path, *test_files])),
        depends_on=tuple(d_id for d_id, _ in deps),
        tests=tests,
        test_files=test_files,
        implement=implement,
        production_files=(c.file_path,),
        look_at=tuple(look_at),
    )


def _title(c: Component) -> str:
    first = c.description.strip().split("\n", 1)[0]
    first = re.split(r"(?<=[.!?])\s", first, maxsplit=1)[0].rstrip(".")
    if len(first) > 72:
        first = first[:71].rstrip() + "…"
    return f"{c.name}: {first}" if first else f"{c.name} ({c.type})"


_JS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")


def test_file_for(path: str) -> str | None:
    """Where the tests of a production file usually live, by its language's convention
    (None when there is no convention we know)."""
    directory, name = posixpath.split(path)
    stem, ext = posixpath.splitext(name)
    if ext == ".py":
        if stem == "__init__":
            stem = posixpath.basename(directory) or "package"
        return f"tests/test_{stem}.py"
    if ext in _JS:
        return posixpath.join(directory, f"{stem}.test{ext}")
    if ext == ".go":
        return posixpath.join(directory, f"{stem}_test.go")
    if ext == ".rs":
        return f"tests/{stem}.rs"
    if ext in (".java", ".kt") and "src/main/" in f"{directory}/":
        return posixpath.join(
            f"{directory}/".replace("src/main/", "src/test/", 1).rstrip("/"), f"{stem}Test{ext}"
        )
    return None


def spec_path_in(repo_root: Path, spec: Path) -> str:
    """How a plan names its spec: relative to the repository root when inside it."""
    full = spec.resolve()
    try:
        return full.relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        return str(full)

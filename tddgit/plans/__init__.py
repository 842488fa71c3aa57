"""Quantified TDD task plans (PRODUCT.md §12, docs/plans.md).

A plan (``plan.json``, schema ``tddgit.plan/1``) splits a spec into at most 18 tasks, each
one red -> green -> refactor cycle with its test cases enumerated and counted, in
dependency order. ``generate`` makes one from a YAML spec, ``validate`` checks any plan
(the rules live there, once), ``status`` reads from the history which task's phases
really happened (``GSD-Task`` trailers with gate evidence), ``render`` writes the plan and
its TODO list for people.
"""

from __future__ import annotations

SCHEMA = "tddgit.plan/1"
MAX_TASKS = 18
TASK_TRAILER = "GSD-Task"
PLAN_FILE = "plan.json"
IMPL_PLAN_FILE = "IMPL_PLAN.md"
TODO_FILE = "TODO_LIST.md"
PHASES = ("red", "green", "refactor")

"""What the model is told: the system prompt (the phase, the rules, the tools) and the
first message (the spec, and the files the user passed with ``--context``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from tddgit.agent.phases import Phase
from tddgit.agent.sandbox import find_secret
from tddgit.errors import UsageError
from tddgit.paths import matches
from tddgit.spec import Spec, TaskScope


def system_prompt(
    phase: Phase, test_globs: Sequence[str], project: str = "", spec: str = ""
) -> tuple[str, ...]:
    """What every phase of a cycle shares (who the model is, the rules, what stays true of
    the ``project``), cached once for the cycle; then the rendered ``spec`` when there is
    one (a cycle gives it to every phase: cached after the first block, so a ``generate``
    without a spec still shares the first); then this phase's task."""
    naming = (
        "Name each test case id of the specification (such as TC-1) in the test that "
        "covers it, in the test's name (test_tc_1_...) or its docstring."
    )
    shared = [
        "You are a careful engineer doing test-driven development in a git repository, "
        "through tddgit. You work only through the tools you are given.",
        "Rules: paths are relative to the repository root; nothing under .git/, nothing "
        "git ignores, and no secret file is readable; a refused tool call says why. "
        "Files that count as tests match: " + ", ".join(test_globs[:12]) + ".",
        # what every phase is told alike, said once here: the phases' own blocks are
        # cached by no other phase. Nothing asks the model to look around first: the
        # project below (and the first message) is what it would have looked for.
        "Work in small steps: change the files, check them with run_tests, then call "
        "finish, which runs the step's gate. If the gate refuses, you get every reason "
        "with its fix: correct the files and call finish again.",
        *([f"The project:\n\n{project}"] if project else []),
    ]
    own = [phase.task, *([naming] if phase.name == "red" else []), phase.done_when]
    return ("\n\n".join(shared), *([spec] if spec else []), "\n\n".join(own))


def first_message(spec: Spec | None, context: Sequence[tuple[str, str]], intro: str = "") -> str:
    parts = [p for p in (intro, render_spec(spec) if spec else "") if p]
    for rel, text in context:
        parts.append(f"Context file {rel} (given by the user):\n```\n{text}\n```")
    return "\n\n".join(parts)


def check_sendable(spec: Spec, secret_globs: tuple[str, ...]) -> None:
    """The spec goes to the provider whole, so it passes the checks every file the model
    reads passes: no secret-like name (``llm.secret_globs``), no secret in what is sent.
    A usage error before any request (``generate``, ``cycle``, ``plan --llm``)."""
    name = PurePosixPath(spec.path).name.lower()
    if matches(name, secret_globs):
        raise UsageError(
            f"{spec.path} is named like a secret (llm.secret_globs), so it is never sent",
            "rename the spec",
        )
    secret = find_secret(spec.text) or find_secret(render_spec(spec))
    if secret is not None:
        raise UsageError(
            f"{spec.path} holds {secret}, so it is never sent to a model",
            "take the secret out of the spec",
        )


def render_spec(spec: Spec) -> str:
    if not spec.structured:
        return f"The specification ({spec.path}):\n\n{spec.text}"
    lines = [f"Specification {spec.spec_id}: {spec.title} ({spec.path})"]
    if spec.task:
        lines += _task_lines(spec.task)
    if spec.components:
        lines += ["", "Components:"]
    for c in spec.components:
        lines.append(f"- {c.name} ({c.type}) in {c.file_path}" + _dash(c.description))
        for m in c.methods:
            lines.append(f"    - {m.signature}" + _dash(m.description))
    count = f" ({len(spec.test_cases)}, this task's red)" if spec.task else ""
    lines += ["", f"Test cases{count}:"]
    for t in spec.test_cases:
        lines.append(f"- {t.id} [{t.component}, {t.type}]" + _dash(t.description))
        for label, text in (("given", t.given), ("when", t.when), ("then", t.then)):
            if text:
                lines.append(f"    {label}: {text}")
    if spec.acceptance_criteria:
        lines += ["", "Acceptance criteria:"] + [f"- {a}" for a in spec.acceptance_criteria]
    if spec.implementation_order:
        lines += ["", "Implementation order: " + ", ".join(spec.implementation_order)]
    if spec.task:
        lines += ["", "To implement (the green step):", *(f"- {i}" for i in spec.task.implement)]
        lines += ["", "To look at (the refactor step):", *(f"- {i}" for i in spec.task.look_at)]
    return "\n".join(lines)


def _task_lines(task: TaskScope) -> list[str]:
    after = f"; it builds on {', '.join(task.depends_on)}, already done" if task.depends_on else ""
    return [
        "",
        f"This cycle is one task of the plan: {task.id} {task.title} (components: "
        f"{', '.join(task.components) or 'none named'}{after}). Work on this task "
        "only: the plan's other tasks are cycles of their own.",
        "Files to create or change: " + (", ".join(task.files) or "none named"),
    ]


def _dash(text: str) -> str:
    return f" - {text}" if text else ""

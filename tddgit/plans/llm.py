"""`tddgit plan SPEC --llm`: a model drafts the plan (free-form spec) or enriches the
deterministic one (YAML spec); tddgit's validator decides (docs/plans.md, "With a model").

The exchange is one tool, ``submit_plan``, whose input schema is the plan's tasks as
``plan.schema.json`` describes them, and the request forces that tool (``tool_choice``;
offered but not forced to a model that refuses forcing): the plan arrives as parsed JSON,
never prose to pick apart. tddgit fills in what is not the
model's to decide (schema, spec id and title, spec path, source, totals), runs the plan
rules, and sends every problem line back as the tool's error result. Three tries in all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from tddgit.agent.loop import echo
from tddgit.agent.prompt import check_sendable, render_spec
from tddgit.agent.providers import Provider, Reply, Request, Usage, make_provider
from tddgit.agent.settings import Settings
from tddgit.agent.transcript import Transcript
from tddgit.config import Config
from tddgit.errors import Refused
from tddgit.git import Repo
from tddgit.plans import MAX_TASKS, SCHEMA
from tddgit.plans.model import Plan, plan_from_json
from tddgit.plans.validate import Problem, problems
from tddgit.spec import Spec

TRIES = 3
TOOL = "submit_plan"

SYSTEM = f"""\
You plan test-driven development work for tddgit. A plan splits a specification into at \
most {MAX_TASKS} tasks; each task is one feature and one whole red -> green -> refactor \
cycle: red lists the test cases it writes (id, given, when, then) and their count, green \
what to implement, refactor what to look at. Tasks come in dependency order: depends_on \
names only earlier tasks. Task ids are IMPL-1, IMPL-2, ...; test case ids are unique in the \
plan. Files are paths relative to the repository root. Answer with one call of \
{TOOL}."""

DRAFT = (
    "Plan this specification: choose the tasks, and for each the test cases that pin its "
    "behaviour down, edge cases included."
)
ENRICH = (
    "Below is tddgit's deterministic plan of this specification (one task per component). "
    "Improve it: add the edge-case test cases it misses (new ids such as TC-3a), and split a "
    "task that holds more than one feature into finer tasks. Keep every test case of the "
    "specification, with its id."
)


@dataclass(frozen=True)
class ModelPlan:
    """A plan the model made and the validator accepted, and what it took."""

    plan: Plan
    provider: str
    model: str
    turns: int
    usage: Usage
    session_id: str
    transcript: Path


def tool_spec() -> dict[str, Any]:
    """``submit_plan``: its input is the plan's tasks (and notes), as plan.schema.json has
    them."""
    schema = json.loads(resources.files("tddgit.plans").joinpath("plan.schema.json").read_text())
    props = schema["properties"]
    return {
        "name": TOOL,
        "description": "Submit the whole plan. tddgit checks it; problems come back to fix.",
        "input_schema": {
            "type": "object",
            "required": ["tasks"],
            "properties": {"tasks": props["tasks"], "notes": props["notes"]},
            "$defs": schema["$defs"],
        },
    }


def first_message(spec: Spec, draft: Plan | None) -> str:
    parts = [ENRICH if draft else DRAFT, render_spec(spec)]
    if draft is not None:
        parts.append("The deterministic plan:\n```json\n" + draft.dumps() + "```")
    return "\n\n".join(parts)


def plan_with_model(
    repo: Repo,
    config: Config,
    spec: Spec,
    spec_path: str,
    draft: Plan | None,
    model: str | None,
    progress: Callable[[str], None],
) -> ModelPlan:
    """Ask the model for the plan until it passes the rules (at most :data:`TRIES` tries).
    Raises ``Refused`` (exit 1) with the last problems when it never does."""
    settings = Settings.from_config(config, repo.root, model=model)
    check_sendable(spec, settings.secret_globs)
    provider = make_provider(settings, progress)  # no key: a usage error before anything is written
    model_name = provider.model_name(settings.model)
    transcript = Transcript(repo)
    transcript.record("start", phase="plan", provider=provider.name, model=model_name,
                      spec=spec.path, draft=draft is not None)  # fmt: skip
    messages: list[dict[str, Any]] = [{"role": "user", "content": first_message(spec, draft)}]
    usage, found, status = Usage(), [Problem("$", "no plan")], "error"
    turn = 0
    force = [True]  # until the model rejects a forced tool_choice
    try:
        for turn in range(1, TRIES + 1):
            reply = _ask_forcing(provider, settings, messages, transcript, turn, force, progress)
            usage += reply.usage
            messages.append({"role": "assistant", "content": echo(reply)})
            if reply.stop_reason == "refusal":
                status = "model-refused"
                raise Refused(
                    "the model refused to plan the spec (stop_reason refusal); nothing written",
                    "read the transcript; rephrase the spec",
                )
            data, found, answer = _judge(reply, spec, spec_path, repo.root, model_name, transcript)
            transcript.record("plan", turn=turn, problems=[str(p) for p in found])
            progress(
                f"try {turn}: "
                + (f"{len(found)} problem{'s' if len(found) != 1 else ''}" if found else "valid")
                + f" · tokens {reply.usage.input} in / {reply.usage.output} out"
            )
            for p in found:
                progress(f"plan: {p}")
            if not found:
                status = "valid"
                assert data is not None
                return ModelPlan(
                    plan_from_json(data),
                    provider.name,
                    model_name,
                    turn,
                    usage,
                    transcript.session_id,
                    transcript.path,
                )
            messages.append({"role": "user", "content": answer})
        status = "invalid"
        raise Refused(
            f"the model's plan still broke the plan rules after {TRIES} tries "
            f"({len(found)} problem{'s' if len(found) != 1 else ''}, first: {found[0]}); "
            "nothing written",
            f"read the transcript ({transcript.path.name}); narrow the spec, or plan a YAML "
            "spec without --llm",
        )
    finally:
        transcript.record("end", status=status, turns=turn, usage=usage.to_json())
        transcript.close()


def _ask_forcing(
    provider: Provider,
    settings: Settings,
    messages: list[dict[str, Any]],
    transcript: Transcript,
    turn: int,
    force: list[bool],
    progress: Callable[[str], None],
) -> Reply:
    """The reply, the tool forced while the model takes that. Some models refuse a forced
    ``tool_choice`` (HTTP 400): then the same request goes again with the tool offered but
    not forced (a reply without the call is a problem the next try hears about)."""
    if force[0]:
        try:
            return _ask(provider, settings, messages, transcript, turn, forced=True)
        except Refused as exc:
            said = exc.message.lower()
            if "http 400" not in said or not ("tool_choice" in said or "forc" in said):
                raise
            force[0] = False
            transcript.record("unforced", turn=turn, error=exc.message)
            progress("plan: the model does not take a forced tool_choice: asking without it")
    return _ask(provider, settings, messages, transcript, turn, forced=False)


def _ask(
    provider: Provider,
    settings: Settings,
    messages: list[dict[str, Any]],
    transcript: Transcript,
    turn: int,
    *,
    forced: bool,
) -> Reply:
    request = Request(
        settings.model,
        SYSTEM,
        list(messages),
        [tool_spec()],
        settings.max_tokens,
        tool_choice={"type": "tool", "name": TOOL} if forced else None,
    )
    transcript.record("request", turn=turn, body=request.body())
    reply = provider.complete(request)
    transcript.record("response", turn=turn, usage=reply.usage.to_json(), message=reply.message)
    return reply


def _judge(
    reply: Reply, spec: Spec, spec_path: str, root: Path, model: str, transcript: Transcript
) -> tuple[dict[str, Any] | None, list[Problem], list[dict[str, Any]]]:
    """(the plan document, its problems, the next user content to send when any)."""
    call = next((b for b in reply.content if b.get("type") == "tool_use"), None)
    if call is None or call.get("name") != TOOL or not isinstance(call.get("input"), Mapping):
        why = (
            "the reply was cut off at max_tokens before the plan was complete"
            if reply.stop_reason == "max_tokens"
            else f"the reply has no {TOOL} call with an object as its input"
        )
        found = [Problem("$", why)]
        if call is None:
            return None, found, [{"type": "text", "text": f"{why}. Call {TOOL} with the plan."}]
        return None, found, [_result(call, found)]
    data = document(dict(call["input"]), spec, spec_path, model, transcript.session_id)
    found = problems(data, root) + missing_cases(data, spec)
    return data, found, [_result(call, found)] if found else []


def _result(call: Mapping[str, Any], found: list[Problem]) -> dict[str, Any]:
    text = (
        f"The plan breaks {len(found)} rule{'s' if len(found) != 1 else ''}; fix every one "
        f"and call {TOOL} again with the whole plan:\n" + "\n".join(str(p) for p in found)
    )
    return {"type": "tool_result", "tool_use_id": call.get("id"), "is_error": True,
            "content": text}  # fmt: skip


def document(
    answer: dict[str, Any], spec: Spec, spec_path: str, model: str, session: str
) -> dict[str, Any]:
    """The whole ``tddgit.plan/1`` document of the model's answer: what is not the model's
    to decide is filled in here."""
    tasks = answer.get("tasks")
    listed = _list(tasks)
    cases = [
        _list(t["red"].get("test_cases"))
        for t in listed
        if isinstance(t, dict) and isinstance(t.get("red"), dict)
    ]
    notes = [n for n in _list(answer.get("notes")) if isinstance(n, str)]
    made_by = f"planned by {model} (session {session}), checked by tddgit's plan rules"
    return {
        "schema": SCHEMA,
        "spec_id": spec.spec_id,
        "title": spec.title,
        "spec": spec_path,
        "source": "llm",
        "tasks": tasks,
        "totals": {"tasks": len(listed), "test_cases": sum(len(c) for c in cases)},
        "acceptance_criteria": list(spec.acceptance_criteria),
        "notes": [*notes, made_by],
    }


def missing_cases(data: dict[str, Any], spec: Spec) -> list[Problem]:
    """A YAML spec's test cases the plan dropped (a model enriches; it does not drop)."""
    listed = {
        c.get("id")
        for t in _list(data.get("tasks"))
        if isinstance(t, dict) and isinstance(t.get("red"), dict)
        for c in _list(t["red"].get("test_cases"))
        if isinstance(c, dict)
    }
    return [
        Problem("$.tasks", f"the spec's test case {case.id} ({case.component}) is in no task's red")
        for case in spec.test_cases
        if case.id not in listed
    ]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []

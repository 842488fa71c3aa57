"""The one conversation loop every model-driven phase runs.

Ask the model; run each tool call it makes (``tools.call``); send the results back; stop
when ``finish`` gets a holding verdict from the phase's gate, or when the run cannot get
there: the same refusal ``stuck_after`` times in a row, ``max_turns`` requests, a token
budget that the next request would break, a refusal by the model, or a gate refusal no
edit can fix (a timeout). The loop changes files only through the tools; whoever started
it decides what to keep (``run``).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tddgit.agent import tools
from tddgit.agent.bench import Bench, ToolOutcome
from tddgit.agent.finish import Judgement
from tddgit.agent.prices import estimate_cost
from tddgit.agent.providers import Provider, Reply, Request, Usage
from tddgit.agent.recovery import Held, Recovery, minimize_feedback, yagni_lines
from tddgit.agent.settings import Settings
from tddgit.agent.transcript import Transcript
from tddgit.agent.workspace import Snapshot
from tddgit.gates import Verdict
from tddgit.model import RunResult

# How the loop ended. HOLDS is a success, and NOTHING (a refactor ended unchanged).
HOLDS, STUCK, MAX_TURNS, BUDGET, COST, MODEL_REFUSED, GATE_FATAL, NOTHING, NO_TOOL = (
    "holds",
    "stuck",
    "max-turns",
    "token-budget",
    "cost-budget",
    "model-refused",
    "gate-fatal",
    "nothing-to-do",
    "no-tool",
)

NUDGE = (
    "Nobody will answer: no person reads this conversation, so choose the most reasonable "
    "reading and go on. Use the tools to do the step (there is no other way to change "
    "files), then call finish. If you are done, call finish now."
)
# Replies in a row without a tool call a run allows (each answered with NUDGE); one more
# ends it: a model waiting for an answer would otherwise spend every turn waiting.
MAX_SILENT = 2


@dataclass
class LoopEnd:
    status: str
    message: str  # one line for the user
    turns: int
    usage: Usage
    verdict: Verdict | None = None  # the holding verdict (or the last refusal)
    best: Snapshot | None = None  # the best state seen (green, refactor): --keep-best


@dataclass
class Conversation:
    system: str | tuple[str, ...]  # blocks: the first is shared by the phases of a cycle
    messages: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[str], None]


def run_loop(
    bench: Bench,
    provider: Provider,
    settings: Settings,
    conversation: Conversation,
    transcript: Transcript,
    progress: Progress,
) -> LoopEnd:
    usage = Usage()
    phase = bench.phase
    watch = Recovery(bench.workspace, settings.stuck_after, phase.recovers, bench.targets)
    specs = tools.api_specs()
    last_verdict: Verdict | None = None
    held: Held | None = None  # a holding green sent back once to remove unneeded lines
    silent = 0  # replies in a row without a tool call

    def end(status: str, message: str, turns: int) -> LoopEnd:
        if held is not None:  # a holding green stays the result, whatever came after it
            return _keep_held(bench, held, turns, usage, transcript)
        best = watch.best.snapshot if watch.best else None
        return LoopEnd(status, message, turns, usage, last_verdict, best)

    for turn in range(1, settings.max_turns + 1):
        request = Request(
            settings.model, conversation.system, conversation.messages, specs, settings.max_tokens
        )
        body = request.body()
        estimate = estimate_tokens(body)
        if estimate > settings.token_budget:
            message = (
                f"token budget: the next request would carry about {estimate} tokens, over "
                f"llm.token_budget ({settings.token_budget})"
            )
            return end(BUDGET, message, turn - 1)
        transcript.record("request", turn=turn, estimated_tokens=estimate, body=body)
        started = time.monotonic()
        reply = provider.complete(request)
        usage += reply.usage
        transcript.record(
            "response",
            turn=turn,
            duration=round(time.monotonic() - started, 3),
            usage=reply.usage.to_json(),
            message=reply.message,
        )
        conversation.messages.append({"role": "assistant", "content": echo(reply)})
        if reply.stop_reason == "refusal":
            message = "the model refused the task (stop_reason: refusal); nothing was kept"
            return end(MODEL_REFUSED, message, turn)
        cost = estimate_cost(settings.model, usage)
        if settings.max_cost and cost is not None and cost >= settings.max_cost:
            message = (
                f"cost budget: ~${cost:.4f} spent in {turn} turns ({_tokens(usage)}), "
                f"llm.max_cost is ${settings.max_cost:.4f}"
            )
            return end(COST, message, turn)
        judgement, results, called, runs = _run_tools(bench, reply, transcript, turn)
        silent = 0 if results else silent + 1
        if not results:
            if held is not None:  # the model keeps the lines: the holding version stands
                return _keep_held(bench, held, turn, usage, transcript)
            if phase.may_end_unchanged and not bench.workspace.changed():
                progress(f"turn {turn}: nothing to {phase.name} · {_spent(usage, settings)}")
                return end(NOTHING, f"nothing to {phase.name}: the model changed nothing", turn)
            if silent > MAX_SILENT:
                progress(f"turn {turn}: no tool · {_spent(usage, settings)}")
                message = (
                    f"the model replied {silent} times in a row without using a tool "
                    f"(last: {_said(reply)})"
                )
                return end(NO_TOOL, message, turn)
            nudge = _cut_off(settings) if reply.stop_reason == "max_tokens" else NUDGE
            conversation.messages.append({"role": "user", "content": nudge})
        else:
            conversation.messages.append({"role": "user", "content": results})
        progress(
            f"turn {turn}: {called or reply.stop_reason or 'no tool'} · {_spent(usage, settings)}"
        )
        stuck_on = ""
        for run in runs:
            if watch.saw_run(run):
                stuck_on = (
                    f"run_tests failed the same tests the same way {settings.stuck_after} "
                    "times in a row"
                )
        if judgement is not None:
            last_verdict = judgement.verdict
            transcript.record(
                "gate",
                turn=turn,
                holds=judgement.holds,
                signature=judgement.signature,
                verdict=judgement.verdict.to_json() if judgement.verdict else None,
            )
            if phase.may_end_unchanged and not bench.workspace.changed():
                return end(NOTHING, f"nothing to {phase.name}: the model changed nothing", turn)
            if judgement.holds:
                lines = yagni_lines(judgement)
                if held is not None and held.yagni_lines <= lines:
                    return _keep_held(bench, held, turn, usage, transcript)
                if held is None and lines and settings.minimize and phase.name == "green":
                    held = Held(judgement, lines, bench.workspace.snapshot())
                    _replace_result(results, judgement.feedback, minimize_feedback(judgement))
                    transcript.record("minimize", turn=turn, yagni_lines=lines)
                    progress(f"turn {turn}: green holds; {lines} line(s) no test needs sent back")
                    continue
                return LoopEnd(HOLDS, f"{phase.name} holds", turn, usage, judgement.verdict)
            if judgement.fatal:
                message = f"the gate cannot be satisfied by editing files: {judgement.fatal}"
                return end(GATE_FATAL, message, turn)
            if held is not None:  # the minimised attempt broke the step: keep the holding one
                return _keep_held(bench, held, turn, usage, transcript)
            if watch.saw_refusal(judgement):
                stuck_on = (
                    f"the {phase.name} gate refused the same way {settings.stuck_after} times in a row: "
                    f"{judgement.headline}"
                )
        if stuck_on:
            again = watch.recovered
            advice = watch.recover(stuck_on)
            transcript.record("stuck", turn=turn, failure=stuck_on, recovered=advice is not None)
            if advice is None:
                message = f"stuck{' again' if again else ''}: {stuck_on}"
                return end(STUCK, message, turn)
            progress(f"turn {turn}: stuck ({stuck_on}); back to the best state, asked to change")
            _tell(conversation, advice)
    message = f"max turns: {settings.max_turns} requests without a holding {phase.name} gate"
    return end(MAX_TURNS, message, settings.max_turns)


def _keep_held(
    bench: Bench, held: Held, turns: int, usage: Usage, transcript: Transcript
) -> LoopEnd:
    """End with the holding green kept during minimisation: its files back, and staged."""
    bench.workspace.restore(held.snapshot)
    bench.workspace.stage()
    transcript.record("kept", turn=turns, yagni_lines=held.yagni_lines)
    name = bench.phase.name
    message = f"{name} holds (the first holding version: {held.yagni_lines} unneeded line(s))"
    return LoopEnd(HOLDS, message, turns, usage, held.judgement.verdict)


def _replace_result(results: list[dict[str, Any]], old: str, new: str) -> None:
    for block in results:
        if block.get("content") == old:
            block["content"] = new
            return


def _tell(conversation: Conversation, text: str) -> None:
    """Add ``text`` to the last user message (after its tool results)."""
    last = conversation.messages[-1]
    if isinstance(last["content"], list):
        last["content"].append({"type": "text", "text": text})
    else:
        last["content"] = f"{last['content']}\n\n{text}"


def _run_tools(
    bench: Bench, reply: Reply, transcript: Transcript, turn: int
) -> tuple[Judgement | None, list[dict[str, Any]], str, list[RunResult]]:
    """Run the reply's tool calls in order: the verdict, the tool_result blocks, the
    names called and the ``run_tests`` results."""
    uses = [b for b in reply.content if b.get("type") == "tool_use"]
    results: list[dict[str, Any]] = []
    runs: list[RunResult] = []
    judgement: Judgement | None = None
    for i, use in enumerate(uses):
        name = str(use.get("name", ""))
        if reply.stop_reason == "max_tokens" and i == len(uses) - 1:
            outcome = ToolOutcome(
                "error: your reply was cut off at max_tokens, so this call may be incomplete "
                "and was not run: make smaller steps (e.g. one test file per write_file)",
                True,
            )
        elif judgement is not None:
            outcome = ToolOutcome("error: not run: finish came first in this reply", True)
        else:
            outcome = tools.call(bench, name, use.get("input"))
            # whatever a tool returns leaves scrubbed: a test may print what it read
            outcome = dataclasses.replace(outcome, text=bench.sandbox.scrub(outcome.text))
            judgement = outcome.judgement or judgement
            if outcome.run is not None:
                runs.append(outcome.run)
        transcript.record(
            "tool",
            turn=turn,
            name=name,
            input=use.get("input"),
            is_error=outcome.is_error,
            result=outcome.text,
        )
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": str(use.get("id", "")),
            "content": outcome.text,
        }
        if outcome.is_error:
            block["is_error"] = True
        results.append(block)
    return judgement, results, ", ".join(str(u.get("name", "?")) for u in uses), runs


def echo(reply: Reply) -> list[dict[str, Any]]:
    """The reply's content as it goes back in the next request: a tool_use whose input is
    not an object is sent back with an empty one, and text that is not valid Unicode is
    replaced (the API would refuse either)."""
    out: list[dict[str, Any]] = []
    for block in reply.content:
        block = _valid_text(dict(block))
        if block.get("type") == "tool_use" and not isinstance(block.get("input"), Mapping):
            block["input"] = {}
        out.append(block)
    return out or [{"type": "text", "text": "(no reply)"}]


def _valid_text(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {k: _valid_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_text(v) for v in value]
    return value


def _said(reply: Reply) -> str:
    """The reply's text in one short line, for the end message."""
    said = " ".join(str(b.get("text", "")) for b in reply.content if b.get("type") == "text")
    said = " ".join(said.split())
    return repr(said[:120] + ("…" if len(said) > 120 else "")) if said else "no text"


def _cut_off(settings: Settings) -> str:
    return (
        f"Your reply was cut off at max_tokens ({settings.max_tokens}). Make smaller steps: "
        "one tool call at a time, one test file per write_file."
    )


def estimate_tokens(body: Mapping[str, Any]) -> int:
    """About four characters per token (the usual rule of thumb), counted on the JSON body."""
    return len(json.dumps(body, ensure_ascii=False)) // 4 + 1


def _tokens(usage: Usage) -> str:
    cached = ""
    if usage.cache_read or usage.cache_write:
        cached = f" (cache: {usage.cache_read} read, {usage.cache_write} written)"
    return f"tokens {usage.input} in / {usage.output} out{cached}"


def _spent(usage: Usage, settings: Settings) -> str:
    """Tokens and dollars so far, for a progress line (of the limit, when there is one)."""
    cost = estimate_cost(settings.model, usage)
    if cost is None:
        return f"{_tokens(usage)} · no price known"
    limit = f" of ${settings.max_cost:g}" if settings.max_cost else ""
    return f"{_tokens(usage)} · ${cost:.4f}{limit}"

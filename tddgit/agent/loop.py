"""The one conversation loop every model-driven phase runs.

Ask the model; run each tool call it makes (``tools.call``); send the results back; stop
when ``finish`` gets a holding verdict from the phase's gate, or when the run cannot get
there: the same refusal ``stuck_after`` times in a row, ``max_turns`` requests, a token
budget that the next request would break, a refusal by the model, or a gate refusal no
edit can fix (a timeout). The loop changes files only through the tools; whoever started
it decides what to keep (``run``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tddgit.agent import tools
from tddgit.agent.finish import Judgement
from tddgit.agent.providers import Provider, Reply, Request, Usage
from tddgit.agent.settings import Settings
from tddgit.agent.transcript import Transcript
from tddgit.gates import Verdict

# How the loop ended. Only HOLDS is a success.
HOLDS, STUCK, MAX_TURNS, BUDGET, MODEL_REFUSED, GATE_FATAL = (
    "holds",
    "stuck",
    "max-turns",
    "token-budget",
    "model-refused",
    "gate-fatal",
)

NUDGE = (
    "Use the tools to do the step (there is no other way to change files), then call "
    "finish. If you are done, call finish now."
)


@dataclass
class LoopEnd:
    status: str
    message: str  # one line for the user
    turns: int
    usage: Usage
    verdict: Verdict | None = None  # the holding verdict (or the last refusal)


@dataclass
class Conversation:
    system: str
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class StuckWatch:
    """The same refusal signature ``limit`` times in a row is stuck."""

    limit: int
    last: str = ""
    count: int = 0

    def observe(self, signature: str) -> bool:
        self.count = self.count + 1 if signature == self.last else 1
        self.last = signature
        return self.count >= self.limit


Progress = Callable[[str], None]


def run_loop(
    bench: tools.Bench,
    provider: Provider,
    settings: Settings,
    conversation: Conversation,
    transcript: Transcript,
    progress: Progress,
) -> LoopEnd:
    usage = Usage()
    stuck = StuckWatch(settings.stuck_after)
    specs = tools.api_specs()
    last_verdict: Verdict | None = None
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
            return LoopEnd(BUDGET, message, turn - 1, usage, last_verdict)
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
            return LoopEnd(
                MODEL_REFUSED,
                "the model refused the task (stop_reason: refusal); nothing was kept",
                turn,
                usage,
                last_verdict,
            )
        judgement, results, called = _run_tools(bench, reply, transcript, turn)
        if not results:
            nudge = _cut_off(settings) if reply.stop_reason == "max_tokens" else NUDGE
            conversation.messages.append({"role": "user", "content": nudge})
        else:
            conversation.messages.append({"role": "user", "content": results})
        progress(f"turn {turn}: {called or reply.stop_reason or 'no tool'} · {_tokens(usage)}")
        if judgement is None:
            continue
        last_verdict = judgement.verdict
        transcript.record(
            "gate",
            turn=turn,
            holds=judgement.holds,
            signature=judgement.signature,
            verdict=judgement.verdict.to_json() if judgement.verdict else None,
        )
        if judgement.holds:
            return LoopEnd(HOLDS, f"{bench.phase.name} holds", turn, usage, judgement.verdict)
        if judgement.fatal:
            return LoopEnd(
                GATE_FATAL,
                f"the gate cannot be satisfied by editing files: {judgement.fatal}",
                turn,
                usage,
                last_verdict,
            )
        if stuck.observe(judgement.signature):
            return LoopEnd(
                STUCK,
                f"stuck: the {bench.phase.name} gate refused the same way {stuck.count} times "
                f"in a row: {judgement.headline}",
                turn,
                usage,
                last_verdict,
            )
    return LoopEnd(
        MAX_TURNS,
        f"max turns: {settings.max_turns} requests without a holding {bench.phase.name} gate",
        settings.max_turns,
        usage,
        last_verdict,
    )


def _run_tools(
    bench: tools.Bench, reply: Reply, transcript: Transcript, turn: int
) -> tuple[Judgement | None, list[dict[str, Any]], str]:
    """Run the reply's tool calls in order; the tool_result blocks and the last verdict."""
    uses = [b for b in reply.content if b.get("type") == "tool_use"]
    results: list[dict[str, Any]] = []
    judgement: Judgement | None = None
    for i, use in enumerate(uses):
        name = str(use.get("name", ""))
        if reply.stop_reason == "max_tokens" and i == len(uses) - 1:
            outcome = tools.ToolOutcome(
                "error: your reply was cut off at max_tokens, so this call may be incomplete "
                "and was not run: make smaller steps (e.g. one test file per write_file)",
                True,
            )
        elif judgement is not None:
            outcome = tools.ToolOutcome("error: not run: finish came first in this reply", True)
        else:
            outcome = tools.call(bench, name, use.get("input"))
            judgement = outcome.judgement or judgement
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
    return judgement, results, ", ".join(str(u.get("name", "?")) for u in uses)


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


def _cut_off(settings: Settings) -> str:
    return (
        f"Your reply was cut off at max_tokens ({settings.max_tokens}). Make smaller steps: "
        "one tool call at a time, one test file per write_file."
    )


def estimate_tokens(body: Mapping[str, Any]) -> int:
    """About four characters per token (the usual rule of thumb), counted on the JSON body."""
    return len(json.dumps(body, ensure_ascii=False)) // 4 + 1


def _tokens(usage: Usage) -> str:
    return f"tokens {usage.input} in / {usage.output} out"

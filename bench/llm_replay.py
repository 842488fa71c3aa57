"""What prompt caching saves (issue 30): three scripted red -> green -> refactor sessions
run for real (the real SDK against the tests' local fake Messages API, real gates, the
jail when bubblewrap is there) on two projects (the tests' toy, a small src-layout
library: bench/llm_library.py), each with the spec given to red only (``generate red SPEC``,
``generate green``, ``generate refactor``: the later two are given the red's spec from its
evidence, so these are the cycle's requests too) and in every phase (as ``tddgit cycle`` sends
it). The fake server answers every request with the usage the API's prompt-caching rules
give for the breakpoints tddgit sets (tests/agent/promptcache.py: the model's minimum, the
prefix match, the 20-block lookback, four breakpoints at most). "After" is that usage
priced; "before" the same requests priced with every input token at full price (no
breakpoint). The bench checks that tddgit's own reported cost (``cost_usd``) is "after".

Tokens are estimated at four characters per token on the JSON body, the estimate the
loop itself uses; output tokens from the scripted replies the same way. Prices: the
table's row for the model (default claude-sonnet-4-6). Prints, per session: requests
(turns to success), input tokens, cache reads and writes, and the estimated cost before
and after, with the ratio. Target: after <= 50% of before.

Turns to success with the up-front context: a scripted model follows its script, so the
bench cannot watch a model skip its exploring. What it can count, honestly, on the recorded
requests: each exploring call a phase made before its first write (``list_files``,
``read_file``, ``search``) whose answer the phase's up-front text (the system prompt and
the first message) already held: every path a listing returned, every line a read
returned. Those turns a model no longer needs; "turns w/ ctx" is the turns minus them, a
bound on the saving (a model may look anyway), not an observation of one.

    python bench/llm_replay.py [--model M] [--shape toy|library|both] [--min-cached N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench import llm_library as lib  # noqa: E402
from tddgit.agent.prices import price_of  # noqa: E402
from tests.agent.conftest import SPEC, SUB_RIGHT, SUB_TESTS  # noqa: E402
from tests.agent.fakeapi import FakeMessagesAPI, reply, serve, tool  # noqa: E402
from tests.agent.promptcache import PromptCache, min_cached, total_tokens  # noqa: E402
from tests.conftest import GitRepo, isolated_git  # noqa: E402
from tests.project import CALC, start_project  # noqa: E402

# A big module a long session reads again and again (the 95 KB file, smaller).
BIG = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(900))


Call = tuple[str, dict[str, str]]


def _write(path: str, content: str) -> Call:
    return ("write_file", {"path": path, "content": content})


@dataclass(frozen=True)
class Shape:
    """A project and the change asked of it: what the scripted model writes and reads."""

    name: str
    files: dict[str, str]
    spec: tuple[str, str]  # path, text
    tests: tuple[str, str]  # the red's test file: path, text
    prod: str  # the module green and refactor change
    # the model's changes to it, each a tool call (name, input): a first wrong try, the
    # right change, the change from the wrong try to the right one, the refactor
    wrong: Call
    right: Call
    fix: Call
    refactor: Call
    existing_test: str  # what an exploring model reads first
    big: tuple[str, str]  # the big file a long session re-reads: path, text


TOY = Shape(
    "toy (calc.py)",
    {},
    ("specs/sub.yaml", SPEC),
    ("tests/test_sub.py", SUB_TESTS),
    "calc.py",
    # a new function is added at the module's end (edit_file without old_text)
    ("edit_file", {"path": "calc.py", "new_text": "\n\ndef sub(a, b):\n    return a + b\n"}),
    ("edit_file", {"path": "calc.py", "new_text": SUB_RIGHT.removeprefix(CALC)}),
    _write("calc.py", SUB_RIGHT),
    _write(
        "calc.py", SUB_RIGHT.replace("return a - b", "difference = a - b\n    return difference")
    ),
    "tests/test_calc.py",
    ("helpers.py", BIG),
)
LIBRARY = Shape(
    "library (src layout)",
    lib.FILES,
    ("specs/allocate.yaml", lib.SPEC),
    ("tests/test_allocate.py", lib.TESTS),
    "src/centsplit/amounts.py",
    # a module of this size is edited in place, not written whole
    ("edit_file", lib.EDIT_WRONG),
    ("edit_file", lib.EDIT_RIGHT),
    ("edit_file", lib.EDIT_FIX),
    ("edit_file", lib.EDIT_REFACTOR),
    "tests/test_amounts.py",
    ("src/centsplit/rates.py", lib.RATES),
)


def _t(path: str, content: str) -> dict[str, Any]:
    return reply(tool("write_file", path=path, content=content))


def _f(summary: str) -> dict[str, Any]:
    return reply(tool("finish", summary=summary))


def _c(call: Call) -> dict[str, Any]:
    return reply(tool(call[0], **call[1]))


def _r(path: str) -> dict[str, Any]:
    return reply(tool("read_file", path=path))


def sessions(shape: Shape) -> dict[str, list[list[dict[str, Any]]]]:
    """name -> the scripted replies of each phase (red, green, refactor)."""
    test_path, test_text = shape.tests
    prod, big = shape.prod, shape.big[0]
    direct = [
        [_t(test_path, test_text), _f("tests")],
        [_c(shape.right), _f("sub")],
        [_c(shape.refactor), _f("named")],
    ]
    exploring = [
        [
            reply(tool("list_files")),
            _r(prod),
            _r(shape.existing_test),
            _t(test_path, test_text),
            reply(tool("run_tests")),
            _f("tests"),
        ],
        [
            _r(test_path),
            _r(prod),
            _c(shape.wrong),
            reply(tool("run_tests")),
            _c(shape.fix),
            reply(tool("run_tests")),
            _f("sub"),
        ],
        [_r(prod), _c(shape.refactor), reply(tool("run_tests")), _f("named")],
    ]
    long = [
        [reply(tool("list_files")), _r(big), _r(prod), _r(big), *exploring[0][2:]],
        [_r(big), *exploring[1][:4], _r(big), *exploring[1][4:]],
        [_r(big), _r(prod), _r(big), *exploring[2][1:]],
    ]
    return {"direct": direct, "exploring": exploring, "long (big file re-read)": long}


def price(model: str, usage: dict[str, int]) -> float:
    p_in, p_out, p_read, p_write = price_of(model) or (3.0, 15.0, 0.3, 3.75)
    return (
        usage["input_tokens"] * p_in
        + usage["output_tokens"] * p_out
        + usage["cache_read_input_tokens"] * p_read
        + usage["cache_creation_input_tokens"] * p_write
    ) / 1e6


def price_session(requests: list[Any], model: str) -> dict[str, Any]:
    """Before: every request's tokens at full input price (no breakpoint); after: the
    usage the fake server answered, counted by the API's caching rules."""
    before = after = 0.0
    inp = read = write = 0
    for request in requests:
        usage = request.usage
        if usage is None:  # an error answer: nothing billed
            continue
        full = {**usage, "input_tokens": total_tokens(request.body)}
        full.update(cache_read_input_tokens=0, cache_creation_input_tokens=0)
        before += price(model, full)
        after += price(model, usage)
        inp += usage["input_tokens"]
        read += usage["cache_read_input_tokens"]
        write += usage["cache_creation_input_tokens"]
    return {
        "input": inp,
        "cache_read": read,
        "cache_write": write,
        "before": before,
        "after": after,
    }


EXPLORING = frozenset({"list_files", "read_file", "search"})
WRITES = frozenset({"write_file", "edit_file"})


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def _phases(bodies: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The requests, one list per phase (a phase starts with a one-message request)."""
    out: list[list[dict[str, Any]]] = []
    for body in bodies:
        if len(body["messages"]) == 1:
            out.append([])
        out[-1].append(body)
    return out


def _answered(name: str, result: str, upfront: str) -> bool:
    """Did the up-front text already hold what this exploring call returned?"""
    lines = [ln for ln in result.splitlines() if ln.strip() and not ln.startswith(("…", "("))]
    if name == "read_file":  # "N<tab>line": the lines themselves must be up front
        lines = [ln.split("\t", 1)[1] for ln in lines if "\t" in ln]
        return bool(lines) and all(ln in upfront for ln in lines if ln.strip())
    if name == "list_files":
        return bool(lines) and all(ln.split()[0] in upfront for ln in lines)
    return False  # a search's hits: not claimed


def answered_by_context(bodies: list[dict[str, Any]]) -> int:
    """Exploring calls before each phase's first write that its up-front text answered."""
    count = 0
    for phase in _phases(bodies):
        last = phase[-1]
        upfront = _text(last["system"]) + "\n" + _text(last["messages"][0]["content"])
        seen: dict[str, str] = {}  # path -> what a read returned (a re-read says "unchanged")
        messages = last["messages"][1:]
        for ask, answer in zip(messages[::2], messages[1::2], strict=False):
            uses = [b for b in ask["content"] if b.get("type") == "tool_use"]
            results = {b["tool_use_id"]: _text(b["content"]) for b in answer["content"]
                       if isinstance(b, dict) and b.get("type") == "tool_result"}  # fmt: skip
            if any(u["name"] in WRITES for u in uses):
                break
            for use in uses:
                result = results.get(use["id"], "")
                path = str(use.get("input", {}).get("path", ""))
                if use["name"] == "read_file" and "unchanged since you read it" in result:
                    result = seen.get(path, "")
                seen[path] = result
                count += use["name"] in EXPLORING and _answered(use["name"], result, upfront)
    return count


@contextlib.contextmanager
def project(shape: Shape) -> Iterator[GitRepo]:
    base = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    home = base / "home"
    home.mkdir()
    try:
        with isolated_git(home):
            repo = GitRepo(base / "shop")
            repo.root.mkdir()
            repo.git("init", "-q")
            if shape.files:
                for path, text in shape.files.items():
                    repo.write(path, text, dedent=False)
                repo.commit("start", *shape.files)
            else:
                start_project(repo)
            repo.write(shape.big[0], shape.big[1], dedent=False)
            repo.write(*shape.spec, dedent=False)
            files = [shape.big[0], shape.spec[0]]
            if shutil.which("bwrap") is None:
                repo.write(".tddgit.yaml", "llm:\n  sandbox: 'off'\n", dedent=False)
                files.append(".tddgit.yaml")
            repo.commit("start", *files)
            yield repo
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_session(
    api: FakeMessagesAPI,
    shape: Shape,
    phases: list[list[dict[str, Any]]],
    model: str,
    with_spec: bool = False,
) -> tuple[bool, float]:
    """Run the phases; whether each held, and the cost tddgit itself reported (its
    evidence's ``cost_usd``, from the usage the fake server answered)."""
    from tddgit.cli import run

    held, reported = True, 0.0
    with project(shape) as repo:
        for name, script in zip(("red", "green", "refactor"), phases, strict=True):
            api.push(*script)
            args = ["-C", str(repo.root), "generate", name, "--commit", "-m", name, "--json"]
            args += ["--model", model]
            if name == "red" or with_spec:  # a cycle gives every phase the spec
                args.insert(4, shape.spec[0])
            # real files: a commit hands git the streams' descriptors
            with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = run(args)
                out.seek(0)
                err.seek(0)
                said, complaint = out.read(), err.read()
            if code != 0:
                held = False
                print(f"  {name} did not hold: {complaint.strip().splitlines()[-1:]}")
                continue
            reported += json.loads(said)["agent"]["cost_usd"] or 0.0
    return held, reported


def table(shape: Shape, model: str, minimum: int, with_spec: bool) -> list[float]:
    how = (
        "the spec in every phase, as `tddgit cycle` sends it"
        if with_spec
        else ("`generate red SPEC`, then `generate green`, `generate refactor`")
    )
    print(f"\n{shape.name}: {how}")
    print(f"{'session':<26}{'turns':>6}{'w/ ctx':>7}{'input':>9}{'c.read':>9}{'c.write':>9}"
          f"{'before $':>11}{'after $':>10}{'after/before':>14}")  # fmt: skip
    ratios = []
    for name, phases in sessions(shape).items():
        for api in serve():
            api.cache = PromptCache(minimum)
            os.environ["ANTHROPIC_BASE_URL"] = api.url
            os.environ["ANTHROPIC_API_KEY"] = "bench-key-not-secret"
            held, reported = run_session(api, shape, phases, model, with_spec)
            requests = list(api.requests)
        priced = price_session(requests, model)
        if abs(reported - priced["after"]) > 1e-5 * len(requests):
            print(
                f"  tddgit reported ${reported:.4f}, the fake server's usage ${priced['after']:.4f}"
            )
        turns = len(requests)
        spared = answered_by_context([r.body for r in requests])
        ratio = priced["after"] / priced["before"]
        ratios.append(ratio)
        print(f"{name:<26}{turns:>6}{turns - spared:>7}{priced['input']:>9}{priced['cache_read']:>9}"
              f"{priced['cache_write']:>9}{priced['before']:>11.4f}{priced['after']:>10.4f}"
              f"{ratio:>13.0%}{'' if held else '  (a phase did not hold)'}")  # fmt: skip
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="claude-sonnet-4-6")
    parser.add_argument("--min-cached", type=int, default=None, metavar="TOKENS",
                        help="the shortest cacheable prefix (default: the model's, as documented)")  # fmt: skip
    parser.add_argument("--shape", choices=("toy", "library", "both"), default="both")
    args = parser.parse_args()
    minimum = args.min_cached or min_cached(args.model)
    if shutil.which("bwrap") is None:
        print("no bubblewrap: the sessions run with llm.sandbox off")
    print(f"prompt caching, replayed ({args.model}; ~4 chars per token; "
          f"prefixes under {minimum} tokens are not cached)")  # fmt: skip
    shapes = {"toy": [TOY], "library": [LIBRARY], "both": [TOY, LIBRARY]}[args.shape]
    for shape in shapes:
        for with_spec in (False, True):
            ratios = table(shape, args.model, minimum, with_spec)
            print(f"worst after/before: {max(ratios):.0%} (target <= 50%)")


if __name__ == "__main__":
    main()

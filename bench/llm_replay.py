"""What prompt caching saves (issue 30): three scripted red -> green -> refactor sessions
run for real (the real SDK against the tests' local fake Messages API, real gates, the
jail when bubblewrap is there), then every request body the model would have received is
priced twice: as sent before caching (every token full-price input) and with the
breakpoints tddgit now sets (``Request.body``), under the API's caching rules (a prefix up
to a breakpoint, at least 1024 tokens, is written once at 125% and read after at 10%).

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

    python bench/llm_replay.py [--model claude-sonnet-4-6]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tddgit.agent.prices import price_of  # noqa: E402
from tests.agent.conftest import SPEC, SUB_RIGHT, SUB_TESTS  # noqa: E402
from tests.agent.fakeapi import FakeMessagesAPI, reply, serve, tool  # noqa: E402
from tests.conftest import GitRepo, isolated_git  # noqa: E402
from tests.project import CALC, start_project  # noqa: E402

# The shortest prefix the API caches, per model (its prompt-caching page): a shorter
# prefix up to a breakpoint is neither written nor read, and costs full price.
MIN_CACHED = {
    "claude-opus-4-5": 4096,
    "claude-opus-4-6": 4096,
    "claude-haiku-4-5": 4096,
    "claude-3-5-haiku": 2048,
}
MIN_DEFAULT = 1024  # Sonnet 4.x, Opus 4.0/4.1, Sonnet 3.7


def min_cached(model: str) -> int:
    return next((n for m, n in MIN_CACHED.items() if model.startswith(m)), MIN_DEFAULT)


WRONG = CALC + "\n\ndef sub(a, b):\n    return a + b\n"
REFACTORED = SUB_RIGHT.replace("return a - b", "difference = a - b\n    return difference")
# A big module a long session reads again and again (the 95 KB file, smaller).
BIG = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(900))


def _t(path: str, content: str) -> dict[str, Any]:
    return reply(tool("write_file", path=path, content=content))


def _f(summary: str) -> dict[str, Any]:
    return reply(tool("finish", summary=summary))


def _r(path: str) -> dict[str, Any]:
    return reply(tool("read_file", path=path))


def sessions() -> dict[str, list[list[dict[str, Any]]]]:
    """name -> the scripted replies of each phase (red, green, refactor)."""
    direct = [
        [_t("tests/test_sub.py", SUB_TESTS), _f("tests")],
        [_t("calc.py", SUB_RIGHT), _f("sub")],
        [_t("calc.py", REFACTORED), _f("named")],
    ]
    exploring = [
        [
            reply(tool("list_files")),
            _r("calc.py"),
            _r("tests/test_calc.py"),
            _t("tests/test_sub.py", SUB_TESTS),
            reply(tool("run_tests")),
            _f("tests"),
        ],
        [
            _r("tests/test_sub.py"),
            _r("calc.py"),
            _t("calc.py", WRONG),
            reply(tool("run_tests")),
            _t("calc.py", SUB_RIGHT),
            reply(tool("run_tests")),
            _f("sub"),
        ],
        [_r("calc.py"), _t("calc.py", REFACTORED), reply(tool("run_tests")), _f("named")],
    ]
    long = [
        [
            reply(tool("list_files")),
            _r("helpers.py"),
            _r("calc.py"),
            _r("helpers.py"),
            *exploring[0][2:],
        ],
        [_r("helpers.py"), *exploring[1][:4], _r("helpers.py"), *exploring[1][4:]],
        [_r("helpers.py"), _r("calc.py"), _r("helpers.py"), *exploring[2][1:]],
    ]
    return {"direct": direct, "exploring": exploring, "long (big file re-read)": long}


def tokens(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False)) // 4 + 1


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _pieces(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """The body in the API's cache order (tools, system, messages' blocks), each piece
    with whether a breakpoint ends it."""
    out: list[tuple[Any, bool]] = [(t, "cache_control" in t) for t in body["tools"]]
    system = body["system"]
    blocks = system if isinstance(system, list) else [{"type": "text", "text": system}]
    out += [(b, "cache_control" in b) for b in blocks]
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append(({"role": message["role"], "text": content}, False))
            continue
        out += [(b, isinstance(b, dict) and "cache_control" in b) for b in content]
    return out


def price_session(bodies: list[dict[str, Any]], outputs: list[int], model: str) -> dict[str, Any]:
    p_in, p_out, p_read, p_write = price_of(model) or (3.0, 15.0, 0.3, 3.75)
    minimum = min_cached(model)
    cache: set[str] = set()
    before = after = 0.0
    inp = read = write = 0
    for body, out in zip(bodies, outputs, strict=True):
        total = tokens(_strip(body["messages"])) + tokens(_strip(body["tools"]))
        total += tokens(_strip(body["system"]))
        before += (total * p_in + out * p_out) / 1e6
        digest = hashlib.sha256()
        size = 0
        cached = last = 0
        for piece, breakpoint in _pieces(body):
            stripped = _strip(piece)
            digest.update(json.dumps(stripped, sort_keys=True).encode())
            size += tokens(stripped)
            key = digest.hexdigest()
            if key in cache:  # the API looks for a cached prefix at any earlier block
                cached = size
            if breakpoint and size >= minimum:
                cache.add(key)  # written only at a breakpoint
                last = size
        r, w = min(cached, last), max(0, last - cached)
        i = max(0, total - r - w)
        inp, read, write = inp + i, read + r, write + w
        after += (i * p_in + r * p_read + w * p_write + out * p_out) / 1e6
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
def project() -> Iterator[GitRepo]:
    base = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    home = base / "home"
    home.mkdir()
    try:
        with isolated_git(home):
            repo = GitRepo(base / "shop")
            repo.root.mkdir()
            repo.git("init", "-q")
            start_project(repo)
            repo.write("helpers.py", BIG, dedent=False)
            repo.write("specs/sub.yaml", SPEC, dedent=False)
            files = ["helpers.py", "specs/sub.yaml"]
            if shutil.which("bwrap") is None:
                repo.write(".tddgit.yaml", "llm:\n  sandbox: 'off'\n", dedent=False)
                files.append(".tddgit.yaml")
            repo.commit("start", *files)
            yield repo
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_session(api: FakeMessagesAPI, phases: list[list[dict[str, Any]]]) -> tuple[int, bool]:
    from tddgit.cli import run

    held = True
    with project() as repo:
        for name, script in zip(("red", "green", "refactor"), phases, strict=True):
            api.push(*script)
            args = ["-C", str(repo.root), "generate", name, "--commit", "-m", name]
            if name == "red":
                args.insert(4, "specs/sub.yaml")
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()) as err,
            ):
                code = run(args)
            if code != 0:
                held = False
                print(f"  {name} did not hold: {err.getvalue().strip().splitlines()[-1:]}")
    return len(api.requests), held


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="claude-sonnet-4-6")
    args = parser.parse_args()
    if shutil.which("bwrap") is None:
        print("no bubblewrap: the sessions run with llm.sandbox off")
    print(f"prompt caching, replayed ({args.model}; ~4 chars per token)")
    print(f"{'session':<26}{'turns':>6}{'w/ ctx':>7}{'input':>9}{'c.read':>9}{'c.write':>9}"
          f"{'before $':>11}{'after $':>10}{'after/before':>14}")  # fmt: skip
    ratios = []
    for name, phases in sessions().items():
        for api in serve():
            os.environ["ANTHROPIC_BASE_URL"] = api.url
            os.environ["ANTHROPIC_API_KEY"] = "bench-key-not-secret"
            turns, held = run_session(api, phases)
            bodies = [r.body for r in api.requests]
            outputs = [tokens(s["content"]) for p in phases for s in p]
            priced = price_session(bodies, outputs, args.model)
            spared = answered_by_context(bodies)
        ratio = priced["after"] / priced["before"]
        ratios.append(ratio)
        print(f"{name:<26}{turns:>6}{turns - spared:>7}{priced['input']:>9}{priced['cache_read']:>9}"
              f"{priced['cache_write']:>9}{priced['before']:>11.4f}{priced['after']:>10.4f}"
              f"{ratio:>13.0%}{'' if held else '  (a phase did not hold)'}")  # fmt: skip
    print(f"worst after/before: {max(ratios):.0%} (target <= 50%)")


if __name__ == "__main__":
    main()

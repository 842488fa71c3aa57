"""Everything the model can do: seven tools, declared once (name, input, documentation).

These names and input fields are part of tddgit's interface (they show in transcripts and
in docs/llm.md). Each tool obeys the rules in ``sandbox``; a refused or malformed call is
an error ``tool_result`` the model reads and can act on, never an exception. There is no
shell tool: the model runs tests only through ``run_tests`` and ``finish``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tddgit.agent.census import Census
from tddgit.agent.finish import Judgement, judge
from tddgit.agent.phases import Phase
from tddgit.agent.sandbox import Denied, Sandbox, redact
from tddgit.agent.workspace import Workspace
from tddgit.config import Config
from tddgit.git import Repo
from tddgit.paths import Kind

if TYPE_CHECKING:
    from tddgit.model import RunResult

MAX_LISTED = 300
MAX_MATCHES = 200
MAX_LINES_READ = 2000  # lines one read_file returns unless asked for a range


@dataclass
class Bench:
    """What the tools work on: the repository, its rules, and the run's changed files."""

    repo: Repo
    config: Config
    phase: Phase
    sandbox: Sandbox
    workspace: Workspace
    targets: tuple[str, ...] = ()  # the open red's tests (green): run_tests reports these
    census: Census | None = None  # what the tests write is handed to the workspace
    seen: dict[str, str] = field(default_factory=dict)  # read_file: what was already sent

    def running(self) -> AbstractContextManager[None]:
        """Around every test run the model triggers (run_tests, finish)."""
        return self.census.around_run() if self.census is not None else nullcontext()


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    is_error: bool = False
    judgement: Judgement | None = None  # `finish` only
    run: RunResult | None = None  # `run_tests` only


class ToolInputError(Exception):
    """The model's input does not fit the tool's declared fields."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    fields: Mapping[str, tuple[str, str]]  # name -> (type: string|strings|integer, meaning)
    required: tuple[str, ...]
    run: Callable[[Bench, Mapping[str, Any]], ToolOutcome]

    def api_spec(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        for name, (kind, doc) in self.fields.items():
            if kind == "strings":
                properties[name] = {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": doc,
                }
            elif kind == "integer":
                properties[name] = {"type": "integer", "minimum": 1, "description": doc}
            else:
                properties[name] = {"type": "string", "description": doc}
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": {
                "type": "object",
                "properties": properties,
                "required": list(self.required),
            },
        }


# -- the tools ------------------------------------------------------------------------


def _list_files(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    from tddgit.agent.context import tree_map

    files = _files(bench, args.get("path"))
    listed = tree_map(files, MAX_LISTED)
    if len(files) > MAX_LISTED:
        listed += "\n(list a subdirectory with `path` to see the rest)"
    return ToolOutcome(listed)


def _files(bench: Bench, path: str | None) -> list[str]:
    spec: list[str] = []
    if path not in (None, "", ".", "./"):
        rel, _ = bench.sandbox.resolve(str(path))
        spec = ["--", rel]
    out = bench.repo.run(
        "ls-files", "-z", "--cached", "--others", "--exclude-standard", *spec
    ).stdout.decode("utf-8", "surrogateescape")
    rels = sorted({p for p in out.split("\0") if p} | set(bench.sandbox.context))
    prefix = spec[1] + "/" if spec else ""
    rels = [r for r in rels if not prefix or r == spec[1] or r.startswith(prefix)]
    root = bench.sandbox.root
    files = [r for r in bench.sandbox.listable(rels) if (root / r).is_file()]
    return files


def _read_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    rel, text = bench.sandbox.read_text(args["path"])
    offset, limit = _number(args, "offset", 1), _number(args, "limit", MAX_LINES_READ)
    lines = text.splitlines()
    chosen = lines[offset - 1 : offset - 1 + limit]
    shown = "\n".join(f"{n}\t{line}" for n, line in enumerate(chosen, offset))
    if offset - 1 + limit < len(lines):
        shown += f"\n… {len(lines) - (offset - 1 + limit)} more line(s): read on with offset"
    key = f"{rel}:{offset}:{limit}"
    digest = hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()
    if bench.seen.get(key) == digest:  # the same text again would cost tokens, teach nothing
        return ToolOutcome(
            f"{rel}: unchanged since you read it (lines {offset}-{offset + len(chosen) - 1})"
        )
    bench.seen[key] = digest
    return ToolOutcome(shown or f"{rel}: (no lines at offset {offset}; it has {len(lines)})")


def _number(args: Mapping[str, Any], name: str, default: int) -> int:
    raw = args.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(str(raw))
    except ValueError:
        raise ToolInputError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 1:
        raise ToolInputError(f"{name} must be at least 1")
    return value


def _search(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    try:
        pattern = re.compile(args["pattern"])
    except re.error as exc:
        raise ToolInputError(f"pattern is not a valid regular expression: {exc}") from None
    found: list[str] = []
    for rel in _files(bench, args.get("path")):
        try:
            _, text = bench.sandbox.read_text(rel)
        except Denied:
            continue  # secrets, binaries, big files: never searched
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{n}: {line[:300]}")
                if len(found) >= MAX_MATCHES:
                    found.append(f"… stopped at {MAX_MATCHES} matches: narrow the pattern or path")
                    return ToolOutcome("\n".join(found))
    return ToolOutcome("\n".join(found) or "(no match)")


def _write_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    content = args["content"]
    rel, _ = bench.sandbox.writable_path(args["path"], content)
    _stubs_only(bench, rel, content)
    bench.workspace.write(rel, content)
    return ToolOutcome(f"wrote {rel} ({len(content.encode('utf-8'))} bytes)")


def _edit_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    old, new = args.get("old_text"), args["new_text"]
    if old == "":
        raise ToolInputError(
            "old_text is empty: give the exact text to replace, or leave old_text out to "
            "add new_text at the end of the file"
        )
    rel, text = bench.sandbox.read_text(args["path"])
    if old is None:  # an addition (a new function, a new test): no anchor to write twice
        content = text + ("\n" if text and not text.endswith("\n") else "") + new
        done = f"added {len(new.encode('utf-8'))} bytes at the end of {rel}"
    elif (count := text.count(old)) != 1:
        where = "does not occur" if count == 0 else f"occurs {count} times"
        raise ToolInputError(
            f"old_text {where} in {rel}: give text that occurs exactly once (read_file shows it)"
        )
    else:
        content, done = text.replace(old, new, 1), f"edited {rel}"
    bench.sandbox.writable_path(rel, content)
    _stubs_only(bench, rel, content)
    bench.workspace.write(rel, content)
    return ToolOutcome(done)


def _stubs_only(bench: Bench, rel: str, content: str) -> None:
    """A file this phase may change with stubs only: refused when the new content adds
    anything but stubs and declarations, compared with the file before the run."""
    sandbox = bench.sandbox
    if sandbox.classifier.kind(rel) in sandbox.writable or not sandbox.stubs:
        return
    from tddgit.detectors.jsstubs import non_stub_additions_js
    from tddgit.detectors.stubs import non_stub_additions

    path = sandbox.root / rel
    before = bench.workspace.original(rel) if rel in bench.workspace.touched else None
    if rel not in bench.workspace.touched and path.is_file():
        before = path.read_bytes()
    old = before.decode("utf-8", "replace") if before is not None else None
    if rel.endswith((".py", ".pyi")):
        found = non_stub_additions(old, content, rel)
    elif rel.endswith((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")):
        found = non_stub_additions_js(old, content, rel)
    else:
        raise Denied(f"{rel}: {sandbox.read_only_reason} (stubs are judged in Python and JS/TS)")
    if found:
        shown = "; ".join(found[:3]) + (" …" if len(found) > 3 else "")
        raise Denied(
            f"{rel}: a red step adds production stubs only (a body of `raise "
            f"NotImplementedError` or `pass`), not behaviour: {shown}"
        )


def _run_tests(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    from tddgit.runners import run_work_tree

    wanted = tuple(args.get("tests") or ())
    for test in wanted:
        if test.startswith("-"):  # would reach the runner as an option (-p plugin...)
            raise Denied(f"{test}: a test id or file, never an option")
        bench.sandbox.resolve(test.partition("::")[0])  # inside the repository, not .git
    if not wanted and not bench.targets:
        classifier = bench.sandbox.classifier
        wanted = tuple(r for r in bench.workspace.touched if classifier.kind(r) is Kind.TEST)
        wanted = tuple(r for r in wanted if (bench.sandbox.root / r).is_file())
    with bench.running():
        result = run_work_tree(bench.repo, bench.config, wanted)
    shown = list(result.tests)
    if bench.targets and not args.get("tests"):
        # the whole suite ran: the targets' lights, and any other test that does not pass
        from tddgit.agent.recovery import is_target
        from tddgit.model import OK_OUTCOMES

        shown = [
            t
            for t in result.tests
            if is_target(t.id, bench.targets) or t.outcome not in OK_OUTCOMES
        ]
    from tddgit.agent.feedback import payload

    data = payload(result, shown)
    if not result.tests and result.output_tail:
        data["output"] = result.output_tail[-2000:]
    return ToolOutcome(redact(json.dumps(data, ensure_ascii=False)), run=result)


def _finish(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    with bench.running():
        judgement = judge(bench, args["summary"])
    return ToolOutcome(judgement.feedback, not judgement.holds, judgement)


TOOLS: tuple[Tool, ...] = (
    Tool(
        "list_files",
        "List the repository's files (git-ignored and secret files are not shown).",
        {"path": ("string", "a directory to list, relative to the repository root")},
        (),
        _list_files,
    ),
    Tool(
        "read_file",
        "Read one text file of the repository (at most 100 KB), each line numbered "
        "(number, tab, text); a re-read of an unchanged range says so instead.",
        {
            "path": ("string", "the file, relative to the repository root"),
            "offset": ("integer", "the first line to read (default 1)"),
            "limit": ("integer", "how many lines to read (default 2000)"),
        },
        ("path",),
        _read_file,
    ),
    Tool(
        "search",
        "Search the repository's files for a regular expression; returns path:line: text.",
        {
            "pattern": ("string", "a Python regular expression"),
            "path": ("string", "a directory or file to search in (default: everything)"),
        },
        ("pattern",),
        _search,
    ),
    Tool(
        "write_file",
        "Create or overwrite a file with the given content (only the files this step may "
        "change: test files in a red step, production files in a green step).",
        {
            "path": ("string", "the file, relative to the repository root"),
            "content": ("string", "the whole new content"),
        },
        ("path", "content"),
        _write_file,
    ),
    Tool(
        "edit_file",
        "Replace text that occurs exactly once in a file, or without old_text add new_text "
        "at its end (a new function: only the new code).",
        {
            "path": ("string", "the file, relative to the repository root"),
            "old_text": ("string", "the exact text to replace (must occur once)"),
            "new_text": ("string", "the text to put in its place (or to add)"),
        },
        ("path", "new_text"),
        _edit_file,
    ),
    Tool(
        "run_tests",
        "Run tests and get tddgit's traffic light for each (red: fails for the right reason; "
        "amber: broken - syntax, collection, fixture, environment; green: passes), as JSON.",
        {
            "tests": (
                "strings",
                "test ids or files (default: the test files you wrote; in a green step the "
                "whole suite, showing the target tests and any other test that fails)",
            )
        },
        (),
        _run_tests,
    ),
    Tool(
        "finish",
        "Submit the step: tddgit's gate judges the files you wrote. Ends the run when it "
        "holds; otherwise returns every reason it refused, with the fix.",
        {"summary": ("string", "what you did, in a sentence or two")},
        ("summary",),
        _finish,
    ),
)

TOOLS_BY_NAME = {t.name: t for t in TOOLS}


def api_specs() -> list[dict[str, Any]]:
    return [t.api_spec() for t in TOOLS]


def call(bench: Bench, name: str, raw: object) -> ToolOutcome:
    """Run one tool call of the model; every failure is an error outcome it can read."""
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        return ToolOutcome(
            f"error: there is no tool {name!r}; the tools are: {', '.join(TOOLS_BY_NAME)}", True
        )
    try:
        args = _checked(tool, raw)
        return tool.run(bench, args)
    except Denied as exc:
        return ToolOutcome(f"refused: {exc}", True)
    except ToolInputError as exc:
        return ToolOutcome(f"error: {name}: {exc}", True)
    except UnicodeError:
        return ToolOutcome(f"error: {name}: the text is not valid Unicode (lone surrogates?)", True)
    except OSError as exc:  # e.g. a path through an existing file: tell the model, go on
        return ToolOutcome(f"error: {name}: {exc.strerror or exc}", True)


def _checked(tool: Tool, raw: object) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ToolInputError(f"the input must be a JSON object with {_shape(tool)}")
    for name in tool.required:
        if name not in raw:
            raise ToolInputError(f"missing field {name!r}; the input is {_shape(tool)}")
    for name, value in raw.items():
        if name not in tool.fields:
            raise ToolInputError(f"unknown field {name!r}; the input is {_shape(tool)}")
        kind = tool.fields[name][0]
        if kind == "strings":
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        elif kind == "integer":  # a number written as a string is taken as meant
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, str) and value.strip().isdigit()
            )
        else:
            ok = isinstance(value, str)
        if not ok:
            expected = {"strings": "a list of strings", "integer": "a whole number"}.get(
                kind, "a string"
            )
            raise ToolInputError(f"field {name!r} must be {expected}")
    return raw


def _shape(tool: Tool) -> str:
    parts = [f"{n}" + ("" if n in tool.required else "?") for n in tool.fields]
    return "{" + ", ".join(parts) + "}"

"""Everything the model can do: seven tools, declared once (name, input, documentation).

These names and input fields are part of tddgit's interface (they show in transcripts and
in docs/llm.md); the file tools are in ``filetools``, what every tool works on in ``bench``.
Each tool obeys the rules in ``sandbox``; a refused or malformed call is an error
``tool_result`` the model reads and can act on, never an exception. There is no shell
tool: the model runs tests only through ``run_tests`` and ``finish``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tddgit.agent.bench import Bench, ToolInputError, ToolOutcome
from tddgit.agent.filetools import edit_file, list_files, read_file, search, write_file
from tddgit.agent.finish import judge
from tddgit.agent.sandbox import Denied, redact
from tddgit.paths import Kind

if TYPE_CHECKING:
    pass


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
        list_files,
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
        read_file,
    ),
    Tool(
        "search",
        "Search the repository's files for a regular expression; returns path:line: text.",
        {
            "pattern": ("string", "a Python regular expression"),
            "path": ("string", "a directory or file to search in (default: everything)"),
        },
        ("pattern",),
        search,
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
        write_file,
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
        edit_file,
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

"""The model's file tools: ``list_files``, ``read_file`` and ``search`` read through the
sandbox (no secret, no ignored file, no binary); ``write_file`` and ``edit_file`` write only
what the phase may change, into the run's workspace (a red's production files: stubs only).
Declared, with their input fields, in ``tools.TOOLS``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from tddgit.agent.bench import Bench, ToolInputError, ToolOutcome
from tddgit.agent.sandbox import Denied

MAX_LISTED = 300
MAX_MATCHES = 200
MAX_LINES_READ = 2000  # lines one read_file returns unless asked for a range


def list_files(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
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


def read_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
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


def search(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
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


def write_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
    content = args["content"]
    rel, _ = bench.sandbox.writable_path(args["path"], content)
    _stubs_only(bench, rel, content)
    bench.workspace.write(rel, content)
    return ToolOutcome(f"wrote {rel} ({len(content.encode('utf-8'))} bytes)")


def edit_file(bench: Bench, args: Mapping[str, Any]) -> ToolOutcome:
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

"""What every phase is told about the project up front, so a model does not spend its first
turns exploring: a bounded map of the tracked files, the runner and its configuration, one
existing test file as the style to follow, and the import path rules. Every path is
repo-relative; every file passes the sandbox's rules (secrets, size).

Two parts, for prompt caching: what stays true across the phases of a cycle (runner,
imports, the style example) goes into the system prompt's shared block, so a green reads
from the cache what its red wrote; the map, which the red's new test file changes, goes
into the first message."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tddgit.agent.sandbox import Denied, Sandbox
from tddgit.config import Config
from tddgit.git import Repo
from tddgit.paths import Kind

MAX_MAP = 120  # paths listed in the map, at most; the rest summarised by directory
MAX_STYLE = 4000  # bytes of the example test file


@dataclass(frozen=True)
class ProjectContext:
    stable: str  # runner, test files, imports, the style example: the same all cycle long
    layout: str  # the map of the tracked files


def project_context(repo: Repo, config: Config, sandbox: Sandbox) -> ProjectContext:
    tracked = [p for p in repo.git("ls-files", "-z").split("\0") if p]
    visible = list(sandbox.listable(tracked))
    layout = "Project (paths relative to the repository root):\n" + tree_map(visible)
    runner = config.runner
    if runner == "auto":
        from tddgit.runners import detect_runner

        runner = detect_runner(repo.root / config.project)
    settings = [f"runner: {runner}"]
    if config.project:
        settings.append(f"project directory: {config.project}")
    command = config.get("test_command")
    if command:
        settings.append(f"test command: {command}")
    settings.append("test files: " + ", ".join(config.globs("test_globs")[:6]))
    parts = ["Tests: " + "; ".join(settings) + "."]
    if (repo.root / config.project / "src").is_dir():
        parts.append(
            "Imports: a src layout: src/ is on the import path, so tests import the package "
            "by its name (`import pkg`), never `src.pkg`."
        )
    else:
        parts.append("Imports: the repository root is on the import path (`import module`).")
    style = _style_example(visible, sandbox)
    if style:
        rel, text = style
        parts.append(f"An existing test file, the style to follow ({rel}):\n```\n{text}\n```")
    return ProjectContext("\n\n".join(parts), layout)


def tree_map(paths: list[str], limit: int = MAX_MAP) -> str:
    """The paths, at most ``limit``; beyond that, a count per top-level directory."""
    if len(paths) <= limit:
        return "\n".join(paths) if paths else "(no files)"
    shown = paths[:limit]
    rest = Counter(p.split("/")[0] + ("/" if "/" in p else "") for p in paths[limit:])
    summary = ", ".join(f"{d} ({n})" for d, n in sorted(rest.items()))
    return "\n".join(shown) + f"\n… {len(paths) - limit} more files: {summary}"


def _style_example(paths: list[str], sandbox: Sandbox) -> tuple[str, str] | None:
    tests = [p for p in paths if sandbox.classifier.kind(p) is Kind.TEST]
    for rel in sorted(tests, key=lambda p: (p.count("/"), p)):
        try:
            _, text = sandbox.read_text(rel)
        except Denied:
            continue
        if text.strip() and len(text.encode()) <= MAX_STYLE:
            return rel, text.rstrip()
    return None

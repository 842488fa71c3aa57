"""What every phase is told about the project up front, so a model does not spend its first
turns exploring: a bounded map of the tracked files, the runner and its configuration, one
existing test file as the style to follow, and the import path rules. Every path is
repo-relative; every file passes the sandbox's rules (secrets, size).

Two parts, for prompt caching: what stays true across the phases of a cycle goes into the
system prompt's shared block, so a green reads from the cache what its red wrote; what
changed since goes into the phase's first message. The cycle's part is taken at the commit
the cycle started from (``base``): the runner, the imports, the map of the files tracked
there, and the style example (chosen among, and read as, the test files there). So the
red's new test file changes neither the map nor the example; the first message names it
("since the cycle started: added tests/test_x.py")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tddgit.agent.sandbox import Denied, Sandbox, find_secret
from tddgit.config import Config
from tddgit.git import Repo
from tddgit.paths import Kind
from tddgit.staged import read_blob, tree_of

MAX_MAP = 120  # paths listed in the map, at most; the rest summarised by directory
MAX_STYLE = 4000  # bytes of the example test file


@dataclass(frozen=True)
class ProjectContext:
    stable: str  # runner, imports, the map, the style example: the same all cycle long
    layout: str  # the files added or removed since the cycle started ("" when none)


def project_context(
    repo: Repo, config: Config, sandbox: Sandbox, base: str | None = None
) -> ProjectContext:
    tracked = [p for p in repo.git("ls-files", "-z").split("\0") if p]
    visible = list(sandbox.listable(tracked))
    then = visible
    if base is not None:
        at_base = repo.git("ls-tree", "-r", "-z", "--name-only", base).split("\0")
        then = list(sandbox.listable(p for p in at_base if p))
    layout = _since(then, visible)
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
    parts.append("Project (paths relative to the repository root):\n" + tree_map(then))
    style = _style_example(repo, then, sandbox, base)
    if style:
        rel, text = style
        parts.append(f"An existing test file, the style to follow ({rel}):\n```\n{text}\n```")
    return ProjectContext("\n\n".join(parts), layout)


def _since(then: list[str], now: list[str]) -> str:
    """What the map (taken as the cycle started) no longer shows, bounded like the map."""
    before, after = set(then), set(now)
    added = [p for p in now if p not in before]
    removed = [p for p in then if p not in after]
    lines = []
    if added:
        lines.append("Added since the cycle started:\n" + tree_map(added, MAX_MAP // 4))
    if removed:
        lines.append("Removed since the cycle started:\n" + tree_map(removed, MAX_MAP // 4))
    return "\n\n".join(lines)


def tree_map(paths: list[str], limit: int = MAX_MAP) -> str:
    """The paths, at most ``limit``; beyond that, a count per top-level directory."""
    if len(paths) <= limit:
        return "\n".join(paths) if paths else "(no files)"
    shown = paths[:limit]
    rest = Counter(p.split("/")[0] + ("/" if "/" in p else "") for p in paths[limit:])
    summary = ", ".join(f"{d} ({n})" for d, n in sorted(rest.items()))
    return "\n".join(shown) + f"\n… {len(paths) - limit} more files: {summary}"


def _style_example(
    repo: Repo, paths: list[str], sandbox: Sandbox, base: str | None
) -> tuple[str, str] | None:
    """The first small test file of ``paths`` (the files tracked at ``base``), read as it
    was at ``base``."""
    tests = [p for p in paths if sandbox.classifier.kind(p) is Kind.TEST]
    tree = tree_of(repo, base) if base else None
    for rel in sorted(tests, key=lambda p: (p.count("/"), p)):
        try:
            _, text = sandbox.read_text(rel)  # the sandbox's rules: name, size, secrets
            if tree is not None:
                text = _as_at(repo, tree, rel, text)
        except Denied:
            continue
        if text.strip() and len(text.encode()) <= MAX_STYLE:
            return rel, text.rstrip()
    return None


def _as_at(repo: Repo, tree: str, rel: str, text: str) -> str:
    """``rel`` as it was in ``tree`` (the red may have added tests to it since), checked
    for secrets as the file read now was."""
    data = read_blob(repo, tree, rel)
    old = data.decode("utf-8", "replace") if data is not None else text
    if old != text and (b"\0" in old.encode()[:8192] or find_secret(old) is not None):
        raise Denied(f"{rel}: as it was, it is not sent")
    return old

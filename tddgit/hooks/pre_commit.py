"""The pre-commit hook: fast static checks of the staged files (PRODUCT.md §7). Runs no tests.

Staged test files are read from the index, never the work tree (the commit is the index):
the anti-pattern detectors run on them under ``hooks.detectors`` (warn: print and go on;
block: refuse; off). Strict mode is commit-msg's: pre-commit runs before the message
exists (``git commit -m x --trailer "GSD-Phase: refactor"`` included), so it cannot tell
a declared step from an undeclared one.
"""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.config import Config
from tddgit.console import plural
from tddgit.hooks.context import HookContext
from tddgit.hooks.report import HookRefusal, warn

HOOK = "pre-commit"


def run(ctx: HookContext, config: Config, args: Sequence[str]) -> int:
    from tddgit.paths import Classifier, Kind
    from tddgit.staged import staged_change

    if ctx.merging:
        return 0  # a merge's files were checked on their branches
    change = staged_change(ctx.repo, Classifier.from_config(config))
    tests = change.paths(Kind.TEST, include_deleted=False)
    if str(config.get("hooks.detectors")) != "off" and tests:
        _detect(ctx, config, change.tree, tests)
    # Strict mode's "production code without a test" is commit-msg's to say: only it can
    # read the message, and a message declaring a phase makes the commit a judged step.
    return 0


def _detect(ctx: HookContext, config: Config, tree: str, tests: list[str]) -> None:
    from tddgit.detectors import DetectorFinding, analyze_file, conftest_paths, language_of
    from tddgit.staged import read_blob

    findings: list[DetectorFinding] = []
    for path in tests:
        if language_of(path) is None:
            continue
        source = _text(read_blob(ctx.repo, tree, path))
        if source is None:
            continue
        conftests: dict[str, str] = {}
        if language_of(path) == "python":
            for cpath in conftest_paths(path):
                ctext = _text(read_blob(ctx.repo, tree, cpath))
                if ctext is not None:
                    conftests[cpath] = ctext
        findings.extend(analyze_file(path, source, config, conftests=conftests or None))
    findings = [f for f in findings if f.rule != "parse-error" or f.severity != "note"]
    if not findings:
        return
    for f in findings:
        where = f"{f.path}:{f.line}" + (f" {f.test}" if f.test else "")
        warn(HOOK, f"{f.rule}: {where}: {f.message}")
    if str(config.get("hooks.detectors")) == "block":
        raise HookRefusal(
            f"{plural(len(findings), 'test anti-pattern finding')} in the staged tests "
            "(listed above)",
            "hooks.detectors = block refuses commits whose staged tests over-mock or assert "
            "too broadly",
            "split the tests or reduce their mocks and assertions (thresholds: "
            "antipatterns.max_mocks, antipatterns.max_asserts), or set hooks.detectors = warn",
        )


def _text(data: bytes | None) -> str | None:
    if data is None or b"\0" in data[:8000]:
        return None  # absent or binary
    return data.decode("utf-8", "replace")

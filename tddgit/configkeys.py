"""The configuration's keys (PRODUCT.md §3, docs/configuration.md): each key's path, type,
default and meaning (the default globs come from ``tddgit.defaultglobs``). ``tddgit.config``
reads and holds the effective values.
"""

from __future__ import annotations

from dataclasses import dataclass

from tddgit.defaultglobs import (
    DEFAULT_OTHER_GLOBS,
    DEFAULT_SECRET_GLOBS,
    DEFAULT_SOURCE_GLOBS,
    DEFAULT_TEST_GLOBS,
    DEFAULT_VENDORED_GLOBS,
)

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

MODES = ("opt-in", "strict")
RUNNERS = ("auto", "pytest", "junit", "go", "rust", "command")
SCOPES = ("targets", "changed", "all")
ON_INTERNAL_ERROR = ("allow", "block")
DETECTOR_POLICY = ("warn", "block", "off")
MUTATION_POLICY = ("warn", "refuse", "off")
LLM_PROVIDERS = ("anthropic", "replay")
LLM_SANDBOXES = ("bwrap", "off")
# One model-driven run's default cost limit, US dollars: a few times what a step usually
# costs with caching, so a run going in circles stops before it gets expensive.
DEFAULT_MAX_COST = 2.0


@dataclass(frozen=True)
class KeySpec:
    """One configuration key: its dotted path, type, default and meaning."""

    path: str
    # "str" | "bool" | "int" (≥ 0) | "number" (> 0) | "amount" (≥ 0) | "globs" | "str?"
    # | "projects" (a list of tables)
    # | "prices" (model id -> [input, output, cache read, cache write])
    kind: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None


KEYS: tuple[KeySpec, ...] = (
    KeySpec(
        "mode",
        "str",
        "opt-in",
        "opt-in: hooks check commits with a phase trailer; "
        "strict: a production-changing commit must carry one",
        MODES,
    ),
    KeySpec("test_globs", "globs", DEFAULT_TEST_GLOBS, "paths that are test files"),
    KeySpec(
        "source_globs",
        "globs",
        DEFAULT_SOURCE_GLOBS,
        "paths that are production code (when not a test file)",
    ),
    KeySpec(
        "other_globs",
        "globs",
        DEFAULT_OTHER_GLOBS,
        "source-looking paths that are build or tooling files, never production code",
    ),
    KeySpec(
        "vendored_globs",
        "globs",
        DEFAULT_VENDORED_GLOBS,
        "vendored and generated paths: neither test nor production",
    ),
    KeySpec("exempt", "globs", (), "paths strict mode never asks a phase for"),
    KeySpec(
        "audit.red_window_commits",
        "int",
        10,
        "audit: an inferred red lapses after this many steps on its lineage without a green",
    ),
    KeySpec(
        "audit.red_window_days",
        "number",
        14,
        "audit: an inferred red lapses after this many days without a green",
    ),
    KeySpec(
        "runner", "str", "auto", "pytest | junit | go | rust | command | auto (detected)", RUNNERS
    ),
    KeySpec("test_command", "str?", None, "command that runs the tests (per runner default)"),
    KeySpec("junit_xml", "str?", None, "junit runner: path or glob of the XML report(s)"),
    KeySpec(
        "python",
        "str",
        "auto",
        "interpreter for pytest: $VIRTUAL_ENV, .venv/, venv/, then the current one",
    ),
    KeySpec(
        "root",
        "str?",
        None,
        "one project's directory in the repository, the only project (shorthand for a "
        "one-entry `projects`; unset: projects are discovered, docs/monorepo.md)",
    ),
    KeySpec(
        "projects",
        "projects",
        (),
        "the repository's projects, each a table with `dir` and its own keys (runner, "
        "test_command, test_globs, python, ...); unset: discovered (docs/monorepo.md)",
    ),
    KeySpec("timeout", "number", 300, "seconds for one test run; the process group is killed"),
    KeySpec("red.scope", "str", "changed", "tests the red gate runs besides its targets", SCOPES),
    KeySpec("red.allow_stubs", "bool", True, "a red commit may add production stubs"),
    KeySpec("green.scope", "str", "all", "tests the green gate runs besides its targets", SCOPES),
    KeySpec("green.allow_test_edits", "bool", False, "green may modify the red's test files"),
    KeySpec(
        "green.allow_test_config",
        "bool",
        False,
        "green may change test configuration (pytest/jest/vitest settings, conftest.py, "
        "plugins and setup files they load)",
    ),
    KeySpec(
        "green.yagni",
        "str",
        "warn",
        "added production lines no test executed: warn (a finding), block (refuse) or off",
        DETECTOR_POLICY,
    ),
    KeySpec(
        "green.mutation",
        "str",
        "warn",
        "mutants of the green's changed lines that no test kills: warn, refuse or off",
        MUTATION_POLICY,
    ),
    KeySpec("mutation.per_line", "int", 1, "the most mutants made of one changed line"),
    KeySpec(
        "mutation.budget",
        "number",
        10,
        "seconds the mutation check may start mutants for; the rest are counted as not run",
    ),
    KeySpec("mutation.jobs", "int", 2, "mutants run at once (each on its own snapshot)"),
    KeySpec(
        "guard.mutation",
        "str",
        "warn",
        "the agent guard's refactor candidates whose changed lines have mutants no test "
        "kills: warn (told to the agent, kept), refuse (undone) or off",
        MUTATION_POLICY,
    ),
    KeySpec("refactor.scope", "str", "all", "tests the refactor gate runs", SCOPES),
    KeySpec("refactor.one_side", "bool", True, "a refactor changes tests or production, not both"),
    KeySpec(
        "refactor.allow_test_config",
        "bool",
        False,
        "a production-side refactor may change test configuration",
    ),
    KeySpec(
        "hooks.run_gate", "bool", True, "commit-msg runs the gate when no fresh evidence exists"
    ),
    KeySpec(
        "hooks.on_internal_error",
        "str",
        "allow",
        "on a tddgit crash in a hook: allow (warn) or block",
        ON_INTERNAL_ERROR,
    ),
    KeySpec(
        "hooks.detectors",
        "str",
        "warn",
        "pre-commit hook anti-pattern findings: warn, block or off",
        DETECTOR_POLICY,
    ),
    KeySpec("antipatterns.max_mocks", "int", 3, "over-mocking threshold per test"),
    KeySpec("antipatterns.max_asserts", "int", 5, "broad-assertion threshold per test"),
    KeySpec("llm.provider", "str", "anthropic", "who answers: anthropic or replay", LLM_PROVIDERS),
    KeySpec("llm.model", "str", "claude-sonnet-4-6", "the model id sent to the provider"),
    KeySpec("llm.max_tokens", "int", 8192, "the most tokens one reply of the model may have"),
    KeySpec("llm.timeout", "number", 600, "seconds one request to the provider may take"),
    KeySpec(
        "llm.max_retries",
        "int",
        6,
        "retries of a rate-limited or overloaded request, each wait printed",
    ),
    KeySpec(
        "llm.retry_wait",
        "amount",
        8,
        "seconds before the first retry when the provider sends no retry-after (doubling, "
        "up to a minute)",
    ),
    KeySpec("llm.max_turns", "int", 20, "requests to the model before a run gives up"),
    KeySpec(
        "llm.stuck_after",
        "int",
        3,
        "the same failure this many times in a row is stuck (green and refactor recover once)",
    ),
    KeySpec("llm.token_budget", "int", 200_000, "estimated tokens one request may carry, at most"),
    KeySpec(
        "llm.max_cost",
        "amount",
        DEFAULT_MAX_COST,
        "US dollars one run may cost by the price table before it stops (0: no limit)",
    ),
    KeySpec(
        "llm.prices",
        "prices",
        {},
        "your own prices, $ per million tokens: {model: [input, output, cache read, cache write]}",
    ),
    KeySpec(
        "llm.minimize",
        "bool",
        True,
        "a holding green with added lines no test runs goes back to the model once",
    ),
    KeySpec("llm.replay", "str?", None, "replay provider: the transcript or script to answer from"),
    KeySpec(
        "llm.sandbox",
        "str",
        "bwrap",
        "where the model's tests run: bwrap (a jail: no network, no home, no secrets) or "
        "off (unsafe: with your rights, files and network)",
        LLM_SANDBOXES,
    ),
    KeySpec(
        "llm.sandbox_env",
        "globs",
        (),
        "extra environment variables the jailed tests see (never one named like a secret)",
    ),
    KeySpec(
        "llm.secret_globs",
        "globs",
        DEFAULT_SECRET_GLOBS,
        "file names the model may never read (besides files whose content holds a secret)",
    ),
    KeySpec(
        "cycle.include",
        "globs",
        (),
        "git-ignored files `tddgit cycle` copies into its worktree (none by default: no secrets)",
    ),
)

KEYS_BY_PATH: dict[str, KeySpec] = {k.path: k for k in KEYS}
# Keys that hold for the whole repository: read only from the configuration at its top.
REPO_WIDE = ("mode", "root", "projects", "hooks.", "llm.", "cycle.")
# The keys a project may set for itself (a `projects` entry, its own configuration file).
PROJECT_KEYS: tuple[str, ...] = tuple(
    k.path for k in KEYS if not any(k.path == w or k.path.startswith(w) for w in REPO_WIDE)
)
SECTIONS = frozenset(k.path.split(".")[0] for k in KEYS if "." in k.path)

"""One model-driven phase run, start to end: the entry point of every ``generate`` command.

:func:`run_phase` checks everything that can be checked before a request (nothing staged,
the ``--context`` files, the key), runs the loop, and on any end but a holding gate puts
the tree back exactly as it was (the files the run created removed, the files it changed
restored, their index entries back to ``HEAD``). What holds stays written and staged; the
caller stores the evidence and commits.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tddgit.agent.bench import Bench
from tddgit.agent.census import Census
from tddgit.agent.context import project_context
from tddgit.agent.coverage import SpecCoverage, spec_coverage
from tddgit.agent.imports import imported_modules
from tddgit.agent.loop import HOLDS, Conversation, LoopEnd, Progress, run_loop
from tddgit.agent.phases import Phase
from tddgit.agent.prices import PRICES_AS_OF, estimate_cost, price_of
from tddgit.agent.prices import configure as configure_prices
from tddgit.agent.prompt import check_sendable, first_message, render_spec, system_prompt
from tddgit.agent.providers import make_provider
from tddgit.agent.sandbox import Denied, Sandbox
from tddgit.agent.secrets import secret_values
from tddgit.agent.settings import Settings
from tddgit.agent.start import Start, green_message, preflight, refactor_message
from tddgit.agent.transcript import Transcript
from tddgit.agent.workspace import Workspace
from tddgit.config import Config
from tddgit.errors import UsageError
from tddgit.evidence import Evidence
from tddgit.git import Repo
from tddgit.jail import INSTALL, Jail, jailed, unavailable
from tddgit.paths import Classifier, Kind
from tddgit.spec import Spec, load_spec


@dataclass(frozen=True)
class RunOptions:
    spec: Spec | None  # optional in green and refactor
    context: tuple[Path, ...] = ()  # files the user passes with --context
    model: str | None = None
    max_turns: int | None = None
    cwd: Path | None = None  # where relative --context paths start
    max_cost: float | None = None  # --max-cost (llm.max_cost)
    keep_best: bool = False  # stuck or out of budget: keep the best state, not the old tree


@dataclass(frozen=True)
class RunReport:
    phase: str
    end: LoopEnd
    session_id: str
    transcript: Path
    provider: str
    model: str
    duration: float
    files: tuple[str, ...]  # what the run wrote (kept only when it holds)
    coverage: SpecCoverage | None
    spec: str | None = None  # the spec the model was given (repo-relative)

    @property
    def holds(self) -> bool:
        return self.end.status == HOLDS

    @property
    def cost(self) -> float | None:
        return estimate_cost(self.model, self.end.usage)

    def agent_block(self) -> dict[str, Any]:
        """The evidence's ``agent`` object (docs/evidence.md)."""
        block: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "turns": self.end.turns,
            "tokens": self.end.usage.to_json(),
            "session": self.session_id,
            "cost_usd": self.cost,
            "prices_as_of": PRICES_AS_OF,
        }
        if self.spec is not None:  # a later phase run on its own is given it too
            block["spec"] = self.spec
        if self.coverage is not None:
            block["spec_coverage"] = self.coverage.to_json()
        return block

    def evidence(self) -> Evidence | None:
        """The holding gate's evidence with the agent block; None when it did not hold."""
        verdict = self.end.verdict
        if not self.holds or verdict is None or verdict.evidence is None:
            return None
        return dataclasses.replace(verdict.evidence, agent=self.agent_block())

    def to_json(self) -> dict[str, Any]:
        verdict = self.end.verdict
        return {
            "phase": self.phase,
            "holds": self.holds,
            "status": self.end.status,
            "message": self.end.message,
            "files": list(self.files),
            "agent": self.agent_block(),
            "transcript": str(self.transcript),
            "duration": round(self.duration, 3),
            "verdict": verdict.to_json() if verdict else None,
        }


def run_phase(
    repo: Repo, config: Config, phase: Phase, options: RunOptions, progress: Progress
) -> RunReport:
    refuse_if_staged(repo, phase.name)
    settings = Settings.from_config(
        config,
        repo.root,
        model=options.model,
        max_turns=options.max_turns,
        max_cost=options.max_cost,
    )
    configure_prices(config.get("llm.prices") or {})
    explicit = options.max_cost is not None or config.sources.get("llm.max_cost") != "default"
    if settings.max_cost and price_of(settings.model) is None and not explicit:
        # the default limit cannot apply to a model with no price: say so, go on
        progress(f"no price is known for {settings.model}: the default llm.max_cost does not apply")
        settings = dataclasses.replace(settings, max_cost=0.0)
    if settings.max_cost and price_of(settings.model) is None:
        raise UsageError(
            f"no price is known for {settings.model}, so llm.max_cost cannot be enforced",
            f"set its price in the configuration: llm.prices: {{{settings.model}: "
            "[input, output, cache read, cache write]}} in $ per million tokens "
            "(or run without a cost limit)",
        )
    jail = make_jail(repo, settings)  # no jail: refused before anything is asked
    if options.spec is not None:  # never an absolute path to the model (nor the transcript)
        where = repo_relative(options.spec.path, repo.root, options.cwd or Path.cwd())
        options = dataclasses.replace(options, spec=dataclasses.replace(options.spec, path=where))
    if options.spec is not None:
        check_sendable(options.spec, settings.secret_globs)
    start = Start() if phase.name == "red" else preflight(repo, phase.name, config.scope)
    if options.spec is None and start.spec is not None:
        options = dataclasses.replace(options, spec=reds_spec(repo, start.spec, settings))
        if options.spec is not None:
            progress(f"spec: {options.spec.path} (the red's)")
    classifier = Classifier.from_config(config)
    sandbox = Sandbox(
        root=repo.root,
        classifier=classifier,
        writable=phase.writable,
        stubs=phase.stubs if config.flag("red.allow_stubs") else frozenset(),
        read_only_reason=phase.read_only_reason,
        secret_globs=settings.secret_globs,
        max_file_bytes=settings.max_file_bytes,
    )
    sandbox.secret_values = secret_values(repo.root, settings.secret_globs, os.environ)
    context = read_context(sandbox, options.context, options.cwd or Path.cwd())
    sandbox.context = frozenset(rel for rel, _ in context)
    provider = make_provider(settings, progress)  # no key: a usage error before anything is written
    workspace = Workspace(repo)
    bench = Bench(repo, config, phase, sandbox, workspace, start.targets, Census(workspace))
    # the red starts the cycle: its project is HEAD's, as the green and refactor will see it
    base = repo.head() if phase.name == "red" else start.base
    known = project_context(repo, config, sandbox, base)
    spec_text = sandbox.scrub(render_spec(options.spec)) if options.spec else ""
    system = system_prompt(
        phase, config.globs("test_globs"), sandbox.scrub(known.stable), spec_text
    )
    conversation = Conversation(system)
    intro = ""
    if phase.name == "green":
        intro = green_message(repo, config, start)
        modules = imported_modules(repo, config, sandbox, start.test_files)
        intro += f"\n\n{modules}" if modules else ""
    elif phase.name == "refactor":
        side = "tests" if Kind.TEST in phase.writable else "production"
        intro = refactor_message(repo, start, side)
    first = first_message(None, context, intro)  # the spec is in the system prompt
    first = first or f"Begin the {phase.name} step described above."  # never an empty block
    first += f"\n\n{known.layout}" if known.layout else ""
    conversation.messages.append({"role": "user", "content": sandbox.scrub(first)})
    transcript = Transcript(repo)
    transcript.record(
        "start",
        phase=phase.name,
        provider=provider.name,
        model=provider.model_name(settings.model),
        spec=options.spec.path if options.spec else None,
        targets=list(start.targets),
        context=[rel for rel, _ in context],
        max_turns=settings.max_turns,
        stuck_after=settings.stuck_after,
        token_budget=settings.token_budget,
    )
    started = time.monotonic()
    end: LoopEnd | None = None
    try:
        with jailed(jail):
            end = run_loop(bench, provider, settings, conversation, transcript, progress)
    except BaseException as exc:
        transcript.record("error", error=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        if end is None or end.status != HOLDS:
            kept = options.keep_best and end is not None and end.best is not None
            workspace.restore(end.best if kept and end is not None else None)
            workspace.unstage()
        transcript.record(
            "end",
            status=end.status if end else "error",
            message=end.message if end else "",
            turns=end.turns if end else None,
            usage=end.usage.to_json() if end else None,
            restored=end is None or end.status != HOLDS,
            kept_best=bool(options.keep_best and end and end.status != HOLDS and end.best),
            files=workspace.touched,
            written_by_tests=workspace.written_by_tests,
            not_restorable=sorted(bench.census.unknown) if bench.census else [],
        )
        transcript.close()
    assert end is not None
    coverage = None
    if end.status == HOLDS and options.spec and options.spec.structured and phase.name == "red":
        coverage = spec_coverage(options.spec, _written_tests(workspace, classifier))
    return RunReport(
        phase=phase.name,
        end=end,
        session_id=transcript.session_id,
        transcript=transcript.path,
        provider=provider.name,
        model=provider.model_name(settings.model),
        duration=time.monotonic() - started,
        files=tuple(workspace.touched),
        coverage=coverage,
        # a plan task's slice is not the file's spec: a later phase could not rebuild it
        spec=options.spec.path if options.spec and options.spec.task is None else None,
    )


def reds_spec(repo: Repo, rel: str, settings: Settings) -> Spec | None:
    """The spec the cycle's red was generated from, for a green or refactor run on its own
    with none: a cycle gives every phase its spec, so the phases run one by one are told
    the same and share it in the cache. None when it is gone, unreadable, outside the
    repository or not sendable."""
    path = (repo.root / rel).resolve()
    if not path.is_relative_to(repo.root.resolve()):
        return None
    try:
        spec = dataclasses.replace(load_spec(path), path=rel)
        check_sendable(spec, settings.secret_globs)
    except UsageError:
        return None
    return spec


def repo_relative(path: str, root: Path, cwd: Path) -> str:
    """``path`` relative to the repository holding it: ``root``, or the checkout a cycle's
    worktree came from (the same relative path there); else the file's name alone."""
    absolute = Path(path) if Path(path).is_absolute() else cwd / path
    absolute = Path(os.path.normpath(absolute))
    for base in (root.resolve(), *(p for p in absolute.parents if (p / ".git").exists())):
        try:
            return absolute.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            continue
    return absolute.name


def make_jail(repo: Repo, settings: Settings) -> Jail | None:
    """The jail the model's tests run in; none only when ``llm.sandbox`` is ``off``."""
    if settings.sandbox == "off":
        return None
    why = unavailable()
    if why is not None:
        raise UsageError(
            why, f'{INSTALL}, or set llm.sandbox = "off" (unsafe: the tests run with your rights)'
        )
    return Jail(writable=(repo.root,), pass_env=settings.sandbox_env)


def refuse_if_staged(repo: Repo, phase: str) -> None:
    if repo.head() is None:
        staged = repo.git("ls-files", "-z").split("\0")
    else:
        staged = repo.git("diff", "--cached", "--name-only", "-z", "HEAD").split("\0")
    staged = [p for p in staged if p]
    if staged:
        shown = ", ".join(staged[:5]) + (f" and {len(staged) - 5} more" if len(staged) > 5 else "")
        raise UsageError(
            f"something is already staged ({shown}): generate {phase} starts from a clean index",
            "commit or unstage it first (`git restore --staged PATH`)",
        )


def read_context(sandbox: Sandbox, paths: Sequence[Path], cwd: Path) -> list[tuple[str, str]]:
    """The ``--context`` files, each checked by the sandbox's rules (git-ignored allowed)."""
    out = []
    for path in paths:
        absolute = path if path.is_absolute() else cwd / path
        rel = os.path.relpath(absolute, sandbox.root)
        try:
            sandbox.context = frozenset({Path(rel).as_posix()})
            out.append(sandbox.read_text(Path(rel).as_posix()))
        except Denied as exc:
            raise UsageError(
                f"--context: {exc}", "pass only readable files inside the repository"
            ) from None
        finally:
            sandbox.context = frozenset()
    return out


def _written_tests(workspace: Workspace, classifier: Classifier) -> list[str]:
    texts = []
    for rel in workspace.touched:
        path = workspace.root / rel
        if classifier.kind(rel) is Kind.TEST and path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts

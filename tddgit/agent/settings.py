"""The ``llm.*`` configuration of one run, with the command line's overrides applied."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from tddgit.config import Config
from tddgit.errors import UsageError

MAX_FILE_BYTES = 100 * 1024  # one file read or written by the model, at most


@dataclass(frozen=True)
class Settings:
    provider: str
    model: str
    max_tokens: int
    timeout: float
    max_retries: int
    max_turns: int
    stuck_after: int
    token_budget: int
    replay: Path | None
    secret_globs: tuple[str, ...]
    max_cost: float = 0.0  # US dollars by the price table; 0: no limit
    minimize: bool = True  # one round of yagni feedback after a holding green
    max_file_bytes: int = MAX_FILE_BYTES
    retry_wait: float = 8.0  # seconds before the first retry without a retry-after
    sandbox: str = "bwrap"  # "off": the model's tests run unjailed (unsafe)
    sandbox_env: tuple[str, ...] = ()

    @classmethod
    def from_config(
        cls,
        config: Config,
        root: Path,
        *,
        model: str | None = None,
        max_turns: int | None = None,
        max_cost: float | None = None,
    ) -> Settings:
        replay = config.get("llm.replay")
        settings = cls(
            provider=str(config.get("llm.provider")),
            model=str(config.get("llm.model")),
            max_tokens=int(config.get("llm.max_tokens")),
            timeout=float(config.get("llm.timeout")),
            max_retries=int(config.get("llm.max_retries")),
            max_turns=int(config.get("llm.max_turns")),
            stuck_after=int(config.get("llm.stuck_after")),
            token_budget=int(config.get("llm.token_budget")),
            replay=(root / str(replay)) if replay else None,
            secret_globs=config.globs("llm.secret_globs"),
            max_cost=float(config.get("llm.max_cost")),
            minimize=config.flag("llm.minimize"),
            retry_wait=float(config.get("llm.retry_wait")),
            sandbox=str(config.get("llm.sandbox")),
            sandbox_env=config.globs("llm.sandbox_env"),
        )
        if model:
            settings = replace(settings, model=model)
        if max_turns is not None:
            settings = replace(settings, max_turns=max_turns)
        if max_cost is not None:
            settings = replace(settings, max_cost=max_cost)
        if settings.max_cost < 0:
            raise UsageError("llm.max_cost must not be negative", "set it to 0 (no limit) or more")
        for name in ("max_tokens", "max_turns", "stuck_after", "token_budget"):
            if getattr(settings, name) < 1:
                raise UsageError(f"llm.{name} must be at least 1", f"raise `llm.{name}`")
        return settings

"""What the model's tools work on (:class:`Bench`), what a tool call gives back
(:class:`ToolOutcome`), and the error a tool raises on input that does not fit it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tddgit.agent.census import Census
from tddgit.agent.phases import Phase
from tddgit.agent.sandbox import Sandbox
from tddgit.agent.workspace import Workspace
from tddgit.config import Config
from tddgit.git import Repo

if TYPE_CHECKING:
    from tddgit.agent.finish import Judgement
    from tddgit.model import RunResult


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

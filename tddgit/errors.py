"""The one error hierarchy of tddgit.

Every error knows its exit code and carries a one-line cause plus a one-line fix; the
CLI (``tddgit.cli``) is the only place that turns them into output.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


class TddgitError(Exception):
    """Base class: an error tddgit expected and can explain in one line."""

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def one_line(self) -> str:
        if self.fix:
            return f"{self.message} — {self.fix}"
        return self.message


class UsageError(TddgitError):
    """Bad arguments, bad input, or a repository state tddgit cannot work in."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """Malformed or invalid configuration; the message names the file and key path."""


class NotARepoError(UsageError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"not a git repository: {path}",
            "run inside a git work tree, pass -C PATH, or run `git init` first",
        )


class GitError(UsageError):
    """A git command failed in a way the user can act on."""


class RunnerError(UsageError):
    """The test runner could not be started (missing interpreter, missing command)."""


class Refused(TddgitError):
    """A gate refused a step, or findings crossed a threshold."""

    exit_code = EXIT_REFUSED


class InternalError(TddgitError):
    exit_code = EXIT_INTERNAL

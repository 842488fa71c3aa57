"""The rules every tool obeys, in one place (docs/llm.md, "The sandbox").

A rule that refuses raises :class:`Denied`; the tool turns it into an error
``tool_result`` the model reads (never an exception the user sees):

- a path must resolve, symlinks included, inside the repository, and never under ``.git/``;
- only the phase's writable kinds of file may be written (red: test files);
- nothing git ignores is readable unless the user listed it with ``--context``;
- secrets are never read nor sent: files named like secrets (``llm.secret_globs``, matched
  against the name and every directory of the path) and files whose content holds one
  (:data:`SECRET_PATTERNS`);
- one file is at most ``max_file_bytes``.

Every text that goes back to the model also passes :meth:`Sandbox.scrub`: the patterns,
and the values the secret files and secret-named variables hold (a test's failure
message could print what a test read).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tddgit.agent.secrets import is_secret_path, redact_values
from tddgit.git import clean_env
from tddgit.paths import Classifier, Kind

# (name, pattern): a match anywhere in a text means it holds a secret.
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("an Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "a GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    ),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("an OpenAI-style key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{32,}")),
    (
        "a URL with a password",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@'\"<>]*:[^\s@/'\"<>]+@(?=[^\s/'\"<>])"),
    ),
    (
        "a quoted key with a secret value",
        re.compile(
            r"['\"][\w.\-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)['\"]\s*[:=]>?\s*['\"][^\s'\"]{8,}['\"]",
            re.IGNORECASE,
        ),
    ),
    (
        "a *_KEY/*_TOKEN/*_SECRET assignment",
        re.compile(
            r"\b[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\s*[:=]\s*['\"]?[^\s'\"]{16,}",
            re.IGNORECASE,
        ),
    ),
)


class Denied(Exception):
    """A tool call the sandbox refuses; the message is what the model reads."""


def find_secret(text: str) -> str | None:
    """The name of the first kind of secret ``text`` holds, or None."""
    for name, pattern in SECRET_PATTERNS:
        if pattern.search(text):
            return name
    return None


def redact(text: str) -> str:
    for name, pattern in SECRET_PATTERNS:
        text = pattern.sub(f"[redacted: {name}]", text)
    return text


@dataclass
class Sandbox:
    root: Path
    classifier: Classifier
    writable: frozenset[Kind]
    read_only_reason: str  # why any other kind of file is read-only in this phase
    secret_globs: tuple[str, ...]
    max_file_bytes: int
    context: frozenset[str] = frozenset()  # repo-relative paths readable though ignored
    secret_values: frozenset[str] = frozenset()  # agent.secrets: redacted wherever they occur
    stubs: frozenset[Kind] = frozenset()  # writable with stubs only (tools check the content)
    _ignored: dict[str, bool] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()

    # -- paths ------------------------------------------------------------------------

    def resolve(self, path: str) -> tuple[str, Path]:
        """(repo-relative POSIX path, absolute path) of a path the model named."""
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            raise Denied("the path is empty or not a string")
        if PurePosixPath(path).is_absolute() or Path(path).is_absolute() or path.startswith("~"):
            raise Denied(
                f"{path}: absolute paths are refused; name files relative to the repository"
            )
        lexical = PurePosixPath(path.replace("\\", "/"))
        if ".git" in lexical.parts:
            raise Denied(f"{path}: nothing under .git/ is readable or writable")
        real = (self.root / lexical).resolve()
        try:
            rel = real.relative_to(self.root).as_posix()
        except ValueError:
            raise Denied(
                f"{path}: resolves outside the repository (symlinks included); "
                "only files inside it are allowed"
            ) from None
        if rel == "." or rel.split("/")[0] == ".git":
            raise Denied(f"{path}: nothing under .git/ is readable or writable")
        return rel, real

    def is_secret_name(self, rel: str) -> bool:
        return is_secret_path(rel, self.secret_globs)

    def scrub(self, text: str) -> str:
        """``text`` as it may leave: secrets redacted by shape and by value."""
        return redact_values(redact(text), self.secret_values)

    def is_ignored(self, rel: str) -> bool:
        if rel in self.context:
            return False
        if rel not in self._ignored:
            self._ignored.update(self._check_ignore([rel]))
        return self._ignored[rel]

    def _check_ignore(self, rels: list[str]) -> dict[str, bool]:
        proc = subprocess.run(
            ["git", "check-ignore", "-z", "--stdin"],
            cwd=self.root,
            input="\0".join(rels).encode("utf-8", "surrogateescape") + b"\0",
            capture_output=True,
            env=clean_env(),
            check=False,
        )
        ignored = {p.decode("utf-8", "surrogateescape") for p in proc.stdout.split(b"\0") if p}
        return {r: r in ignored for r in rels}

    # -- reading ----------------------------------------------------------------------

    def readable(self, path: str) -> tuple[str, Path]:
        """A file the model may read: every rule checked but its content."""
        rel, real = self.resolve(path)
        if self.is_secret_name(rel):
            raise Denied(f"{path}: files named like secrets are never read ({_glob_hint(self)})")
        if self.is_ignored(rel):
            raise Denied(
                f"{path}: git ignores it, so it is not readable (the user may pass it with --context)"
            )
        if not real.is_file():
            raise Denied(f"{path}: no such file")
        size = real.stat().st_size
        if size > self.max_file_bytes:
            raise Denied(f"{path}: {size} bytes is over the {self.max_file_bytes // 1024} KB limit")
        return rel, real

    def read_text(self, path: str) -> tuple[str, str]:
        """(repo-relative path, text) of a readable file without secrets."""
        rel, real = self.readable(path)
        data = real.read_bytes()
        if b"\0" in data[:8192]:
            raise Denied(f"{path}: a binary file is not sent")
        text = data.decode("utf-8", "replace")
        secret = find_secret(text)
        if secret is not None:
            raise Denied(f"{path}: holds {secret}, so it is never read")
        return rel, text

    def listable(self, rels: Iterable[str]) -> Iterator[str]:
        """The paths among ``rels`` whose names the model may see."""
        rels = [r for r in rels if not self.is_secret_name(r) and r.split("/")[0] != ".git"]
        unknown = [r for r in rels if r not in self._ignored and r not in self.context]
        if unknown:
            self._ignored.update(self._check_ignore(unknown))
        return (r for r in rels if not self.is_ignored(r))

    # -- writing ----------------------------------------------------------------------

    def writable_path(self, path: str, content: str) -> tuple[str, Path]:
        rel, real = self.resolve(path)
        if (self.root / PurePosixPath(path)).is_symlink():
            raise Denied(f"{path}: is a symbolic link; write the file itself")
        kind = self.classifier.kind(rel)
        if kind not in self.writable and kind not in self.stubs:
            raise Denied(f"{path}: is a {kind.value} file; {self.read_only_reason}")
        if self.is_secret_name(rel):
            raise Denied(f"{path}: files named like secrets are never written")
        if real.is_dir():
            raise Denied(f"{path}: is a directory")
        size = len(content.encode("utf-8"))
        if size > self.max_file_bytes:
            raise Denied(f"{path}: {size} bytes is over the {self.max_file_bytes // 1024} KB limit")
        if find_secret(content) is not None:
            raise Denied(f"{path}: the content looks like it holds a secret; write no secrets")
        return rel, real


def _glob_hint(sandbox: Sandbox) -> str:
    return "llm.secret_globs: " + ", ".join(sandbox.secret_globs[:6]) + ", …"

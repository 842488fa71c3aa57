"""Gate helpers shared by the Go and Rust end-to-end tests: the real CLI, its JSON."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import GitRepo


def stage(repo: GitRepo, files: dict[str, str]) -> None:
    for path, text in files.items():
        repo.write(path, text, dedent=False)
    repo.add(*files)


def gate(repo: GitRepo, phase: str) -> tuple[int, dict[str, object]]:
    proc = repo.tddgit(phase, "--json", "-m", f"{phase} step")
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def targets(data: dict[str, object]) -> dict[str, tuple[str, str | None]]:
    evidence = data["evidence"]
    assert isinstance(evidence, dict), data
    return {t["id"]: (t["outcome"], t["cause"]) for t in evidence["targets"]}


def reasons(data: dict[str, object]) -> list[tuple[str, str | None]]:
    found = data["reasons"]
    assert isinstance(found, list)
    return [(r["rule"], r.get("cause")) for r in found]


def hooked_commit(repo: GitRepo, phase: str) -> subprocess.CompletedProcess[str]:
    """A real `git commit` with the phase's trailer (the hooks run the gate)."""
    return subprocess.run(
        ["git", "commit", "-m", f"{phase} step", "--trailer", f"GSD-Phase: {phase}"],
        cwd=repo.root,
        capture_output=True,
        text=True,
    )


def note(repo: GitRepo) -> dict[str, object]:
    return dict(json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD")))

"""The bad-input matrix (tests/reliability/matrix.py): every command against every awkward
repository, each fixture built once per module and copied per case. Each case ends with its
expected exit code, a one-line error for exit 2, and never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, TDDGIT, isolated_git
from tests.reliability.matrix import FIXTURES, OPEN, cases, expected, markdown_table

MESSAGE = "subject\n\nGSD-Phase: red\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("matrix")
    with isolated_git(tmp_path_factory.mktemp("home")):
        return {f.name: f.build(base / f.name) for f in FIXTURES}


def _case_id(case: tuple[str, str, tuple[str, ...]]) -> str:
    fixture, command, argv = case
    return f"{fixture}-{command.replace(' ', '_')}" + (
        f"-{argv[-1].replace('/', '_')}" if fixture in ("bad-range",) else ""
    )


def _marks(case: tuple[str, str, tuple[str, ...]]) -> list[pytest.MarkDecorator]:
    why = OPEN.get(case[:2])
    return [pytest.mark.xfail(reason=f"open: {why}", strict=True)] if why else []


CASES = [pytest.param(*c, id=_case_id(c), marks=_marks(c)) for c in cases()]


@pytest.mark.parametrize(("fixture", "command", "argv"), CASES)
def test_bad_input(
    built: dict[str, Path], tmp_path: Path, fixture: str, command: str, argv: tuple[str, ...]
) -> None:
    source = built.get(fixture, built["detached-head"])
    # Commands that write (hooks, evidence cache) get their own copy of the fixture.
    work = tmp_path / source.name
    shutil.copytree(source, work, symlinks=True)
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(MESSAGE)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    args = [str(msg) if a == "MSGFILE" else a for a in argv]
    proc = subprocess.run(
        [*TDDGIT, *args],
        cwd=work,
        capture_output=True,
        env={**os.environ, "TMPDIR": str(tmpdir)},
        timeout=120,
    )
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert proc.returncode == expected(fixture, command), (
        proc.stdout.decode("utf-8", "replace")[-2000:] + err[-2000:]
    )
    if proc.returncode == 2:
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1 and " — " in errors[0], err  # the cause — the fix
    assert list(tmpdir.iterdir()) == []


def test_the_docs_show_the_matrix_as_tested() -> None:
    doc = (REPO_ROOT / "docs" / "reliability.md").read_text()
    assert markdown_table() in doc, (
        "docs/reliability.md is stale: paste `python -m tests.reliability.matrix` into it"
    )

"""The wheel a user's ``pip install`` builds: compiled when it can be, and ``--version`` says so.

Built exactly as pip builds it from a clean clone: ``pip wheel --no-deps`` of a copy of
the checkout (its tracked and unignored files: no ``.venv``, no stale extension), run by
the pip of a brand-new venv (no click, rich or PyYAML anywhere: nothing of the
development environment can help the build), in pip's isolated build environment. The
wheel is installed into that venv; the runtime dependencies come from the development
venv through a ``.pth`` line, so the check needs no download beyond the build's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from bench.compiled import c_compiler

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def python_headers() -> bool:
    return (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file()


def clean_clone(dest: Path) -> Path:
    """The checkout's files as a fresh clone of its state has them (edits included)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def new_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    return path / "bin" / "python"


def build_and_install(tmp: Path, env: dict[str, str]) -> tuple[Path, Path, str]:
    """(the new venv's python, the wheel, pip's build output)."""
    source = clean_clone(tmp / "clone")
    python = new_venv(tmp / "venv")
    built = subprocess.run(
        [python, "-m", "pip", "wheel", "--no-deps", "-v", "-w", tmp / "dist", source],
        capture_output=True,
        text=True,
        env=env,
    )
    if built.returncode != 0 and "No matching distribution found" in built.stdout + built.stderr:
        pytest.skip("no package index for the build requirements (setuptools, mypy)")
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    (wheel,) = (tmp / "dist").glob("tddgit-*.whl")
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--quiet", wheel], check=True, env=env
    )
    # click, rich, GitPython ... from the development venv, after the new venv's own
    # site-packages (so its tddgit is the one imported); a .pth line adds the directory
    # without running the .pth files in it (the editable install's finder among them)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "tddgit-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, wheel, built.stdout + built.stderr


def version_of(python: Path) -> str:
    tddgit = python.parent / "tddgit"
    out = subprocess.run(
        [tddgit, "--version"], capture_output=True, text=True, cwd=python.parent, check=True
    )
    return out.stdout.strip()


def pip_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return {**env, **extra}


def test_pip_wheel_from_a_clean_clone_compiles_the_audit(tmp_path: Path) -> None:
    if c_compiler() is None or not python_headers():
        pytest.skip("no C compiler or no Python headers: the wheel is pure Python by design")
    python, wheel, log = build_and_install(tmp_path, pip_env())
    extensions = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]
    assert "tddgit/history" in " ".join(extensions), log[-6000:]
    assert version_of(python).endswith("(audit: compiled)")
    # the command is the launcher, its first line pointed at this environment's Python
    command = (python.parent / "tddgit").read_text().partition("\n")
    assert command[0] == f"#!{python}", command[0]
    assert (
        command[2]
        == (Path(__file__).parents[1] / "scripts" / "tddgit").read_text().partition("\n")[2]
    )
    origin = subprocess.run(
        [python, "-c", "import tddgit.audit.engine as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=python.parent,
    ).stdout
    assert origin.strip().endswith(".so") and str(tmp_path) in origin


def test_without_a_working_compiler_the_wheel_is_pure_and_says_so(tmp_path: Path) -> None:
    python, wheel, log = build_and_install(tmp_path, pip_env(CC="false", LDSHARED="false"))
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]
    assert "using pure Python" in log
    assert version_of(python).endswith("(audit: pure Python)")

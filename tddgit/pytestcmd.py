"""The ``pytest`` runner's command line, interpreter and environment (``runners/pytest.py``).

Light on purpose (the standard library only): the gate's early start
(``tddgit.early.pytest``) spawns exactly this command before the gate's own modules are
imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

PROBE_DIR = Path(__file__).resolve().parent / "runners" / "_probe"
PROBE_PLUGIN = "tddgit_probe"

# Variables that would point the tests' own git calls (or pytest plugins) at the wrong
# place when tddgit itself runs inside a git hook or inside a pytest run.
DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "PYTEST_CURRENT_TEST",
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_XDIST_TESTRUNUID",
)


def pytest_argv(python: str) -> list[str]:
    """How the gates start pytest (test paths and a private cache dir follow)."""
    return [python, "-m", "pytest", "-p", PROBE_PLUGIN, "--continue-on-collection-errors"]


def run_argv(python: str, tmp: Path, args: list[str]) -> list[str]:
    """The gate's pytest command line: a private cache dir in ``tmp`` instead of
    ``-p no:cacheprovider`` (the user's addopts may use --lf/--ff/--sw, which need the
    plugin; nothing lands in the user's tree), then the test paths ``args``."""
    return [*pytest_argv(python), "-o", f"cache_dir={Path(tmp, 'cache')}", *args]


def venv_python(env_dir: Path) -> Path | None:
    for rel in ("bin/python", "Scripts/python.exe"):
        p = env_dir / rel
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def framework_venv(venv: str) -> bool:
    """pre-commit runs hooks with VIRTUAL_ENV set to its own venv, which holds tddgit but
    not the user's project: never take that one for the project's interpreter."""
    if not os.environ.get("PRE_COMMIT"):
        return False
    try:
        return os.path.samefile(venv, sys.prefix)
    except OSError:
        return False


def auto_python(project_root: Path) -> tuple[str, str]:
    """``python = auto``: ``$VIRTUAL_ENV``, then ``<project_root>/.venv``,
    ``<project_root>/venv``, then the interpreter running tddgit; and where it came from.
    The path is returned unresolved: resolving a venv's ``bin/python`` symlink would step
    out of the venv."""
    candidates = [
        (project_root / ".venv", "the project's .venv"),
        (project_root / "venv", "the project's venv"),
    ]
    venv = os.environ.get("VIRTUAL_ENV")
    if venv and not framework_venv(venv):
        candidates.insert(0, (Path(venv), "$VIRTUAL_ENV"))
    for env_dir, why in candidates:
        found = venv_python(env_dir)
        if found is not None:
            return str(found), f"{why} (python = auto)"
    return sys.executable, "the interpreter running tddgit (python = auto)"


def run_env(
    given: Mapping[str, str] | None,
    root: Path,
    project_root: Path,
    out: Path,
    select: Path | None,
    pycache: Path | None,
) -> dict[str, str]:
    """The environment of the gate's pytest in ``root``: ours with ``given`` on top, the
    probe first on PYTHONPATH, its report in ``out`` (``select``: the ids to keep), the
    project's bytecode in ``pycache`` (None: none written)."""
    given = dict(given or {})
    env = {**os.environ, **given}
    for name in DROPPED_ENV:  # also when a gate passes a copy of a hook's environment
        env.pop(name, None)
    # The gates point imports at a snapshot through PYTHONPATH: keep it, probe first.
    pythonpath = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROBE_DIR), pythonpath]))
    # Never leave __pycache__ in the user's tree: the project's bytecode goes to
    # tddgit's own dir (the probe arranges it), or none is written.
    if pycache is not None:
        # The probe diverts only the project's bytecode there: pytest's own and the
        # libraries' stay where Python caches them (a cold gate compiles nothing else).
        env["TDDGIT_PYCACHE"] = str(pycache)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # until the probe has diverted the project's
    env.setdefault("PY_COLORS", "0")
    env["TDDGIT_PROBE_OUT"] = str(out)
    env.pop("TDDGIT_PROBE_COVER", None)  # only this run's own request may turn it on
    if select is not None:
        env["TDDGIT_PROBE_SELECT"] = str(select)
    else:
        env.pop("TDDGIT_PROBE_SELECT", None)
    project_dirs = [str(root), str(project_root)]
    project_dirs += [p for p in given.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["TDDGIT_PROBE_PROJECT"] = os.pathsep.join(project_dirs)
    return env

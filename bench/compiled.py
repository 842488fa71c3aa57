"""The audit's hot modules compiled with mypyc, outside any install (bench and test).

``setup.py`` compiles ``HOT_MODULES`` when tddgit is installed from a wheel or ``pip
install .``; the development venv stays pure Python. To compare the two builds side by
side, this module makes the same compile in a directory of its own: a copy of
``tddgit/`` with the compiled extensions next to the sources (an extension module wins
over a ``.py`` of the same name), to be put first on ``PYTHONPATH``.

The list of modules and mypyc's flags and options are read from ``setup.py`` with
``ast`` (never by running it), so the test, the benchmark and the wheel compile alike.

    build_dir(dest)                   # compile into dest (a fresh directory)
    ensure_build(cache)               # cache/compiled-<hash>/, built once per source state
    origins(pythonpath, modules)      # where each module is imported from, in a child
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".cache"
_DONE = ".tddgit-compiled-complete"
_NOT_COPIED = {".so", ".pyc"}  # stale extensions or bytecode of the source tree

# Run in the build directory with the venv's interpreter: mypycify over the copy's
# sources, extensions built in place next to them.
_BUILD_SCRIPT = """
import json, sys
from setuptools import setup
from mypyc.build import mypycify
spec = json.loads(sys.argv[1])
setup(
    name="tddgit-compiled",
    ext_modules=mypycify([*spec["flags"], *spec["modules"]], **spec["options"]),
    script_args=["build_ext", "--inplace"],
)
"""


class CompileError(RuntimeError):
    """mypyc or the C compiler failed; the message carries their output."""


@dataclass(frozen=True)
class Spec:
    """What ``setup.py`` hands to ``mypycify``."""

    modules: list[str]
    flags: list[str]
    options: dict[str, str]

    def module_names(self) -> list[str]:
        """``tddgit/audit/engine.py`` -> ``tddgit.audit.engine``."""
        return [m.removesuffix(".py").replace("/", ".") for m in self.modules]


def read_spec(setup_py: Path = ROOT / "setup.py") -> Spec:
    """``HOT_MODULES``, ``MYPYC_FLAGS`` and ``MYPYC_OPTIONS`` as ``setup.py`` assigns them."""
    found: dict[str, object] = {}
    for node in ast.parse(setup_py.read_text(), str(setup_py)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                with contextlib.suppress(ValueError):
                    found[target.id] = ast.literal_eval(node.value)
    missing = {"HOT_MODULES", "MYPYC_FLAGS", "MYPYC_OPTIONS"} - found.keys()
    if missing:
        raise CompileError(f"{setup_py} assigns no literal {', '.join(sorted(missing))}")
    modules, flags, options = found["HOT_MODULES"], found["MYPYC_FLAGS"], found["MYPYC_OPTIONS"]
    assert isinstance(modules, list) and isinstance(flags, list) and isinstance(options, dict)
    return Spec(modules, flags, options)


def c_compiler() -> str | None:
    """The C compiler Python's build would use, if it is on PATH."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(cc.split()[0])


def source_hash(root: Path = ROOT) -> str:
    """A short hash of ``setup.py``, every file of ``tddgit/`` (sources and the data
    files copied with them) and the compile's inputs that are not files (interpreter and
    mypy versions): a new state, a new build."""
    from mypy.version import __version__ as mypy_version

    h = hashlib.sha256(f"{sys.implementation.cache_tag} mypy {mypy_version}\n".encode())
    package = [p for p in (root / "tddgit").rglob("*") if _copied(p)]
    for path in [root / "setup.py", *sorted(package)]:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _copied(path: Path) -> bool:
    return path.is_file() and path.suffix not in _NOT_COPIED and "__pycache__" not in path.parts


def build_dir(dest: Path, root: Path = ROOT) -> Path:
    """Copy ``root/tddgit`` into ``dest`` (which must not exist) and compile the hot
    modules there; returns ``dest``. Raises ``CompileError`` with mypyc's output."""
    spec = read_spec(root / "setup.py")
    dest.mkdir(parents=True)
    shutil.copytree(
        root / "tddgit",
        dest / "tddgit",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"),
    )
    proc = subprocess.run(
        [sys.executable, "-c", _BUILD_SCRIPT, json.dumps(spec.__dict__)],
        cwd=dest,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    if proc.returncode != 0:
        raise CompileError(f"mypyc failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    for scratch in ("build", ".mypy_cache"):  # the C sources and mypy's cache: not needed
        shutil.rmtree(dest / scratch, ignore_errors=True)
    return dest


def ensure_build(cache: Path = CACHE, root: Path = ROOT) -> Path:
    """``cache/compiled-<source_hash>/``, compiled unless a complete one is there (the
    builds of earlier sources are removed).

    Concurrent callers (two pytest-xdist workers, a bench next to the tests) wait on one
    lock, so the compile runs once; the build lands under a temporary name and is renamed
    into place only when complete."""
    target = cache / f"compiled-{source_hash(root)}"
    if (target / _DONE).exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / ".compiled.lock"):
        if (target / _DONE).exists():  # built while we waited
            return target
        tmp = cache / f".{target.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            build_dir(tmp, root)
            (tmp / _DONE).write_text("")
            shutil.rmtree(target, ignore_errors=True)  # a half-built leftover
            tmp.rename(target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for old in cache.glob("compiled-*"):  # builds of earlier sources: never used again
            if old != target:
                shutil.rmtree(old, ignore_errors=True)
    return target


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def origins(pythonpath: Path, modules: list[str]) -> dict[str, str]:
    """Where each module is imported from with ``PYTHONPATH=pythonpath``, asked of a child
    interpreter (run in ``pythonpath``: ``-c`` puts the working directory first)."""
    code = (
        "import importlib, json, sys\n"
        "print(json.dumps({m: importlib.import_module(m).__file__ for m in sys.argv[1:]}))"
    )
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    proc = subprocess.run(
        [sys.executable, "-c", code, *modules],
        cwd=pythonpath,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(proc.stdout))

"""Build hook: the audit's hot path compiled with mypyc (everything else is pyproject.toml).

``tddgit audit`` spends its time in a handful of modules that run once per commit of the
history (the reader, the one-pass engine, its state and lineage, phase rules and checks,
the test-after-fact index and the import resolution it uses) and in the metrics.
Compiled to C extensions with mypyc (part of mypy) they need about a third less CPU, which
is what keeps a 100k-commit audit within 1.5x plain ``git log`` (PRODUCT.md section 11). The
Python sources stay the reference: the compiled modules are the same code, and a test
checks that they give byte-identical reports (``tests/test_compiled.py``).

- ``TDDGIT_COMPILE=0`` builds pure Python (the development install of the Makefile does,
  so an edited module is never shadowed by a stale extension);
- otherwise the modules are compiled when mypyc is available (it is in the build
  requirements) and a C compiler works; any failure to compile leaves the pure-Python
  modules in place, with a warning, and the install goes on.

``HOT_MODULES``, ``MYPYC_FLAGS`` and ``MYPYC_OPTIONS`` are plain literals on purpose: the
test and the benchmark read them with ``ast`` (``bench/compiled.py``) to build the very
same compile without running this file.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HOT_MODULES = [
    "tddgit/history.py",
    "tddgit/gitstream.py",
    "tddgit/logparse.py",
    "tddgit/audit/engine.py",
    "tddgit/audit/phasereader.py",
    "tddgit/audit/recording.py",
    "tddgit/audit/state.py",
    "tddgit/audit/lineage.py",
    "tddgit/audit/phases.py",
    "tddgit/audit/rules.py",
    "tddgit/audit/checkview.py",
    "tddgit/audit/stubjudge.py",
    "tddgit/audit/afterfact.py",
    "tddgit/audit/imports.py",
    "tddgit/audit/naming.py",
    "tddgit/audit/metrics.py",
    "tddgit/audit/measures.py",
]
# The compile's type check must not depend on what pip's isolated build environment holds
# (mypy and setuptools; not click, rich or PyYAML, nor their types). So:
# --config-file= (empty: mypy reads no config file): not pyproject.toml's strict settings,
#   under which a value of a missing library is an error (``no-any-return`` ...); strictness
#   is ``make typecheck``'s job, with every library present;
# --ignore-missing-imports: an absent library is ``Any``, not an error;
# --follow-imports=silent: the modules the hot ones import are read for their types, but
#   their own diagnostics never decide whether the audit compiles.
MYPYC_FLAGS = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
# group_name (mypy >= 1.17): the runtime shared by the compiled modules is
# ``tddgit_audit__mypyc``, a stable name instead of a hash of the module list.
MYPYC_OPTIONS = {"opt_level": "3", "group_name": "tddgit_audit"}


class OptionalBuildExt(build_ext):  # type: ignore[misc]
    """Build the compiled modules, or none of them: without a compiler or Python's
    headers the install goes on with the pure-Python modules."""

    def run(self) -> None:
        self._drop_stale()
        try:
            super().run()
        except Exception as exc:  # a compiler error, missing headers, ...
            self._give_up(exc)

    def _drop_stale(self) -> None:
        """Extensions an earlier build left in ``build/`` (another module list, another
        group name) would ship in this wheel too: only this build's outputs stay."""
        if self.inplace or not os.path.isdir(self.build_lib):
            return
        ours = {os.path.abspath(path) for path in self.get_outputs()}
        for path in Path(self.build_lib).rglob("*"):
            if path.name.endswith(tuple(EXTENSION_SUFFIXES)) and str(path.absolute()) not in ours:
                path.unlink()

    def _give_up(self, exc: BaseException) -> None:
        for path in self.get_outputs():  # all or nothing: a half set would not import
            if os.path.exists(path):
                os.remove(path)
        print(
            f"tddgit: not compiling the audit's modules ({exc}); using pure Python",
            file=sys.stderr,
        )


def metadata_only() -> bool:
    """pip asks for the requirements (``egg_info``) and the metadata (``dist_info``) before
    it builds: neither depends on the extensions, so mypy's check runs once, not thrice."""
    commands = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    return bool(commands) and commands[0] in {"egg_info", "dist_info"}


def ext_modules() -> list[Any]:
    if os.environ.get("TDDGIT_COMPILE", "1") == "0" or metadata_only():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("tddgit: mypyc is not available; using pure Python", file=sys.stderr)
        return []
    try:  # mypy's type errors end in SystemExit, before any compiler runs
        return list(mypycify([*MYPYC_FLAGS, *HOT_MODULES], **MYPYC_OPTIONS))
    except (Exception, SystemExit) as exc:
        print(f"tddgit: mypyc failed ({exc!r}); using pure Python", file=sys.stderr)
        return []


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})

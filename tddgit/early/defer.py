"""Standard modules the gate's path imports but a Rust or Go red never uses, loaded at
their first use instead of at their import.

``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize`` and
``linecache``) only to write a docstring for a dataclass that has none; ``ast`` is the
parser of Python targets, stubs and test configuration; ``urllib.parse`` (which
``pathlib`` imports) needs ``ipaddress`` only for a URL's bracketed host, ``subprocess``
needs ``locale`` only for text-mode pipes, and ``shutil`` imports ``zlib``, ``bz2`` and
``lzma`` for its archives. Together about 8 ms of CPU at every gate's start, spent
beside a test command that needs the machine's cores (issue 29: on two cores, the CPU
a gate spends while ``cargo test`` runs is about half of it added to the gate's wall
time).

``defer(name)`` puts a placeholder module in ``sys.modules``: ``import name`` binds it,
and the first attribute read through it imports the real module (in whichever thread)
and answers from it; every later ``import name`` gets the real module. Only the phase
commands' fast path defers (``tddgit.commands.phase_fast``), and only modules not
loaded yet: in a process that has them (pytest, the click command line) it does nothing.
"""

from __future__ import annotations

import _thread
import sys
from types import ModuleType

_lock = _thread.allocate_lock()

# What a gate defers (everything else it needs, it imports): modules always there, and
# modules that need a compiled one a Python may be built without (``NEEDS``: where it is
# missing, the module is imported as usual, and fails where it always did).
PURE = ("inspect", "ast", "ipaddress", "locale")
NEEDS = {"zlib": "zlib", "bz2": "_bz2", "lzma": "_lzma"}
DEFERRED = (*PURE, *NEEDS)


class Deferred(ModuleType):
    """Stands in for a module not imported yet; reading an attribute imports it."""

    def __getattr__(self, attr: str) -> object:
        return getattr(load(self), attr)


def load(placeholder: Deferred) -> ModuleType:
    """The real module ``placeholder`` stands for, imported now if no thread has yet."""
    name = placeholder.__name__
    with _lock:  # one thread takes the placeholder out; the import lock does the rest
        if sys.modules.get(name) is placeholder:
            del sys.modules[name]
    import importlib

    # A second thread here waits on the module's import lock until the first thread's
    # import is done, then gets that same module: never two copies.
    return importlib.import_module(name)


def defer(*names: str) -> None:
    """Load each of ``names`` (top-level modules) at its first use, unless it is loaded
    already or what it needs is missing (``NEEDS``)."""
    for name in names:
        if name not in sys.modules and _available(NEEDS.get(name)):
            sys.modules[name] = Deferred(name)


def _available(compiled: str | None) -> bool:
    if compiled is None or compiled in sys.builtin_module_names:
        return True
    from importlib.machinery import PathFinder

    return PathFinder.find_spec(compiled) is not None

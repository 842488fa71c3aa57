"""tddgit: make test-driven development checkable in git."""

from __future__ import annotations

__version__ = "0.1.0"


def audit_is_compiled() -> bool:
    """Whether the audit's hot modules are mypyc extensions (``setup.py``) rather than
    Python sources: asked of the import system, without importing them."""
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("tddgit.history")
    origin = (spec.origin if spec else None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))

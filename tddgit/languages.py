"""Which language's detectors and target finders read a file, by its extension.

Its own module, not ``tddgit.detectors``: the gate asks this of every staged test file,
and the detectors' package (its records, its rules) is CPU a gate spends beside its test
command (issue 29) when no detector runs."""

from __future__ import annotations

PYTHON_EXTENSIONS = frozenset({".py"})
JS_EXTENSIONS = frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"})


def language_of(path: str) -> str | None:
    """ "python", "js" or None (not a file any detector reads)."""
    dot = path.rfind(".")
    ext = path[dot:].lower() if dot > path.rfind("/") else ""
    if ext in PYTHON_EXTENSIONS:
        return "python"
    if ext in JS_EXTENSIONS:
        return "js"
    return None

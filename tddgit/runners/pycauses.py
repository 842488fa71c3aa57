"""Python cause rules (PRODUCT.md §4): the probe's exception facts -> a cause and a message.

Pure decisions over the records written by ``tddgit_probe``; what the project is (its tree,
its declared dependencies) comes from ``pydeps``, which reads the project's files when a
missing top-level module has to be judged project vs third-party.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tddgit.model import Cause
from tddgit.runners.pydeps import Project, pypi_distribution

SYNTAX_TYPES = frozenset({"SyntaxError", "IndentationError", "TabError"})
ASSERTION_TYPES = frozenset({"AssertionError", "Failed", "_pytest.outcomes.Failed"})
MESSAGE_LIMIT = 200


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """The first non-empty line of ``text``, cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


# -- exceptions -> causes --------------------------------------------------------------------


def _names(exc: Mapping[str, Any]) -> set[str]:
    return {str(exc.get("type", ""))} | {str(m) for m in exc.get("mro") or ()}


def _short_type(exc: Mapping[str, Any]) -> str:
    return str(exc.get("type", "Exception")).rsplit(".", 1)[-1]


def describe(exc: Mapping[str, Any]) -> str:
    """``Type: first line of the message``."""
    msg = short(str(exc.get("message") or ""))
    return f"{_short_type(exc)}: {msg}" if msg else _short_type(exc)


def _missing_module(
    exc: Mapping[str, Any], project: Project, test_file: str | None
) -> tuple[Cause, str]:
    """A module neither in the tree nor installed, judged by evidence: red when it is
    plausibly the project's own, amber (install it) when it is known third-party or stdlib."""
    name = str(exc.get("missing") or "")
    top = name.split(".")[0]
    base = describe(exc)
    flag = exc.get("project")
    if flag is True:
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    if flag is False:
        return Cause.ENVIRONMENT, f"{base} (inside third-party package {exc.get('owner')!s})"
    if exc.get("stdlib"):
        return Cause.ENVIRONMENT, f"{base} (standard-library module missing in this interpreter)"
    where = project.in_tree(top)
    if where is not None:
        if name == top:
            return Cause.ENVIRONMENT, f"{base} ({where} {NOT_IMPORTABLE})"
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    if top.lower() in project.dependencies:
        return Cause.ENVIRONMENT, f"{base} (declared dependency not installed)"
    if project.plausible(top, test_file):
        return Cause.NOT_IMPLEMENTED, f"{base} (project module not written yet)"
    dist = pypi_distribution(top)
    if dist is not None:
        return Cause.ENVIRONMENT, f"{base} (third-party {dist}, not installed nor declared)"
    return Cause.NOT_IMPLEMENTED, (
        f"{base} (not in the project tree nor a known third-party module: "
        "assumed a project module not written yet)"
    )


NOT_IMPORTABLE = "exists but is not importable"


def _missing_name(exc: Mapping[str, Any]) -> tuple[Cause, str] | None:
    """ImportError ("cannot import name") and AttributeError, judged by their owner."""
    flag = exc.get("project")
    owner = exc.get("owner")
    base = describe(exc)
    missing = exc.get("missing")
    if exc.get("type") == "ImportError" and missing and owner:
        # "cannot import name 'x' from 'm' (/abs/path)": the path adds nothing
        base = f"ImportError: cannot import name {missing!r} from {owner!r}"
    if flag is True:
        return Cause.NOT_IMPLEMENTED, f"{base} (not implemented yet in {owner})"
    if flag is False and exc.get("owner_file"):
        return Cause.ENVIRONMENT, f"{base} (third-party {owner}: wrong version installed?)"
    return None


def _name_error(exc: Mapping[str, Any], test_file: str | None, project: Project) -> str:
    where = project.rel(exc.get("file")) or exc.get("file") or "?"
    if test_file is not None and where == test_file:
        return f"NameError in the test file: {short(str(exc.get('message')))} (the test is broken)"
    return f"NameError in {where}: {short(str(exc.get('message')))}"


def _syntax(exc: Mapping[str, Any], project: Project) -> str:
    where = project.rel(exc.get("file")) or exc.get("file") or "?"
    line = exc.get("line")
    return f"{_short_type(exc)} in {where}{f':{line}' if line else ''}: {short(str(exc.get('message')))}"


def classify(
    exc: Mapping[str, Any], *, when: str, test_file: str | None, project: Project
) -> tuple[Cause, str]:
    """The cause and short message of one failure in phase ``when``
    (``collect``, ``conftest``, ``setup``, ``call`` or ``teardown``)."""
    names = _names(exc)
    if names & SYNTAX_TYPES:
        return Cause.SYNTAX, _syntax(exc, project)
    if when == "conftest":
        return Cause.COLLECTION, f"broken conftest: {describe(exc)}"
    if "NotImplementedError" in names:
        return Cause.NOT_IMPLEMENTED, describe(exc)
    if "ModuleNotFoundError" in names:
        return _missing_module(exc, project, test_file)
    if "ImportError" in names or "AttributeError" in names:
        verdict = _missing_name(exc)
        # ``None.x`` inside the code under test is its wrong behaviour, not an environment
        from_code = when == "call" and bool(exc.get("code_file")) and "AttributeError" in names
        if verdict is not None and not (verdict[0] is Cause.ENVIRONMENT and from_code):
            return verdict
    if when == "call" and names & ASSERTION_TYPES:
        return Cause.ASSERTION, describe(exc)
    if when == "call" and exc.get("code_file"):
        # Raised by the project's own code under the test: the code does the wrong
        # thing, which a red may show (not a broken test).
        where = project.rel(exc.get("code_file")) or exc.get("code_file")
        return Cause.WRONG_BEHAVIOUR, f"{describe(exc)} (raised in {where}:{exc.get('code_line')})"
    if "NameError" in names:
        return (Cause.COLLECTION if when == "collect" else Cause.OTHER), _name_error(
            exc, test_file, project
        )
    if when in ("setup", "teardown"):
        return Cause.FIXTURE, f"{when} failed: {describe(exc)}"
    if when == "collect":
        return Cause.COLLECTION, f"collection failed: {describe(exc)}"
    return Cause.OTHER, describe(exc)

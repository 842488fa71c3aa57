"""A test named on the command line, as the repository names it (docs/monorepo.md: one way
to write a test id). The name may be given relative to the repository, to the project or
to the current directory, or as an absolute path; the first reading that names an existing
file (or directory) wins, in that order: the current directory, the project, the
repository."""

from __future__ import annotations

import posixpath
from pathlib import Path


def repo_test_id(name: str, root: Path, cwd: Path, project: str) -> str:
    """``name`` (``path[::rest]``) relative to the repository at ``root``."""
    path, sep, rest = name.partition("::")
    if not path:
        return name
    top = root.resolve()
    if Path(path).is_absolute():
        try:
            rel = Path(path).resolve().relative_to(top).as_posix()
        except (OSError, ValueError):
            return name
        return (rel if rel != "." else "") + sep + rest
    try:
        here = cwd.resolve().relative_to(top).as_posix()
    except (OSError, ValueError):
        here = "."
    clean = path.replace("\\", "/")
    for base in dict.fromkeys((here, project or ".", ".")):
        candidate = posixpath.normpath(posixpath.join(base, clean))
        if candidate.startswith("../") or candidate == "..":
            continue
        if (top / candidate).exists():
            return (candidate if candidate != "." else "") + sep + rest
    return name

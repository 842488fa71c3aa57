"""The import path a test run gets (``PYTHONPATH``), in place and on a snapshot alike.

Light on purpose (the standard library only): the gate's early start (``tddgit.early``)
builds the run's environment before the gate's own modules are imported.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
    from pathlib import Path


def import_paths(root: Path | str) -> list[str]:
    """Directories to put first on PYTHONPATH, in place and on a snapshot alike: the
    project's imports resolve to the tree under test (never to an editable install of the
    work tree), and a ``src/`` layout imports the same way wherever the gate runs."""
    paths = [str(root)]
    src = os.path.join(root, "src")  # the same string as str(root / "src")
    if os.path.isdir(src):
        paths.insert(0, src)
    return paths


def import_env(root: Path | str) -> dict[str, str]:
    """The variables a gate's run in ``root`` adds to the environment."""
    paths = import_paths(root)
    if os.environ.get("PYTHONPATH"):
        paths = [*paths, os.environ["PYTHONPATH"]]
    return {"PYTHONPATH": os.pathsep.join(paths)}

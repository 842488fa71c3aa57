"""The editor `tddgit red|green|refactor` gives `git commit` when no message is given.

git adds the ``GSD-Phase`` trailer (``--trailer``) to the message before the editor opens,
so a message left unchanged is not empty to git: it would commit with the trailer as its
subject. This wrapper runs the user's own editor (``git var GIT_EDITOR``: GIT_EDITOR,
core.editor, VISUAL, EDITOR) the way git does, then empties a message that holds nothing
but the trailers tddgit added, so git aborts the commit as it does for any empty message.

Run as ``python -m tddgit.editmsg FILE`` with the user's editor in ``TDDGIT_EDITOR``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

EDITOR_ENV = "TDDGIT_EDITOR"

# The trailers the phase commands add themselves (the phase, --task and --signoff).
_OWN_TRAILER = re.compile(r"(?i)^(GSD-Phase|GSD-Task|Signed-off-by)\s*:")
_SCISSORS = "------------------------ >8 ------------------------"


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: python -m tddgit.editmsg FILE\n")
        return 2
    path = argv[-1]
    editor = os.environ.get(EDITOR_ENV) or "vi"
    if editor != ":":  # git's own "no editor" value
        code = subprocess.call(["sh", "-c", f'{editor} "$@"', editor, path])
        if code != 0:
            return code  # git reports the editor's failure and aborts
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    if only_own_trailers(text, _comment_char(text)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("")  # git: "Aborting commit due to empty commit message."
    return 0


def only_own_trailers(text: str, comment: str) -> bool:
    """Whether the message, as git will clean it up, says nothing but tddgit's trailers."""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith(comment):
            if line[len(comment) :].strip() == _SCISSORS:
                break  # `commit --verbose`: the diff below is not part of the message
            continue
        if line.strip() and not _OWN_TRAILER.match(line):
            return False
    return True


def _comment_char(text: str) -> str:
    from tddgit.git import find_repo
    from tddgit.hooks.context import repo_comment_char

    try:
        return repo_comment_char(find_repo("."), text)
    except Exception:
        return "#"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""How hooks speak: a refusal is one paragraph (what, why, the fix) on stderr."""

from __future__ import annotations

import sys

from tddgit import console

# No way around the hooks is taught here: an agent reads these refusals and would take it
# (issue 26). A person who must skip them knows git; docs/hooks.md says how it is audited.


class HookRefusal(Exception):
    """A hook refuses the commit: exit 1 with one clear paragraph."""

    def __init__(self, what: str, why: str, fix: str) -> None:
        super().__init__(what)
        self.what = what
        self.why = why
        self.fix = fix

    def paragraph(self) -> str:
        return f"{_cap(self.what)}. {_cap(self.why)}. Fix: {self.fix}."


def _cap(text: str) -> str:
    """A sentence's first word capitalised, unless it is a name to keep as written (a
    path, a test id, `code`): only a plain word is."""
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() else text


def refused(exc: HookRefusal, hook: str) -> int:
    import textwrap

    head = console.paint(f"tddgit {hook}: commit refused:", "red", sys.stderr)
    body = textwrap.fill(f"{head} {exc.paragraph()}", width=100, break_on_hyphens=False)
    console.err(body)
    return 1


def note(hook: str, text: str) -> None:
    """A one-line, non-blocking message from a hook."""
    console.err(f"tddgit {hook}: {text}")


def warn(hook: str, text: str) -> None:
    console.err(console.paint(f"tddgit {hook}: warning: ", "yellow", sys.stderr) + text)

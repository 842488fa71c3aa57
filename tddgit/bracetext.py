"""Text helpers shared by the readers of brace languages (Go: ``targets_go``,
``detectors/gostubs``; Rust: ``targets_rust``, ``detectors/ruststubs``). Each language
masks its own comments and literals first; these work on the masked text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

# A function's key -> (its text, its body), both squashed.
Units = Mapping[str, tuple[str, str]]


def close_brace(masked: str, open_at: int) -> int:
    """The index of the brace closing the one at ``open_at`` (the end when unbalanced)."""
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == "{":
            depth += 1
        elif masked[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(masked) - 1


def squash(text: str) -> str:
    """``text`` with its layout collapsed: one space between words."""
    return " ".join(text.split())


def non_stub_functions(
    new: Units, old: Units, is_stub: Callable[[str], bool], label: Callable[[str], str]
) -> list[str]:
    """One line per function of ``new`` that is new or changed against ``old`` and whose
    body is not a stub (``label`` names the function in the line)."""
    out = []
    for key, (text, body) in new.items():
        before = old.get(key)
        if before is not None and before[0] == text:
            continue
        if not is_stub(body):
            out.append(f"{label(key)}: code in a red step, not a stub")
    return out

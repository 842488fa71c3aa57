"""git's trailer rules in Python: ``git interpret-trailers --parse`` and commit cleanup.

This follows git 2.39's ``trailer.c`` (``trailer_info_get``, ``find_trailer_start``,
``find_separator``, ``unfold_value``), ``commit.c`` (``ignore_non_trailer``),
``wt-status.c`` (``wt_status_locate_end``) and ``strbuf.c`` (``strbuf_stripspace``) step by
step, including their quirks, because the hooks and the audit must agree with git on every
message (PRODUCT.md §10). The property tests compare it with the real git.

git works on bytes with its own ctype table: whitespace is exactly space, tab, LF and CR
(not VT/FF), "alphanumeric" is ASCII only. Non-ASCII characters are neither, which is
what the same bytes are to git, so working on ``str`` gives the same answers.

Not modelled: ``trailer.<name>.key``/``.command`` configuration (git treats a configured
token like ``Signed-off-by`` for the 25% rule and may rewrite the key); pass the repo's
``trailer.separators`` as ``separators`` and ``core.commentChar`` as ``comment_char``.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WS = " \t\n\r"  # git's isspace()
_WS_SET = frozenset(_WS)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")
_CUT_LINE = "------------------------ >8 ------------------------\n"
_UNFOLD = re.compile(r"\n[ \t\n\r]*")


def parse_trailers(
    message: str,
    separators: str = ":",
    *,
    divider: bool = True,
    comment_char: str = "#",
) -> list[tuple[str, str]]:
    """The ``(key, value)`` trailers of ``message``, as ``git interpret-trailers --parse``.

    Keys are as written, values stripped and unfolded. ``divider=False`` is git's view of
    a stored commit (``git log --format=%(trailers)``): a ``---`` line does not end the
    message there, while ``interpret-trailers`` treats it as the start of a patch.
    """
    if not separators or not any(s in message for s in separators):
        return []  # fast path: no line can be a trailer
    end = _trailer_end(message, divider, comment_char)
    start = _trailer_start(message, end, separators, comment_char)
    if start >= end:
        return []
    return _parse_block(message[start:end], separators, comment_char)


def cleanup_message(text: str, comment_char: str = "#") -> str:
    """What ``git commit``'s default ``strip`` cleanup makes of a COMMIT_EDITMSG.

    Everything from the scissors line on goes (``commit -v`` puts the diff there), then
    comment lines, trailing whitespace, leading and trailing blank lines; runs of blank
    lines become one, and every kept line ends with a newline.
    """
    text = text[: _locate_end(text, len(text), comment_char)]
    out: list[str] = []
    empties = 0
    for line in text.split("\n"):
        if line[:1] == comment_char and comment_char:
            continue
        kept = line.rstrip(_WS)
        if not kept:
            empties += 1
            continue
        if empties and out:
            out.append("")
        empties = 0
        out.append(kept)
    return "".join(line + "\n" for line in out)


# --- where the trailer block can end ------------------------------------------------------


def _patch_start(msg: str) -> int:
    """The first line that starts with ``---`` and a whitespace character, else the end."""
    if msg.startswith("---") and msg[3:4] in _WS_SET:
        return 0
    pos = msg.find("\n---")
    while pos >= 0:
        if msg[pos + 4 : pos + 5] in _WS_SET:
            return pos + 1
        pos = msg.find("\n---", pos + 1)
    return len(msg)


def _locate_end(msg: str, length: int, comment_char: str) -> int:
    """``wt_status_locate_end``: where the scissors line starts, at most ``length``.

    git 2.39 searches the whole text and may return a point after ``length``; with a
    ``---`` divider above a scissors line ``interpret-trailers`` then never returns (an
    old bug fixed upstream by clamping to ``length``). We clamp, as fixed git does.
    """
    pattern = f"\n{comment_char} {_CUT_LINE}"
    if msg.startswith(pattern[1:]):
        return 0
    pos = msg.find(pattern, 0, length + len(pattern))
    return min(pos + 1, length) if pos >= 0 else length


def _trailer_end(msg: str, divider: bool, comment_char: str) -> int:
    """``len - ignore_non_trailer()``: drop trailing comments, empty lines, Conflicts: blocks."""
    length = _patch_start(msg) if divider else len(msg)
    cutoff = _locate_end(msg, length, comment_char)
    boc = 0  # beginning of the current run of ignorable lines (0 doubles as "none", as in git)
    in_conflicts = False
    bol = 0
    while bol < cutoff:
        nl = msg.find("\n", bol)
        next_bol = length if nl < 0 else nl + 1
        first = msg[bol : bol + 1]
        if first == comment_char or first == "\n":
            if not boc:
                boc = bol
        elif msg.startswith("Conflicts:\n", bol):
            in_conflicts = True
            if not boc:
                boc = bol
        elif in_conflicts and first == "\t":
            pass
        elif boc:
            boc = 0
            in_conflicts = False
        bol = next_bol
    return boc if boc else cutoff


# --- where the trailer block starts ------------------------------------------------------


def _line_at(msg: str, bol: int) -> str:
    nl = msg.find("\n", bol)
    return msg[bol:] if nl < 0 else msg[bol:nl]


def _is_blank(line: str) -> bool:
    return not line.strip(_WS)


def _last_line(msg: str, length: int) -> int:
    if length == 0:
        return -1
    if length == 1:
        return 0
    return msg.rfind("\n", 0, length - 1) + 1


@lru_cache(maxsize=16)
def _separator_re(separators: str) -> re.Pattern[str]:
    """``find_separator`` as a regex: token chars, optional blanks, then a separator.

    git checks for a separator before anything else, so separator characters are removed
    from the token and blank classes.
    """
    token = "".join(c for c in _ALNUM + "-" if c not in separators)
    blank = "".join(c for c in " \t" if c not in separators)
    tok_cls = f"[{re.escape(token)}]" if token else "(?!)"
    blank_cls = f"[{re.escape(blank)}]*" if blank else ""
    return re.compile(f"(?:{tok_cls}+{blank_cls})?[{re.escape(separators)}]")


def _find_separator(text: str, pos: int, separators: str) -> int:
    """Offset of the separator in the line starting at ``pos``, or -1 (0: line starts with it)."""
    m = _separator_re(separators).match(text, pos)
    return m.end() - 1 - pos if m else -1


def _end_of_title(msg: str, length: int, comment_char: str) -> int:
    """The first paragraph (the title) can never hold trailers."""
    s = 0
    while s < length:
        nl = msg.find("\n", s)
        line = msg[s:] if nl < 0 else msg[s:nl]
        if not (line[:1] == comment_char and comment_char) and _is_blank(line):
            break
        s = len(msg) if nl < 0 else nl + 1
    return s


def _trailer_start(msg: str, length: int, separators: str, comment_char: str) -> int:
    """Scan upwards for the blank line above a block that is all trailers, or has a
    git-generated line and at least 25% trailers; ``length`` when there is none."""
    end_of_title = _end_of_title(msg, length, comment_char)
    only_spaces = True
    recognized = False
    trailer_lines = non_trailer_lines = possible_continuation = 0
    bol = _last_line(msg, length)
    while bol >= end_of_title:
        line = _line_at(msg, bol)
        if comment_char and line[:1] == comment_char:
            non_trailer_lines += possible_continuation
            possible_continuation = 0
        elif _is_blank(line):
            if not only_spaces:
                non_trailer_lines += possible_continuation
                if (recognized and trailer_lines * 3 >= non_trailer_lines) or (
                    trailer_lines and not non_trailer_lines
                ):
                    nl = msg.find("\n", bol)
                    return len(msg) if nl < 0 else nl + 1
                return length
        else:
            only_spaces = False
            if line.startswith(_GIT_GENERATED):
                trailer_lines += 1
                possible_continuation = 0
                recognized = True
            elif _find_separator(line, 0, separators) >= 1 and line[0] not in _WS_SET:
                trailer_lines += 1
                possible_continuation = 0
            elif line[:1] in _WS_SET:
                possible_continuation += 1
            else:
                non_trailer_lines += 1 + possible_continuation
                possible_continuation = 0
        bol = _last_line(msg, bol)
    return length


# --- the block's lines -------------------------------------------------------------------


def _parse_block(block: str, separators: str, comment_char: str) -> list[tuple[str, str]]:
    """Join continuation lines onto their trailer, then split each into key and value."""
    items: list[str] = []
    last: int | None = None
    for line in _split_lf(block):
        if last is not None and line[0] in _WS_SET:
            items[last] += line
            continue
        items.append(line)
        last = len(items) - 1 if _find_separator(line, 0, separators) >= 1 else None
    out: list[tuple[str, str]] = []
    for item in items:
        if comment_char and item[:1] == comment_char:
            continue
        sep = _find_separator(item, 0, separators)
        if sep < 1:
            continue
        key = item[:sep].strip(_WS)
        value = item[sep + 1 :].strip(_WS)
        if "\n" in value:
            value = _UNFOLD.sub(" ", value).strip(_WS)
        out.append((key, value))
    return out


def _split_lf(text: str) -> list[str]:
    """Split after each LF only, like ``strbuf_split_buf`` (``str.splitlines`` would also
    split on CR, form feed, U+2028 and others)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines

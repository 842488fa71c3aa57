"""The fast path's reader of an agent's hook payload (guard/quick.py): the string members
of a JSON object's top level, read with the C string scanner ``json`` itself uses but
without ``json``'s imports (its decoder imports ``re``), and checked as strictly as
``json.loads`` would (bad input raises ValueError, the full check then answers).
"""

from __future__ import annotations


def top_strings(raw: bytes) -> dict[str, str] | None:
    """The string members of a JSON object's top level (others skipped, checked); None:
    not an object. Raises ValueError on input that is not JSON."""
    from _json import scanstring  # the C scanner json itself uses, without json's imports

    text = raw.decode("utf-8")
    out: dict[str, str] = {}
    i = _ws(text, 0)
    if text[i] != "{":
        return None
    i = _ws(text, i + 1)
    if text[i] == "}":
        return out
    while True:
        if text[i] != '"':
            raise ValueError("a key is not a string")
        key, i = scanstring(text, i + 1)
        i = _ws(text, i)
        if text[i] != ":":
            raise ValueError("no colon")
        i = _ws(text, i + 1)
        if text[i] == '"':
            value, i = scanstring(text, i + 1)
            out[key] = value
        else:
            out.pop(key, None)  # json.loads keeps the last of duplicated keys
            i = _skip(text, i)
        i = _ws(text, i)
        if text[i] == "}":
            if text[_ws(text, i + 1) :]:
                raise ValueError("extra data")
            return out
        if text[i] != ",":
            raise ValueError("no comma")
        i = _ws(text, i + 1)


def _ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _skip(text: str, i: int) -> int:
    """Past one JSON value that is not a string (nested strings read by the scanner)."""
    from _json import scanstring

    if text[i] not in "[{":
        j = i
        while j < len(text) and text[j] not in ",}] \t\n\r":
            j += 1
        token = text[i:j]
        if token not in ("true", "false", "null"):
            float(token)  # a number, else ValueError
            if token.lower() in ("nan", "inf", "-inf", "infinity", "-infinity"):
                raise ValueError("not a JSON number")
        return j
    depth = 0
    while True:
        c = text[i]
        if c == '"':
            _, i = scanstring(text, i + 1)
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1

"""A note holding several evidence records: how two people's judgements of one commit are
kept together, and which of them the gates and the audit read.

`tddgit notes sync` merges a remote's notes with the local ones; when both sides attached
a note to the same commit, the merged note holds every distinct record of both, one JSON
object after another (blank-line separated), sorted by when the step was judged, so two
people merging the same pair of notes write the same bytes and their merges agree.

The rule the gates and the audit apply: **the earliest record (smallest ``started``) is the
commit's evidence**: the judgement made when the step was committed, not a later re-run or
a copy. The other records stay in the note for anyone to read (``git notes show``).
"""

from __future__ import annotations

import json

from tddgit.evidence import MAX_BYTES, Evidence, EvidenceError, parse_evidence

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

_DECODER = json.JSONDecoder()


def split_records(data: bytes | str) -> list[str]:
    """The JSON documents of a note, in order, as text. A note that is not a sequence of
    JSON documents comes back whole, as one chunk (parsing it will say what is wrong)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    chunks: list[str] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return chunks
        try:
            _, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return [text] if not chunks else [*chunks, text[pos:]]
        chunks.append(text[pos:end])
        pos = end


def parse_records(data: bytes | str) -> list[Evidence]:
    """Every valid record of a note; EvidenceError when none is valid."""
    if len(data) > MAX_BYTES:
        raise EvidenceError(f"evidence is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    chunks = split_records(data)
    if len(chunks) <= 1:
        return [parse_evidence(data)]
    out: list[Evidence] = []
    first_error: EvidenceError | None = None
    for chunk in chunks:
        try:
            out.append(parse_evidence(chunk))
        except EvidenceError as exc:
            first_error = first_error or exc
    if not out:
        assert first_error is not None
        raise first_error
    return out


def parse_note(data: bytes | str) -> Evidence:
    """The evidence a note gives its commit: its earliest record (module docstring)."""
    return min(parse_records(data), key=lambda ev: ev.started)


def combine(*notes: bytes | str) -> str:
    """One note holding every distinct record of ``notes``, in a canonical order (by
    ``started``, then text), so merging the same notes anywhere gives the same bytes."""
    seen: dict[str, tuple[float, str]] = {}
    for note in notes:
        for chunk in split_records(note):
            key, started = _canonical(chunk)
            seen.setdefault(key, (started, chunk.strip()))
    ordered = sorted(seen.values())
    return "\n".join(text + "\n" for _, text in ordered)


def concat(*notes: bytes | str) -> str:
    """One note holding the distinct records of ``notes`` in the order given (a squash's
    steps, in the order they were made)."""
    seen: dict[str, str] = {}
    for note in notes:
        for chunk in split_records(note):
            seen.setdefault(_canonical(chunk)[0], chunk.strip())
    return "\n".join(text + "\n" for text in seen.values())


def _canonical(chunk: str) -> tuple[str, float]:
    try:
        raw: Any = json.loads(chunk)
    except (ValueError, RecursionError):
        return chunk.strip(), float("inf")  # kept as written; the audit reports it
    started = raw.get("started", 0.0) if isinstance(raw, dict) else 0.0
    key = json.dumps(raw, sort_keys=True, separators=(",", ":"))
    return key, float(started) if isinstance(started, (int, float)) else 0.0

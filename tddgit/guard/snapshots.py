"""Each file's content just before an agent writes it, kept per agent session, so the
post-write check can put it back exactly (bytes and mode, or absent).

Kept under ``<common git dir>/tddgit/guard/<session key>/``; parallel sessions never share
a directory. A snapshot is taken only when the post-write check will need it (a production
write outside an open red) and removed once the check has used it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from tddgit.git import Repo

ABSENT = "absent"


class Snapshot(NamedTuple):  # not a dataclass: cheaper to define on every hook call
    path: str  # repo-relative
    content: bytes | None  # None: the file did not exist
    mode: int | None
    # the blob the tree check had accepted for the path when the snapshot was taken ("":
    # not known): a revert keeps what was accepted since (another session's kept change)
    accepted: str | None = ""


def _sha(text: str) -> str:
    from importlib import import_module

    # CPython's own SHA-256 (3.11: _sha256, 3.12+: _sha2) first: hashlib's import loads
    # OpenSSL, milliseconds of every tree check, for the same digest
    for name in ("_sha256", "_sha2", "hashlib"):
        try:
            sha256: Any = import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return str(sha256(text.encode("utf-8", "surrogateescape")).hexdigest())
    raise ImportError("no SHA-256 implementation")


def session_dir(repo: Repo, session: str) -> Path:
    key = _sha(session)[:24]
    return repo.tddgit_dir / "guard" / key


def _base(repo: Repo, session: str, rel: str) -> Path:
    return session_dir(repo, session) / _sha(rel)[:32]


def take(repo: Repo, session: str, rel: str, accepted: str | None = "") -> None:
    """Record ``rel`` as it is now (written atomically: readers see all of it or none)."""
    target = repo.root / rel
    try:
        content: bytes | None = target.read_bytes()
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        content, mode = None, None
    base = _base(repo, session, rel)
    base.parent.mkdir(parents=True, exist_ok=True)
    meta = {"path": rel, "exists": content is not None, "mode": mode, "accepted": accepted}
    _atomic(base.with_suffix(".blob"), content or b"")
    _atomic(base.with_suffix(".json"), json.dumps(meta).encode())


def load(repo: Repo, session: str, rel: str) -> Snapshot | None:
    base = _base(repo, session, rel)
    try:
        meta = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
        data = base.with_suffix(".blob").read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("path") != rel:
        return None
    exists = bool(meta.get("exists"))
    mode = meta.get("mode")
    accepted = meta.get("accepted", "")
    return Snapshot(
        rel,
        data if exists else None,
        mode if isinstance(mode, int) else None,
        accepted if isinstance(accepted, str) or accepted is None else "",
    )


def staged(repo: Repo, rel: str) -> Snapshot:
    """The file as the index holds it (absent when it is not staged): what ``tddgit agent
    check`` compares a write with, having no snapshot of its own."""
    proc = repo.run("cat-file", "blob", f":{rel}", check=False)
    return Snapshot(rel, proc.stdout if proc.returncode == 0 else None, None)


def drop(repo: Repo, session: str, rel: str) -> None:
    base = _base(repo, session, rel)
    for suffix in (".json", ".blob"):
        with contextlib.suppress(OSError):
            base.with_suffix(suffix).unlink()
    with contextlib.suppress(OSError):
        session_dir(repo, session).rmdir()  # only when empty


def restore(repo: Repo, snap: Snapshot) -> None:
    """Put the file back exactly as the snapshot holds it."""
    target = repo.root / snap.path
    if snap.content is None:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    _atomic(target, snap.content, snap.mode)


def _atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    # a name of our own rather than tempfile's (its import costs the pre-write hook time);
    # the pid keeps parallel hooks apart
    tmp = path.with_name(f".tddgit-{os.getpid()}-{path.name}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

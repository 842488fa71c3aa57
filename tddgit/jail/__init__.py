"""A jail for code a model wrote: bubblewrap, no network, the user's files out of reach.

While a :func:`jailed` block is active, every test command ``runners.process`` starts runs
inside ``bwrap`` (Debian's ``bubblewrap``): every namespace unshared (no network, no other
process visible), the whole filesystem read-only, the homes and the temporary directory
replaced by empty ones, only the run's directories writable (the work tree or the gate's
snapshot, and tddgit's own ``tddgit-*`` scratch directories the runner reports through),
and a scrubbed environment (:mod:`tddgit.jail.env`). docs/llm.md, "The sandbox".

The active jail is a process-wide value, not a context variable: the gate runs the tests
from a background thread, which a context variable would not reach.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tddgit.jail.env import scrubbed

INSTALL = "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`)"

# Toolchains that commonly live in a home directory: visible (read-only) in the jail, so a
# project's runner still starts once the home is hidden. None holds credentials.
_TOOLCHAINS = (".cargo/bin", ".rustup", "go/pkg/mod", ".nvm", ".pyenv", ".volta", ".local/bin")
# Files readable by a root-run jail that hold no project data but do hold secrets.
_MASKED_FILES = ("/etc/shadow", "/etc/gshadow")


@dataclass(frozen=True)
class Jail:
    writable: tuple[Path, ...]  # the work tree (the gate's snapshots are found per run)
    pass_env: tuple[str, ...] = ()  # extra variable names the user lets through
    bwrap: str = "bwrap"


_lock = threading.Lock()
_active: Jail | None = None


@contextmanager
def jailed(jail: Jail | None) -> Iterator[None]:
    """Run every test command started inside the block in ``jail`` (None: no jail)."""
    global _active
    with _lock:
        previous, _active = _active, jail
    try:
        yield
    finally:
        with _lock:
            _active = previous


def active() -> Jail | None:
    with _lock:
        return _active


def unavailable(bwrap: str | None = None) -> str | None:
    """Why no jail can be made here (one line; :data:`INSTALL` says what to do), or None."""
    found = bwrap or shutil.which("bwrap")
    if not found:
        return "no sandbox for the model's tests: bwrap is not on PATH"
    try:
        proc = subprocess.run(
            [found, "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "true"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no sandbox for the model's tests: {found} cannot run ({exc})"
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return (
            f"no sandbox for the model's tests: bwrap fails here ({why[-1] if why else 'no reason'}); "
            "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)"
        )
    return None


def wrap(
    jail: Jail, argv: Sequence[str] | str, cwd: Path, env: Mapping[str, str] | None
) -> tuple[list[str], dict[str, str]]:
    """The ``bwrap`` command line running ``argv`` in ``cwd`` jailed, and its environment."""
    command = ["/bin/sh", "-c", argv] if isinstance(argv, str) else list(argv)
    source = dict(os.environ if env is None else env)
    inner = scrubbed(source, jail.pass_env)
    home = source.get("HOME") or os.path.expanduser("~")
    tmp_bases = _tmp_bases()
    hidden = _unique([*tmp_bases, "/home", "/root", home])
    writable = _unique(
        [str(p) for p in jail.writable] + _scratch_dirs(tmp_bases, cwd, command, source)
    )
    args = [jail.bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    args += ["--dev", "/dev", "--proc", "/proc"]
    for path in hidden:
        if os.path.isdir(path) and path != "/":
            args += ["--tmpfs", path]
    for path in _MASKED_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in _readable(hidden, home, command, source):
        args += ["--ro-bind", path, path]
    for path in writable:
        if os.path.isdir(path):
            args += ["--bind", path, path]
            git_dir = os.path.join(path, ".git")
            if os.path.isdir(git_dir):  # the tests never write the repository's history
                args += ["--ro-bind", git_dir, git_dir]
    inner["HOME"] = home
    inner["TMPDIR"] = "/tmp"
    args += ["--chdir", str(cwd), "--", *command]
    return args, inner


def _tmp_bases() -> list[str]:
    from tddgit.snapshot import user_tempdir

    return _unique(["/tmp", user_tempdir()])


def _scratch_dirs(
    bases: Sequence[str], cwd: Path, argv: Sequence[str], env: Mapping[str, str]
) -> list[str]:
    """tddgit's own ``tddgit-*`` directories under a temporary base that the run names
    (its directory, an argument, a variable): the gate's snapshot, the runner's report
    directory. Nothing else of the temporary directory is visible."""
    named = [str(cwd), *argv]
    for value in env.values():
        named += value.split(os.pathsep)
    found = []
    for text in named:
        if not os.path.isabs(text):
            continue
        for base in bases:
            rel = os.path.relpath(os.path.normpath(text), base)
            top = rel.split(os.sep)[0]
            if not rel.startswith("..") and top.startswith("tddgit-"):
                found.append(os.path.join(base, top))
    return _unique(found)


def _readable(
    hidden: Sequence[str], home: str, argv: Sequence[str], env: Mapping[str, str]
) -> list[str]:
    """Directories under a hidden one the run needs to read: the interpreter's, PATH's,
    the known toolchains', tddgit's own (the pytest probe)."""
    wanted = [os.path.join(home, t) for t in _TOOLCHAINS]
    wanted += env.get("PATH", "").split(os.pathsep)
    wanted += env.get("PYTHONPATH", "").split(os.pathsep)
    if argv and os.path.isabs(argv[0]):
        wanted += [os.path.dirname(os.path.dirname(argv[0]))]  # a virtualenv's root
        wanted += [os.path.dirname(os.path.dirname(os.path.realpath(argv[0])))]
    wanted.append(str(Path(__file__).resolve().parents[1]))
    # tddgit's own environment: a project interpreter may take pytest and the probe's
    # dependencies from it (a `.pth` naming its site-packages); a checkout under /tmp hid it
    wanted += [sys.prefix, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    out = []
    for path in wanted:
        if not path or not os.path.isabs(path) or not os.path.isdir(path):
            continue
        if any(_within(path, h) for h in hidden):
            out.append(os.path.normpath(path))
    return _unique(out)


def _within(path: str, parent: str) -> bool:
    rel = os.path.relpath(os.path.normpath(path), parent)
    return rel != "." and not rel.startswith("..")


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(os.path.normpath(i) for i in items if i))

"""Synthetic repositories for the benchmarks, built with ``git fast-import``.

``ensure_repo(n)`` returns a work tree with exactly ``n`` commits on ``main`` (merges
included), cached under ``bench/.cache/<name>-<n>/`` and rebuilt only when missing. The
history looks like a real TDD project: modules in ``src/`` with tests in ``tests/``,
red -> green -> refactor cycles marked with ``GSD-Phase`` trailers on some commits,
with message markers on others ("RED: ...", "[green] ...", "refactor: ...", emoji),
plain unmarked commits, test-after commits, docs, occasional merges of topic branches and
occasional renames. Test files hold real ``def test_...`` functions, some with several
``mock.patch`` decorators, so the audit's detectors have something to read.

Generation is deterministic (seeded), streamed into fast-import (memory stays flat), and
built in a temporary directory that is renamed into place only when complete.

    python bench/synth.py 100000        # build (or reuse) the 100k-commit repo
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.shapes import SHAPES, Shaped

CACHE = Path(__file__).resolve().parent / ".cache"
START = 1_600_000_000  # first commit time (unix seconds)
MAX_FUNCS = 6  # functions kept per module: files stay small however long the history
_DONE = "tddgit-synth-complete"


def ensure_repo(n: int, name: str = "synth") -> Path:
    """The path of a synthetic repository with ``n`` commits, building it if needed."""
    if n < 1:
        raise ValueError("a synthetic repository needs at least one commit")
    target = CACHE / f"{name}-{n}"
    if (target / ".git" / _DONE).exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / f".{name}-{n}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _build(tmp, n, hash_seed(name, n), name)
        if not (target / ".git" / _DONE).exists():  # another bench may have won the race
            shutil.rmtree(target, ignore_errors=True)  # a half-built leftover
            tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def hash_seed(name: str, n: int) -> int:
    return sum(ord(c) * 31**i for i, c in enumerate(name)) + n


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, stdout=subprocess.DEVNULL)


def _generator(name: str, seed: int) -> History | Shaped:
    """``synth`` (this module's TDD-kata-like history) or one of ``bench.shapes.SHAPES``."""
    if name == "synth":
        return History(seed)
    if name not in SHAPES:
        raise ValueError(f"unknown history shape {name!r}: synth, {', '.join(SHAPES)}")
    return Shaped(SHAPES[name], seed)


def _build(root: Path, n: int, seed: int, name: str = "synth") -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=root, stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    try:
        buf: list[bytes] = []
        size = 0
        for piece in _generator(name, seed).stream(n):
            buf.append(piece)
            size += len(piece)
            if size > 1 << 20:
                proc.stdin.write(b"".join(buf))
                buf, size = [], 0
        buf.append(b"done\n")
        proc.stdin.write(b"".join(buf))
        proc.stdin.close()
    except BaseException:
        proc.kill()
        raise
    finally:
        code = proc.wait()
    if code != 0:
        raise RuntimeError(f"git fast-import failed with exit code {code}")
    # A commit-graph, as `git gc` leaves in most real clones: both sides of the
    # benchmark (plain git log and tddgit) read the same repository.
    _git(root, "commit-graph", "write", "--reachable")
    _git(root, "checkout", "-q", "-f", "main")
    (root / ".git" / _DONE).write_text(f"{n}\n")


# --- the history model -------------------------------------------------------------------


@dataclass
class Module:
    """One production module and its test file, with the functions both know about."""

    key: int
    name: str
    funcs: list[int] = field(default_factory=list)  # implemented
    tests: list[int] = field(default_factory=list)  # tested
    next_func: int = 0
    mocks: int = 0  # how many mock.patch decorators the newest test wears
    has_test: bool = True  # False for a module added as code only (test-after)

    @property
    def sub(self) -> str:
        return f"sub{self.key % 10}"

    @property
    def src(self) -> str:
        return f"src/pkg/{self.sub}/{self.name}.py"

    @property
    def test(self) -> str:
        return f"tests/{self.sub}/test_{self.name}.py"

    def src_text(self, variant: int = 0) -> str:
        lines = [f'"""Module {self.name}."""\n\nimport os\nimport time\n']
        for j in self.funcs[-MAX_FUNCS:]:
            body = f"x + {j}" if (variant + j) % 3 else f"helper_{j}(x)"
            lines.append(
                f"\n\ndef helper_{j}(x):\n    return x + {j}\n"
                f"\n\ndef func_{j}(x):\n    # variant {variant}\n    return {body}\n"
            )
        return "".join(lines)

    def test_text(self) -> str:
        mod = f"pkg.{self.sub}.{self.name}"
        names = ", ".join(f"func_{j}" for j in self.tests[-MAX_FUNCS:]) or "os"
        out = [
            f"from unittest import mock\n\nimport pytest\n\nfrom {mod} import {names}\n",
        ]
        for j in self.tests[-MAX_FUNCS:]:
            patches = self.mocks if j == self.tests[-1] else j % 3
            decos = "".join(f'@mock.patch("{mod}.{t}")\n' for t in _TARGETS[:patches])
            args = ", ".join(f"m{i}" for i in range(patches))
            checks = "".join(f"    assert m{i} is not None\n" for i in range(min(patches, 2)))
            out.append(
                f"\n\n{decos}def test_func_{j}_adds({args}):\n"
                f"    assert func_{j}(1) == 1 + {j}\n{checks}"
            )
            if j % 4 == 0:
                out.append(
                    f"\n\n@pytest.mark.parametrize('x', [0, 1, 2])\n"
                    f"def test_func_{j}_many(x):\n    assert func_{j}(x) >= x\n"
                )
        return "".join(out)


_TARGETS = ["os.getcwd", "time.time", "os.listdir", "os.environ", "time.sleep", "os.stat"]

_RED = ["RED: add failing test for {f}", "[red] {f} should add", "test: failing test for {f}",
        "🔴 {f} spec", "Red: cover {f}", "-red- {f}"]  # fmt: skip
_GREEN = ["GREEN: implement {f}", "[green] make {f} pass", "feat: implement {f}",
          "🟢 {f} passes", "Green: {f}"]  # fmt: skip
_REFACTOR = ["refactor: tidy {f}", "[refactor] extract helper from {f}", "♻️ clean up {f}",
             "REFACTOR {f} naming"]  # fmt: skip
_PLAIN_TEST = ["Add tests for {f}", "More tests for {f}", "Cover {f}"]
_PLAIN_SRC = ["Implement {f}", "Update {f}", "Handle edge case in {f}", "Speed up {f}"]


class History:
    """Deterministic generator of a fast-import stream with exactly ``n`` commits."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.modules: list[Module] = []
        self.count = 0  # commits emitted
        self.mark = 0
        self.main_tip = 0  # mark of main's tip
        self.clock = START
        self.authors = [
            ("Tess Driven", "tess@example.com"),
            ("Ada Lovelace", "ada@example.com"),
            ("Kent Beck", "kent@example.com"),
            ("Grace Hopper", "grace@example.com"),
        ]

    # -- stream primitives --

    def commit(
        self,
        ref: str,
        message: str,
        files: dict[str, str],
        *,
        parent: int | None,
        merge: int | None = None,
        renames: tuple[tuple[str, str], ...] = (),
    ) -> bytes:
        self.mark += 1
        self.count += 1
        self.clock += self.rng.randint(30, 1800)
        name, email = self.authors[self.rng.randrange(len(self.authors))]
        msg = message.encode()
        parts = [
            f"commit {ref}\nmark :{self.mark}\n"
            f"author {name} <{email}> {self.clock - self.rng.randint(0, 20)} +0000\n"
            f"committer {name} <{email}> {self.clock} +0000\n"
            f"data {len(msg)}\n".encode(),
            msg,
            b"\n",
        ]
        if parent is not None:
            parts.append(f"from :{parent}\n".encode())
        if merge is not None:
            parts.append(f"merge :{merge}\n".encode())
        for old, new in renames:
            parts.append(f'R "{old}" "{new}"\n'.encode())
        for path, text in files.items():
            data = text.encode()
            parts.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
            parts.append(data)
            parts.append(b"\n")
        parts.append(b"\n")
        return b"".join(parts)

    def on_main(self, message: str, files: dict[str, str], **kw: object) -> bytes:
        parent = self.main_tip or None
        out = self.commit("refs/heads/main", message, files, parent=parent, **kw)  # type: ignore[arg-type]
        self.main_tip = self.mark
        return out

    # -- the project --

    def new_module(self) -> Module:
        key = len(self.modules)
        mod = Module(key, f"mod_{key:05d}")
        mod.funcs.append(0)
        mod.tests.append(0)
        mod.next_func = 1
        self.modules.append(mod)
        return mod

    def stream(self, n: int) -> Iterator[bytes]:
        files = {"README.md": "# synthetic project\n", "pyproject.toml": "[project]\nname='s'\n"}
        for _ in range(20):
            m = self.new_module()
            files[m.src] = m.src_text()
            files[m.test] = m.test_text()
        yield self.on_main("Initial import", files)
        while self.count < n:
            roll = self.rng.random()
            left = n - self.count
            if roll < 0.01 and left >= 4:
                yield from self.topic_branch(min(left - 1, self.rng.randint(2, 5)))
            elif roll < 0.013:
                yield self.rename()
            elif roll < 0.03:
                yield self.new_module_commit()
            elif roll < 0.08:
                yield self.docs()
            else:
                yield from self.cycle(left)

    def pick(self) -> Module:
        # Recent modules are where the work happens, as in real projects.
        k = len(self.modules) - 1 - int(self.rng.expovariate(1 / 40)) % len(self.modules)
        return self.modules[k]

    def style(self) -> str:
        r = self.rng.random()
        return "trailer" if r < 0.35 else "message" if r < 0.7 else "files"

    def cycle(self, left: int) -> Iterator[bytes]:
        """red -> green (-> refactor), in the chosen marking style; may be cut at ``left``."""
        mod, style = self.pick(), self.style()
        j = mod.next_func
        mod.next_func += 1
        f = f"func_{j}"
        mod.tests.append(j)
        mod.mocks = self.rng.choice([0, 0, 0, 1, 2, 4, 5])  # some tests over-mock
        mod.has_test = True
        yield self.on_main(
            self.message(style, "red", f, _RED, _PLAIN_TEST), {mod.test: mod.test_text()}
        )
        if left < 2:
            return
        mod.funcs.append(j)
        yield self.on_main(
            self.message(style, "green", f, _GREEN, _PLAIN_SRC), {mod.src: mod.src_text()}
        )
        if left >= 3 and self.rng.random() < 0.5:
            variant = self.rng.randint(1, 9)
            msg = self.message(style, "refactor", f, _REFACTOR, _PLAIN_SRC)
            yield self.on_main(msg, {mod.src: mod.src_text(variant)})

    def message(self, style: str, phase: str, f: str, marked: list[str], plain: list[str]) -> str:
        if style == "trailer":
            title = self.rng.choice(plain).format(f=f)
            body = f"\n\nWhy: keep {f} honest.\n" if self.rng.random() < 0.3 else ""
            sob = (
                "Signed-off-by: Tess Driven <tess@example.com>\n" if self.rng.random() < 0.2 else ""
            )
            return f"{title}{body}\n\nGSD-Phase: {phase}\n{sob}"
        if style == "message":
            return self.rng.choice(marked).format(f=f) + "\n"
        return self.rng.choice(plain).format(f=f) + "\n"

    def new_module_commit(self) -> bytes:
        m = self.new_module()
        if self.rng.random() < 0.5:  # test-after: production first, tests with it or later
            return self.on_main(f"Add {m.name}\n", {m.src: m.src_text(), m.test: m.test_text()})
        m.has_test = False
        return self.on_main(f"Add {m.name} (code only)\n", {m.src: m.src_text()})

    def docs(self) -> bytes:
        n = self.rng.randint(0, 30)
        text = f"# Notes {n}\n\nUpdated at {self.clock}.\n"
        return self.on_main(f"docs: update notes {n}\n", {f"docs/notes_{n}.md": text})

    def rename(self) -> bytes:
        mod = self.pick()
        old_src, old_test = mod.src, mod.test
        mod.name = f"{mod.name}_v{self.rng.randint(2, 99)}"
        renames = (
            ((old_src, mod.src), (old_test, mod.test)) if mod.has_test else ((old_src, mod.src),)
        )
        return self.on_main(f"Rename module to {mod.name}\n", {}, renames=renames)

    def topic_branch(self, k: int) -> Iterator[bytes]:
        """``k`` commits on a topic branch off main, then a merge commit on main."""
        tip = self.main_tip
        touched: dict[str, Module] = {}
        for i in range(k):
            mod = self.pick()
            j = mod.next_func
            mod.next_func += 1
            mod.tests.append(j)
            mod.funcs.append(j)
            mod.has_test = True
            files = {mod.test: mod.test_text(), mod.src: mod.src_text()}
            if i % 2 == 0:
                del files[mod.src]  # a test-only step on the branch
            touched.update(dict.fromkeys(files, mod))
            yield self.commit("refs/heads/topic", f"topic work on func_{j}\n", files, parent=tip)
            tip = self.mark
        # The merged tree: main's tree plus the branch's files as they are now.
        merged = {p: (m.test_text() if p == m.test else m.src_text()) for p, m in touched.items()}
        yield self.on_main("Merge branch 'topic'\n", merged, merge=tip)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("sizes", nargs="+", type=int, help="commit counts to build")
    parser.add_argument("--name", default="synth")
    args = parser.parse_args(argv)
    for n in args.sizes:
        t0 = time.perf_counter()
        path = ensure_repo(n, args.name)
        print(f"{path}  ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

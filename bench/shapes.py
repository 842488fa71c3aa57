"""History shapes for the audit benchmark besides ``synth`` (``bench/synth.py``).

Each shape is a fast-import stream with exactly ``n`` commits, deterministic (seeded),
whose statistics follow a kind of real history rather than a TDD kata:

- ``prodheavy``: 1-3 files per commit among 2,000 paths, 40% of the commits touch
  production code only (the audit's ``pre-test-code`` judgement works on those);
- ``mergeheavy``: pull-request flow, every topic branch of 1-2 commits merged with a
  merge commit (about 40% merges);
- ``pytestlike``: the statistics of pytest's own history (issue 20): 25.8% merges; of
  all commits 18.7% production only, 12.3% tests only, 19.2% both, 23.9% neither (docs,
  changelog), 0.2% empty; files per commit median 1, mean ~3.3, 90th percentile ~6, max
  435; messages median ~81 bytes, mean ~122; ~4,700 distinct paths.

The production and test files are real Python (the stub judgement parses them); a
commit changes one function of each file it touches, or adds a file.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

START = 1_600_000_000


@dataclass(frozen=True)
class Shape:
    """The knobs of a shape: its paths and how its commits are drawn."""

    prods: int  # production modules
    tests: int  # test modules
    others: int  # docs and other files
    merges: float  # share of all commits that are merges
    mix: tuple[float, float, float, float, float]  # prod only, tests only, both, neither, empty
    branch: tuple[int, int]  # commits per topic branch (min, max)
    files: str  # "few" (1-3) or "pytest" (heavy-tailed)
    new_file: float  # chance a touched path is a new one (its file is added)


SHAPES: dict[str, Shape] = {
    "prodheavy": Shape(1000, 600, 400, 0.0, (0.40, 0.20, 0.20, 0.19, 0.01), (1, 1), "few", 0.02),
    "mergeheavy": Shape(600, 400, 200, 0.40, (0.25, 0.25, 0.30, 0.19, 0.01), (1, 2), "few", 0.02),
    "pytestlike": Shape(
        1300, 1400, 2000, 0.258, (0.187, 0.123, 0.192, 0.239, 0.002), (1, 4), "pytest", 0.03
    ),
}

_WORDS = [
    "fix",
    "handle",
    "report",
    "collect",
    "fixture",
    "marker",
    "node",
    "param",
    "capture",
    "warning",
    "assertion",
    "rewrite",
    "plugin",
    "config",
    "option",
    "session",
    "cache",
    "terminal",
    "output",
    "skip",
    "xfail",
    "tmp",
    "path",
    "monkeypatch",
    "docs",
    "changelog",
    "typo",
    "ci",
    "release",
    "deprecate",
    "cleanup",
    "refactor",
    "support",
    "python",
    "version",
]


class Shaped:
    """Deterministic generator of a fast-import stream with exactly ``n`` commits."""

    def __init__(self, shape: Shape, seed: int) -> None:
        self.s = shape
        self.rng = random.Random(seed)
        self.count = self.mark = self.main_tip = 0
        self.clock = START
        self.version: dict[str, int] = {}  # path -> edits so far (its content's seed)
        self.live: dict[str, list[str]] = {"p": [], "t": [], "o": []}
        self.next = {"p": 0, "t": 0, "o": 0}
        self.authors = [(f"Dev {i}", f"dev{i}@example.com") for i in range(40)]

    # -- paths and contents --

    def _new_path(self, kind: str) -> str:
        i = self.next[kind]
        self.next[kind] += 1
        d = i % 25
        if kind == "p":
            return f"src/proj/pkg{d}/mod_{i:05d}.py"
        if kind == "t":
            return f"testing/pkg{d}/test_mod_{i:05d}.py"
        return f"changelog/{i:05d}.feature.rst" if i % 2 else f"doc/en/page_{i:05d}.rst"

    def _limit(self, kind: str) -> int:
        return {"p": self.s.prods, "t": self.s.tests, "o": self.s.others}[kind]

    def _path(self, kind: str) -> str:
        live = self.live[kind]
        if not live or (len(live) < self._limit(kind) and self.rng.random() < self.s.new_file):
            path = self._new_path(kind)
            live.append(path)
            return path
        # Recent files are where the work happens; a long tail reaches old ones.
        k = len(live) - 1 - int(self.rng.expovariate(1 / 150)) % len(live)
        return live[k]

    def _text(self, path: str) -> str:
        v = self.version[path]
        if path.endswith(".rst"):
            return f"Entry {path}\n{'=' * 20}\n\nRevision {v}: {self._sentence(8)}.\n"
        funcs = 3 + v % 4
        if "/test_" in path:
            body = "".join(
                f"\n\ndef test_case_{j}(tmp_path):\n    assert helper({j}) == {j + v % 3}\n"
                for j in range(funcs)
            )
            return f'"""Tests of {path}."""\n\nimport pytest\n\nfrom proj import helper\n{body}'
        body = "".join(
            f"\n\ndef func_{j}(x, y=None):\n    if y is None:\n        y = {j}\n"
            f"    return x * {j + v} + y\n"
            for j in range(funcs)
        )
        return f'"""Module {path}."""\n\nimport os\n{body}'

    def _sentence(self, words: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(words))

    def _message(self) -> str:
        # Subject ~40-70 bytes; a body on about half the commits (median ~81, mean ~122).
        subject = self._sentence(self.rng.randint(5, 10)).capitalize()
        if self.rng.random() < 0.45:
            return subject + "\n"
        body = "\n".join(self._sentence(6) for _ in range(self.rng.randint(1, 3)))
        return f"{subject}\n\n{body}\n"

    def _count(self) -> int:
        if self.s.files == "few":
            return self.rng.randint(1, 3)
        r = self.rng.random()
        if r < 0.66:
            return 1
        if r < 0.8:
            return 2
        if r < 0.92:
            return self.rng.randint(3, 6)
        if r < 0.997:
            return self.rng.randint(7, 20)
        return self.rng.randint(21, 435)

    def _files(self) -> dict[str, str]:
        p_only, t_only, both, neither, _empty = self.s.mix
        r = self.rng.random() * sum(self.s.mix)
        n = self._count()
        if r < p_only:
            kinds = ["p"] * n
        elif r < p_only + t_only:
            kinds = ["t"] * n
        elif r < p_only + t_only + both:
            n = max(n, 2)
            kinds = ["p", "t", *(self.rng.choice("pt") for _ in range(n - 2))]
        elif r < p_only + t_only + both + neither:
            kinds = ["o"] * n
        else:
            return {}
        out: dict[str, str] = {}
        for kind in kinds:
            path = self._path(kind)
            self.version[path] = self.version.get(path, -1) + 1
            out[path] = self._text(path)
        return out

    # -- the stream --

    def _commit(
        self, ref: str, message: str, files: dict[str, str], parent: int, merge: int = 0
    ) -> bytes:
        self.mark += 1
        self.count += 1
        self.clock += self.rng.randint(30, 3600)
        name, email = self.authors[min(int(self.rng.expovariate(1 / 6)), 39)]
        msg = message.encode()
        head = (
            f"commit {ref}\nmark :{self.mark}\n"
            f"author {name} <{email}> {self.clock - self.rng.randint(0, 600)} +0000\n"
            f"committer {name} <{email}> {self.clock} +0000\ndata {len(msg)}\n"
        )
        parts = [head.encode(), msg, b"\n"]
        if parent:
            parts.append(f"from :{parent}\n".encode())
        if merge:
            parts.append(f"merge :{merge}\n".encode())
        for path, text in files.items():
            data = text.encode()
            parts += [f"M 100644 inline {path}\ndata {len(data)}\n".encode(), data, b"\n"]
        parts.append(b"\n")
        return b"".join(parts)

    def _on_main(self, message: str, files: dict[str, str], merge: int = 0) -> bytes:
        out = self._commit("refs/heads/main", message, files, self.main_tip, merge)
        self.main_tip = self.mark
        return out

    def stream(self, n: int) -> Iterator[bytes]:
        first: dict[str, str] = {}
        for kind, k in (("p", 20), ("t", 20), ("o", 5)):
            for _ in range(k):
                path = self._new_path(kind)
                self.live[kind].append(path)
                self.version[path] = 0
                first[path] = self._text(path)
        yield self._on_main("Initial import\n", first)
        lo, hi = self.s.branch
        # p(merge) per step so that merges make up the shape's share of all commits.
        m, mean = self.s.merges, (lo + hi) / 2
        per_step = min(1.0, m / (1 - m * mean))
        while self.count < n:
            left = n - self.count
            k = self.rng.randint(lo, hi)
            if left >= k + 1 and self.rng.random() < per_step:
                yield from self._branch(k)
            else:
                yield self._on_main(self._message(), self._files())

    def _branch(self, k: int) -> Iterator[bytes]:
        tip = self.main_tip
        touched: dict[str, str] = {}
        for _ in range(k):
            files = self._files()
            touched.update(files)
            yield self._commit("refs/heads/topic", self._message(), files, tip)
            tip = self.mark
        number = self.rng.randint(1000, 99999)
        msg = f"Merge pull request #{number} from dev/{self._sentence(2).replace(' ', '-')}\n"
        yield self._on_main(msg, touched, merge=tip)

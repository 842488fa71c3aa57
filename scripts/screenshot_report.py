"""Make the README's picture of the HTML audit report: docs/images/audit-report.png.

Builds a demo-like repository in a temporary directory (a small text-statistics project,
two people, a dozen red -> green -> refactor cycles over a few days with evidence notes,
and the slips an audit exists to find: code before its test, a green without a red, a
refactor while red, a broken cycle), renders ``tddgit audit --format html`` and takes a
screenshot with headless Chromium.

    .venv/bin/python scripts/screenshot_report.py [--out PATH] [--keep DIR]

Needs git and Chromium (`apt-get install chromium`). Deterministic apart from the
"generated" date in the page header.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_717_400_000  # Mon 2024-06-03, morning UTC
PEOPLE = {"ada": ("Ada Lovelace", "ada@example.com"), "alan": ("Alan Turing", "alan@example.com")}
FEATURES = [
    ("word_count", "ada"),
    ("longest_word", "ada"),
    ("shortest_word", "alan"),
    ("char_count", "alan"),
    ("vowel_count", "ada"),
    ("title_case", "alan"),
    ("unique_words", "ada"),
    ("average_length", "alan"),
    ("sentence_count", "ada"),
    ("palindromes", "alan"),
    ("top_words", "ada"),
]


class Demo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.minute = 0.0
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            # git notes makes commits of its own
            "GIT_AUTHOR_NAME": "tddgit",
            "GIT_AUTHOR_EMAIL": "tddgit@example.com",
            "GIT_COMMITTER_NAME": "tddgit",
            "GIT_COMMITTER_EMAIL": "tddgit@example.com",
        }

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        proc = subprocess.run(
            ["git", *args],
            cwd=self.root,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            check=True,
        )
        return proc.stdout.strip()

    def commit(
        self,
        who: str,
        message: str,
        files: dict[str, str],
        *,
        phase: str | None = None,
        minutes: float = 12,
        targets: list[dict[str, object]] | None = None,
    ) -> str:
        for path, text in files.items():
            p = self.root / path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            self.git("add", "--", path)
        self.minute += minutes
        name, email = PEOPLE[who]
        when = f"@{int(T0 + self.minute * 60)} +0000"
        env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_DATE": when,
        }
        args = ["commit", "-q", "-m", message]
        if phase:
            args += ["--trailer", f"GSD-Phase: {phase}"]
        self.git(*args, env=env)
        sha = self.git("rev-parse", "HEAD")
        if phase and targets is not None:
            self.note(sha, phase, targets)
        return sha

    def note(self, sha: str, phase: str, targets: list[dict[str, object]]) -> None:
        evidence = {
            "schema": "tddgit.evidence/1",
            "phase": phase,
            "tree": self.git("rev-parse", f"{sha}^{{tree}}"),
            "parent": self.git("rev-parse", f"{sha}^"),
            "runner": "pytest",
            "command": ["python", "-m", "pytest"],
            "started": float(T0 + self.minute * 60),
            "duration": 0.9,
            "tddgit_version": "0.1.0",
            "scope": "changed" if phase == "red" else "all",
            "targets": targets,
            "suite": {"passed": 3, "failed": 1 if phase == "red" else 0},
            "test_ids": [],
            "changes": {},
            "findings": [],
            "coarse": False,
        }
        self.git("notes", "--ref=tddgit", "add", "-f", "-m", json.dumps(evidence), sha)


def _module(functions: list[str]) -> str:
    body = '"""Small text statistics."""\n'
    for name in functions:
        body += f"\n\ndef {name}(text: str) -> int:\n    return len(text.split())\n"
    return body


def _tests(functions: list[str]) -> str:
    body = "import textstats\n"
    for name in functions:
        body += f"\n\ndef test_{name}():\n    assert textstats.{name}('a bb ccc') >= 0\n"
    return body


def build(root: Path) -> None:
    d = Demo(root)
    d.git("init", "-q", "-b", "main")
    d.commit(
        "ada",
        "Project skeleton",
        {"pyproject.toml": '[project]\nname = "textstats"\n', "README.md": "# textstats\n"},
    )
    done: list[str] = []
    for n, (name, who) in enumerate(FEATURES):
        test_id = f"tests/test_textstats.py::test_{name}"
        if n == 3:  # code first, the test a day later: test-after-fact and pre-test-code
            d.commit(who, f"Add {name}", {"textstats.py": _module([*done, name])}, minutes=40)
            done.append(name)
            d.commit(who, f"Tests for {name}", {"tests/test_textstats.py": _tests(done)})
            continue
        if n == 6:  # a green with no red before it
            done.append(name)
            d.commit(
                who,
                f"{name}: implement",
                {"textstats.py": _module(done), "tests/test_textstats.py": _tests(done)},
                phase="green",
                targets=[{"id": test_id, "outcome": "passed", "cause": None}],
            )
            continue
        d.commit(
            who,
            f"{name}: failing test",
            {"tests/test_textstats.py": _tests([*done, name])},
            phase="red",
            minutes=30 if n % 4 == 0 else 10,
            targets=[{"id": test_id, "outcome": "failed", "cause": "not-implemented"}],
        )
        if n == 8:  # a refactor while the red is still open, then a new red: broken cycle
            d.commit(who, f"{name}: tidy", {"README.md": f"# textstats\n\n{name}\n"})
            d.commit(who, "REFACTOR: rename helpers", {"textstats.py": _module(done) + "\n"})
            continue
        done.append(name)
        d.commit(
            who,
            f"{name}: make it pass",
            {"textstats.py": _module(done)},
            phase="green",
            minutes=8 + 5 * (n % 3),
            targets=[{"id": test_id, "outcome": "passed", "cause": None}],
        )
        if n % 2 == 0:
            d.commit(
                who,
                f"{name}: refactor",
                {"textstats.py": _module(done).replace("int:", "int:  # count")},
                phase="refactor",
                minutes=6,
                targets=[],
            )
        if n % 4 == 3:
            d.minute += 60 * 18  # overnight


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("screenshot_report: Chromium not found (apt-get install chromium)")


def screenshot(html: Path, out: Path, profile: Path) -> None:
    subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=1200,1000",
            f"--screenshot={out}",
            html.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs/images/audit-report.png")
    parser.add_argument("--keep", type=Path, help="build the demo repository here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tddgit-shot-") as tmp:
        repo = args.keep or Path(tmp, "textstats")
        repo.mkdir(parents=True)
        build(repo)
        html = Path(tmp, "audit.html")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tddgit",
                "-C",
                str(repo),
                "audit",
                "--format",
                "html",
                "-o",
                str(html),
            ],
            check=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "TDDGIT_NO_PROGRESS": "1"},
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(html, args.out, Path(tmp, "profile"))
    print(f"{args.out} ({args.out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()

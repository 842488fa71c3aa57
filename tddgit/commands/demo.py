"""`tddgit demo [DIR]`: a whole red -> green -> refactor cycle in a throwaway repository,
including one refused step, printed command by command, then the history and its audit."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path

import click

from tddgit import console
from tddgit.errors import UsageError

_FILES_START = {
    "pyproject.toml": """\
        [project]
        name = "textstats"
        version = "0.1.0"

        [tool.pytest.ini_options]
        pythonpath = ["."]
        testpaths = ["tests"]
        """,
    ".gitignore": "__pycache__/\n.pytest_cache/\n",
    "textstats.py": '''\
        """Small text statistics."""


        def word_count(text: str) -> int:
            return len(text.split())
        ''',
    "tests/test_textstats.py": """\
        import textstats


        def test_word_count_counts_words():
            assert textstats.word_count("red green refactor") == 3
        """,
}

_RED_TEST = """\
    import textstats


    def test_word_count_counts_words():
        assert textstats.word_count("red green refactor") == 3


    def test_longest_word_picks_the_longest():
        assert textstats.longest_word("red green refactor") == "refactor"
    """

_GREEN_BROKEN = '''\
    """Small text statistics."""


    def word_count(text: str) -> int:
        return text.count(" ")  # "faster" -- and wrong


    def longest_word(text: str) -> str:
        return max(text.split(), key=len)
    '''

_GREEN = '''\
    """Small text statistics."""


    def word_count(text: str) -> int:
        return len(text.split())


    def longest_word(text: str) -> str:
        return max(text.split(), key=len)
    '''

_REFACTOR = '''\
    """Small text statistics."""


    def _words(text: str) -> list[str]:
        return text.split()


    def word_count(text: str) -> int:
        return len(_words(text))


    def longest_word(text: str) -> str:
        return max(_words(text), key=len)
    '''


class _Demo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Demo Developer",
            "GIT_AUTHOR_EMAIL": "demo@example.com",
            "GIT_COMMITTER_NAME": "Demo Developer",
            "GIT_COMMITTER_EMAIL": "demo@example.com",
            "NO_COLOR": os.environ.get("NO_COLOR", ""),
            "TDDGIT_NO_PROGRESS": "1",
        }
        self.env.pop("VIRTUAL_ENV", None)  # the demo project runs on this interpreter
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self.env.pop(var, None)

    def say(self, text: str) -> None:
        console.out("")
        console.out(console.paint(f"## {text}", "bold"))

    def write(self, files: dict[str, str]) -> None:
        for name, content in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(content))

    def step(
        self, title: str, files: dict[str, str], argv: Sequence[str], *, expect: int = 0
    ) -> None:
        """One step of the cycle: change files, stage exactly them, run the command."""
        self.say(title)
        self.write(files)
        self.run(["git", "add", *files])
        self.run(argv, expect=expect)

    def run(self, argv: Sequence[str], *, show: bool = True, expect: int | None = 0) -> int:
        shown = " ".join(shlex.quote(a) for a in argv)
        if argv[0] == "tddgit":
            argv = [sys.executable, "-m", "tddgit", *argv[1:]]
        if show:
            console.out(console.paint(f"$ {shown}", "cyan"))
        proc = subprocess.run(
            list(argv), cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )
        if show:
            for line in (proc.stdout + proc.stderr).rstrip().splitlines():
                console.out(f"  {line}")
        if expect is not None and proc.returncode != expect:
            raise UsageError(
                f"demo step `{shown}` exited {proc.returncode}, expected {expect}",
                "rerun with --debug and report it",
            )
        return proc.returncode


def _evidence_excerpt(root: Path) -> str:
    import json

    raw = subprocess.run(
        ["git", "notes", "--ref=tddgit", "show", "HEAD~2"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ev = json.loads(raw)
    lines = [
        f"  schema {ev['schema']}, phase {ev['phase']}, tree {ev['tree'][:10]}, "
        f"runner {ev['runner']}, {ev['duration']} s"
    ]
    for t in ev["targets"]:
        lines.append(f"  target {t['id']}: {t['outcome']} ({t['cause']}) -> {t['light']}")
    return "\n".join(lines)


def walk(root: Path) -> None:
    d = _Demo(root)
    d.say(f"A throwaway project in {root}")
    d.run(["git", "init", "-q", "-b", "main"], show=False)
    d.write(_FILES_START)
    d.run(["git", "add", "-A"], show=False)
    d.run(["git", "commit", "-q", "-m", "Start textstats"])
    d.say("Install the git hooks, so plain `git commit` follows the same rules")
    d.run(["tddgit", "hooks", "install"])

    d.step(
        "RED: a failing test for a feature that does not exist yet",
        {"tests/test_textstats.py": _RED_TEST},
        ["tddgit", "red", "-m", "longest_word: pick the longest word"],
    )
    d.step(
        "GREEN, refused: the implementation breaks another test",
        {"textstats.py": _GREEN_BROKEN},
        ["tddgit", "green", "-m", "longest_word: implement"],
        expect=1,
    )
    d.step(
        "GREEN: fix the regression; now every test passes",
        {"textstats.py": _GREEN},
        ["tddgit", "green", "-m", "longest_word: implement"],
    )
    d.step(
        "REFACTOR: one side at a time, all tests still passing",
        {"textstats.py": _REFACTOR},
        ["tddgit", "refactor", "-m", "Extract _words"],
    )
    d.step(
        "A plain `git commit` claiming a phase it is not: the commit-msg hook refuses",
        {"README.md": "# textstats\n"},
        ["git", "commit", "-q", "-m", "Add README", "--trailer", "GSD-Phase: green"],
        expect=1,
    )
    d.run(["git", "rm", "-q", "--cached", "README.md"], show=False)
    (root / "README.md").unlink()

    d.say("The history: every phase carries its trailer, and its evidence as a git note")
    d.run(
        [
            "git",
            "log",
            "--format=%h %<(40,trunc)%s GSD-Phase: "
            "%(trailers:key=GSD-Phase,valueonly,separator=%x2C)",
        ]
    )
    console.out(
        console.paint(
            "$ git notes --ref=tddgit show HEAD~2   # the red's evidence (excerpt)", "cyan"
        )
    )
    console.out(_evidence_excerpt(root))
    d.run(["tddgit", "status"])
    d.say("The audit of this history")
    d.run(["tddgit", "audit"], expect=None)
    _scripted_cycle(d)
    console.out("")
    console.out(f"The demo repository stays in {root}: look around, then delete it.")


_SPEC = """\
    spec_id: DEMO-1
    title: Character count
    components:
      - name: textstats
        type: module
        file_path: textstats.py
        interface:
          methods:
            - signature: "char_count(text: str) -> int"
              description: the number of characters that are not spaces
    test_cases:
      - id: TC-1
        component: textstats
        description: spaces do not count
        given: the text "red green"
        when: char_count is called
        then: it returns 8
    """

_MODEL_TEST = """\
import textstats


def test_tc_1_spaces_do_not_count():
    \"\"\"TC-1: spaces do not count.\"\"\"
    assert textstats.char_count("red green") == 8
"""


_CHAR_COUNT = """

def char_count(text: str) -> int:
    return len(text) - text.count(" ")
"""


def _script(*turns: tuple[str, dict[str, str]]) -> str:
    """What the scripted model answers, turn by turn (the replay provider's format)."""
    import json

    lines = []
    for n, (name, fields) in enumerate(turns, 1):
        use = {"type": "tool_use", "id": f"toolu_demo_{n}", "name": name, "input": fields}
        lines.append(json.dumps({"event": "response", "message": {"content": [use]}}))
    return "\n".join(lines) + "\n"


def _scripted_cycle(d: _Demo) -> None:
    d.say(
        "A SCRIPTED MODEL makes the next cycle from a spec: `tddgit generate red`, then "
        "`generate green` and `generate refactor` (the replay provider answers from a "
        "script: no key, no network)"
    )
    script = d.root / ".git" / "demo-model.jsonl"
    script.write_text(
        _script(
            ("list_files", {}),
            ("write_file", {"path": "tests/test_char_count.py", "content": _MODEL_TEST}),
            ("run_tests", {}),
            ("finish", {"summary": "a failing test for TC-1"}),
        )
    )
    with (d.root / "pyproject.toml").open("a") as fh:
        fh.write('\n[tool.tddgit.llm]\nprovider = "replay"\nreplay = ".git/demo-model.jsonl"\n')
    d.write({"specs/char_count.yaml": _SPEC})
    d.run(["git", "add", "pyproject.toml", "specs/char_count.yaml"], show=False)
    d.run(["git", "commit", "-q", "-m", "Spec DEMO-1; a scripted model for the demo"])
    d.run(["tddgit", "generate", "red", "specs/char_count.yaml", "--commit"])
    d.run(["git", "log", "-1", "--format=%h %s%n%(trailers)"])
    implemented = textwrap.dedent(_REFACTOR) + _CHAR_COUNT
    script.write_text(
        _script(
            ("read_file", {"path": "tests/test_char_count.py"}),
            ("write_file", {"path": "textstats.py", "content": implemented}),
            ("run_tests", {}),
            ("finish", {"summary": "char_count implemented"}),
        )
    )
    d.run(["tddgit", "generate", "green", "--commit"])
    script.write_text(
        _script(
            (
                "edit_file",
                {
                    "path": "textstats.py",
                    "old_text": 'len(text) - text.count(" ")',
                    "new_text": 'len(text.replace(" ", ""))',
                },
            ),
            ("finish", {"summary": "char_count counts what is left without spaces"}),
        )
    )
    d.run(["tddgit", "generate", "refactor", "--commit"])
    d.run(["git", "log", "-3", "--format=%h %s  [%(trailers:key=GSD-Phase,valueonly,separator=)]"])


@click.command("demo")
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Walk a whole red -> green -> refactor cycle (with one refused step) in a throwaway
    repository, then show its history and audit.

    \b
    Examples:
      tddgit demo                 # in a new temporary directory
      tddgit demo /tmp/tdd-demo   # in DIR (must not exist or be empty)
    """
    if directory is None:
        from tddgit.snapshot import user_tempdir

        # Not in tddgit's scratch directory: that one is removed when tddgit exits.
        directory = Path(tempfile.mkdtemp(prefix="tddgit-demo-", dir=user_tempdir()))
    elif directory.exists() and any(directory.iterdir()):
        raise UsageError(f"{directory} is not empty", "pass a new or empty directory")
    directory.mkdir(parents=True, exist_ok=True)
    walk(directory.resolve())

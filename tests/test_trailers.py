"""parse_trailers / cleanup_message agree with the real git (2.39) on every message."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tddgit.git import find_repo
from tddgit.history import read_history
from tddgit.trailers import cleanup_message, parse_trailers

from .conftest import GitRepo

SCISSORS = "# ------------------------ >8 ------------------------"


def git_parse(
    message: str, *, divider: bool = True, separators: str = ":"
) -> list[tuple[str, str]]:
    """What `git interpret-trailers --parse` says, as (key, value) pairs."""
    args = ["git", "-c", f"trailer.separators={separators}", "interpret-trailers", "--parse"]
    if not divider:
        args.append("--no-divider")
    out = subprocess.run(
        args,
        input=message.encode(),
        capture_output=True,
        check=True,
        timeout=10,
        cwd=os.environ["HOME"],  # outside any repository: no repo config
    ).stdout.decode()
    pairs = []
    for line in out.split("\n")[:-1]:
        key, _, value = line.partition(f"{separators[0]} ")
        pairs.append((key, value))
    return pairs


# (message, expected trailers) — each is also checked against git itself.
CASES: list[tuple[str, list[tuple[str, str]]]] = [
    ("", []),
    ("Title only\n", []),
    ("GSD-Phase: red\n", []),  # the title is never a trailer block
    ("Title\n\nGSD-Phase: red\n", [("GSD-Phase", "red")]),
    ("Title\n\nGSD-Phase: red", [("GSD-Phase", "red")]),  # no final newline
    ("Title\n\nGSD-Phase:red\nKey :  spaced  \n", [("GSD-Phase", "red"), ("Key", "spaced")]),
    ("Title\n\nGSD-Phase: red\n  and more\n\tand tabs\n", [("GSD-Phase", "red and more and tabs")]),
    # prose with a colon is not a trailer, and a block with prose is not all trailers
    ("Title\n\nNote: this is prose\nthat goes on.\n", []),
    ("Title\n\nGSD-Phase: red\n\nThe end: here we go\nnot a trailer\n", []),
    # only the last paragraph counts
    ("Title\n\nGSD-Phase: red\n\nmore prose\n", []),
    ("Title\n\nA: 1\n\nB: 2\n", [("B", "2")]),
    # the 25% rule needs a git-generated line
    (
        "Title\n\nSome text\nmore text\nGSD-Phase: red\nSigned-off-by: A <a@b>\n",
        [("GSD-Phase", "red"), ("Signed-off-by", "A <a@b>")],
    ),
    ("Title\n\nt1\nt2\nt3\nt4\nt5\nt6\nt7\nSigned-off-by: A <a@b>\n", []),
    (
        "Title\n\nline\n(cherry picked from commit abc123)\nGSD-Phase: green\n",
        [("GSD-Phase", "green")],
    ),
    ("Title\n\nGSD-Phase: red\nnot a trailer\n", []),
    # keys: alphanumerics and '-', blanks before the separator, nothing else
    ("Title\n\nBug #42: x\n", []),
    ("Title\n\nKey\t: v\n", [("Key", "v")]),
    ("Title\n\nnot a key: v\n", []),
    ("Title\n\nÜmlaut: v\n", []),
    ("Title\n\nKey: välue ✓\n", [("Key", "välue ✓")]),
    ("Title\n\n: no key\n", []),
    # the patch divider
    ("Title\n\nGSD-Phase: red\n---\nfoo: bar\n", [("GSD-Phase", "red")]),
    ("Title\n\nGSD-Phase: red\n---diff\n", []),
    ("--- Title\n\nGSD-Phase: red\n", []),
    # comments and trailing blank lines are ignored
    ("Title\n\nGSD-Phase: red\n# a comment\n\n\n", [("GSD-Phase", "red")]),
    ("Title\n\nGSD-Phase: red\n# comment\nKey: v\n", [("GSD-Phase", "red"), ("Key", "v")]),
    (f"Title\n\nGSD-Phase: red\n{SCISSORS}\nKey: v\n", [("GSD-Phase", "red")]),
    ("Title\n\nGSD-Phase: red\nConflicts:\n\tfile.py\n", [("GSD-Phase", "red")]),
    # CRLF messages
    ("Title\r\n\r\nGSD-Phase: red\r\nKey: v\r\n", [("GSD-Phase", "red"), ("Key", "v")]),
    ("Title\r\n\r\nGSD-Phase: red\r\n more\r\n", [("GSD-Phase", "red\r more")]),
]


@pytest.mark.parametrize(("message", "expected"), CASES)
def test_hand_written_cases(message: str, expected: list[tuple[str, str]]) -> None:
    assert parse_trailers(message) == expected
    assert git_parse(message) == expected


def test_divider_off_is_what_git_log_sees() -> None:
    msg = "Title\n\nbody\n---\n\nGSD-Phase: red\n"
    assert parse_trailers(msg) == [] == git_parse(msg)
    assert parse_trailers(msg, divider=False) == [("GSD-Phase", "red")]
    assert git_parse(msg, divider=False) == [("GSD-Phase", "red")]


def test_configured_separators() -> None:
    msg = "Title\n\nBug #42\nGSD-Phase: red\n"
    assert parse_trailers(msg, ":#") == [("Bug", "42"), ("GSD-Phase", "red")]
    assert git_parse(msg, separators=":#") == [("Bug", "42"), ("GSD-Phase", "red")]
    assert parse_trailers(msg) == []


# --- property: any generated message --------------------------------------------------------

_KEYS = st.sampled_from(
    ["GSD-Phase", "Signed-off-by", "Co-authored-by", "Fixes", "X", "a-b-1", "Key ", "Key\t"]
)
_WORDS = st.text(
    alphabet=st.characters(blacklist_characters="\n\x00", blacklist_categories=("Cs",)),
    max_size=20,
)
_LINE = st.one_of(
    st.builds(
        lambda k, s, v: f"{k}{s}{v}", _KEYS, st.sampled_from([":", ": ", " : ", "#"]), _WORDS
    ),
    st.builds(lambda v: f"Signed-off-by: {v}", _WORDS),
    st.builds(lambda v: f"(cherry picked from commit {v})", _WORDS),
    st.builds(lambda w, v: f"{w}: {v}", _WORDS, _WORDS),  # prose with a colon
    st.builds(lambda ws, v: f"{ws}{v}", st.sampled_from([" ", "\t", "  "]), _WORDS),
    st.sampled_from(["", "", " ", "---", "--- x", "---x", "# comment", "Conflicts:", "\tf.py"]),
    _WORDS,
)


@st.composite
def messages(draw: st.DrawFn) -> str:
    lines = [draw(_WORDS), *draw(st.lists(_LINE, max_size=12))]
    msg = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))
    if draw(st.booleans()):
        msg = msg.replace("\n", "\r\n")
    if draw(st.integers(0, 9)) == 0:
        msg += f"\n{SCISSORS}\nAfter: cut\n"
    return msg


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages())
def test_agrees_with_git_interpret_trailers(message: str) -> None:
    assert parse_trailers(message, divider=False) == git_parse(message, divider=False)
    # git 2.39 never returns on a `---` line above a scissors line (see _locate_end).
    assume(not ("---" in message and ">8" in message))
    assert parse_trailers(message) == git_parse(message)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages())
def test_agrees_with_git_for_other_separators(message: str) -> None:
    assert parse_trailers(message, ":#", divider=False) == git_parse(
        message, divider=False, separators=":#"
    )


def test_history_reader_and_parser_agree(repo: GitRepo) -> None:
    """git log's own %(trailers) parse (used by read_history) == parse_trailers(divider=False)."""
    rng = random.Random(7)
    pool = [
        "GSD-Phase: red", "Signed-off-by: A <a@b>", "prose: here", "text", "", "  more",
        "---", "(cherry picked from commit 1)", "Key : v", "# c", "K: ✓ é",
    ]  # fmt: skip
    msgs = [
        "T\n\n" + "\n".join(rng.choice(pool) for _ in range(rng.randint(0, 8))) + "\n"
        for _ in range(120)
    ]
    msgs.append("T\n\nKey: a\x1fb\nGSD-Phase: red\x1e\n")  # our own field separators
    stream = "".join(
        f"commit refs/heads/main\ncommitter T <t@e> {1700000000 + i} +0000\n"
        f"data {len(m.encode())}\n{m}\n"
        for i, m in enumerate(msgs)
    )
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo.root, input=stream.encode(), check=True
    )
    commits = list(read_history(find_repo(repo.root), reverse=True))
    assert len(commits) == len(msgs)
    for commit in commits:
        assert list(commit.trailers) == parse_trailers(commit.message, divider=False)
    assert commits[-1].trailers == (("Key", "a\x1fb"), ("GSD-Phase", "red\x1e"))


# --- cleanup_message ---------------------------------------------------------------------

CLEANUP = [
    ("", ""),
    ("\n\n", ""),
    ("Title  \n\n\n\nbody\t\n\n", "Title\n\nbody\n"),
    ("\n\nTitle\n# comment\n\n# more\nbody", "Title\n\nbody\n"),
    ("Title\r\n\r\nbody\r\n", "Title\n\nbody\n"),
    (f"Title\n\nGSD-Phase: red\n{SCISSORS}\ndiff --git a/x b/x\n+added\n", "Title\n\nGSD-Phase: red\n"),
    (f"{SCISSORS}\nall gone\n", ""),
    ("Title\n #not a comment\n", "Title\n #not a comment\n"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CLEANUP)
def test_cleanup_message(text: str, expected: str) -> None:
    assert cleanup_message(text) == expected


def test_cleanup_matches_what_git_commit_stores(repo: GitRepo, tmp_path: Path) -> None:
    """`git commit -v` through an editor: git stores exactly cleanup_message(the file)."""
    editor = tmp_path / "editor.py"
    # git runs `$GIT_EDITOR "$@"`: argv is [our source file, git's COMMIT_EDITMSG]
    editor.write_text("import shutil, sys\nshutil.copyfile(sys.argv[1], sys.argv[2])\n")
    repo.write("a", "0")
    repo.commit("init")
    for i, (text, cleaned) in enumerate(CLEANUP):
        if not cleaned:
            continue  # git refuses an empty message
        src = tmp_path / f"msg{i}"
        src.write_bytes(text.encode())
        repo.write("a", str(i + 1))
        repo.add("a")
        subprocess.run(
            ["git", "commit", "-q", "-v"],
            cwd=repo.root,
            env={**os.environ, "GIT_EDITOR": f'"{sys.executable}" "{editor}" "{src}"'},
            check=True,
            capture_output=True,
        )
        assert repo.git("log", "-1", "--format=%B") == cleaned + "\n", text

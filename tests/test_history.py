"""read_history / history_notes against real repositories built in tmp_path."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tddgit.errors import GitError, UsageError
from tddgit.git import Repo, find_repo
from tddgit.history import _log_args, history_notes, read_history
from tddgit.logparse import parse_stream as _parse_stream
from tddgit.model import FileChange

from .conftest import GitRepo


def _repo(r: GitRepo) -> Repo:
    return find_repo(r.root)


def _shas(r: GitRepo, *args: str) -> list[str]:
    return r.git("rev-list", *args).split()


def test_linear_history_with_trailers_and_fields(repo: GitRepo) -> None:
    repo.write("tests/test_a.py", "def test_a():\n    assert f()\n")
    red = repo.commit(
        "Add failing test\n\nGSD-Phase: red\nSigned-off-by: Tess <t@e>\n",
        date="2024-01-02T03:04:05Z",
    )
    repo.write("src/a.py", "def f():\n    return 1\n")
    green = repo.commit("Make it pass\n\nGSD-Phase: green\n")

    commits = list(read_history(_repo(repo)))

    assert [c.sha for c in commits] == [green, red]
    first = commits[1]
    assert first.parents == ()
    assert first.tree == repo.git("rev-parse", f"{red}^{{tree}}").strip()
    assert (first.author_name, first.author_email) == ("Tess Driven", "tess@example.com")
    assert first.author_time == first.committer_time == 1704164645
    assert first.message == "Add failing test\n\nGSD-Phase: red\nSigned-off-by: Tess <t@e>\n"
    assert first.trailers == (("GSD-Phase", "red"), ("Signed-off-by", "Tess <t@e>"))
    assert first.trailer("gsd-phase") == "red"
    assert first.files == (FileChange("A", "tests/test_a.py"),)
    assert commits[0].parents == (red,)
    assert commits[0].files == (FileChange("A", "src/a.py"),)


def test_trailer_like_line_in_prose_and_continuation(repo: GitRepo) -> None:
    repo.write("a", "1")
    repo.commit("Title\n\nNote: this is prose\nthat goes on.\n\nGSD-Phase: red\n  and more\n")
    (c,) = read_history(_repo(repo))
    assert c.trailers == (("GSD-Phase", "red and more"),)


def test_branches_and_merges_in_topological_order(repo: GitRepo) -> None:
    repo.write("a", "1")
    base = repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("b", "1")
    side = repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("c", "1")
    main = repo.commit("main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = repo.head()

    commits = list(read_history(_repo(repo)))

    assert [c.sha for c in commits] == _shas(repo, "--topo-order", "HEAD")
    by_sha = {c.sha: c for c in commits}
    assert by_sha[merge].parents == (main, side)
    assert by_sha[merge].is_merge and by_sha[merge].files == ()
    assert commits[-1].sha == base
    seen: set[str] = set()
    for c in commits:  # children before parents
        assert not (set(c.parents) & seen)
        seen.add(c.sha)
    reverse = [c.sha for c in read_history(_repo(repo), reverse=True)]
    assert reverse == list(reversed(_shas(repo, "--topo-order", "HEAD")))


def _every_kind_of_change(repo: GitRepo, *, odd: bool = False) -> None:
    """Commits one to four: adds, a rename and a deletion, a copy (or an add) and a
    modification, a type change. ``odd``: also a file with a newline in its name, and an
    empty commit before four."""
    body = "".join(f"line {i}\n" for i in range(40))
    repo.write("src/old.py", body)
    repo.write("gone.txt", "bye\n")
    if odd:
        repo.write("odd\nname ü.py", "x\n")
    repo.commit("one")
    repo.git("mv", "src/old.py", "src/new.py")
    repo.git("rm", "-q", "gone.txt")
    repo.commit("two")
    repo.write("src/copy.py", body)
    repo.write("src/new.py", body + "more\n")
    repo.commit("three")
    os.unlink(repo.root / "src/copy.py")
    os.symlink("new.py", repo.root / "src/copy.py")
    if odd:
        repo.git("commit", "-q", "--allow-empty", "-m", "empty")
    repo.commit("four")


def test_renames_deletions_copies_and_type_changes(repo: GitRepo) -> None:
    _every_kind_of_change(repo)

    three_to_one = list(read_history(_repo(repo)))
    assert three_to_one[0].files == (FileChange("T", "src/copy.py"),)
    assert set(three_to_one[2].files) == {
        FileChange("R", "src/new.py", "src/old.py"),
        FileChange("D", "gone.txt"),
    }
    assert set(three_to_one[1].files) == {
        FileChange("A", "src/copy.py"),
        FileChange("M", "src/new.py"),
    }
    with_copies = list(read_history(_repo(repo), find_copies=True))
    assert FileChange("C", "src/copy.py", "src/new.py") in with_copies[1].files


def test_empty_commit_and_empty_message(repo: GitRepo) -> None:
    repo.write("a", "1")
    repo.commit("first")
    repo.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", "")
    repo.git("commit", "-q", "--allow-empty", "-m", "nothing")
    commits = list(read_history(_repo(repo)))
    assert [(c.message, c.files) for c in commits[:2]] == [("nothing\n", ()), ("", ())]
    assert commits[1].subject == ""
    assert commits[2].files == (FileChange("A", "a"),)


def test_odd_file_names_come_through_exactly(repo: GitRepo) -> None:
    names = ["with space.py", "new\nline.py", "quo\"te's.py", "tab\there.py", "ünï.py"]
    for name in names:
        (repo.root / name).write_text("x\n")
    repo.commit("odd names")
    # A path that is not UTF-8: bytes straight into the index.
    raw = b"caf\xe9.py"
    oid = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=repo.root,
            input=b"y\n",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    subprocess.run(
        ["git", "update-index", "--add", "--cacheinfo", f"100644,{oid},".encode() + raw],
        cwd=repo.root,
        check=True,
    )
    repo.git("commit", "-q", "-m", "latin-1 name")

    commits = list(read_history(_repo(repo)))

    assert [os.fsencode(f.path) for f in commits[0].files] == [raw]
    assert commits[0].files[0].path == raw.decode("utf-8", "surrogateescape")
    assert sorted(f.path for f in commits[1].files) == sorted(names)


def test_non_utf8_messages_do_not_crash(repo: GitRepo) -> None:
    repo.write("a", "1")
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    (repo.root / "msg").write_bytes("Caf\xe9 ol\xe9\n\nGSD-Phase: r\xe9d\n".encode("latin-1"))
    repo.git("add", "a")
    repo.git("commit", "-q", "-F", "msg")
    repo.git("config", "--unset", "i18n.commitEncoding")
    # Undeclared non-UTF-8 bytes: `git commit` would repair them, so write the object.
    head = repo.head()
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    raw = (
        f"tree {tree}\nparent {head}\n"
        "author T <t@e> 1700000000 +0000\ncommitter T <t@e> 1700000000 +0000\n\n"
    ).encode() + b"Bad \xff\xfe bytes\n"
    oid = (
        subprocess.run(
            ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
            cwd=repo.root,
            input=raw,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    repo.git("update-ref", "HEAD", oid)

    bad, declared = read_history(_repo(repo))

    assert declared.message == "Café olé\n\nGSD-Phase: réd\n"
    assert declared.trailers == (("GSD-Phase", "réd"),)
    assert bad.message == "Bad \ufffd\ufffd bytes\n"
    bad.message.encode("utf-8")  # printable anywhere: no surrogates left


def test_ranges_dates_author_and_paths(repo: GitRepo) -> None:
    repo.write("src/a.py", "1")
    one = repo.commit("one", date="2024-01-01T00:00:00Z")
    repo.write("tests/test_a.py", "1")
    two = repo.commit("two", date="2024-02-01T00:00:00Z")
    repo.write("src/a.py", "2")
    repo.git(
        "commit", "-q", "-am", "three", "--author", "Other Person <o@p>",
        env={"GIT_AUTHOR_DATE": "2024-03-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-03-01T00:00:00Z"},
    )  # fmt: skip
    three = repo.head()
    r = _repo(repo)

    assert [c.sha for c in read_history(r, [f"{one}..HEAD"])] == [three, two]
    assert [c.sha for c in read_history(r, [three, f"^{two}"])] == [three]
    assert [c.sha for c in read_history(r, since="2024-01-15")] == [three, two]
    assert [c.sha for c in read_history(r, until="2024-01-15")] == [one]
    assert [c.sha for c in read_history(r, author="Other")] == [three]
    assert [c.sha for c in read_history(r, paths=["tests"])] == [two]
    assert [c.sha for c in read_history(r, paths=["src/a.py"])] == [three, one]
    assert [c.files for c in read_history(r, with_files=False)] == [(), (), ()]
    assert len(list(read_history(r, ["--all"]))) == 3


def test_bad_revision_is_a_usage_error(repo: GitRepo) -> None:
    repo.write("a", "1")
    repo.commit("one")
    r = _repo(repo)
    with pytest.raises(UsageError, match=r"bad revision or range: nope\.\.HEAD") as info:
        list(read_history(r, ["nope..HEAD"]))
    assert "rev-parse" in (info.value.fix or "")
    with pytest.raises(UsageError, match="bad revision"):
        list(read_history(r, ["--output=/tmp/x"]))
    with pytest.raises(UsageError, match="bad revision"):
        list(read_history(r, ["does-not-exist"]))


def test_empty_repository_is_a_usage_error(repo: GitRepo) -> None:
    with pytest.raises(GitError, match="no commits yet") as info:
        list(read_history(_repo(repo)))
    assert info.value.exit_code == 2


def test_shallow_clone_note(repo: GitRepo, tmp_path: Path) -> None:
    for i in range(3):
        repo.write("a", str(i))
        repo.commit(f"c{i}")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], check=True
    )
    r = find_repo(clone)
    commits = list(read_history(r))
    assert len(commits) == 2
    (note,) = history_notes(r)
    assert note.startswith(f"shallow clone: history before {commits[-1].sha[:12]} is cut")
    assert history_notes(_repo(repo)) == []


def test_early_stop_leaves_no_process(repo: GitRepo) -> None:
    # Far more output than the pipe holds, so git is still writing when we stop.
    _import_commits(repo, 3000, message_size=2000)
    before = _git_children()
    it = read_history(_repo(repo))
    first = next(it)
    assert first.files
    assert _git_children() - before  # git is running while we hold the iterator
    it.close()
    _no_git_left(before)


def test_full_read_of_many_commits_matches_rev_list(repo: GitRepo) -> None:
    # Crosses many read chunks: commits must never be split or merged at chunk edges.
    stream = "".join(
        f"commit refs/heads/main\ncommitter T <t@e> {1700000000 + i} +0000\n"
        f"data {len(m := f'msg {i}' + chr(10) * 2 + 'GSD-Phase: red' + chr(10))}\n{m}"
        f"M 644 inline dir/file {i % 97}.py\ndata 2\n{i % 10}\n\n"
        for i in range(4000)
    )
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo.root, input=stream.encode(), check=True
    )
    commits = list(read_history(_repo(repo)))
    assert [c.sha for c in commits] == _shas(repo, "--topo-order", "HEAD")
    assert all(c.trailers == (("GSD-Phase", "red"),) for c in commits)
    assert all(len(c.files) == 1 and c.files[0].path.startswith("dir/file ") for c in commits)


def _import_commits(repo: GitRepo, n: int, *, message_size: int) -> None:
    """``n`` commits, each changing one of 50 files, with messages of ``message_size``."""
    msg = "x" * (message_size - 1) + "\n"
    stream = "".join(
        f"commit refs/heads/main\ncommitter T <t@e> {1700000000 + i} +0000\n"
        f"data {len(msg)}\n{msg}"
        f"M 644 inline f{i % 50}\ndata 6\n{i:05}\n\n"
        for i in range(n)
    )
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo.root, input=stream.encode(), check=True
    )


def _no_git_left(before: set[int]) -> None:
    deadline = time.monotonic() + 5
    while _git_children() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not (_git_children() - before)


def _git_children() -> set[int]:
    """Live (not zombie) `git log` / `git diff-tree` processes that are children of this
    test process."""
    me = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == me and (b"log\0-z" in cmd or b"diff-tree\0--stdin" in cmd):
            found.add(int(entry))
    return found


@pytest.mark.parametrize("blobs", [False, True], ids=["name-status", "raw"])
def test_any_chunking_of_the_stream_gives_the_same_commits(repo: GitRepo, blobs: bool) -> None:
    """Cut git's real output at every kind of boundary (mid-field, mid-UTF-8 character)."""
    repo.write("tests/test_ü.py", "1")
    repo.commit("Tést\n\nGSD-Phase: red\n")
    repo.write("src/with space.py", "1")
    repo.commit("two")
    repo.git("mv", "src/with space.py", "src/moved.py")
    repo.git("commit", "-q", "--allow-empty", "-m", "three")
    repo.git("commit", "-q", "--allow-empty", "-m", "empty")
    r = _repo(repo)
    expected = list(read_history(r, blobs=blobs))
    args = _log_args(("HEAD",), None, None, None, (), True, False, False, blobs)
    out = subprocess.run(["git", *args], cwd=repo.root, capture_output=True, check=True).stdout
    for size in (1, 2, 3, 7, 64):
        read_fd, write_fd = os.pipe()
        writer = threading.Thread(target=_trickle, args=(write_fd, out, size))
        writer.start()
        with os.fdopen(read_fd, "rb") as stream:
            got = list(_parse_stream(stream, with_files=True, blobs=blobs))
        writer.join()
        assert got == expected, size
    assert sum(len(c.blobs) for c in expected) == (3 if blobs else 0)


def _trickle(fd: int, data: bytes, size: int) -> None:
    with os.fdopen(fd, "wb", buffering=0) as w:
        for i in range(0, len(data), size):
            w.write(data[i : i + size])
            if i % (size * 16) == 0:
                time.sleep(0)  # let the reader see short reads


def test_output_encoding_config_does_not_change_what_we_read(repo: GitRepo) -> None:
    repo.write("a", "1")
    repo.commit("Café olé")  # representable in Latin-1, so git would re-encode it
    repo.git("config", "i18n.logOutputEncoding", "ISO-8859-1")
    (c,) = read_history(_repo(repo))
    assert c.message == "Café olé\n"


def test_commits_are_built_exactly_as_the_dataclass_builds_them() -> None:
    """The reader fills ``Commit`` without its per-field __init__ (a hot loop): the result
    must be indistinguishable, and must notice if ``Commit`` ever gains a field."""
    from dataclasses import fields

    from tddgit.logparse import _commit
    from tddgit.model import Commit

    values = {
        "sha": "a" * 40,
        "parents": ("b" * 40,),
        "tree": "c" * 40,
        "author_name": "Tess",
        "author_email": "t@e",
        "author_time": 1,
        "committer_time": 2,
        "message": "Subject\n\nGSD-Phase: red\n",
        "trailers": (("GSD-Phase", "red"),),
        "files": (FileChange("A", "x.py"),),
        "blobs": (("d" * 40, None),),
    }
    assert [f.name for f in fields(Commit)] == list(values)
    built = _commit(dict(values))
    assert built == Commit(**values)  # type: ignore[arg-type]
    assert built.subject == "Subject" and built.trailer("gsd-phase") == "red"
    assert hash(built) == hash(Commit(**values))  # type: ignore[arg-type]


def test_blob_ids_of_every_change_match_git(repo: GitRepo) -> None:
    """``blobs=True`` (git log --raw): the same commits, and each side's blob id is the one
    git names for that commit's (or its parent's) path, whatever the change or the name."""
    _every_kind_of_change(repo, odd=True)
    r = _repo(repo)

    plain = list(read_history(r))
    with_blobs = list(read_history(r, blobs=True, find_copies=True))
    assert [c.sha for c in with_blobs] == [c.sha for c in plain]
    seen = 0
    for c, p in zip(with_blobs, read_history(r, find_copies=True), strict=True):
        assert c.files == p.files
        assert len(c.blobs) == len(c.files)
        for f, ids in zip(c.files, c.blobs, strict=True):
            new = _rev(repo, f"{c.sha}:{f.path}") if f.status != "D" else None
            old_path = f.old_path or f.path
            old = _rev(repo, f"{c.parents[0]}:{old_path}") if f.status != "A" else None
            assert ids == (new, old), (c.message, f)
            seen += 1
    assert seen == 8
    statuses = {f.status for c in with_blobs for f in c.files}
    assert statuses == {"A", "R", "D", "M", "C", "T"}


def _rev(repo: GitRepo, name: str) -> str:
    return repo.git("rev-parse", "--verify", "--literal-pathspecs", name).strip()


# --- parents first (the audit's read: rev-list, then diff-tree --stdin in runs) ---------


@pytest.fixture
def short_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of 2 then 3 commits, so even small histories cross many run edges."""
    import tddgit.history as history

    monkeypatch.setattr(history, "_FIRST_RUN", 2)
    monkeypatch.setattr(history, "_RUN", 3)


def _with_merges_and_odd_messages(repo: GitRepo) -> None:
    _every_kind_of_change(repo, odd=True)
    repo.git("checkout", "-q", "-b", "side")
    repo.write("side.py", "1")
    repo.commit("side\n\nGSD-Phase: green\nSigned-off-by: T <t@e>\n")
    repo.git("checkout", "-q", "main")
    repo.write("main.py", "1")
    repo.commit("Tést ünï")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", "")


@pytest.mark.usefixtures("short_runs")
@pytest.mark.parametrize("blobs", [False, True], ids=["name-status", "raw"])
def test_parents_first_is_newest_first_turned_around(repo: GitRepo, blobs: bool) -> None:
    """Every field of every commit (merges, renames, copies, type changes, empty commits
    and messages, odd names) is what the newest-first ``git log`` read gives."""
    _with_merges_and_odd_messages(repo)
    r = _repo(repo)
    newest_first = list(read_history(r, blobs=blobs, find_copies=True))
    parents_first = list(read_history(r, reverse=True, blobs=blobs, find_copies=True))
    assert len(parents_first) == 9
    assert parents_first == newest_first[::-1]
    merge = next(c for c in parents_first if c.is_merge)
    assert merge.files == () and merge.blobs == () and len(merge.parents) == 2
    assert parents_first[0].files  # the root commit lists its files
    assert {f.status for c in parents_first for f in c.files} == {"A", "R", "D", "M", "C", "T"}


@pytest.mark.usefixtures("short_runs")
def test_parents_first_ranges_dates_and_author(repo: GitRepo) -> None:
    for i in range(7):
        repo.write("src/a.py", str(i))
        repo.commit(f"c{i}", date=f"2024-01-{i + 1:02}T00:00:00Z")
    shas = _shas(repo, "--reverse", "HEAD")
    r = _repo(repo)

    def read(*revs: str, **kw: str) -> list[str]:
        return [c.sha for c in read_history(r, revs or ("HEAD",), reverse=True, **kw)]

    assert read() == shas
    assert read(f"{shas[2]}..HEAD") == shas[3:]
    assert read(since="2024-01-04T12:00:00Z") == shas[4:]
    assert read(until="2024-01-02T12:00:00Z") == shas[:2]
    assert read(author="nobody") == []
    assert read("HEAD..HEAD") == []  # nothing selected: nothing shown (not HEAD)
    assert read("--all") == shas


def test_parents_first_errors_are_the_same(repo: GitRepo) -> None:
    r = _repo(repo)
    with pytest.raises(GitError, match="no commits yet"):
        list(read_history(r, reverse=True))
    repo.write("a", "1")
    repo.commit("one")
    with pytest.raises(UsageError, match=r"bad revision or range: nope\.\.HEAD"):
        list(read_history(r, ["nope..HEAD"], reverse=True))
    with pytest.raises(UsageError, match="bad revision"):
        list(read_history(r, ["--output=/tmp/x"], reverse=True))


def test_parents_first_of_a_shallow_clone(repo: GitRepo, tmp_path: Path) -> None:
    for i in range(4):
        repo.write("a", str(i))
        repo.commit(f"c{i}")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], check=True
    )
    commits = list(read_history(find_repo(clone), reverse=True))
    assert [c.message for c in commits] == ["c2\n", "c3\n"]
    assert commits[0].parents == ()  # the cut: shown as a root, with all its files
    assert commits[0].files == (FileChange("A", "a"),)


def test_parents_first_many_commits_and_early_stop(repo: GitRepo) -> None:
    """Default run sizes over thousands of commits; stopping early leaves no git behind."""
    _import_commits(repo, 5000, message_size=1000)
    r = _repo(repo)
    shas = _shas(repo, "--topo-order", "--reverse", "HEAD")
    got = list(read_history(r, reverse=True))
    assert [c.sha for c in got] == shas
    assert [c.files[0].path for c in got[:3]] == ["f0", "f1", "f2"]

    before = _git_children()
    it = read_history(r, reverse=True)
    assert next(it).sha == shas[0]
    running = _git_children() - before  # git is running while we hold the iterator
    assert running
    for pid in running:  # and buffers its output: not a write(2) per commit
        assert b"GIT_FLUSH=0" in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    it.close()
    _no_git_left(before)

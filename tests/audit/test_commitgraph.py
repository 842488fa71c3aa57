"""The audit's own commit-graph (``tddgit.commitgraph``): written in the background after
an audit that walked many commits it lacks, read by the next audit's walk, never a
different report."""

from __future__ import annotations

import io
import os
import subprocess
import time
from pathlib import Path

from tddgit import commitgraph
from tddgit.audit import AuditOptions, run_audit
from tddgit.audit.report import write_json
from tddgit.config import load_config
from tddgit.git import find_repo
from tests.conftest import GitRepo


def grow(repo: GitRepo, n: int, start: int = 0) -> None:
    """``n`` more commits made by ``git fast-import`` (a test file, then its code, in
    turn): a history long enough to be worth a graph."""
    branch = repo.git("symbolic-ref", "--short", "HEAD").strip()
    head = repo.git("rev-parse", "-q", "--verify", "HEAD", check=False).strip()
    lines: list[str] = []
    for mark, i in enumerate(range(start, start + n), 1):
        path = f"tests/test_m{i % 7}.py" if i % 2 == 0 else f"m{i % 7}.py"
        body = f"def f{i}():\n    return {i}\n".encode()
        lines += [
            f"commit refs/heads/{branch}",
            f"mark :{mark}",
            f"committer T <t@example.com> {1_700_000_000 + i * 60} +0000",
            "data <<EOF",
            f"step {i}",
            "EOF",
        ]
        if mark == 1 and head:
            lines.append(f"from {head}")
        lines += [f"M 100644 inline {path}", f"data {len(body)}", body.decode()]
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=repo.root,
        input="\n".join(lines) + "\n",
        text=True,
        check=True,
    )
    repo.git("reset", "-q", "--hard")


def report_of(root: Path) -> str:
    r = find_repo(root)
    out = io.StringIO()
    write_json(run_audit(r, load_config(r.root), AuditOptions()), out)
    return out.getvalue()


def uses_a_graph(repo: GitRepo, env: dict[str, str]) -> bool:
    trace = repo.root.parent / "trace2.txt"
    trace.unlink(missing_ok=True)
    repo.git("rev-list", "--topo-order", "HEAD", env={**env, "GIT_TRACE2_PERF": str(trace)})
    return "topo_walk" in trace.read_text()


def wait_for_graph(root: Path, commits: int) -> None:
    r = find_repo(root)
    deadline = time.monotonic() + 60
    while commitgraph.commits_in(r) < commits:
        assert time.monotonic() < deadline, "no commit-graph was written"
        time.sleep(0.05)


def test_the_next_audit_walks_a_graph_of_its_own_and_reports_the_same(repo: GitRepo) -> None:
    grow(repo, 400)
    r = find_repo(repo.root)
    assert commitgraph.walk_env(r) == {}
    first = report_of(repo.root)
    wait_for_graph(repo.root, 400)
    assert commitgraph.walk_env(r)["GIT_ALTERNATE_OBJECT_DIRECTORIES"].endswith("graph")
    # git walks from it (its walk by generation numbers says so in its trace), and the
    # repository's own object directory got no graph
    assert uses_a_graph(repo, commitgraph.walk_env(r)) and not uses_a_graph(repo, {})
    assert not list((r.common_dir / "objects" / "info").glob("commit-graph*"))
    assert report_of(repo.root) == first
    assert "tddgit" in str(commitgraph.object_dir(r))


def test_a_graph_behind_the_history_is_written_again(repo: GitRepo) -> None:
    grow(repo, 300)
    report_of(repo.root)
    wait_for_graph(repo.root, 300)
    grow(repo, 350, start=300)
    r = find_repo(repo.root)
    assert commitgraph.stale(r, 650)
    with_old = report_of(repo.root)  # walked with a graph of 300 of its 650 commits
    wait_for_graph(repo.root, 650)
    assert report_of(repo.root) == with_old
    assert not commitgraph.stale(r, 650)


def test_a_short_history_gets_no_graph(repo: GitRepo) -> None:
    grow(repo, 40)
    report_of(repo.root)
    time.sleep(0.2)
    assert not commitgraph.object_dir(find_repo(repo.root)).exists()


def test_a_graph_that_cannot_be_written_leaves_the_audit_as_it_was(repo: GitRepo) -> None:
    grow(repo, 300)
    r = find_repo(repo.root)
    r.tddgit_dir.mkdir(exist_ok=True)
    commitgraph.object_dir(r).write_text("not a directory\n")  # no object directory there
    first = report_of(repo.root)
    assert commitgraph.write_in_background(r) is None
    assert commitgraph.commits_in(r) == 0 and commitgraph.walk_env(r) == {}
    assert report_of(repo.root) == first


def test_the_user_s_alternates_are_kept(repo: GitRepo, monkeypatch) -> None:
    grow(repo, 300)
    report_of(repo.root)
    wait_for_graph(repo.root, 300)
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", "/elsewhere/objects")
    value = commitgraph.walk_env(find_repo(repo.root))["GIT_ALTERNATE_OBJECT_DIRECTORIES"]
    assert value.split(os.pathsep)[0] == "/elsewhere/objects"

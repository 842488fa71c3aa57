"""The text report's long tables rendered by a forked child while the metrics are
computed (``tddgit.audit.textparts``): the same bytes as the parent's own rendering, in
every colour setting, and the parent's own rendering when the child fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audit.helpers import Steps
from tests.conftest import GitRepo

# A fresh interpreter (a pytest-xdist worker runs threads: no fork there): the audit with
# the text starter, then the report written; prints whether the child's text was used.
SCRIPT = """\
import sys
from dataclasses import replace
from pathlib import Path
from tddgit.audit import AuditOptions, run_audit, textparts
from tddgit.audit.render_text import write_text
from tddgit.config import default_config
from tddgit.git import find_repo

if sys.argv[2] == "fail":
    def _fail(*args):
        raise RuntimeError("the child fails")
    textparts._render = _fail
taken = textparts.taken
used = []
textparts.taken = lambda *a: used.append(taken(*a)) or used[-1]
options = AuditOptions()
if sys.argv[2] != "plain":
    options = replace(options, on_final=textparts.starter(sys.stdout))
report = run_audit(find_repo(Path(sys.argv[1])), default_config(), options)
write_text(report, sys.stdout)
sys.stdout.flush()
print("USED" if used and used[0] is not None else "RENDERED", file=sys.stderr)
"""


def _history(repo: GitRepo) -> None:
    """Findings, merges and more than the recent-commits table's fifteen commits."""
    s = Steps(repo)
    for i in range(12):
        s.commit(f"add f{i}", {f"f{i}.py": f"def f{i}(x):\n    return x + {i}\n"})
    s.commit(
        "test f0", {"test_f0.py": "from f0 import f0\n\ndef test_f0():\n    assert f0(1) == 1\n"}
    )
    repo.git("checkout", "-q", "-b", "side")
    s.commit("side work", {"side.py": "def side():\n    return 1\n"})
    repo.git("checkout", "-q", "-")
    s.commit("main work " + "with a subject long enough to be folded " * 3, {"m.py": "X = 1\n"})
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")


def _run(root: Path, mode: str, env: dict[str, str]) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), mode],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    return done.stdout, done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "env",
    [{}, {"FORCE_COLOR": "1", "COLUMNS": "93"}, {"NO_COLOR": "1"}],
    ids=["plain", "colour", "no-colour"],
)
def test_the_child_s_tables_are_the_parent_s_bytes(repo: GitRepo, env: dict[str, str]) -> None:
    _history(repo)
    plain, how = _run(repo.root, "plain", env)
    assert how == "RENDERED"
    child, how = _run(repo.root, "child", env)
    assert how == "USED"
    assert child == plain
    assert "Recent commits" in plain and "Findings (" in plain


def test_a_failed_child_leaves_the_tables_to_the_parent(repo: GitRepo) -> None:
    _history(repo)
    plain, _ = _run(repo.root, "plain", {})
    failed, how = _run(repo.root, "fail", {})
    assert how == "RENDERED"
    assert failed == plain

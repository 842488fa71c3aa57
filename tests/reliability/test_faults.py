"""Kill tddgit at every fault point (PRODUCT.md §10, tddgit/faults.py) with SIGKILL, SIGTERM
and SIGINT, in the phase command and in each hook, and check afterwards that no work was
lost: work tree, index, untracked files, stash and refs as they were but for one whole
commit (or none), no process and no temporary directory left, no half-written record
readable, and the step still completable.

The random campaign (``TDDGIT_CAMPAIGN=<rounds>``, seed ``TDDGIT_CAMPAIGN_SEED``) draws
scenario x point x signal at random; a short fixed-seed draw always runs.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from tddgit.faults import POINTS, SIGNALS
from tests.conftest import GitRepo, isolated_git
from tests.reliability.harness import (
    HANG_ENV,
    assert_no_process_left,
    assert_nothing_lost,
    assert_records_whole,
    build_red_template,
    capture,
    copy_repo,
    marked_env,
    run,
    tddgit,
)

COMMIT = ["git", "commit", "-q", "-m", "add sub"]


@dataclass(frozen=True)
class Scenario:
    """A way of making a red commit, and the fault points it passes through."""

    name: str
    points: tuple[str, ...]
    setup: tuple[str, ...]  # tddgit arguments run (without a fault) before the step
    step: tuple[str, ...]  # the faulted command; "tddgit" means the CLI

    def argv(self) -> list[str]:
        from tests.conftest import TDDGIT

        return [*TDDGIT, *self.step[1:]] if self.step[0] == "tddgit" else list(self.step)


SCENARIOS = {
    s.name: s
    for s in (
        Scenario(
            "tddgit-red",
            (
                "phase.before-gate",
                "lineage.write",
                "run.before",
                "run.started",
                "evidence.write",
                "phase.before-commit",
                "hook.pre-commit",
                "hook.prepare-commit-msg",
                "hook.commit-msg",
                "hook.post-commit",
                "phase.after-commit",
                "note.write",
            ),
            (),
            ("tddgit", "red", "-m", "add sub"),
        ),
        Scenario(
            "git-commit-after-no-commit",
            (
                "hook.pre-commit",
                "hook.prepare-commit-msg",
                "hook.commit-msg",
                "hook.post-commit",
                "lineage.write",
                "note.write",
            ),
            ("red", "--no-commit"),
            tuple(COMMIT),
        ),
        Scenario(
            "git-commit-runs-gate",
            ("hook.commit-msg", "run.before", "run.started", "evidence.write"),
            (),
            (*COMMIT, "--trailer", "GSD-Phase: red"),
        ),
    )
}

CASES = [(s.name, p, sig) for s in SCENARIOS.values() for p in s.points for sig in SIGNALS]


def test_every_fault_point_is_exercised() -> None:
    assert {p for s in SCENARIOS.values() for p in s.points} == set(POINTS)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    # Built before the per-test _isolated_git fixture runs: isolate it the same way.
    with isolated_git(tmp_path_factory.mktemp("home")):
        return build_red_template(tmp_path_factory.mktemp("template") / "repo")


def inject(template: GitRepo, tmp_path: Path, scenario: Scenario, point: str, sig: str) -> None:
    repo = copy_repo(template, tmp_path / "repo")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    log = tmp_path / "fault.log"
    env, mark = marked_env(tmpdir)
    if scenario.setup:
        tddgit(repo, env, *scenario.setup).check_returncode()
    before = capture(repo)
    faulty = {**env, "TDDGIT_FAULT": f"{point}:{sig}", "TDDGIT_FAULT_LOG": str(log)}
    if point == "run.started":
        faulty[HANG_ENV] = "1"  # only killing the whole group ends this run
    proc = run(repo, scenario.argv(), faulty)
    assert log.exists() and point in log.read_text(), (
        f"{point} was never reached\n{proc.stdout}\n{proc.stderr}"
    )
    if sig != "KILL":
        assert "Traceback" not in proc.stderr, proc.stderr
    made = assert_nothing_lost(repo, before, "red")
    assert_no_process_left(mark, within=5)
    # A later reader sees nothing or the whole record, and cleans what a kill left.
    status = tddgit(repo, env, "status", "--json")
    assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    fresh = json.loads(status.stdout)["fresh_evidence"]
    assert fresh in (None, "red")
    assert_records_whole(repo)
    assert list(tmpdir.iterdir()) == [], "temporary files left behind"
    # The step can still be completed, by the same route (after KILL, the harshest end;
    # TERM and INT unwind through the same code, so once is enough for the suite's time).
    if not made and sig == "KILL":
        proc = run(repo, scenario.argv(), env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert assert_nothing_lost(repo, before, "red")
        assert_records_whole(repo)
    assert_no_process_left(mark)


@pytest.mark.parametrize(("scenario", "point", "sig"), CASES, ids=["-".join(c) for c in CASES])
def test_a_fault_loses_nothing(
    template: GitRepo, tmp_path: Path, scenario: str, point: str, sig: str
) -> None:
    inject(template, tmp_path, SCENARIOS[scenario], point, sig)


def _draws(seed: int, rounds: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        scenario = rng.choice(sorted(SCENARIOS))
        out.append((scenario, rng.choice(SCENARIOS[scenario].points), rng.choice(SIGNALS)))
    return out


CAMPAIGN_ROUNDS = int(os.environ.get("TDDGIT_CAMPAIGN", "0") or 0)
CAMPAIGN_SEED = int(os.environ.get("TDDGIT_CAMPAIGN_SEED", "20240917"))


@pytest.mark.skipif(not CAMPAIGN_ROUNDS, reason="opt-in: TDDGIT_CAMPAIGN=<rounds>")
@pytest.mark.parametrize("round_", range(CAMPAIGN_ROUNDS))
def test_random_campaign(template: GitRepo, tmp_path: Path, round_: int) -> None:
    scenario, point, sig = _draws(CAMPAIGN_SEED, CAMPAIGN_ROUNDS)[round_]
    inject(template, tmp_path, SCENARIOS[scenario], point, sig)

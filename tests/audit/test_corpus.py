"""The audit against the labelled corpus of real public histories (bench/corpus/).

Runs only where the snapshots are (``bench/corpus_accuracy.py`` says how to get them):
each history's accuracy must stay at or above the floor recorded when the labels and the
audit last moved together, and at 90% or more where it already is.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.corpus_accuracy import read_labels, score, snapshot

BASE = Path(os.environ.get("TDDGIT_CORPUS", "/work/.mirror"))
# Accuracy per history when these floors were recorded (bench/README.md has the table).
FLOORS = {
    "hjwp/book-example": 0.91,
    "tartley/colorama": 0.96,
    "andydevs/cypress-todo-app": 0.90,
    "dfisch/string-calculator": 1.0,
    "Freezor/kata-practicse": 0.95,
    "pallets/itsdangerous": 1.0,
    "lean-mind/tdd-book-examples": 0.92,
    "sindresorhus/p-limit": 0.94,
    "sindresorhus/slugify": 0.90,
    "aaluo001/superlists": 0.92,
    "Roninii/Vite-Todo-Cypress": 1.0,
}
LABELS = read_labels()


@pytest.mark.parametrize("repo", sorted(LABELS))
def test_accuracy_on_a_labelled_history_does_not_fall(repo):
    git_dir = snapshot(repo, BASE)
    if git_dir is None:
        pytest.skip(
            f"no snapshot of {repo} under {BASE} (python bench/corpus_accuracy.py --fetch DIR)"
        )
    s = score(repo, LABELS[repo], git_dir)
    assert s.ratio >= FLOORS[repo] - 1e-9, "\n".join(s.misses)

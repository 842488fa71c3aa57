"""The audit against a reviewer: accuracy per history on the labelled corpus.

``bench/corpus/*.tsv`` holds, per real public history, commits a reviewer labelled by
reading their diffs (not by the audit's rules): ``repo``, ``sha``, the phase a careful
reviewer gives (``red``, ``green``, ``refactor``, ``test-after``, ``other``), whether a
finding is deserved (``yes``, ``no``, ``-`` for no opinion) and one line of why. Only the
labels are kept here, never the repositories' code.

Snapshots: a bare clone per history, looked up as ``$TDDGIT_CORPUS/owner+name/repo``,
``$TDDGIT_CORPUS/owner+name`` (default ``/work/.mirror``). ``--fetch DIR`` clones the
missing ones into DIR first (``git clone --bare``, needs the network).

A labelled commit agrees with the audit when:

- red / green: the audit gives that phase;
- refactor: the audit gives refactor or no phase (an undeclared refactor cannot be told
  from any other change, and is no claim the audit must make);
- test-after / other: the audit gives no phase (or an explicit test-after-fact finding
  for test-after);
- and, when the label says whether a finding is deserved, the audit raises a finding
  (of any rule, notes excepted) on it exactly when it is.

    python bench/corpus_accuracy.py            # accuracy per history
    python bench/corpus_accuracy.py -v         # and every disagreement
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "bench" / "corpus"
PHASES = ("red", "green", "refactor", "test-after", "other")


@dataclass(frozen=True)
class Label:
    repo: str
    sha: str
    phase: str
    finding: str  # yes | no | -
    why: str


@dataclass
class Score:
    repo: str
    total: int = 0
    agreed: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.agreed / self.total if self.total else 0.0


def read_labels(corpus: Path = CORPUS) -> dict[str, list[Label]]:
    out: dict[str, list[Label]] = {}
    for path in sorted(corpus.glob("*.tsv")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 5 or parts[2] not in PHASES or parts[3] not in ("yes", "no", "-"):
                raise SystemExit(f"{path.name}:{n}: bad label line: {line!r}")
            label = Label(*parts)
            out.setdefault(label.repo, []).append(label)
    return out


def snapshot(repo: str, base: Path) -> Path | None:
    """The bare git dir of ``repo``'s snapshot under ``base``, if there is one."""
    name = repo.replace("/", "+")
    for cand in (base / name / "repo", base / name):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def fetch(repo: str, base: Path) -> None:
    dest = base / repo.replace("/", "+") / "repo"
    dest.parent.mkdir(parents=True, exist_ok=True)
    url = f"https://github.com/{repo}.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", url, str(dest)], check=True)


def audit_snapshot(git_dir: Path) -> tuple[dict[str, str | None], dict[str, list[str]]]:
    """(sha -> phase, sha -> rules of its findings) of the audit of the snapshot's HEAD."""
    from tddgit.audit import AuditOptions, run_audit
    from tddgit.config import default_config
    from tddgit.git import Repo

    repo = Repo(root=git_dir, git_dir=git_dir, common_dir=git_dir)
    report = run_audit(repo, default_config(), AuditOptions())
    phases = {c.sha: c.phase for c in report.commits}
    found: dict[str, list[str]] = {}
    for f in report.findings:
        if f.severity != "note":
            found.setdefault(f.commit, []).append(f.rule)
    return phases, found


def score(repo: str, labels: list[Label], git_dir: Path) -> Score:
    phases, found = audit_snapshot(git_dir)
    full = {sha[:7]: sha for sha in phases}
    s = Score(repo)
    for lab in labels:
        sha = full.get(lab.sha[:7]) or next((x for x in phases if x.startswith(lab.sha)), None)
        if sha is None:
            s.total += 1
            s.misses.append(f"{lab.sha}: not in the snapshot's history")
            continue
        phase, rules = phases[sha], found.get(sha, [])
        if lab.phase in ("red", "green"):
            ok = phase == lab.phase
        elif lab.phase == "refactor":
            ok = phase in ("refactor", None)
        elif lab.phase == "test-after":
            ok = phase is None or "test-after-fact" in rules
        else:
            ok = phase is None
        if ok and lab.finding != "-":
            deserved = lab.finding == "yes"
            ok = bool(rules) == deserved
        s.total += 1
        if ok:
            s.agreed += 1
        else:
            s.misses.append(
                f"{lab.sha}: reviewer {lab.phase}/{lab.finding}, audit "
                f"{phase or '-'}/{','.join(rules) or 'no finding'}  ({lab.why})"
            )
    return s


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("-v", "--verbose", action="store_true", help="print each disagreement")
    p.add_argument("--fetch", metavar="DIR", help="clone missing snapshots into DIR first")
    args = p.parse_args(argv)
    base = Path(args.fetch or os.environ.get("TDDGIT_CORPUS", "/work/.mirror"))
    labels = read_labels()
    total = agreed = 0
    print(f"{'history':34} {'labelled':>8} {'agree':>6} {'accuracy':>8}")
    for repo, labs in labels.items():
        git_dir = snapshot(repo, base)
        if git_dir is None and args.fetch:
            fetch(repo, base)
            git_dir = snapshot(repo, base)
        if git_dir is None:
            print(f"{repo:34} {len(labs):>8}   (no snapshot under {base})")
            continue
        s = score(repo, labs, git_dir)
        total, agreed = total + s.total, agreed + s.agreed
        print(f"{repo:34} {s.total:>8} {s.agreed:>6} {s.ratio:>8.0%}")
        if args.verbose:
            for m in s.misses:
                print(f"    {m}")
    if total:
        print(f"{'all':34} {total:>8} {agreed:>6} {agreed / total:>8.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Which CI runs us and what it asks to audit: the provider, the pull request's range and
where the provider shows a report.

GitHub Actions (``GITHUB_ACTIONS=true``): the event payload (``GITHUB_EVENT_PATH``) of a
``pull_request`` event names the base and head commits; failing that ``GITHUB_BASE_REF``
names the base branch; a ``push`` event names ``before`` and ``after``. GitLab CI
(``GITLAB_CI=true``): a merge request pipeline gives ``CI_MERGE_REQUEST_DIFF_BASE_SHA``; a
branch pipeline ``CI_COMMIT_BEFORE_SHA``. The environment is passed in, not read here, so
a test can be any runner.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import UsageError

_ZERO = "0" * 40


@dataclass(frozen=True)
class CiRun:
    provider: str  # github | gitlab
    head: str  # the commit to audit up to (a sha, or HEAD)
    base: str | None  # the commit the pull request starts from; None: the whole history
    base_ref: str | None = None  # the base branch's name, when the provider gives it
    pull_request: bool = False
    summary: Path | None = None  # GitHub's $GITHUB_STEP_SUMMARY
    outputs: Path | None = None  # GitHub's $GITHUB_OUTPUT
    workspace: Path | None = None  # where the provider picks artifacts up

    @property
    def range(self) -> str:
        return f"{self.base}..{self.head}" if self.base else self.head


def detect(env: Mapping[str, str]) -> CiRun:
    """The CI run described by ``env``; UsageError outside GitHub Actions and GitLab CI."""
    if env.get("GITHUB_ACTIONS") == "true":
        return _github(env)
    if env.get("GITLAB_CI") == "true":
        return _gitlab(env)
    raise UsageError(
        "not running in GitHub Actions or GitLab CI (neither GITHUB_ACTIONS nor GITLAB_CI is set)",
        "outside CI, run `tddgit audit BASE..HEAD` with the thresholds you want",
    )


def _github(env: Mapping[str, str]) -> CiRun:
    payload = _payload(env.get("GITHUB_EVENT_PATH"))
    head = env.get("GITHUB_SHA") or "HEAD"
    base: str | None = None
    base_ref = env.get("GITHUB_BASE_REF") or None
    pr = payload.get("pull_request")
    # A pull_request job checks out GitHub's merge commit; the pull request's own commits
    # end at its head, which is what is audited.
    if isinstance(pr, dict):
        head = _sha(pr.get("head", {}).get("sha")) or head
        base = _sha(pr.get("base", {}).get("sha"))
        base_ref = str(pr.get("base", {}).get("ref") or base_ref or "") or None
    elif base_ref:
        base = f"origin/{base_ref}"
    elif _sha(payload.get("before")) and payload.get("before") != _ZERO:
        base, head = str(payload["before"]), _sha(payload.get("after")) or head
    return CiRun(
        provider="github",
        head=head,
        base=base,
        base_ref=base_ref,
        pull_request=isinstance(pr, dict) or base_ref is not None,
        summary=_path(env.get("GITHUB_STEP_SUMMARY")),
        outputs=_path(env.get("GITHUB_OUTPUT")),
        workspace=_path(env.get("GITHUB_WORKSPACE")),
    )


def _gitlab(env: Mapping[str, str]) -> CiRun:
    head = env.get("CI_COMMIT_SHA") or "HEAD"
    base = _sha(env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA"))
    base_ref = env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME") or None
    pull = base is not None
    if base is None:
        before = _sha(env.get("CI_COMMIT_BEFORE_SHA"))
        base = before if before and before != _ZERO else None
    return CiRun(
        provider="gitlab",
        head=head,
        base=base,
        base_ref=base_ref,
        pull_request=pull,
        workspace=_path(env.get("CI_PROJECT_DIR")),
    )


def _payload(path: str | None) -> dict[str, object]:
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot read the GitHub event payload {path}: {exc}",
            "run in a GitHub Actions job (GITHUB_EVENT_PATH names the payload file)",
        ) from exc
    return data if isinstance(data, dict) else {}


def _sha(value: object) -> str | None:
    if (
        isinstance(value, str)
        and len(value) in (40, 64)
        and all(c in "0123456789abcdef" for c in value)
    ):
        return value
    return None


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None

"""tests/agentdeps.py and tests/npmcache.py without npm: a reason to skip on a workstation, an error under CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import agentdeps, npmcache
from tests.npmcache import install, unavailable


@pytest.fixture
def no_npm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(agentdeps, "CACHE", tmp_path / "cache")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_without_npm_the_reason_is_given(no_npm: None) -> None:
    with pytest.raises(agentdeps.Unavailable, match="npm is not installed"):
        agentdeps.bin_dir()


@pytest.mark.parametrize(("ci", "code"), [("true", 1), ("", 0)])
def test_make_agents_fails_only_under_ci(
    no_npm: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ci: str,
    code: int,
) -> None:
    monkeypatch.setenv("CI", ci)
    assert agentdeps.main() == code
    err = capsys.readouterr().err
    assert "npm is not installed" in err
    assert ("required under CI" in err) == (code == 1)


@pytest.mark.parametrize(
    ("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)]
)
def test_a_test_needing_jest_without_npm_fails_under_ci_and_skips_elsewhere(
    no_npm: None, monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="npm is not installed"):
        try:
            install(
                "js-probe",
                {"jest": "0.0.0"},
                complete=lambda home: False,
                scripts=False,
                timeout=1,
                cache=agentdeps.CACHE,
            )
        except npmcache.Unavailable as exc:
            unavailable("jest", exc)

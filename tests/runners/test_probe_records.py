"""The probe's records as written: the per-test records it writes by hand (the gate's
start-up cost) are the very bytes the general JSON writer would write, for any test id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tddgit.pytestcmd import PROBE_DIR, PROBE_PLUGIN
from tddgit.runners.probelog import parse_probe

SUITE = """
import pytest

@pytest.mark.parametrize("text", ["plain", "é\\"quoted\\"\\\\back", "tab\\there", "☃"])
def test_passes(text):
    assert text

def test_fails():
    assert 1 == 2

@pytest.mark.xfail(reason="known")
def test_xfails():
    assert False

@pytest.mark.xfail(reason="maybe fixed")
def test_xpasses():
    pass

def test_skips():
    pytest.skip("not here")
"""


def probe_lines(tmp_path: Path) -> list[str]:
    (tmp_path / "test_suite.py").write_text(SUITE, encoding="utf-8")
    out = tmp_path / "probe.jsonl"
    env = {**os.environ, "PYTHONPATH": str(PROBE_DIR), "TDDGIT_PROBE_OUT": str(out)}
    env.pop("TDDGIT_PROBE_SELECT", None)
    env.pop("TDDGIT_PYCACHE", None)
    # ids as written, not escaped by pytest: the probe's own escaping is what is tested
    unescaped = "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=1"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            PROBE_PLUGIN,
            "-p",
            "no:cacheprovider",
            "-q",
            "-o",
            unescaped,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    return out.read_text(encoding="ascii").splitlines()


def test_hand_written_records_are_the_json_writers_bytes(tmp_path: Path) -> None:
    lines = probe_lines(tmp_path)
    records = [json.loads(line) for line in lines]
    for line, rec in zip(lines, records, strict=True):
        assert line == json.dumps(rec, separators=(",", ":"), default=str), line
    starts = [r["id"] for r in records if r["t"] == "start"]
    assert 'test_suite.py::test_passes[é"quoted"\\back]' in starts
    assert "test_suite.py::test_passes[☃]" in starts
    assert all(isinstance(r["line"], int) for r in records if r["t"] == "start")
    calls = {r["id"]: r for r in records if r["t"] == "report" and r["when"] == "call"}
    assert calls["test_suite.py::test_passes[tab\there]"]["outcome"] == "passed"  # a real tab
    assert calls["test_suite.py::test_fails"]["outcome"] == "failed"
    assert calls["test_suite.py::test_fails"]["exc"]["type"] == "AssertionError"
    # an expected failure and an unexpected pass keep pytest's account (no tampering)
    assert calls["test_suite.py::test_xfails"]["wasxfail"] == "known"
    assert calls["test_suite.py::test_xpasses"]["wasxfail"] == "maybe fixed"
    assert not any("tampered" in r for r in records)
    setups = [r for r in records if r["t"] == "report" and r["when"] == "setup"]
    assert len(setups) == 8 and all(r["outcome"] == "passed" for r in setups)


def test_a_plugin_rewriting_a_failed_call_is_still_caught(tmp_path: Path) -> None:
    """The hand-written path is only for reports nobody rewrote: a failed call that a
    plugin reports as passed is recorded as failed, with ``tampered``."""
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(item, call):
                outcome = yield
                report = outcome.get_result()
                if report.when == "call" and report.failed:
                    report.outcome = "passed"
                    report.longrepr = None
            """
        ),
        encoding="utf-8",
    )
    records = [json.loads(line) for line in probe_lines(tmp_path)]
    call = next(
        r
        for r in records
        if r["t"] == "report" and r["id"] == "test_suite.py::test_fails" and r["when"] == "call"
    )
    assert call["outcome"] == "failed"
    assert call["tampered"]["reported"] == "passed"
    assert call["tampered"]["plugins"] == ["conftest.py"]


def test_a_killed_runs_truncated_last_line_loses_only_itself(tmp_path: Path) -> None:
    """The reader decodes the whole log at once, and line by line when that fails: a
    run killed mid-write keeps every complete record."""
    lines = probe_lines(tmp_path)
    whole = parse_probe(lines)
    cut = parse_probe([*lines, lines[-3][: len(lines[-3]) // 2]])
    assert cut == whole
    assert len(whole.started) == 8 and len(whole.reports) == 8
    assert whole.exitstatus == 1


def test_pytest_loads_the_probe_as_it_is_not_rewritten(tmp_path: Path) -> None:
    """pytest rewrites (parses, compiles) every ``-p`` plugin module; the gates run pytest
    writing no bytecode until the probe has loaded, so a rewritten probe was parsed and
    compiled anew on every gate run. The hooks' modules load from Python's own cache."""
    (tmp_path / "conftest.py").write_text(
        "import sys\n\n"
        "def pytest_configure(config):\n"
        "    names = ('tddgit_probe_hooks', 'tddgit_probe_out', 'tddgit_probe_exc',\n"
        "             'tddgit_probe_cover', 'tddgit_pycache')\n"
        "    loaders = {type(sys.modules[n].__loader__).__name__ for n in names}\n"
        "    open('loader.txt', 'w').write(' '.join(sorted(loaders)))\n",
        encoding="utf-8",
    )
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(PROBE_DIR), "TDDGIT_PROBE_OUT": str(tmp_path / "o")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", PROBE_PLUGIN, "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "loader.txt").read_text() == "SourceFileLoader"


def test_the_plugin_module_names_every_hook_of_the_probe() -> None:
    """A hook defined in ``tddgit_probe_hooks`` but not named by ``tddgit_probe`` (the
    module pytest registers) would silently never run."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tddgit_probe, tddgit_probe_hooks; "
        "hooks = sorted(n for n in vars(tddgit_probe_hooks) if n.startswith('pytest_')); "
        "named = sorted(n for n in vars(tddgit_probe) if n.startswith('pytest_')); "
        "print(hooks == named == sorted(tddgit_probe.__all__), len(hooks))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(PROBE_DIR)], capture_output=True, text=True, check=False
    )
    assert proc.stdout.split() == ["True", "13"], proc.stdout + proc.stderr

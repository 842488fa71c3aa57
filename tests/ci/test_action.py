"""action.yml executed as a runner executes it: its `run:` steps, read from the file, in
bash with the `${{ }}` expressions a runner would substitute, GITHUB_* variables and an
event payload file, on a pull request-shaped depth-1 clone; then its outputs checked.
The `uses:` steps (setup-python, upload-sarif, upload-artifact) belong to GitHub: only the
paths they are given are checked. tddgit is installed by the action's own step, with pip,
into a new venv (its runtime dependencies come from the development venv by a .pth line)."""

from __future__ import annotations

import json
import re
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ci.prshape import github_env, make_pull_request, shallow_clone
from tests.sarif import assert_valid_sarif
from tests.test_wheel import clean_clone, new_venv, pip_env

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
_EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def substitute(text: str, context: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        assert m.group(1) in context, f"the test does not know `{m.group(1)}`"
        return context[m.group(1)]

    return _EXPR.sub(value, text)


def outputs_of(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return dict(pairs)


def run_action(
    action: dict[str, Any], inputs: dict[str, str], env: dict[str, str], cwd: Path, venv: Path
) -> tuple[dict[str, dict[str, str]], int]:
    """Every `run:` step in order, as a composite action's runner runs it; returns the
    steps' outputs by id and the exit code of the first failing step (0: all passed)."""
    steps_out: dict[str, dict[str, str]] = {}
    context = {f"inputs.{k}": v for k, v in inputs.items()}
    context["github.action_path"] = env["TDDGIT_ACTION_PATH"]
    for i, step in enumerate(action["runs"]["steps"]):
        for sid, outs in steps_out.items():
            context |= {f"steps.{sid}.outputs.{k}": v for k, v in outs.items()}
        if "run" not in step:
            with_ = {k: substitute(str(v), context) for k, v in step.get("with", {}).items()}
            if "sarif_file" in with_:
                assert_valid_sarif(json.loads(Path(with_["sarif_file"]).read_text()))
            if "path" in with_:
                assert Path(with_["path"]).is_file()
            continue
        assert step["shell"] == "bash"
        output = cwd.parent / f"output-{i}.txt"
        output.write_text("")
        step_env = {k: substitute(str(v), context) for k, v in step.get("env", {}).items()}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", substitute(step["run"], context)],
            cwd=cwd,
            env={**env, **step_env, "GITHUB_OUTPUT": str(output),
                 "PATH": f"{venv}:{env['PATH']}"},
            capture_output=True,
            text=True,
        )  # fmt: skip
        if "id" in step:
            steps_out[step["id"]] = outputs_of(output)
        if proc.returncode != 0:
            return steps_out, proc.returncode
    return steps_out, 0


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the action's checkout, a new venv's bin directory) — tddgit not installed yet."""
    tmp = tmp_path_factory.mktemp("action")
    source = clean_clone(tmp / "action")
    python = new_venv(tmp / "venv")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "tddgit-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return source, python.parent


def test_the_action_on_a_pull_request(tmp_path: Path, installed: tuple[Path, Path]) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    source, venv = installed
    pr = make_pull_request(tmp_path)
    clone = shallow_clone(pr, tmp_path / "runner")
    env = {**pip_env(TDDGIT_COMPILE="0"), **github_env(pr, tmp_path)}
    env["TDDGIT_ACTION_PATH"] = str(source)
    env["GITHUB_WORKSPACE"] = str(clone.root)
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs |= {"fail-under": "90", "require-evidence": "true"}
    outs, code = run_action(action, inputs, env, clone.root, venv)
    if code and "No matching distribution found" in str(outs):
        pytest.skip("no package index for the build requirements")
    assert code == 0, outs
    assert (venv / "tddgit").exists()  # the action's own install step put it there
    assert outs["audit"]["exit-code"] == "0"
    assert outs["audit"]["conformance"] == "100.0"
    summary = (tmp_path / "summary.md").read_text()
    assert "# tddgit audit of" in summary and "| conformance | 100.0/100 |" in summary
    sarif = json.loads(Path(outs["audit"]["sarif"]).read_text())
    assert_valid_sarif(sarif)
    assert sarif["version"] == "2.1.0"


def test_the_action_fails_the_job_on_a_threshold(
    tmp_path: Path, installed: tuple[Path, Path]
) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    source, venv = installed
    pr = make_pull_request(tmp_path)
    subprocess.run(["git", "push", "-q", "-f", str(pr.remote), ":refs/notes/tddgit"],
                   cwd=tmp_path / "dev", check=True)  # fmt: skip
    clone = shallow_clone(pr, tmp_path / "runner")
    env = {**pip_env(TDDGIT_COMPILE="0"), **github_env(pr, tmp_path)}
    env["TDDGIT_ACTION_PATH"] = str(source)
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs |= {"require-evidence": "true"}
    outs, code = run_action(action, inputs, env, clone.root, venv)
    assert code == 1
    assert outs["audit"]["exit-code"] == "1"  # the reports were still written and uploaded
    assert Path(outs["audit"]["html"]).is_file()

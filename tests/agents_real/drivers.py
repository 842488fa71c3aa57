"""Run a real coding agent, headless, on a project, against a scripted fake model.

Each agent gets its own home directory (no real user configuration is read or written),
a dummy API key, and the fake's address on 127.0.0.1; nothing else is reachable. The
project's guard is the one ``tddgit agent install AGENT`` wrote, run through the
``tddgit`` of this checkout (its ``bin`` directory first on ``PATH``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests import agentdeps
from tests.agents_real.fakes import FakeModel
from tests.agents_real.fakes.anthropic import AnthropicFake
from tests.agents_real.fakes.gemini import GeminiFake
from tests.agents_real.fakes.openai import ResponsesFake

AGENTS = ("claude-code", "gemini", "codex")
FAKES: dict[str, type[FakeModel]] = {
    "claude-code": AnthropicFake,
    "gemini": GeminiFake,
    "codex": ResponsesFake,
}
# One session's bound: a dozen tool calls, each hook a pytest run of a tiny project, on a
# machine that may be loaded (a route session took 4 minutes at a load of 20 on 2 cores).
SESSION_TIMEOUT = 480
MAX_TURNS = 20
BIN = str(Path(sys.executable).parent)


@dataclass
class Session:
    agent: str
    proc: subprocess.CompletedProcess[str]
    fake: FakeModel

    def report(self) -> str:
        """Everything needed to see why an assertion failed."""
        return (
            f"{self.agent} exited {self.proc.returncode}\n--- stdout\n{self.proc.stdout[-6000:]}"
            f"\n--- stderr\n{self.proc.stderr[-4000:]}\n--- model saw\n"
            + "\n".join(self.fake.after_tools())
        )


def base_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_", "OPENAI_", "CODEX_"))
    }
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "PATH": BIN + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "TERM": "dumb",
        }
    )
    return env


def configure(agent: str, home: Path, project: Path, url: str, *, trusted: bool) -> dict[str, str]:
    """The agent's user configuration in ``home`` and its environment: the fake as its
    model, a dummy key, and (when ``trusted``) the project trusted so its hooks load."""
    home.mkdir(parents=True, exist_ok=True)
    env = base_env(home)
    if agent == "claude-code":
        env.update(
            {
                "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
                "IS_SANDBOX": "1",  # bypassPermissions as root (a container)
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
            }
        )
    elif agent == "gemini":
        gemini = home / ".gemini"
        gemini.mkdir(exist_ok=True)
        # The key in the environment is not enough: the auth type must be chosen.
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (gemini / "settings.json").write_text(json.dumps(settings))
        if trusted:
            (gemini / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
        env.update({"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "test-dummy-key"})
    else:
        codex = home / ".codex"
        codex.mkdir(exist_ok=True)
        # A model Codex knows (its apply_patch tool depends on the model's metadata).
        (codex / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
            f'name = "fake"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
            'env_key = "FAKE_OPENAI_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
        )
        env.update({"CODEX_HOME": str(codex), "FAKE_OPENAI_KEY": "test-dummy-key"})
    return env


def command(agent: str, prompt: str, *, trusted: bool) -> list[str]:
    exe = str(agentdeps.agent_bin(agent))
    if agent == "claude-code":
        return [
            exe, "-p", prompt, "--output-format", "stream-json", "--verbose",
            "--permission-mode", "bypassPermissions", "--model", "claude-sonnet-4-5",
            "--max-turns", str(MAX_TURNS),
        ]  # fmt: skip
    if agent == "gemini":
        # --skip-trust is the headless way past the trust prompt: an untrusted folder's
        # settings (the hooks) are then dropped.
        trust = [] if trusted else ["--skip-trust"]
        return [exe, "-p", prompt, "--output-format", "stream-json", "--yolo",
                "-m", "gemini-2.5-pro", *trust]  # fmt: skip
    trust = ["--trust", "--dangerously-bypass-hook-trust"] if trusted else []
    return [exe, "exec", *trust, "--dangerously-bypass-approvals-and-sandbox", "--json",
            "--skip-git-repo-check", prompt]  # fmt: skip


def run(
    agent: str,
    project: Path,
    home: Path,
    script: list[Any],
    *,
    trusted: bool = True,
    prompt: str = "Work test-first on calc.py.",
) -> Session:
    """One headless session of ``agent`` in ``project`` playing ``script``."""
    with FAKES[agent](script, project) as fake:
        env = configure(agent, home, project, fake.url, trusted=trusted)
        proc = subprocess.run(
            command(agent, prompt, trusted=trusted),
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
        )
    return Session(agent, proc, fake)


def start(
    agent: str, project: Path, home: Path, fake: FakeModel, *, trusted: bool = True
) -> subprocess.Popen[str]:
    """A session started in the background (for sessions that run side by side); the
    caller enters ``fake`` first and waits for the process."""
    env = configure(agent, home, project, fake.url, trusted=trusted)
    return subprocess.Popen(
        command(agent, "Work test-first on calc.py.", trusted=trusted),
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

"""Production code written through each agent's shell tool, with no red open: each route
(the ones issue 26 saw land and stay) is put back by the guard's tree check after the tool
call, the model is told, and ``git commit --no-verify`` and its cousins are refused.

One session per agent plays every route, each followed by a probe (``git status`` of
calc.py) whose output the fake records: the probe after a route shows whether that route's
change was still there, so a failure names the route."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.conftest import guarded_project
from tests.agents_real.fakes import Finish, Shell
from tests.project import CALC

pytestmark = [pytest.mark.agents, pytest.mark.slow]

PROBE = "git status --porcelain -- calc.py; echo probe-done"


def routes(elsewhere: Path) -> dict[str, str]:
    return {
        "sed -i": "sed -i 's/a + b/a - b/' calc.py",
        "sed --in-place": "sed --in-place=.bak 's/a + b/a * b/' calc.py",
        "cat heredoc": "cat > calc.py <<'EOF'\ndef add(a, b):\n    return 0\nEOF",
        "echo >>": "echo 'X = 1' >> calc.py",
        "python -c": "python3 -c \"open('calc.py', 'w').write('def add(a, b):\\n    return 1\\n')\"",
        "cp": f"cp {elsewhere} calc.py",
        "git checkout other --": "git checkout other -- calc.py",
    }


@pytest.mark.parametrize("agent", drivers.AGENTS)
def test_each_shell_route_is_put_back(agent: str, agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", agent)
    # A branch with another calc.py, for `git checkout other -- calc.py`.
    repo.git("checkout", "-q", "-b", "other")
    repo.write("calc.py", "def add(a, b):\n    return 42\n", dedent=False)
    repo.commit("other calc", "calc.py")
    repo.git("checkout", "-q", "main")
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("def add(a, b):\n    return -1\n")
    named = routes(elsewhere)
    script: list[object] = []
    for command in named.values():
        script += [Shell(command), Shell(PROBE)]
    session = drivers.run(agent, repo.root, home, [*script, Finish("tried every route")])
    told = session.fake.after_tools()
    assert len(told) >= 2 * len(named), session.report()
    stayed = [n for i, n in enumerate(named) if "calc.py" in told[2 * i + 1]]
    # Told by the guard after the tool ("tddgit [rule]"), or refused before it by one of
    # the permission deny rules tddgit installs for Claude Code ("... has been denied").
    silent = [n for i, n in enumerate(named) if not _refused(told[2 * i])]
    assert (stayed, silent) == ([], []), session.report()
    assert (repo.root / "calc.py").read_text() == CALC, session.report()
    assert repo.git("status", "--porcelain", "--", "calc.py") == ""


def _refused(text: str) -> bool:
    return "tddgit [" in text or "has been denied" in text


@pytest.mark.parametrize("agent", drivers.AGENTS)
def test_hook_bypasses_are_refused(agent: str, agents: Path, tmp_path: Path, home: Path) -> None:
    """A docs change staged by the person: every way of committing it past the git hooks
    is refused from the agent's shell, and HEAD does not move."""
    repo = guarded_project(tmp_path / "project", agent)
    repo.write("NOTES.md", "notes\n", dedent=False)
    repo.add("NOTES.md")
    head = repo.head()
    bypasses = [
        "git commit --no-verify -m sneak",
        "git commit -nm sneak",
        "git -c core.hooksPath=/dev/null commit -m sneak",
    ]
    session = drivers.run(agent, repo.root, home, [*map(Shell, bypasses), Finish("tried")])
    assert repo.head() == head, session.report()
    told = session.fake.after_tools()
    assert len(told) >= len(bypasses), session.report()
    refused = [b for b, text in zip(bypasses, told, strict=False) if _refused(text)]
    assert refused == bypasses, session.report()
    assert not session.fake.seen("--no-verify") or all(
        "skip the hooks" not in text for text in told
    ), session.report()

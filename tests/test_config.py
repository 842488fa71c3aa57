"""Configuration: defaults, both file formats, and errors that name the file and key."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tddgit.config import DEFAULT_MAX_COST, KEYS, default_config, load_config
from tddgit.errors import ConfigError
from tests.conftest import GitRepo

DOCS = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def test_defaults_without_any_file(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    assert cfg.file is None
    assert cfg.mode == "opt-in"
    assert cfg.timeout == 300
    assert cfg.get("red.scope") == "changed"
    assert cfg.flag("red.allow_stubs") is True
    assert set(cfg.sources.values()) == {"default"}


def test_pyproject_table_and_sources(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tddgit]\nmode = "strict"\n[tool.tddgit.green]\nallow_test_edits = true\n'
    )
    cfg = load_config(tmp_path)
    assert cfg.strict
    assert cfg.flag("green.allow_test_edits") is True
    assert cfg.sources["mode"] == "pyproject.toml"
    assert cfg.sources["timeout"] == "default"


def test_yaml_file(tmp_path: Path) -> None:
    (tmp_path / ".tddgit.yaml").write_text(
        "timeout: 12.5\nexempt: scripts/**\nhooks:\n  run_gate: false\n"
    )
    cfg = load_config(tmp_path)
    assert cfg.timeout == 12.5
    assert cfg.globs("exempt") == ("scripts/**",)
    assert cfg.flag("hooks.run_gate") is False


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (".tddgit.yaml", "mode: loose\n", "`mode` is 'loose'; expected one of: opt-in, strict"),
        (".tddgit.yaml", "red:\n  allow_stubs: 'yes'\n", "`red.allow_stubs` must be true or false"),
        (".tddgit.yaml", "timeout: -1\n", "`timeout` must be a positive number"),
        (".tddgit.yaml", "colour: red\n", "unknown key `colour`"),
        (".tddgit.yaml", "red:\n  speed: 3\n", "unknown key `red.speed`"),
        (".tddgit.yaml", "red: 3\n", "`red` must be a table of keys"),
        (".tddgit.yaml", "mode: [unclosed\n", "malformed YAML at line"),
        (".tddgit.yaml", "- a\n- b\n", "must be a table of keys"),
        ("pyproject.toml", "[tool.tddgit\n", "pyproject.toml: malformed TOML"),
        (
            "pyproject.toml",
            "[tool.tddgit]\ntest_globs = [1]\n",
            "`test_globs` must be a list of glob strings",
        ),
    ],
)
def test_errors_name_file_and_key(tmp_path: Path, name: str, text: str, expected: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path)
    assert expected in exc.value.one_line()
    assert name in exc.value.one_line()


def test_two_sources_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".tddgit.yaml").write_text("mode: strict\n")
    (tmp_path / "pyproject.toml").write_text("[tool.tddgit]\nmode = 'strict'\n")
    with pytest.raises(ConfigError, match="both"):
        load_config(tmp_path)


def test_pyproject_without_tddgit_table_is_fine_next_to_yaml(tmp_path: Path) -> None:
    (tmp_path / ".tddgit.yaml").write_text("mode: strict\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert load_config(tmp_path).strict


def test_config_command_json_and_text(repo: GitRepo) -> None:
    repo.write(".tddgit.yaml", "timeout: 60\n")
    data = json.loads(repo.tddgit("config", "--json", check=True).stdout)
    assert data["keys"]["timeout"] == {"value": 60, "source": ".tddgit.yaml"}
    assert data["keys"]["mode"] == {"value": "opt-in", "source": "default"}
    text = repo.tddgit("config", check=True).stdout
    assert "timeout" in text and "(.tddgit.yaml)" in text


def test_malformed_config_is_one_line_exit_2(repo: GitRepo) -> None:
    repo.write(".tddgit.yaml", "mode: [\n")
    proc = repo.tddgit("config")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert ".tddgit.yaml" in proc.stderr


def test_every_key_is_documented() -> None:
    text = DOCS.read_text()
    missing = [k.path for k in KEYS if f"`{k.path}`" not in text]
    assert missing == []


def test_bare_yaml_off_means_off(tmp_path: Path) -> None:
    (tmp_path / ".tddgit.yaml").write_text("green:\n  yagni: off\nhooks:\n  detectors: off\n")
    cfg = load_config(tmp_path)
    assert cfg.get("green.yagni") == "off"
    assert cfg.get("hooks.detectors") == "off"
    (tmp_path / ".tddgit.yaml").write_text("mode: off\n")
    with pytest.raises(ConfigError, match="`mode` must be"):
        load_config(tmp_path)


def test_yaml_parse_cache_follows_edits_and_survives_corruption(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (tmp_path / ".tddgit.yaml").write_text("timeout: 10\n")
    settled = time.time() - 60  # only a file left alone for a while is cached
    os.utime(tmp_path / ".tddgit.yaml", (settled, settled))
    assert load_config(tmp_path, cache).timeout == 10
    assert (cache / "config-cache.json").exists()
    assert load_config(tmp_path, cache).timeout == 10  # served from the cache
    (tmp_path / ".tddgit.yaml").write_text("timeout: 2000\n")  # other size and mtime
    assert load_config(tmp_path, cache).timeout == 2000
    (cache / "config-cache.json").write_text("{torn")
    assert load_config(tmp_path, cache).timeout == 2000
    (tmp_path / ".tddgit.yaml").write_text("timeout: [\n")
    with pytest.raises(ConfigError, match="malformed YAML"):
        load_config(tmp_path, cache)  # errors are never cached away


def test_a_config_rewritten_within_the_same_clock_tick_is_never_served_stale(
    tmp_path: Path,
) -> None:
    """The parse cache's key is the file's size and mtime. A file read (and cached) in
    the same clock tick it was written, then rewritten to the same size within that
    tick, has the same key: racy, as git's index calls it. Such an entry is not kept."""
    cache = tmp_path / "cache"
    config = tmp_path / ".tddgit.yaml"
    config.write_text("timeout: 10\n")
    written = config.stat().st_mtime_ns
    assert load_config(tmp_path, cache).timeout == 10
    config.write_text("timeout: 20\n")  # same size
    os.utime(config, ns=(written, written))  # the same tick of a coarse clock
    assert load_config(tmp_path, cache).timeout == 20
    # once the file is older than the clock's resolution, the cache serves it
    settled = written - 10**10
    os.utime(config, ns=(settled, settled))
    assert load_config(tmp_path, cache).timeout == 20
    assert (cache / "config-cache.json").exists()
    assert load_config(tmp_path, cache).timeout == 20


def test_a_pyproject_without_tddgit_is_not_parsed(tmp_path: Path) -> None:
    """Hooks read the configuration on every commit: a pyproject.toml that never names
    tddgit has no [tool.tddgit] table, and tomllib (2-3 ms to import) is not needed."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n[tool.black]\n")
    probe = (
        "import sys; from pathlib import Path; from tddgit.config import load_config; "
        f"c = load_config(Path({str(tmp_path)!r})); "
        "print(c.file, 'tomllib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.split() == ["None", "False"], done.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.tddgit]\nmode = 'strict'\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.split() == [str(tmp_path / "pyproject.toml"), "True"], done.stderr


def test_a_cost_limit_of_0_is_no_limit_and_a_negative_one_is_refused(tmp_path: Path) -> None:
    """llm.max_cost of 0 is documented as "no limit": writing it down must not be an
    error; a negative amount is. The default is a limit (DEFAULT_MAX_COST dollars)."""
    assert default_config().get("llm.max_cost") == DEFAULT_MAX_COST > 0
    (tmp_path / ".tddgit.yaml").write_text("llm:\n  max_cost: 0\n")
    assert load_config(tmp_path).get("llm.max_cost") == 0
    (tmp_path / ".tddgit.yaml").write_text("llm:\n  max_cost: 0.25\n")
    assert load_config(tmp_path).get("llm.max_cost") == 0.25
    (tmp_path / ".tddgit.yaml").write_text("llm:\n  max_cost: -1\n")
    with pytest.raises(ConfigError, match=r"`llm\.max_cost` must be a number ≥ 0"):
        load_config(tmp_path)

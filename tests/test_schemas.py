"""Real outputs validate against the JSON Schemas published in docs/schemas/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.conftest import GitRepo, isolated_git
from tests.project import stage_green, stage_red, start_project

SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def _registry() -> Registry:
    registry: Registry = Registry()
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
        registry = registry.with_resource(path.name, Resource.from_contents(schema))
    return registry


def validate(name: str, data: Any) -> None:
    schema = json.loads((SCHEMAS / name).read_text())
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, registry=_registry())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert errors == []


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitRepo]:
    """One project with a red, a green and a test file with too many mocks (built once)."""
    # Module scope: the autouse isolation is per test, so apply it to the build too.
    with isolated_git(tmp_path_factory.mktemp("schemas-home")):
        root = tmp_path_factory.mktemp("schemas") / "repo"
        root.mkdir()
        repo = GitRepo(root)
        repo.git("init", "-q")
        start_project(repo)
        stage_red(repo)
        repo.tddgit("red", "-m", "sub", check=True)
        stage_green(repo)
        repo.tddgit("green", "-m", "sub: implement", check=True)
        mocks = "\n".join(f"    m{i} = mock.Mock()" for i in range(5))
        repo.write(
            "tests/test_mocky.py",
            f"from unittest import mock\n\n\ndef test_m():\n{mocks}\n    assert m0\n",
            dedent=False,
        )
        yield repo


def test_run_json(cycle: GitRepo) -> None:
    proc = cycle.tddgit("run", "--json")
    validate("run.schema.json", json.loads(proc.stdout))


def test_evidence_notes(cycle: GitRepo) -> None:
    for rev in ("HEAD", "HEAD~1"):
        note = json.loads(cycle.git("notes", "--ref=tddgit", "show", rev))
        validate("evidence.schema.json", note)


def test_audit_json(cycle: GitRepo) -> None:
    proc = cycle.tddgit("audit", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    validate("audit.schema.json", data)
    assert [c["phase"] for c in data["commits"]][-2:] == ["red", "green"]


def test_detect_json(cycle: GitRepo) -> None:
    proc = cycle.tddgit("detect", "--format", "json")
    data = json.loads(proc.stdout)
    validate("detect.schema.json", data)
    assert any(f["rule"] == "over-mocking" for f in data["findings"])


def test_audit_schema_names_every_rule() -> None:
    # A finding of a rule the schema does not list would make a valid report invalid.
    from tddgit.audit.ruleset import RULES

    schema = json.loads((SCHEMAS / "audit.schema.json").read_text())
    rule = schema["properties"]["findings"]["items"]["properties"]["rule"]
    assert sorted(rule["enum"]) == sorted(RULES)

"""Validate a SARIF log against the SARIF 2.1.0 JSON Schema (``tests/data``), the schema
code-scanning services check uploads with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def assert_valid_sarif(log: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(Draft202012Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])

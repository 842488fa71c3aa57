"""Fixtures for `tddgit cycle`: the agent tests' fake Messages API and calc project."""

from __future__ import annotations

from tests.agent.conftest import fake_api, project

__all__ = ["fake_api", "project"]

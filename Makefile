# make demo: a whole red -> green -> refactor cycle in a throwaway repo, then its audit.
# make test: ruff, ruff format --check, mypy --strict, pytest.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: all install demo test lint typecheck pytest bench clean

all: test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/tddgit demo

lint: $(STAMP)
	$(BIN)/ruff check tddgit tests bench scripts
	$(BIN)/ruff format --check tddgit tests bench scripts

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) -q

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/gate_overhead.py
	$(BIN)/python bench/hook_latency.py
	$(BIN)/python bench/audit_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

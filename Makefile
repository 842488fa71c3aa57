# make demo: a whole red -> green -> refactor cycle in a throwaway repo, then its audit.
# make test: ruff, ruff format --check, mypy --strict, pytest.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: all install demo test lint typecheck pytest bench clean chromium

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

# The HTML report's browser test needs a headless Chromium: install Debian's when we can
# (as root with apt); otherwise that one test is skipped with its reason.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    { apt-get update -q >/dev/null 2>&1; \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; }; } || \
	  echo "make: no Chromium; the HTML report's browser test will be skipped"

pytest: $(STAMP) chromium
	$(BIN)/python -m pytest -n $(JOBS) -q

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/gate_overhead.py
	$(BIN)/python bench/hook_latency.py
	$(BIN)/python bench/audit_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

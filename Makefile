# make demo: a whole red -> green -> refactor cycle in a throwaway repo, then its audit.
# make test: ruff, ruff format --check, mypy --strict, pytest.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: all install demo test lint typecheck pytest bench clean chromium docs jsdeps bwrap

all: test

# TDDGIT_COMPILE=0: the development install is pure Python (setup.py), so an edited module
# is never shadowed by a stale compiled one and the tests run the sources.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	TDDGIT_COMPILE=0 $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/tddgit demo

lint: $(STAMP)
	$(BIN)/ruff check tddgit tests bench scripts setup.py
	$(BIN)/ruff format --check tddgit tests bench scripts setup.py

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

# bubblewrap: the jail the model's tests run in (tddgit/jail); installed with apt when we
# can (as root), otherwise the jail tests are skipped with the reason.
bwrap:
	@command -v bwrap >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    { apt-get update -q >/dev/null 2>&1; \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null 2>&1; }; } || \
	  echo "make: no bubblewrap; the model-sandbox tests will be skipped"

# jest and vitest for the JavaScript tests, installed once with npm into tests/.cache
# (keyed by their pinned versions in tests/jsdeps.py); without npm or its registry those
# tests are skipped with the reason.
jsdeps: $(STAMP)
	$(BIN)/python -m tests.jsdeps

pytest: $(STAMP) chromium jsdeps bwrap
	$(BIN)/python -m pytest -n $(JOBS) -q

test: lint typecheck pytest

# docs/cli.md is generated from the commands' help (tests/test_docs.py fails when stale).
docs: $(STAMP)
	$(BIN)/python scripts/gen_cli_docs.py

bench: $(STAMP)
	$(BIN)/python bench/gate_overhead.py
	$(BIN)/python bench/hook_latency.py
	$(BIN)/python bench/audit_throughput.py
	$(BIN)/python bench/guard_latency.py
	$(BIN)/python bench/cycle_startup.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find tddgit -name '*.so' -delete; rm -f *__mypyc*.so

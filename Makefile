# Afterhack: `make run` serves the app, `make test` runs the whole suite against real stores, `make check` its fast tier.
SHELL := /bin/bash
.DEFAULT_GOAL := run

VENV := .venv
TOOLS := .tools
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

# The first interpreter >= 3.12 that actually runs: PYTHON=..., then the usual names, then pyenv's.
PYTHON_CANDIDATES := $(PYTHON) python3.13 python3.12 python3 $(sort $(wildcard $(HOME)/.pyenv/versions/3.1[2-9]*/bin/python3))
FIND_PYTHON := for c in $(PYTHON_CANDIDATES); do \
  if "$$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then command -v "$$c"; exit 0; fi; \
done; echo "No Python >= 3.12 found: install one or run make PYTHON=/path/to/python3.12" >&2; exit 1

.PHONY: run test check lint format bench bench-search cluster env clean-env

$(VENV)/.synced: pyproject.toml uv.lock
	@py=$$($(FIND_PYTHON)) && echo "Using $$py" && \
	if [ ! -x $(TOOLS)/bin/uv ]; then "$$py" -m venv $(TOOLS) && $(TOOLS)/bin/pip install --quiet "uv==0.13.8"; fi && \
	$(TOOLS)/bin/uv sync --frozen --python "$$py"
	@touch $@

env: $(VENV)/.synced

run: $(VENV)/.synced
	$(VENV)/bin/python manage.py run

test: $(VENV)/.synced lint
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

# The fast tier: lint, then every test but those marked as browser, cluster, subprocess, load or schemathesis ones
# (the markers are listed in pyproject.toml). `make test` stays the whole suite, and what CI runs.
FAST_TESTS := not (e2e or cluster or subprocess or load or schemathesis)
check: $(VENV)/.synced lint
	$(VENV)/bin/python -m pytest -m "$(FAST_TESTS)" $(PYTEST_ARGS)

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	AFTERHACK_STORES=none $(VENV)/bin/mypy .

format: $(VENV)/.synced
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Benchmarks on fresh embedded stores in a temporary data dir; figures go in docs/benchmarks.md.
bench: $(VENV)/.synced
	@dir=$$(mktemp -d /tmp/ah-bench-XXXXXX) && \
	AFTERHACK_DATA_DIR=$$dir AFTERHACK_LOG_LEVEL=WARNING $(VENV)/bin/python manage.py bench $(BENCH_ARGS); \
	status=$$?; rm -rf $$dir; exit $$status

# Search at 10k, 100k and 1M claims with 384- and 1536-dimension vectors: long (see docs/benchmarks.md).
bench-search: $(VENV)/.synced
	@dir=$$(mktemp -d /tmp/ah-bench-XXXXXX) && \
	AFTERHACK_DATA_DIR=$$dir AFTERHACK_LOG_LEVEL=WARNING $(VENV)/bin/python manage.py bench --only search $(BENCH_ARGS); \
	status=$$?; rm -rf $$dir; exit $$status

# A local FalkorDB cluster (3 primaries, a replica each) from the bundled binaries, until Ctrl-C: docs/cluster.md.
cluster: $(VENV)/.synced
	$(VENV)/bin/python -m afterhack.cluster $(CLUSTER_ARGS)

clean-env:
	rm -rf $(VENV) $(TOOLS)

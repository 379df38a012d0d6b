# Two entry points, both idempotent: `make repl` and `make test`.
# The venv is rebuilt only when pyproject.toml changes (stamp file).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.hwbot-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup bytecode repl test test-fast lint index bench bench-smoke eval clean

setup: $(STAMP) bytecode

# The package's bytecode, written ahead as pip does for what it installs: with
# PYTHONDONTWRITEBYTECODE set (as on these machines) every `hwbot` process would otherwise
# compile ~100 modules from source on each start (~0.1 s). Incremental: ~0.1 s when unchanged.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q bot knowledge indexer common bench tests >/dev/null

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: 2.13.0 resolves to the CPU wheel on these machines.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

index: $(STAMP) bytecode
	$(BIN)/hwbot index

repl: $(STAMP) bytecode
	$(BIN)/hwbot index --quiet-if-fresh
	$(BIN)/hwbot repl

# Test workers: one per core of the 2-core machines this runs on (WORKERS=0 runs in-process).
WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile

test: $(STAMP) bytecode lint
	$(PYTEST) --durations=15

# Everything not marked slow (no processes, servers, wheels, refits or whole-dev-set and profile-space walks).
test-fast: $(STAMP) bytecode lint
	$(PYTEST) -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

eval: $(STAMP) bytecode
	$(BIN)/hwbot eval

bench: $(STAMP) bytecode
	$(BIN)/python -m bench

bench-smoke: $(STAMP) bytecode
	$(BIN)/python -m bench --smoke

clean:
	rm -rf $(VENV) .pytest_cache

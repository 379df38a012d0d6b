# Two entry points, both idempotent: `make repl` and `make test`.
# The venv is rebuilt only when pyproject.toml changes (stamp file).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.hwbot-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup repl test test-fast lint index bench bench-smoke eval clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: 2.13.0 resolves to the CPU wheel on these machines.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

index: $(STAMP)
	$(BIN)/hwbot index

repl: $(STAMP)
	$(BIN)/hwbot index --quiet-if-fresh
	$(BIN)/hwbot repl

# Test workers: one per core of the 2-core machines this runs on (WORKERS=0 runs in-process).
WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile

test: $(STAMP) lint
	$(PYTEST) --durations=15

# Everything not marked slow (no processes, servers, wheels, refits or whole-dev-set and profile-space walks).
test-fast: $(STAMP) lint
	$(PYTEST) -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

eval: $(STAMP)
	$(BIN)/hwbot eval

bench: $(STAMP)
	$(BIN)/python -m bench

bench-smoke: $(STAMP)
	$(BIN)/python -m bench --smoke

clean:
	rm -rf $(VENV) .pytest_cache

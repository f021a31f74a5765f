# Quick start: `make demo`, then `make test`. Each target builds its own .venv.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHECK_STAMP := $(VENV)/.installed-check
TYPED  := .check/site

.PHONY: demo demo-hylo test test-all check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(CHECK_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,check]'
	touch $(CHECK_STAMP)

# Lint the tree; type-check the package as installed (so hylo_memory.decay is decay/, and so on),
# then name the files as they are in the repository.
check: $(CHECK_STAMP)
	$(BIN)/ruff check .
	rm -rf $(TYPED) build  # build/: setuptools keeps moved modules there, and the typed copy would take them
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation --target $(TYPED) .
	set -o pipefail; cd $(TYPED) && ../../$(BIN)/mypy --config-file ../../pyproject.toml -p hylo_memory 2>&1 \
		| sed -E 's#^hylo_memory/(domain|decay|extractors|pipeline|templates)/#\1/#'
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_architecture.py  # the layering (docs/development.md)
	$(BIN)/python docs/generate.py --check

# docs/cli.md and docs/settings.md, from click's help and the Config model; `make check` fails when they are stale.
.PHONY: docs
docs: $(STAMP)
	$(BIN)/python docs/generate.py


demo: $(STAMP)
	$(BIN)/python examples/demo.py

demo-hylo: $(STAMP)
	$(BIN)/python examples/demo_hylo.py

# The fast tier for the edit–test loop: all but the tests marked slow, in parallel, none allowed to hang.
# Compiled modules are cached whatever the environment says: rewriting the tests' asserts is most of collecting them.
# One worker more than the cores: a test waiting on a fake server's reply would otherwise leave its core idle.
# The cores this process may run on (a container's cpuset, not the host's), with the virtualenv's Python.
WORKERS = $(shell $(BIN)/python -c 'import os; print(len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1)')
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -m "not slow" -n $(WORKERS) --timeout 60 --hypothesis-profile=fast

# Every test (CI): the slow tier too (real processes, crash safety, packaging, the demo).
test-all: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --timeout 300

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/scan.py
	$(BIN)/python bench/llm.py
	$(BIN)/python bench/recall.py
	$(BIN)/python bench/startup.py

clean:
	rm -rf $(VENV) .check build *.egg-info

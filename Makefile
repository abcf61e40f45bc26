# Two entry points, each doing all of its own set-up on a fresh machine:
#   make serve   run the club (http://127.0.0.1:8000)
#   make test    lint, type-check and run the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: serve test test-slow lint typecheck pytest browser-deps proxy-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[server,dev]'
	touch $(STAMP)

serve: $(STAMP)
	$(VENV)/bin/gameclub serve

browser-deps:
	@sh scripts/install-browser.sh

# HAProxy, for `gameclub cluster` and the browser tests through it.
proxy-deps:
	@sh scripts/install-proxy.sh

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# Tests marked slow (long on a busy machine) run with `make test-slow`, not in CI.
PYTEST_ARGS ?= -m "not slow" --durations=15

pytest: $(STAMP) browser-deps proxy-deps
	$(PY) -m pytest $(PYTEST_ARGS)

test-slow: $(STAMP)
	$(PY) -m pytest -m slow

test: lint typecheck pytest


clean:
	rm -rf $(VENV) build *.egg-info

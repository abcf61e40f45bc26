# Two entry points, each doing all of its own set-up on a fresh machine:
#   make serve   run the club (http://127.0.0.1:8000)
#   make test    lint, type-check and run the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: serve test lint typecheck pytest bench browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[server,dev]'
	touch $(STAMP)

serve: $(STAMP)
	$(VENV)/bin/gameclub serve

browser-deps:
	@sh scripts/install-browser.sh

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP) browser-deps
	$(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info

# odtlib — two commands do everything on a fresh Debian/Ubuntu machine with Python >= 3.10:
#   make demo   create .venv, install, run every paper notebook, the tutorial and the formulation guide in
#               the quick profile (report and HTML pages in runs/quick/)
#   make test   create .venv, install with test extras, run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PROFILE ?= quick
JOBS   ?= 1

.PHONY: demo test smoke bench clean venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/odtlib reproduce --profile $(PROFILE) --jobs $(JOBS) --output runs/$(PROFILE)

smoke: $(VENV)/.installed
	$(BIN)/odtlib reproduce --profile smoke --output runs/smoke

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

clean:
	rm -rf runs build .pytest_cache

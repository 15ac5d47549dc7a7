# odtlib — two commands do everything on a fresh Debian/Ubuntu machine with Python >= 3.10:
#   make demo   create .venv, install the runtime and the notebook extra (JupyterLab, the STreeD and ODTlearn
#               peers; not the test tools), run every paper notebook, the tutorial and the formulation guide in
#               the quick profile (report and HTML pages in runs/quick/)
#   make book   after make demo: build the static site into book/_build/html (open index.html)
#   make test   create .venv, install with the dev extra (pytest, the peers, the Gurobi/CPLEX free editions),
#               run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PROFILE ?= quick
JOBS   ?= 1
# test processes (pytest-xdist; one file per process, so module fixtures such as a built book are made once)
TEST_JOBS ?= 2

.PHONY: demo test smoke book bench clean venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# --no-compile: the bytecode of what the notebooks import is written when they first run; compiling every
# installed module up front (test suites of scipy, pandas, ...) would add ~235 MB to the demo's venv.
$(VENV)/.installed-notebook: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --no-compile -e ".[notebook]"
	@touch $@

$(VENV)/.installed-book: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --no-compile -e ".[notebook,book]"
	@touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

venv: $(VENV)/.installed-dev

demo: $(VENV)/.installed-notebook
	$(BIN)/odtlib reproduce --profile $(PROFILE) --jobs $(JOBS) --output runs/$(PROFILE)

smoke: $(VENV)/.installed-notebook
	$(BIN)/odtlib reproduce --profile smoke --output runs/smoke

# the static site (book/_build/html): README, claims ledger, the executed notebooks of the last make demo
# (runs/quick) or full run (runs/full), the API; re-runs nothing
book: $(VENV)/.installed-book
	$(BIN)/odtlib book --output book/_build/html

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -n $(TEST_JOBS) --dist loadfile --durations=25

clean:
	rm -rf runs build book/_build .pytest_cache

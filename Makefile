# d100: make run | make test | make quick | make lint | make bench
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# make run installs what serving needs (the server extra); the other targets the development
# set (the tests, linters, browsers' driver): after make test, make run installs nothing more
SERVER := $(VENV)/.server
DEV := $(VENV)/.dev

.PHONY: run test quick lint bench schemas clean

# Python keeps compiled modules (__pycache__): an environment that turns that off would have
# every command, server and test worker compile d100 again at each start.
unexport PYTHONDONTWRITEBYTECODE

# uv installs the sets (pip's resolver and unpacking were a minute of CI's two cores; uv takes
# seconds) and compiles them once, so no test process compiles a package again at its start
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check uv

$(SERVER): pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode -e '.[server]'
	touch $@

$(DEV): pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode -e '.[dev]'
	touch $@ $(SERVER)

run: $(SERVER)
	$(BIN)/d100 serve

# four workers on two cores: a run waits on deadlines, servers and browsers (three: tests 12 min
# 25 s; four: 10 min 38 s, on one clean clone); an idle worker takes waiting tests from another's
# queue. Six gain nothing: the two cores are busy all through a run at four (/proc/stat: 3 s of
# idle in 9 min), the PostgreSQL server's and Chromium's work counted. A clean clone's .ci/run
# took 10 min 0 s, its tests 9 min 39 s, after the suite's work was cut by a third
test: $(DEV)
	$(BIN)/pytest -q -n 4 --dist worksteal --durations=15

# the development loop: no browser, no PostgreSQL (its SQLite twin runs), nothing marked slow
# (exhaustive sweeps, brute force, sampling, fuzzing, real servers under load, deadlines or
# kills): 1 min 37 s on two quiet cores
quick: $(DEV)
	$(BIN)/pytest -q -n 2 --dist worksteal -m "not slow and not browser and not postgres"

lint: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src
	$(BIN)/mypy --strict src

bench: $(DEV)
	$(BIN)/python -m bench

schemas: $(DEV)
	$(BIN)/python -m d100.schema --write
	$(BIN)/python -m d100.server.event_views --write

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# d100: make run | make test | make quick | make lint | make bench
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test quick lint bench schemas clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/d100 serve

test: $(STAMP)
	$(BIN)/pytest -q -n 2

# the development loop: everything but the tests marked slow (sampling, brute force, kill tests)
quick: $(STAMP)
	$(BIN)/pytest -q -n 2 -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src
	$(BIN)/mypy --strict src

bench: $(STAMP)
	$(BIN)/python -m bench

schemas: $(STAMP)
	$(BIN)/python -m d100.schema --write
	$(BIN)/python -m d100.server.event_views --write

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

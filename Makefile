# Two entry points: `make run` (the main job) and `make test` (lint, format check, import
# layers, type check, the docs build, tests).
# Both create or reuse .venv with the package installed in editable mode.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,research,cluster]'
	touch $(STAMP)

run: $(STAMP)
	# the package byte-compiled (Python skips that where PYTHONDONTWRITEBYTECODE is set):
	# each later start of `diceopt serve` reads the compiled modules
	$(BIN)/python -m compileall -q src/diceopt
	$(BIN)/python -m diceopt.main_job

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks
	# mypy beside the import layers and the docs build (two cores; the first failure fails)
	$(BIN)/mypy & mypy=$$!; \
	$(BIN)/lint-imports && NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site; \
	status=$$?; wait $$mypy && exit $$status
	$(BIN)/python -m pytest -q --durations=15 -n auto --maxprocesses=4 --dist loadfile

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) build site src/*.egg-info .pytest_cache .ruff_cache .mypy_cache

# The two commands a newcomer needs: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test serve install lint jslint jsformat typecheck imports dist exact

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

# The browser code (src/baccarat/web/js): Biome's linter and formatter check (biome.json),
# installed from package-lock.json into ./node_modules; `make jsformat` rewrites the files.
# The page itself has no build step: the browser loads those files as they are.
BIOME := node_modules/.bin/biome

$(BIOME): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(BIOME)

jslint: $(BIOME)
	$(BIOME) ci --colors=off .

jsformat: $(BIOME)
	$(BIOME) format --write .

# src strictly; the tests with pyproject.toml's settings for them (bodies checked, not strict).
typecheck: install
	$(BIN)/mypy --strict src
	$(BIN)/mypy tests

# The layering (core <- analysis, fairness <- server <- cli; pyproject.toml's contracts).
imports: install
	$(BIN)/lint-imports

# Four processes (pytest-xdist) on two cores, each running whole test files: a file's
# fixtures stay in one; the longest files first (tests/conftest.py, LONGEST_FIRST), not
# pytest-xdist's reordering. More processes than cores: many tests wait (for a server, a
# browser, a table's clock); the others use the cores meanwhile. Each process has its own
# browser, contexts, collection and PostgreSQL cluster. On fresh clones (2026-12-05, after
# the tests stopped spending CPU on an SSL context per HTTP call): three 461 and 460 s of
# pytest with 512-521 s of CPU, four 432, 435 and 452 s with 537-550 s. (Before that: three
# 486 and 509 s, four 477-503 s; six took longer.)
# PYTHONDONTWRITEBYTECODE emptied: where the environment sets it (this machine's does), every
# process the suite starts (each server, each admin command) compiled the package from its
# source again: 0.3 s of CPU of the 1.65 s a server takes to start.
test: install lint jslint typecheck imports
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n 4 --dist loadfile --no-loadscope-reorder

# The exact figures of the package's own tables' rule sets, shipped so that a server does not
# compute them at every start (server/tables.py, EXACT_FILE): after a change to a rule set.
exact: install
	$(BIN)/python -c 'from pathlib import Path; from baccarat.server.kinds import load_tables; \
	  from baccarat.server.tables import write_exact_file; \
	  write_exact_file(Path("src/baccarat/server/exact.json"), load_tables())'

# The game server on http://127.0.0.1:8000/ (SQLite in ./data unless BACCARAT_DATABASE_URL).
HOST ?= 127.0.0.1
PORT ?= 8000
serve: install
	@echo "Starting the baccarat server: open http://$(HOST):$(PORT)/ (API docs: http://$(HOST):$(PORT)/docs)"
	$(BIN)/baccarat serve --host $(HOST) --port $(PORT)

# A release: the wheel of the committed tree (git archive: no file that is not in git),
# carrying the SHA-256 manifest of its package's files, written first; installed, `baccarat
# admin verify-install` and the server's check at start compare against it
# (docs/back-office.md, "Software verification").
RELEASE := build/release
dist: install
	rm -rf $(RELEASE) && mkdir -p $(RELEASE) dist
	git archive HEAD | tar -x -C $(RELEASE)
	cd $(RELEASE) && PYTHONPATH=src $(CURDIR)/$(BIN)/python -c \
		"from baccarat.server import software; print('wrote', software.write_manifest())"
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist $(RELEASE)
	@ls dist/*.whl

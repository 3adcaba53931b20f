# The two commands a newcomer needs: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test serve install lint jslint jsformat typecheck imports

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

test: install lint jslint typecheck imports
	$(BIN)/pytest

# The game server on http://127.0.0.1:8000/ (SQLite in ./data unless BACCARAT_DATABASE_URL).
HOST ?= 127.0.0.1
PORT ?= 8000
serve: install
	@echo "Starting the baccarat server: open http://$(HOST):$(PORT)/ (API docs: http://$(HOST):$(PORT)/docs)"
	$(BIN)/baccarat serve --host $(HOST) --port $(PORT)

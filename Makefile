# The two set-up commands of README.rst. Both create the virtual environment
# .venv in the checkout when it is missing or stale, and are safe to repeat.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: test lint clean bench-env

$(VENV)/.installed: setup.cfg pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and "Python 3.10 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

test: $(VENV)/.installed
	$(PY) -m pytest

lint: $(VENV)/.installed
	$(PY) -m ruff check scrapy_dedup tests benchmarks example_project
	$(PY) -m ruff format --check scrapy_dedup tests benchmarks example_project

clean:
	rm -rf $(VENV) build *.egg-info .scrapy

# The benchmarks' own environment: the package plus the extractors it is compared with.
BENCH_VENV ?= benchmarks/.venv
bench-env: $(BENCH_VENV)/.installed
$(BENCH_VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e . trafilatura readability-lxml lxml_html_clean
	touch $@

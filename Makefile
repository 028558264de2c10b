# Relayscope: `make serve` to use the web app, `make test` to test everything.
# Each target installs what it needs (npm, pip, Debian's chromium) and is quick once installed:
# installs are guarded by stamp files that the inputs they depend on invalidate.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PORT ?= 8000
PYTHON ?= python3
CHROMIUM := /usr/bin/chromium

# .venv/: the package (editable) and its dev tools: tests, CLI, linters. Python >= 3.11.
VENV := .venv
VPY := $(VENV)/bin/python
# .venv-lock/: the site build tools (pyodide-lock needs Python >= 3.12, hatchling pinned).
LOCK_VENV := .venv-lock
LPY := $(LOCK_VENV)/bin/python
# The first Python >= 3.12 on this machine (Debian's python3 is 3.11; pyenv has newer ones).
PYTHON_LOCK ?= $(shell for p in $(PYTHON) python3.13 python3.12 \
	$(wildcard $(HOME)/.pyenv/versions/3.1[2-9].*/bin/python3); do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 \
	&& { command -v "$$p"; break; }; done)

.PHONY: help site serve dist test test-fast test-lowest lint lock fuzz chromium clean

help:
	@echo "make serve   build the site and serve it at http://127.0.0.1:$(PORT)/ (PORT=...)"
	@echo "make test    install what is needed, build the site, run the unit tests, then the browser tests (2 processes each)"
	@echo "make test-fast  the unit tests alone (2 processes)"
	@echo "make site    fill static/vendor/ and update pyodide-lock.json"
	@echo "make lint    ruff on everything, mypy --strict on py/relayscope (make test runs it first)"
	@echo "make test-lowest  the unit tests with the lowest msgspec pyproject.toml accepts (CI runs it)"
	@echo "make lock    pin the test environments anew (tools/constraints.txt, tools/phoenix/constraints.txt)"
	@echo "make fuzz    the property tests, randomized, FUZZ_EXAMPLES=3000 examples each (long)"
	@echo "make dist    self-contained copy of the site in dist/site/ for any static host"

# Every package a test environment gets, transitive ones too, is pinned in a constraints file, so
# a new release on PyPI cannot change what a fresh clone tests. `make lock` resolves them anew.
# The package's own run-time range stays open (pyproject.toml: msgspec>=LOWEST): the unit tests
# run at both of its ends, the newest through the constraints (.venv/), the lowest declared one
# in .venv-msgspec-lowest/ (make test-lowest, which CI runs after make test).
CONSTRAINTS := tools/constraints.txt
PHOENIX_CONSTRAINTS := tools/phoenix/constraints.txt
PIP_QUIET := --quiet --disable-pip-version-check
MSGSPEC_LOWEST := $(shell sed -n 's/.*"msgspec>=\([0-9.]*\)".*/\1/p' pyproject.toml)
LOW_VENV := .venv-msgspec-lowest

$(VENV)/.stamp: pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "$(PYTHON) is older than 3.11: use PYTHON=..." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install $(PIP_QUIET) -c $(CONSTRAINTS) -e '.[dev]'
	touch $@

# The same tools, with the lowest msgspec pyproject.toml accepts.
$(LOW_VENV)/.stamp: pyproject.toml $(CONSTRAINTS)
	@test -n "$(MSGSPEC_LOWEST)" || { echo "no msgspec>=X in pyproject.toml" >&2; exit 1; }
	$(PYTHON) -m venv $(LOW_VENV)
	grep -v '^msgspec==' $(CONSTRAINTS) > $(LOW_VENV)/constraints.txt
	echo "msgspec==$(MSGSPEC_LOWEST)" >> $(LOW_VENV)/constraints.txt
	$(LOW_VENV)/bin/pip install $(PIP_QUIET) -c $(LOW_VENV)/constraints.txt -e '.[dev]'
	touch $@

# Resolve the test environments anew from pyproject.toml and tools/phoenix/requirements.txt (the
# newest releases today) and write what they got to the constraints files; commit them with the
# change that needed them.
lock:
	rm -rf build/lock
	$(PYTHON) -m venv build/lock/dev
	build/lock/dev/bin/pip install $(PIP_QUIET) -e '.[dev]'
	{ echo "# Every package of .venv/ (make test), pinned; made by make lock from pyproject.toml."; \
	  build/lock/dev/bin/pip freeze --exclude-editable --disable-pip-version-check; } > $(CONSTRAINTS)
	$(PYTHON) -m venv build/lock/phoenix
	build/lock/phoenix/bin/pip install $(PIP_QUIET) -r $(PHOENIX_DIR)/requirements.txt
	{ echo "# Every package of tools/phoenix/.venv/, pinned; made by make lock from requirements.txt."; \
	  build/lock/phoenix/bin/pip freeze --disable-pip-version-check; } > $(PHOENIX_CONSTRAINTS)
	rm -rf build/lock
	@grep -H '^msgspec==' $(CONSTRAINTS)

$(LOCK_VENV)/.stamp: tools/requirements-build.txt
	@test -n "$(PYTHON_LOCK)" \
		|| { echo "no Python >= 3.12 found: set PYTHON_LOCK=/path/to/python3.12" >&2; exit 1; }
	$(PYTHON_LOCK) -m venv $(LOCK_VENV)
	$(LPY) -m pip install --quiet --disable-pip-version-check -r tools/requirements-build.txt
	touch $@

node_modules/.stamp: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# Always runs (the wheel follows the code); copies and rewrites only what changed.
site: $(LOCK_VENV)/.stamp node_modules/.stamp
	$(LPY) tools/build_site.py site

serve: site
	$(LPY) tools/serve.py --port $(PORT)

dist: site
	$(LPY) tools/build_site.py dist --out dist/site

# Test-only: ccusage, the token report users trust, for tests/unit/test_meaning.py's comparison.
# npm install, not ci: ccusage names optional binaries for other platforms that the registry lacks.
CCUSAGE_DIR := tools/ccusage
$(CCUSAGE_DIR)/node_modules/.stamp: $(CCUSAGE_DIR)/package.json $(CCUSAGE_DIR)/package-lock.json
	cd $(CCUSAGE_DIR) && npm install --ignore-scripts --no-audit --no-fund
	touch $@

# Test-only: Arize Phoenix, a real OTLP receiver (protobuf on /v1/traces, spans read back over its
# REST API) for tests/unit/test_otlp_receiver.py. Its own venv: about 850 MB, 50 s to install, 10 s to start.
PHOENIX_DIR := tools/phoenix
$(PHOENIX_DIR)/.venv/.stamp: $(PHOENIX_DIR)/requirements.txt $(PHOENIX_CONSTRAINTS)
	$(PYTHON) -m venv $(PHOENIX_DIR)/.venv
	$(PHOENIX_DIR)/.venv/bin/pip install $(PIP_QUIET) -c $(PHOENIX_CONSTRAINTS) -r $(PHOENIX_DIR)/requirements.txt
	touch $@

chromium:
	@test -x $(CHROMIUM) || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# The style checks are part of the tests: ruff everywhere, mypy --strict on the package.
lint: $(VENV)/.stamp
	$(VPY) -m ruff check .
	$(VPY) -m mypy

# The unit tests on UNIT_WORKERS processes, then the browser tests on BROWSER_WORKERS (pytest-xdist).
# Both are dealt out by file (--dist loadfile). Unit tests share no state (each takes its own temp
# dirs and free ports); a file's tests stay on one worker, so a module's fixture (the Phoenix
# server) starts once. Each browser worker has its own static server, Chromium and booted pages
# (session fixtures are per worker), and a module's tests share its `app` page.
# Both always run; either failing fails the target. `make test-fast`: the unit tests alone.
UNIT_WORKERS ?= 2
BROWSER_WORKERS ?= 2
UNIT_PYTEST = $(VPY) -m pytest -n $(UNIT_WORKERS) --dist loadfile tests/unit
test: chromium lint site $(CCUSAGE_DIR)/node_modules/.stamp $(PHOENIX_DIR)/.venv/.stamp
	status=0; \
	$(UNIT_PYTEST) || status=$$?; \
	$(VPY) -m pytest -n $(BROWSER_WORKERS) --dist loadfile tests/browser || status=$$?; \
	exit $$status

test-fast: $(VENV)/.stamp $(CCUSAGE_DIR)/node_modules/.stamp $(PHOENIX_DIR)/.venv/.stamp
	$(UNIT_PYTEST)

# The unit tests again with the lowest msgspec the package accepts (CI runs this after make test).
test-lowest: $(LOW_VENV)/.stamp $(CCUSAGE_DIR)/node_modules/.stamp $(PHOENIX_DIR)/.venv/.stamp
	$(LOW_VENV)/bin/python -c 'import msgspec; print("msgspec", msgspec.__version__)'
	$(LOW_VENV)/bin/python -m pytest -n $(UNIT_WORKERS) --dist loadfile tests/unit

# The property tests with random examples (make test runs them derandomized: the "ci" profile in
# tests/conftest.py): the core's entry points, every command with hostile input (redact, export,
# stats, trace, audit), and redaction's properties. A failure prints the example and a
# @reproduce_failure line to pin it.
FUZZ_EXAMPLES ?= 3000
fuzz: $(VENV)/.stamp
	HYPOTHESIS_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VPY) -m pytest -q -p no:cacheprovider \
		tests/unit/test_robustness.py tests/unit/test_properties.py \
		tests/unit/test_commands_robustness.py tests/unit/test_redaction_properties.py \
		tests/unit/test_redact_blocks.py tests/unit/test_share_properties.py

clean:
	rm -rf static/vendor build dist

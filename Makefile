# rankbook: `make book` builds the site, `make test` runs the test suite.
# Both bootstrap .venv from requirements.lock on first use (Python 3.11, no conda needed).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.rankbook-installed
# apt-get as root directly (this machine, CI here), through sudo elsewhere (GitHub's runners)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || command -v sudo)

.PHONY: book test test-browser test-extremes bench lock clean venv wheel-test

venv: $(STAMP)

# The lock is the whole resolved set, so it is installed as it is (--no-deps): pip does not
# resolve it again, and so does not warn about repro-eval's request of an extra that
# ir-measures 0.4.3 does not have ("ir-measures[pytrec_eval]"); pip check confirms that every
# requirement is met.
$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements.lock
	$(BIN)/python -m pip check
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

book: $(STAMP)
	$(BIN)/rankbook build

# The suite on TEST_WORKERS processes (pytest-xdist), a test file to a process, so that each
# file's shared fixtures are computed once; TEST_WORKERS=0 runs it in this process alone. One
# more process than cores (at most 8): a worker often waits on a kernel, a subprocess or a
# timer, and the extra one keeps the cores busy meanwhile (2 cores: 517 s on 3 processes
# against 561 s on 2, the same commit on fresh clones).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 8 ? n + 1 : 8 )))
test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# Every notebook at every edge of its declared limits, the expensive cases and every maximum at
# once included (about 27 minutes on 2 cores; make test runs the quick ones).
test-extremes: $(STAMP)
	RANKBOOK_EXTREMES=all $(BIN)/python -m pytest tests/test_extremes.py tests/test_limits_products.py -o addopts="-ra" -q

# Headless Chromium over the built site. Installs Debian's chromium and chromium-driver if they
# are missing (as root, or through sudo), builds the book if needed (cached), then runs the checks.
test-browser: book
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  echo "installing chromium and chromium-driver"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi
	$(BIN)/python -m pytest tests/browser -o addopts="-ra" -q

# Build the wheel and the sdist into dist/, then install the wheel into a fresh virtual
# environment with numpy, scipy and pandas only and run a short example there (also in make test).
wheel-test: $(STAMP)
	rm -rf dist && $(BIN)/python -m build --wheel --sdist --no-isolation --outdir dist .
	$(BIN)/python -m pytest tests/test_release.py -q -o addopts="-ra" -k "wheel or zizmor or import"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate the lock file from pyproject.toml in a throw-away environment.
lock:
	rm -rf .lockenv && $(PYTHON) -m venv .lockenv
	.lockenv/bin/python -m pip install --quiet -e ".[test]"
	.lockenv/bin/python -m pip freeze --all --exclude-editable | grep -v -E '^(rankbook|pip|setuptools)==' > requirements.lock
	rm -rf .lockenv

clean:
	rm -rf _build book/generated runs

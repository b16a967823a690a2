# Two entry points for a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run check test bench catalog translations package rpm clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Checks the system packages the window needs (installs them as root, else prints the apt-get line), makes a
# runtime-only venv and opens the window: see packaging/linux/quickstart.sh.
run:
	PYTHON=$(PYTHON) VENV=$(VENV) sh packaging/linux/quickstart.sh

# Layers (import-linter contracts in pyproject.toml), lint (ruff) and types (mypy: strict on the core).
check: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check gpudesk tests tools
	$(BIN)/mypy

# Timing and memory-budget checks (tests/benchmarks) are not part of the default suite: a busy machine must still
# pass `make test`. `make bench` runs them on purpose.
test: $(STAMP) check
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest --ignore=tests/benchmarks $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/benchmarks --benchmark-enable $(PYTEST_ARGS)

catalog: $(STAMP)
	$(BIN)/python db/build_catalog.py

# Update the translation sources (.ts) from every .py in gpudesk/ui and build the .qm files the app loads
# (see resources/translations/README.md). Add a language by adding its locale here.
# Then the core (Qt-free) catalog: gpudesk/locale/gpudesk.pot from everything outside gpudesk/ui (babel.cfg), the
# per-package parts/<package>.po brought up to date, merged into gpudesk.po, compiled to gpudesk.mo
# (docs/translating.md).
TRANSLATION_LOCALES ?= zh_CN
translations: $(STAMP)
	for locale in $(TRANSLATION_LOCALES); do \
		$(BIN)/pyside6-lupdate -no-obsolete -source-language en -target-language $$locale \
			$$(find gpudesk/ui -name '*.py' | sort) -ts resources/translations/gpudesk_$$locale.ts && \
		$(BIN)/pyside6-lrelease -nounfinished resources/translations/gpudesk_$$locale.ts -qm resources/translations/gpudesk_$$locale.qm \
			|| exit 1; \
	done
	for locale in $(TRANSLATION_LOCALES); do \
		$(BIN)/python tools/i18n_catalog.py all --language $$locale || exit 1; \
	done

# Linux bundle, tarball and .deb in dist/ from a clean build venv (see packaging/README.md).
package:
	bash packaging/linux/build.sh

# RPM for Fedora/RHEL from the same bundle (builds it when dist/gpudesk is missing; see packaging/README.md).
rpm:
	bash packaging/linux/build_rpm.sh

clean:
	rm -rf $(VENV) build dist *.egg-info

# relax-mlir developer entry points. `make demo` and `make test` work on a fresh
# Debian 12 machine: each installs what is missing, builds incrementally, runs.
SHELL := /bin/bash
.DEFAULT_GOAL := build

ROOT := $(abspath .)
BUILD := $(ROOT)/build
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python
DEPS := $(ROOT)/.deps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev \
                ninja-build cmake g++ python3-dev python3-venv
export PYTHONPATH := $(BUILD)/python_packages

.PHONY: build demo test test-lit test-python system-deps clean

system-deps:
	@dpkg -s $(APT_PACKAGES) >/dev/null 2>&1 || { \
	  echo "== installing Debian packages: $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES); }

$(VENV)/.stamp: requirements-dev.txt | system-deps
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(DEPS)/mlir-python/relax-mlir-python-sources.stamp: tools/fetch_mlir_python_sources.py | $(VENV)/.stamp
	$(PY) tools/fetch_mlir_python_sources.py $(DEPS)/mlir-python

# Configuring is cheap and picks up new Python files; ninja rebuilds incrementally.
build: $(VENV)/.stamp $(DEPS)/mlir-python/relax-mlir-python-sources.stamp | system-deps
	cmake -S $(ROOT) -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPython3_EXECUTABLE=$(PY) -DPython_EXECUTABLE=$(PY) \
	  -DRELAX_MLIR_PYTHON_SOURCES_DIR=$(DEPS)/mlir-python > $(BUILD).configure.log \
	  || { cat $(BUILD).configure.log; exit 1; }
	ninja -C $(BUILD)
	@echo "$(BUILD)/python_packages" > "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/relax_mlir_dev.pth"

demo: build
	$(PY) -m relax_mlir.demo

test-lit: build
	$(VENV)/bin/lit -sv $(BUILD)/test

test-python: build
	$(PY) -m pytest -q test/python

test: build
	$(VENV)/bin/lit -s $(BUILD)/test
	$(PY) -m pytest -q test/python

clean:
	rm -rf $(BUILD) $(BUILD).configure.log

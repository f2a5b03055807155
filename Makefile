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
APT_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev libomp-22-dev \
                ninja-build cmake g++ python3-dev python3-venv valgrind openmpi-bin libopenmpi-dev ccache
export PYTHONPATH := $(BUILD)/python_packages
# One compiler name for every build: cmake would take c++, pip's
# scikit-build-core Python's g++, and ccache (see CMakeLists.txt) keys on it.
ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
CXX := g++
endif
export CC CXX

docs: build
	mkdir -p docs/ops && cp $(BUILD)/docs/ops/RelaxOps.md docs/ops/RelaxOps.md
	$(PY) tools/gen_api_docs.py docs/api.md

.PHONY: docs build demo test test-lit test-python system-deps clean test-asan bench check-wheel lint

# `pip install .` into a fresh venv (build/wheel-venv): imports, grad, no stray files.
check-wheel: | system-deps
	tools/check_wheel.sh $(BUILD)/wheel-venv

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

# pytest runs on every core this process may use (pytest-xdist; each worker
# has its own compilation cache, see test/python/conftest.py):
# PYTEST_PARALLEL= runs the tests in one process.
PYTEST_PARALLEL ?= -n auto

test-lit: build
	$(VENV)/bin/lit -sv $(BUILD)/test

test-python: build
	$(PY) -m pytest -q $(PYTEST_PARALLEL) test/python

# ruff over the Python sources; mypy over the package as built (MLIR's own
# Python core carries no type information and is taken as Any).
PACKAGE_MODULES := $(patsubst python/%,%,$(wildcard python/relax_mlir/*.py))
lint: build
	$(VENV)/bin/ruff check python/relax_mlir tools test/python test/lib bench
	cd $(BUILD)/python_packages && $(VENV)/bin/mypy --config-file $(ROOT)/pyproject.toml $(PACKAGE_MODULES)

test: build lint
	$(VENV)/bin/lit -s $(BUILD)/test
	$(PY) -m pytest -q $(PYTEST_PARALLEL) test/python

# The project's C++ with AddressSanitizer + UBSan (a build tree of its own, at
# -O1; MLIR's Python binding sources, upstream code, uninstrumented), running
# the lit suite and the Python op and reliability tests under it.
# Python itself is not instrumented: the ASan runtime is preloaded and leak
# detection is left to relax-opt (the interpreter keeps memory until exit).
ASAN_BUILD := $(ROOT)/build-asan
ASAN_PYTEST := test/python/test_ops_forward.py test/python/test_ops_gradient.py \
               test/python/test_reliability.py test/python/test_gradient_behaviours.py \
               test/python/test_conv_gradients.py test/python/test_control_flow.py \
               test/python/test_vmap.py
# libstdc++ is preloaded too, or ASan's __cxa_throw interceptor finds no real
# one (Python does not link libstdc++). allow_user_poisoning=0: an attribute's
# storage (#relax_cpu.tiles) is allocated by the instrumented inline
# BumpPtrAllocator, which poisons the new slab of the context's allocator that
# uninstrumented libMLIR then allocates from without unpoisoning (a
# use-after-poison on the next StringAttr); heap errors are still caught.
# The RSS tests measure nothing under ASan, whose quarantine keeps freed
# memory.
ASAN_DESELECT := -k "not keep_rss_flat and not grow_without_bound"
test-asan: $(VENV)/.stamp $(DEPS)/mlir-python/relax-mlir-python-sources.stamp | system-deps
	cmake -S $(ROOT) -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DRELAX_MLIR_SANITIZE=ON \
	  -DPython3_EXECUTABLE=$(PY) -DPython_EXECUTABLE=$(PY) \
	  -DRELAX_MLIR_PYTHON_SOURCES_DIR=$(DEPS)/mlir-python > $(ASAN_BUILD).configure.log \
	  || { cat $(ASAN_BUILD).configure.log; exit 1; }
	ninja -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allow_user_poisoning=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 $(VENV)/bin/lit -s $(ASAN_BUILD)/test
	LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so)" \
	  ASAN_OPTIONS=detect_leaks=0:detect_odr_violation=0:allow_user_poisoning=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 \
	  RELAX_MLIR_PYTHON_PACKAGES=$(ASAN_BUILD)/python_packages PYTHONPATH=$(ASAN_BUILD)/python_packages \
	  $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_PARALLEL) $(ASAN_PYTEST) $(ASAN_DESELECT)

# Benchmarks (ratios against peers measured in the same run): one training
# step of nine workloads in relax-mlir, JAX, numpy and PyTorch, each in its own
# process, 1 and 2 threads; writes bench/results/<date>.json and
# bench/RESULTS.md. The peers live in a venv of their own (bench/.venv).
# BENCH_ARGS passes options to bench/run.py (e.g. BENCH_ARGS="--quick").
BENCH_VENV := $(ROOT)/bench/.venv
$(BENCH_VENV)/.stamp: bench/requirements.txt
	test -x $(BENCH_VENV)/bin/python || python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q --disable-pip-version-check -r bench/requirements.txt
	touch $@

bench: build $(BENCH_VENV)/.stamp
	$(PY) bench/run.py $(BENCH_ARGS)
	$(PY) bench/call_overhead.py
	$(PY) bench/checkpoint_memory.py
	$(PY) bench/hvp.py
	$(PY) bench/compile_depth.py
	$(PY) bench/rnn_scan.py
	$(PY) bench/data_parallel.py

# Mutation fuzzer of relax-opt (tools/fuzz/relax_fuzz.py) for DURATION seconds from
# SEED; findings (crash, hang, invalid IR) go to build/fuzz-findings/ and fail it.
.PHONY: fuzz
DURATION ?= 600
SEED ?= 0
fuzz: build
	$(PY) tools/fuzz/relax_fuzz.py --duration $(DURATION) --seed $(SEED) --out $(BUILD)/fuzz-findings

# Random programs through gradient + compile + run in worker subprocesses:
# make soak N=5000 SEED=100000 (N programs, default 1000, from seed SEED, default 0).
.PHONY: soak
soak: build
	$(PY) tools/soak.py --count $(or $(N),1000) --seed $(or $(SEED),0)

# The lit suite with every relax-opt under valgrind's memcheck (about 15 min on
# 2 cores). It finds what test-asan cannot: a pass reading IR that libMLIR has
# freed, when the read happens inside libMLIR (not instrumented by ASan).
.PHONY: test-memcheck
test-memcheck: build
	$(VENV)/bin/lit -s -Dmemcheck=1 $(BUILD)/test

clean:
	rm -rf $(BUILD) $(BUILD).configure.log $(ASAN_BUILD) $(ASAN_BUILD).configure.log $(ROOT)/build-wheel-*

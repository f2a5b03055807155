#!/usr/bin/env bash
# The GPU check in two halves (issue 10; DEVELOPERS.md says when a GPU is at hand).
#
#   tools/gpu-check.sh prepare [DIR] [--target cuda|cpu] [--chip sm_90] [--quick]
#       Here, on a CPU machine: builds the project, then exports every op's
#       gradient cases, 20 random programs, an RNN scan with a cond and a
#       while loop (host loops launching kernels), the bench's MLP and CNN steps
#       (for sm_90 by default) with their inputs and the CPU's results, and the
#       deep_mlp and transformer_block steps (timed there, no data), into DIR
#       (default build/gpu-check, well under 64 MiB), with a copy of the
#       pure-Python loader. For CUDA it first runs every case's kernels on
#       the GPU emulator here and stops when one differs from the CPU.
#       --target cpu makes CPU exports of the same, to prove `run` here.
#   tools/gpu-check.sh run [DIR] [--steps N]
#       On the GPU machine (its python3 with numpy; JAX and PyTorch for the
#       timing peers; no LLVM, no build): loads each export, compares every
#       result with the CPU's, and times the MLP step against JAX and PyTorch
#       on the same GPU; checks the deep_mlp and transformer_block steps
#       against float64 numpy and times them the same way. Under 8 minutes;
#       exit 1 when a result differs.
#       With the device tool: run `bash tools/gpu-check.sh run` with
#       carry=["build/gpu-check"].
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
command=${1:-}
shift || true
DIR="$ROOT/build/gpu-check"
if [[ $# -gt 0 && $1 != --* ]]; then DIR=$1; shift; fi

case "$command" in
  prepare)
    make -C "$ROOT" build >/dev/null
    PYTHONPATH="$ROOT/build/python_packages:$ROOT/test/lib:$ROOT/test/python:$ROOT/bench" \
      "$ROOT/.venv/bin/python" "$ROOT/tools/gpu_check.py" prepare "$DIR" "$@"
    ;;
  run)
    # The machine's own python3: it has the GPU stack; nothing of the build.
    PYTHON=${PYTHON:-python3}
    timeout 470 env -u PYTHONPATH "$PYTHON" "$ROOT/tools/gpu_check.py" run "$DIR" "$@"
    ;;
  *)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac

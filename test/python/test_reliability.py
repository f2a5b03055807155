"""Regression tests for the findings of the reliability review (issue 6): wrong
numbers, silent zero gradients, invalid adjoints, crashes, a per-call leak and
unclear errors. Each test failed before its fix."""

from __future__ import annotations

import gc
import os
import threading
from typing import Any

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt


def body(params: list[rt.Param], result_type: str, lines: str) -> str:
    """`func.func @main(params) -> result_type` with `lines` in its dataflow block
    (the last line defines %out)."""
    bindings = [line.strip() for line in lines.strip().splitlines()]
    return rt.function_text("main", params, bindings, "%out", result_type)


# ---------------------------------------------------------------------------
# Reductions over no axes followed by a broadcasting consumer
# ---------------------------------------------------------------------------

def test_sum_of_0d_times_vector() -> None:
    # Was [2, 8, 18]: fusion re-accumulated the all-parallel "reduction".
    params = [rt.Param("s", (), np.float32), rt.Param("x", (3,), np.float32)]
    text = body(params, "tensor<3xf32>", """
        %0 = relax.sum %s : tensor<f32> -> tensor<f32>
        %out = relax.multiply %0, %x : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
    """)
    got = rt.compile_text(text).main(np.float32(2), np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(got, [2, 4, 6])


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_over_empty_axis_list_plus_zeros(op: str) -> None:
    # Was [[1, 2, 3], [2, 4, 6]].
    text = body([rt.Param("y", (2, 3), np.float32)], "tensor<2x3xf32>", f"""
        %0 = relax.{op} %y {{axis = array<i64>}} : tensor<2x3xf32> -> tensor<2x3xf32>
        %z = relax.zeros : tensor<2x3xf32>
        %out = relax.add %0, %z : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    """)
    y = np.array([[1, 2, 3], [1, 2, 3]], np.float32)
    np.testing.assert_array_equal(rt.compile_text(text).main(y), y)


def test_gradient_through_reduction_over_no_axes() -> None:
    # d/dx sum(sum(s) * x) = sum(s) broadcast; d/ds = sum(x).
    text = body([rt.Param("s", (), np.float64), rt.Param("x", (3,), np.float64)], "tensor<f64>", """
        %0 = relax.sum %s : tensor<f64> -> tensor<f64>
        %1 = relax.multiply %0, %x : tensor<f64>, tensor<3xf64> -> tensor<3xf64>
        %out = relax.sum %1 : tensor<3xf64> -> tensor<f64>
    """)
    loss, (ds, dx) = rt.compile_gradient(text).main_adjoint(np.float64(2), np.arange(3.0))
    assert loss == 6.0
    assert ds == 3.0
    np.testing.assert_array_equal(dx, [2, 2, 2])


# ---------------------------------------------------------------------------
# Accumulation precision
# ---------------------------------------------------------------------------

def test_f16_mean_of_70000_ones() -> None:
    # Was 0: the count 70000 rounded to inf in f16.
    text = body([rt.Param("y", (70000,), np.float16)], "tensor<f16>",
                "%out = relax.mean %y : tensor<70000xf16> -> tensor<f16>")
    assert rt.compile_text(text).main(np.ones(70000, np.float16)) == 1.0


def test_f16_mean_of_3000_halves() -> None:
    # Was 0.341: the f16 sum stalls at 1024.
    text = body([rt.Param("y", (3000,), np.float16)], "tensor<f16>",
                "%out = relax.mean %y : tensor<3000xf16> -> tensor<f16>")
    assert rt.compile_text(text).main(np.full(3000, 0.5, np.float16)) == 0.5


def test_f16_sum_past_2048() -> None:
    text = body([rt.Param("y", (3000,), np.float16)], "tensor<f16>",
                "%out = relax.sum %y : tensor<3000xf16> -> tensor<f16>")
    assert rt.compile_text(text).main(np.ones(3000, np.float16)) == 3000


def test_f16_matmul_accumulates_in_f32() -> None:
    # 4096 products of 1 * 1: an f16 accumulator stalls at 2048.
    params = [rt.Param("a", (1, 4096), np.float16), rt.Param("b", (4096, 1), np.float16)]
    text = body(params, "tensor<1x1xf16>",
                "%out = relax.matmul %a, %b : tensor<1x4096xf16>, tensor<4096x1xf16> "
                "-> tensor<1x1xf16>")
    got = rt.compile_text(text).main(np.ones((1, 4096), np.float16),
                                     np.ones((4096, 1), np.float16))
    assert got[0, 0] == 4096


def test_f32_sum_of_1e8_ones_and_no_materialized_splat() -> None:
    # Was 16,777,216 (an f32 sum stalls at 2^24), and the splat of 1e8 ones
    # was compiled into a 400 MB global (2 s, 2 GB to compile).
    text = body([], "tensor<f32>", """
        %o = relax.ones : tensor<100000000xf32>
        %out = relax.sum %o : tensor<100000000xf32> -> tensor<f32>
    """)
    exe = relax_mlir.compile(text)
    assert len(str(exe.llvm_module)) < 100_000
    assert exe.main() == 1e8


# ---------------------------------------------------------------------------
# Integer division
# ---------------------------------------------------------------------------

def test_integer_division_by_zero_does_not_kill_the_process(tmp_path) -> None:
    # Was SIGFPE. Run in a fresh interpreter so that a regression fails one test.
    script = """
        import numpy as np, relax_mlir
        text = '''
        func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
          %r = relax.dataflow -> (tensor<5xi32>) {
            %0 = relax.divide %a, %b : tensor<5xi32>, tensor<5xi32> -> tensor<5xi32>
            relax.output %0 : tensor<5xi32>
          }
          return %r : tensor<5xi32>
        }
        '''
        a = np.array([7, -7, -2**31, 5, 0], np.int32)
        b = np.array([2, 2, -1, 0, 0], np.int32)
        print(relax_mlir.compile(text).main(a, b).tolist())
    """
    proc = rt.run_python(script, tmp_path)
    assert proc.returncode == 0, rt.describe_process(proc)
    # Truncation toward zero; x / 0 = 0; INT_MIN / -1 wraps to INT_MIN.
    assert proc.stdout.strip() == str([3, -3, -2**31, 0, 0])


def test_integer_division_i64_matches_truncation() -> None:
    text = body([rt.Param("a", (6,), np.int64), rt.Param("b", (6,), np.int64)], "tensor<6xi64>",
                "%out = relax.divide %a, %b : tensor<6xi64>, tensor<6xi64> -> tensor<6xi64>")
    a = np.array([9, -9, 9, -9, np.iinfo(np.int64).min, 3], np.int64)
    b = np.array([4, 4, -4, -4, -1, 0], np.int64)
    expected = [2, -2, -2, 2, np.iinfo(np.int64).min, 0]
    np.testing.assert_array_equal(rt.compile_text(text).main(a, b), expected)


# ---------------------------------------------------------------------------
# Gradients through nested blocks and glue outside the block
# ---------------------------------------------------------------------------

def test_gradient_through_nested_dataflow() -> None:
    # Was relax.zeros with exit 0.
    text = """
    func.func @main(%x: tensor<3xf64>) -> tensor<f64> {
      %r = relax.dataflow -> (tensor<f64>) {
        %e = relax.dataflow -> (tensor<3xf64>) {
          %0 = relax.exp %x : tensor<3xf64>
          relax.output %0 : tensor<3xf64>
        }
        %s = relax.sum %e : tensor<3xf64> -> tensor<f64>
        relax.output %s : tensor<f64>
      }
      return %r : tensor<f64>
    }
    """
    x = np.array([0.5, -1.0, 2.0])
    loss, (dx,) = rt.compile_gradient(text).main_adjoint(x)
    np.testing.assert_allclose(loss, np.exp(x).sum())
    np.testing.assert_allclose(dx, np.exp(x))


def test_region_op_on_the_path_is_an_error() -> None:
    text = """
    func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
      %r = relax.dataflow -> (tensor<f32>) {
        %e = scf.execute_region -> tensor<3xf32> {
          %0 = relax.exp %x : tensor<3xf32>
          scf.yield %0 : tensor<3xf32>
        }
        %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
        relax.output %s : tensor<f32>
      }
      return %r : tensor<f32>
    }
    """
    with pytest.raises(relax_mlir.GradientError, match="does not differentiate through regions"):
        relax_mlir.gradient(text)


def test_glue_chain_before_the_block() -> None:
    # Was "operand #0 does not dominate this use".
    text = """
    func.func @main(%t: tuple<tuple<tensor<3xf64>, tensor<f64>>, tensor<2xf64>>) -> tensor<f64> {
      %inner = relax.tuple_get_item %t[0] : tuple<tuple<tensor<3xf64>, tensor<f64>>, tensor<2xf64>>
      %x = relax.tuple_get_item %inner[0] : tuple<tensor<3xf64>, tensor<f64>>
      %c = arith.constant dense<2.0> : tensor<3xf64>
      %tc = relax.tuple(%c, %x : tensor<3xf64>, tensor<3xf64>)
      %r = relax.dataflow -> (tensor<f64>) {
        %a = relax.tuple_get_item %tc[0] : tuple<tensor<3xf64>, tensor<3xf64>>
        %b = relax.tuple_get_item %tc[1] : tuple<tensor<3xf64>, tensor<3xf64>>
        %m = relax.multiply %a, %b : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
        %s = relax.sum %m : tensor<3xf64> -> tensor<f64>
        relax.output %s : tensor<f64>
      }
      return %r : tensor<f64>
    }
    """
    x = np.array([1.0, 2.0, 3.0])
    loss, (((dx, dy), dz),) = rt.compile_gradient(text).main_adjoint(((x, np.float64(5)),
                                                                      np.zeros(2)))
    assert loss == 12.0
    np.testing.assert_array_equal(dx, [2, 2, 2])
    assert dy == 0 and not dz.any()


# ---------------------------------------------------------------------------
# The call boundary: no leak, threads, keyword arguments, byte order
# ---------------------------------------------------------------------------

README_SOURCE = """
func.func @main(%x: tensor<4x3xf32> {relax.name = "x"},
                %w: tensor<3x2xf32> {relax.name = "w"}) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.tanh %0 : tensor<4x2xf32>
    %2 = relax.mean %1 : tensor<4x2xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.fixture(scope="module")
def readme_adjoint() -> relax_mlir.Function:
    return rt.compile_gradient(README_SOURCE, ("w",)).main_adjoint


def test_ten_thousand_calls_keep_rss_flat(readme_adjoint) -> None:
    # Was 191 MB -> 1,163 MB: a ctypes class per argument per call.
    x, w = np.ones((4, 3), np.float32), np.ones((3, 2), np.float32)
    for _ in range(500):
        readme_adjoint(x, w)
    before = _rss_mb()
    for _ in range(10_000):
        readme_adjoint(x, w)
    growth = _rss_mb() - before
    assert growth < 4.0, f"RSS grew by {growth:.1f} MB over 10,000 calls"


def test_compiles_do_not_grow_without_bound() -> None:
    module = relax_mlir.gradient(README_SOURCE, require_grads=["w"])
    for _ in range(40):
        relax_mlir.compile(module)
    gc.collect()
    before = _rss_mb()
    for _ in range(160):
        relax_mlir.compile(module)
    gc.collect()
    growth = _rss_mb() - before
    # A JIT that kept each engine would grow by far more than this over 160
    # compiles; allocator noise stays well below.
    assert growth < 25.0, f"RSS grew by {growth:.1f} MB over 160 compiles"


def test_two_threads_agree_with_sequential_calls(readme_adjoint) -> None:
    gen = rt.rng("threads")
    inputs = [(gen.normal(size=(4, 3)).astype(np.float32),
               gen.normal(size=(3, 2)).astype(np.float32)) for _ in range(200)]
    expected = [readme_adjoint(x, w) for x, w in inputs]
    results: list[list] = [[], []]

    def worker(k: int) -> None:
        results[k] = [readme_adjoint(x, w) for x, w in inputs]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        assert len(got) == len(expected)
        for (loss, (dw,)), (eloss, (edw,)) in zip(got, expected):
            assert loss == eloss
            np.testing.assert_array_equal(dw, edw)


def test_keyword_arguments(readme_adjoint) -> None:
    x, w = np.ones((4, 3), np.float32), np.full((3, 2), 0.5, np.float32)
    loss, (dw,) = readme_adjoint(x, w)
    for call in (lambda: readme_adjoint(x=x, w=w), lambda: readme_adjoint(w=w, x=x),
                 lambda: readme_adjoint(x, w=w)):
        got_loss, (got_dw,) = call()
        assert got_loss == loss
        np.testing.assert_array_equal(got_dw, dw)


@pytest.mark.parametrize("args, kwargs, message", [
    ((), {"x": 1, "v": 2}, "unexpected keyword argument 'v'; its parameters are: x, w"),
    ((np.ones((4, 3), np.float32),), {"x": 1}, "multiple values for argument 'x'"),
    ((), {"w": 1}, "missing 'x'"),
])
def test_keyword_argument_errors(readme_adjoint, args, kwargs, message) -> None:
    with pytest.raises(TypeError, match=message):
        readme_adjoint(*args, **kwargs)


def test_big_endian_arrays_are_accepted(readme_adjoint) -> None:
    # Was "expected dtype float32, got float32".
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    w = np.linspace(0, 1, 6, dtype=np.float32).reshape(3, 2)
    loss, (dw,) = readme_adjoint(x.astype(">f4"), w.astype(">f4"))
    eloss, (edw,) = readme_adjoint(x, w)
    assert loss == eloss
    np.testing.assert_array_equal(dw, edw)


def test_wrong_dtype_with_byte_order_names_it(readme_adjoint) -> None:
    with pytest.raises(TypeError, match=r"argument 'x'.*got float64 \(big-endian\).*astype"):
        readme_adjoint(np.ones((4, 3), ">f8"), np.ones((3, 2), np.float32))


# ---------------------------------------------------------------------------
# gradient() arguments
# ---------------------------------------------------------------------------

def test_require_grads_takes_numpy_integers() -> None:
    # Was rejected.
    module = relax_mlir.gradient(README_SOURCE, require_grads=[np.int64(1)])
    exe = relax_mlir.compile(module)
    _, grads = exe.main_adjoint(np.ones((4, 3), np.float32), np.ones((3, 2), np.float32))
    assert len(grads) == 1 and grads[0].shape == (3, 2)


@pytest.mark.parametrize("index", [2**63, 2**64 + 1, -2**63 - 1])
def test_target_index_beyond_int64_single_result(index: int) -> None:
    # 2**63 was a raw "failed to add `gradient` with options". (Indices within
    # int64 are checked by the pass: test_api.py.)
    with pytest.raises(ValueError, match=f"target_index {index} given, but 'main' returns a "
                                         "single value; pass target_index=0"):
        relax_mlir.gradient(README_SOURCE, target_index=index)


def test_target_index_out_of_range_tuple_result() -> None:
    text = """
    func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
      %r:2 = relax.dataflow -> (tensor<f32>, tensor<3xf32>) {
        %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
        relax.output %s, %x : tensor<f32>, tensor<3xf32>
      }
      %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<3xf32>)
      return %t : tuple<tensor<f32>, tensor<3xf32>>
    }
    """
    with pytest.raises(ValueError, match="target_index 9223372036854775808 is out of range: "
                                         "'main' returns a tuple of 2 fields; pass 0 to 1"):
        relax_mlir.gradient(text, target_index=2**63)
    assert relax_mlir.gradient(text, target_index=np.int32(0)) is not None


@pytest.mark.parametrize("index", [True, 1.0, "0"])
def test_target_index_must_be_an_integer(index) -> None:
    with pytest.raises(TypeError, match="target_index must be an integer"):
        relax_mlir.gradient(README_SOURCE, target_index=index)


# ----------------------------------------------------------------------------
# Zero-size dims and a scan feeding a broadcast (found by the random programs)
# ----------------------------------------------------------------------------

ZERO_SIZE_CASES = [
    ('"relax.concat"(%a, %a) {axis = 1 : i64} : (tensor<0x2xf64>, tensor<0x2xf64>) -> '
     'tensor<0x4xf64>', (0, 2), (0, 4), None),
    ('"relax.strided_slice"(%a) {axes = array<i64: 0>, begin = array<i64: 0>, '
     'end = array<i64: 2>} : (tensor<3x0xf64>) -> tensor<2x0xf64>', (3, 0), (2, 0), None),
    ('"relax.cumsum"(%a) {axis = 0 : i64} : (tensor<3x0xf64>) -> tensor<3x0xf64>',
     (3, 0), (3, 0), None),
    ('"relax.split"(%a) {indices_or_sections = 2 : i64} : (tensor<2x0xf64>) -> '
     'tuple<tensor<1x0xf64>, tensor<1x0xf64>>', (2, 0), None, None),
    ('"relax.pad"(%a) {pad_width = array<i64: 1, 0>, pad_value = 2.0 : f64} : '
     '(tensor<0xf64>) -> tensor<1xf64>', (0,), (1,), [2.0]),
]


@pytest.mark.parametrize("op,shape,result,expected", ZERO_SIZE_CASES,
                         ids=["concat", "strided_slice", "cumsum", "split", "pad"])
def test_ops_on_zero_size_dims_lower_and_run(op: str, shape: tuple, result: tuple | None,
                                             expected: list | None) -> None:
    """Slices and inserts on zero-size dims used to carry offsets past the end
    ("offset 0 is out-of-bounds") and failed to lower."""
    a_type = rt.tensor_type(shape, np.float64)
    if result is None:  # split: return one part of the tuple
        body = (f"    %t = {op}\n"
                f"    %0 = relax.tuple_get_item %t[1] : tuple<tensor<1x0xf64>, tensor<1x0xf64>>")
        result = (1, 0)
    else:
        body = f"    %0 = {op}"
    r_type = rt.tensor_type(result, np.float64)
    text = (f"func.func @main(%a: {a_type}) -> {r_type} {{\n"
            f"  %r = relax.dataflow -> ({r_type}) {{\n{body}\n"
            f"    relax.output %0 : {r_type}\n  }}\n  return %r : {r_type}\n}}\n")
    out = relax_mlir.compile(text)["main"](np.zeros(shape))
    assert out.shape == result
    if expected is not None:
        np.testing.assert_array_equal(out, expected)


CUMSUM_BROADCAST = """
func.func @main(%p: tensor<1x1xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %c = relax.cumsum %p {axis = 0 : i64} : tensor<1x1xf64>
    %b = relax.broadcast_to %c : tensor<1x1xf64> -> tensor<1x3xf64>
    %w = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf64>
    %m = relax.multiply %b, %w : tensor<1x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
    %s = relax.sum %m : tensor<1x3xf64> -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_cumsum_feeding_a_broadcast() -> None:
    """The scan step read its own output; fused into a broadcasting consumer it
    re-accumulated along the broadcast axis (6, 12, 18 instead of 6, 6, 6)."""
    exe = relax_mlir.compile(relax_mlir.gradient(CUMSUM_BROADCAST))
    loss, (grad,) = exe.main_adjoint(np.full((1, 1), 6.0))
    assert float(loss) == 6.0 * (1 + 2 + 3)
    np.testing.assert_array_equal(grad, [[6.0]])


EMPTY_INPUT_WINDOW_OPS = [
    ('"relax.conv2d"(%x, %w) {padding = array<i64: 0, 0, 0, 1>} : (tensor<1x1x1x0xf64>, '
     'tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>', (1, 1, 1, 0), True),
    ('"relax.avg_pool2d"(%x) {pool_size = array<i64: 2, 1>, padding = array<i64: 1, 0, 1, 0>, '
     'count_include_pad = true} : (tensor<1x1x0x1xf64>) -> tensor<1x1x1x1xf64>',
     (1, 1, 0, 1), False),
]


@pytest.mark.parametrize("op,shape,weights", EMPTY_INPUT_WINDOW_OPS, ids=["conv2d", "avg_pool2d"])
def test_gradient_of_a_window_op_on_an_empty_input(op: str, shape: tuple, weights: bool,
                                                   tmp_path: Any) -> None:
    """An input with a size-0 dim that padding turns into a non-empty output: the
    input's (empty) gradient used to be built as a convolution whose shape
    inference failed, aborting the process. Empty operands need no rule now."""
    params = f"%x: {rt.tensor_type(shape, np.float64)}"
    if weights:
        params += ", %w: tensor<1x1x1x1xf64>"
    text = (f"func.func @main({params}) -> tensor<f64> {{\n"
            f"  %r = relax.dataflow -> (tensor<f64>) {{\n    %y = {op}\n"
            f'    %s = "relax.sum"(%y) : (tensor<1x1x1x1xf64>) -> tensor<f64>\n'
            f"    relax.output %s : tensor<f64>\n  }}\n  return %r : tensor<f64>\n}}\n")
    proc = rt.run_python(f"""
        import numpy as np, relax_mlir
        exe = relax_mlir.compile(relax_mlir.gradient({text!r}))
        args = [np.zeros({shape!r})] + ([np.ones((1, 1, 1, 1))] if {weights!r} else [])
        loss, grads = exe.main_adjoint(*args)
        assert float(loss) == 0.0 and grads[0].shape == {shape!r}
        if {weights!r}:
            assert grads[1].shape == (1, 1, 1, 1) and float(grads[1].sum()) == 0.0
        print("ok")
    """, tmp_path)
    assert proc.returncode == 0 and "ok" in proc.stdout, rt.describe_process(proc)


HALF_COMPOSITES = """
func.func @main(%x: tensor<2x3x2xf16>, %g: tensor<3xf16>, %b: tensor<3xf16>)
    -> tuple<tensor<2x3x2xf16>, tensor<2x3x2xf16>, tensor<2x3x2xf16>> {
  %r:3 = relax.dataflow -> (tensor<2x3x2xf16>, tensor<2x3x2xf16>, tensor<2x3x2xf16>) {
    %l = relax.log_softmax %x {axis = 1 : i64} : tensor<2x3x2xf16>
    %s = relax.softmax %x {axis = 1 : i64} : tensor<2x3x2xf16>
    %n = relax.layer_norm %x, %g, %b {axes = array<i64: 1>} : tensor<2x3x2xf16>, tensor<3xf16>, tensor<3xf16>
    relax.output %l, %s, %n : tensor<2x3x2xf16>, tensor<2x3x2xf16>, tensor<2x3x2xf16>
  }
  %t = relax.tuple(%r#0, %r#1, %r#2 : tensor<2x3x2xf16>, tensor<2x3x2xf16>, tensor<2x3x2xf16>)
  return %t : tuple<tensor<2x3x2xf16>, tensor<2x3x2xf16>, tensor<2x3x2xf16>>
}
"""


def test_half_precision_composites_round_once() -> None:
    """softmax, log_softmax and layer_norm of f16 compute in f32 and round once:
    within one f16 ulp of the float64 result (rounding the intermediate sum to
    f16 before its log used to cost 8 ulp; random program seed 20606)."""
    x = np.array([[[1.094, -0.282], [-1.95, -2.01], [-1.234, 1.52]],
                  [[0.37, 0.81], [-0.66, 0.05], [1.9, -1.1]]], dtype=np.float16)
    g = np.array([0.8, 1.2, 1.0], dtype=np.float16)
    b = np.array([0.1, -0.2, 0.0], dtype=np.float16)
    lsm, sm, ln = relax_mlir.compile(HALF_COMPOSITES)["main"](x, g, b)
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(1, keepdims=True)
    ref_lsm = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    mean = x64.mean(1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(1, keepdims=True)
    ref_ln = ((x64 - mean) / np.sqrt(var + 1e-5) * g.astype(np.float64)[:, None]
              + b.astype(np.float64)[:, None])
    for got, ref in ((lsm, ref_lsm), (sm, np.exp(ref_lsm)), (ln, ref_ln)):
        ulp = np.spacing(np.abs(ref).astype(np.float16)).astype(np.float64)
        assert np.all(np.abs(got.astype(np.float64) - ref) <= ulp), (got, ref)


# ---------------------------------------------------------------------------
# Issue 32: out of memory in compiled code; bounded compile caches
# ---------------------------------------------------------------------------

# `mode` (argv[1]): "jit" runs it through compile() and jit, "export" through
# an exported library. Under an address-space limit 1 GB above what the
# process maps, the 205 MB temporary `h` is allocated and the 1.6 GB one
# (h @ w2) is not: each call must raise MemoryError naming the bytes and the
# function, leave no temporary counted as live, and the next call must work.
OUT_OF_MEMORY = """
    import resource, sys
    import numpy as np
    import relax_mlir, relax_mlir.numpy as rnp

    def f(x, w1, w2):
        h = rnp.tanh(x @ w1)
        return rnp.sum(rnp.tanh(h @ w2))

    x = np.full((20000, 16), 0.01, np.float32)
    w1 = np.ones((16, 2560), np.float32)
    w2 = np.ones((2560, 20000), np.float32)
    step = relax_mlir.jit(f)
    module = step.lower(x, w1, w2).module()
    small = relax_mlir.compile(relax_mlir.jit(f).lower(x[:2], w1, w2[:, :2]).module())
    if sys.argv[1] == "jit":
        from relax_mlir._mlir_libs import _relax_runtime
        exe = relax_mlir.compile(module)
        calls = [("main", exe.main), ("f", step)]
        stats = _relax_runtime.pool_stats
    else:
        import relax_mlir.runtime
        lib = relax_mlir.runtime.load(relax_mlir.export(module, sys.argv[2]))
        calls = [("exported function 'main'", lib.main)]
        stats = lambda: lib.pool_stats()
    with open("/proc/self/statm") as fh:
        limit = int(fh.read().split()[0]) * 4096 + 2**30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name, call in calls:
        try:
            call(x, w1, w2)
            raise SystemExit("no MemoryError")
        except MemoryError as e:
            print("MemoryError:", e)
            assert "1600000064 bytes" in str(e) and name in str(e), e
        live, peak, cached = stats()
        assert live == 0 and peak >= 20000 * 2560 * 4, (live, peak)
    np.testing.assert_allclose(small.main(x[:2], w1, w2[:, :2]),
                               np.tanh(np.tanh(x[:2] @ w1) @ w2[:, :2]).sum(), rtol=1e-5)
    print("ok")
"""


@pytest.fixture
def allocations_may_fail(monkeypatch) -> None:
    """Under `make test-asan`, ASan's allocator hands out null (as glibc's)
    instead of ending the process when memory runs out."""
    options = [o for o in os.environ.get("ASAN_OPTIONS", "").split(":") if o]
    monkeypatch.setenv("ASAN_OPTIONS", ":".join(options + ["allocator_may_return_null=1"]))


@pytest.mark.parametrize("mode", ["jit", "export"])
def test_out_of_memory_in_compiled_code_raises_memory_error(mode: str, tmp_path,
                                                            allocations_may_fail) -> None:
    # Was SIGSEGV: the pool's allocation returned null to compiled code, which
    # wrote through it. Now the call boundary (Signature, relaxCall) is a jump
    # target the allocator returns to, and the temporaries the call held (h,
    # 205 MB) go back to the pool.
    proc = rt.run_python(OUT_OF_MEMORY, tmp_path, mode, str(tmp_path / "oom.so"), timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), \
        rt.describe_process(proc)


def test_allocation_failure_without_a_call_aborts_with_a_message(tmp_path,
                                                                allocations_may_fail) -> None:
    # An allocation of compiled code on a thread with no relax_mlir call in
    # progress (an OpenMP worker thread) has nowhere to stop the call: it
    # aborts, saying why, instead of handing compiled code a null block.
    proc = rt.run_python("""
        import ctypes
        from relax_mlir._mlir_libs import _relax_runtime
        alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)(
            dict(_relax_runtime.pool_symbols())["_mlir_memref_to_llvm_aligned_alloc"])
        print("returned", alloc(64, 1 << 60))
    """, tmp_path)
    assert proc.returncode == -6, rt.describe_process(proc)
    assert "could not allocate a temporary of 1152921504606846976 bytes" in proc.stderr
    assert "OpenMP worker thread" in proc.stderr


@pytest.fixture
def cache_config():
    saved = (relax_mlir.config.cache_size, relax_mlir.config.eager_cache_size)
    yield relax_mlir.config
    relax_mlir.config.cache_size, relax_mlir.config.eager_cache_size = saved


def test_compile_caches_drop_the_least_recently_used(cache_config) -> None:
    # Was: every traced signature stayed compiled for the process's life.
    import relax_mlir.numpy as rnp

    traced: list[tuple[int, ...]] = []

    def f(x):
        traced.append(x.shape)
        return rnp.sum(rnp.tanh(x))

    cache_config.cache_size = 2
    step = relax_mlir.jit(f)
    a, b, c = (np.ones((n, 3), np.float32) for n in (1, 2, 3))
    for x in (a, b, a, c, a):
        step(x)
    assert traced == [(1, 3), (2, 3), (3, 3)] and step.cache_size == 2
    step(b)  # dropped when c came: traced again
    assert traced[-1] == (2, 3) and step.cache_size == 2
    step.clear_cache()
    assert step.cache_size == 0
    step(a)
    assert traced[-1] == (1, 3)

    from relax_mlir import _frontend
    cache_config.eager_cache_size = 3
    for n in range(1, 8):
        np.testing.assert_allclose(rnp.exp(np.full(n, 0.5, np.float32)), np.exp(np.full(n, 0.5)),
                                   rtol=1e-6)
    assert len(_frontend._EAGER_ENTRIES) == 3
    relax_mlir.clear_caches()
    assert len(_frontend._EAGER_ENTRIES) == 0 and step.cache_size == 0
    with pytest.raises(ValueError, match="positive int or None"):
        cache_config.cache_size = 0
    with pytest.raises(AttributeError, match="no setting 'cache'"):
        cache_config.update("cache", 3)


def test_many_signatures_keep_rss_flat(tmp_path) -> None:
    # Was +3.4 MB of RSS per signature, never freed: eager calls on 300
    # shapes grew it by 1,003 MB, a value_and_grad on 300 batch sizes by
    # 1,046 MB. Dropped signatures must free their JIT-compiled code (RSS is
    # read after malloc_trim, which returns freed heap to the system).
    proc = rt.run_python("""
        import ctypes, gc
        import numpy as np
        import relax_mlir, relax_mlir.numpy as rnp

        def rss_mb():
            gc.collect()
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * 4096 / 2**20

        relax_mlir.config.cache_size = relax_mlir.config.eager_cache_size = 8
        step = relax_mlir.value_and_grad(lambda w, x: rnp.mean(rnp.tanh(x @ w)))
        w = np.ones((16, 8), np.float32)
        for n in range(1, 11):
            rnp.tanh(np.ones((n, 3), np.float32))
            step(w, np.ones((n, 16), np.float32))
        before = rss_mb()
        for n in range(11, 161):
            rnp.tanh(np.ones((n, 3), np.float32))
        for n in range(11, 111):
            step(w, np.ones((n, 16), np.float32))
        grown = rss_mb() - before
        relax_mlir.config.cache_size = relax_mlir.config.eager_cache_size = None
        for n in range(200, 230):
            rnp.tanh(np.ones((n, 3), np.float32))
        full = rss_mb()
        relax_mlir.clear_caches()
        cleared = rss_mb()
        print(f"grown {grown:.0f} full {full - before:.0f} cleared {cleared - before:.0f}")
        # 250 signatures unbounded: ~850 MB; 16 kept: ~55 MB.
        assert grown < 100, grown
        assert full - cleared > 60, (full, cleared)
        print("ok")
    """, tmp_path, timeout=600)
    assert proc.returncode == 0 and "ok" in proc.stdout, rt.describe_process(proc)


# ---------------------------------------------------------------------------
# Issue 32: sign(nan), namedtuple classes of one name, numpy functions on
# traced arrays, grad of identity and constants
# ---------------------------------------------------------------------------

def test_sign_of_nan_is_nan_and_its_gradient_is_zero() -> None:
    # Was 0 for NaN (numpy and JAX give NaN).
    import relax_mlir.numpy as rnp

    x = np.array([-2.5, -0.0, 0.0, 3.0, np.nan, np.inf, -np.inf], np.float64)
    np.testing.assert_array_equal(rnp.sign(x), np.sign(x))
    np.testing.assert_array_equal(relax_mlir.jit(lambda v: rnp.sign(v) * 2)(x), np.sign(x) * 2)
    finite = np.array([-2.0, 0.0, 0.5], np.float64)
    # d/dx sum(sign(x) * x) = sign(x): sign itself contributes nothing.
    np.testing.assert_array_equal(
        relax_mlir.grad(lambda v: rnp.sum(rnp.sign(v) * v))(finite), np.sign(finite))


def test_namedtuple_classes_of_one_name_are_different_structures() -> None:
    # Was one cache entry keyed by str(treedef): the second class's gradient
    # came back as an instance of the first.
    import collections

    import relax_mlir.numpy as rnp

    classes = [collections.namedtuple("Params", ["w", "b"]) for _ in range(2)]
    loss = relax_mlir.grad(lambda p: rnp.sum(p.w * p.w) + rnp.sum(p.b))
    w, b = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25])
    for cls in classes * 2:
        g = loss(cls(w, b))
        assert type(g) is cls
        np.testing.assert_array_equal(g.w, 2 * w)
        np.testing.assert_array_equal(g.b, np.ones(2))
    assert loss.cache_size == 2


def numpy_loss(x: Any, y: Any) -> Any:
    """Written with numpy only: runs on numpy arrays (the float64 reference)
    and, traced, on relax_mlir's arrays."""
    c = np.array([0.5, -1.0, 2.0])
    z = np.concatenate([c * x, np.where(y > 0, y, 0.0)])
    return np.sum(np.exp(x) * y) + np.mean(np.tanh(x) ** 2) + np.max(z) + np.sum(c @ np.abs(y))


def test_numpy_functions_on_traced_arrays_run_relax_mlir_numpy() -> None:
    # Were "unexpected keyword argument 'out'" (np.sum, np.mean) and "does not
    # support ufuncs" (np.exp, np.tanh).
    x, y = np.array([0.1, -0.3, 0.2]), np.array([1.0, -2.0, 5.0])
    np.testing.assert_allclose(relax_mlir.jit(numpy_loss)(x, y), numpy_loss(x, y), rtol=1e-12)
    t = np.tanh(x)
    # max(z) is y[2] = 5; sum(c @ |y|) does not depend on x.
    want = np.exp(x) * y + 2 * t * (1 - t * t) / 3
    np.testing.assert_allclose(relax_mlir.grad(numpy_loss)(x, y), want, rtol=1e-12)


@pytest.mark.parametrize("fn, message", [
    (lambda x: np.round(x), r"numpy.round is not supported on traced arrays.*"
                            r"relax_mlir.numpy has no round"),
    (lambda x: np.log1p(x), r"numpy.log1p is not supported.*relax_mlir.numpy has no log1p"),
    (lambda x: np.add.reduce(x), r"numpy.add.reduce is not supported"),
    (lambda x: np.sum(x, dtype=np.float32), r"relax_mlir.numpy.sum\(x.*cannot take these "
                                            r"arguments.*'dtype'"),
    (lambda x: np.exp(x, out=np.empty(3)), r"writes its result into a numpy array"),
])
def test_numpy_functions_without_an_equivalent_say_what_to_do(fn: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        relax_mlir.jit(fn)(np.ones(3))


def add_into_numpy(x: Any) -> Any:
    a = np.ones(3)
    a += x
    return a


@pytest.mark.parametrize("convert", [float, int, complex, bool, np.asarray, add_into_numpy])
def test_python_values_of_traced_arrays_are_explained(convert: Any) -> None:
    # float() was a generic "must be a real number, not 'Tracer'".
    message = ("truth value of a traced array is unknown" if convert is bool else
               "a = a \\+ x" if convert is add_into_numpy else
               "has no value while its function is traced.*static_argnums")
    with pytest.raises(TypeError, match=message):
        relax_mlir.jit(lambda x: x * convert(x))(np.ones(3) if convert is add_into_numpy
                                                 else np.float32(2))


def test_grad_of_identity_and_of_constants() -> None:
    # Was "cannot differentiate '@main': it has no relax.dataflow block" (JAX:
    # 1.0 and zeros).
    import relax_mlir.numpy as rnp

    g = relax_mlir.grad(lambda x: x)(np.array(1.5, np.float64))
    assert g.dtype == np.float64 and g == 1.0
    gx, gy = relax_mlir.grad(lambda x, y: x, argnums=(0, 1))(np.array(2.0), np.ones((2, 3)))
    assert gx == 1.0
    np.testing.assert_array_equal(gy, np.zeros((2, 3)))
    for constant in (lambda x: 2.5, lambda x: np.float64(2.5), lambda x: rnp.asarray(2.5)):
        value, grad = relax_mlir.value_and_grad(constant)(np.ones(4))
        assert value == 2.5
        np.testing.assert_array_equal(grad, np.zeros(4))
    params = {"a": np.array(3.0), "b": np.arange(3.0)}
    value, grads = relax_mlir.value_and_grad(lambda p: p["a"])(params)
    assert value == 3.0 and grads["a"] == 1.0
    np.testing.assert_array_equal(grads["b"], np.zeros(3))
    (g, aux) = relax_mlir.grad(lambda x: (x, x * 2), has_aux=True)(np.array(4.0))
    assert g == 1.0 and aux == 8.0
    # Inside another gradient: d/dx of d/dx x is 0.
    assert relax_mlir.grad(relax_mlir.grad(lambda x: x))(np.array(2.0)) == 0.0

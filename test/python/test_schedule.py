"""The CPU schedule (`compile(opt_level >= 1)`) against the plain pipeline.

`opt_level=0` lowers every op to scalar loops: the reference. The schedule
tiles, vectorizes, uses FMAs and reassociates vector reductions, so results
agree to rounding, not bit for bit: the random programs' adjoints are compared
with per-dtype tolerances. Threads split tiles, never a sum, so `num_threads=2`
is bitwise equal to one thread. The polynomial approximations the schedule
uses for vectors of tanh, erf and exp are checked against float64 math.
(Every other Python test already runs through the schedule, the default.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import relax_mlir
from relax_mlir._compile import _jit_host
from relax_mlir._module import clone_module, run_passes
from relax_mlir._stages import pipeline

from relax_mlir_testing import programs as pg

# Tolerance relative to the largest magnitude in a result leaf.
REL_TOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4, np.dtype(np.float16): 2e-2}


def flat(value: Any) -> Iterator[np.ndarray]:
    if isinstance(value, tuple):
        for v in value:
            yield from flat(v)
    else:
        yield np.asarray(value)


@pytest.mark.parametrize("seed", range(40))
def test_random_program_adjoint_matches_plain_pipeline(seed: int) -> None:
    program = pg.generate(seed)
    try:
        module = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
    except relax_mlir.RelaxMLIRError:
        pytest.skip("the generator made a program the gradient pass rejects")
    name = program.func + "_adjoint"
    plain = relax_mlir.compile(module, opt_level=0)[name](*program.args)
    scheduled = relax_mlir.compile(module)[name](*program.args)
    check_same(seed, program, plain, scheduled)
    # Every op with a loop scheduled as a kernel of its own (shared when
    # equal; relax-outline-tensor-kernels), as the pipeline does for ops of
    # more than 4096 iterations, which these small programs seldom have.
    lowered = clone_module(module)
    run_passes(lowered, pipeline(kernel_min_iterations=0), relax_mlir.CompilationError,
               "lowering failed")
    kernels = _jit_host(module, lowered, "cpu", 3, 1)[name](*program.args)
    check_same(seed, program, plain, kernels)


def check_same(seed: int, program: Any, plain: Any, scheduled: Any) -> None:
    """The results of `program` at opt_level 0 (`plain`) and scheduled agree
    (exactly for integers and booleans, to REL_TOL of the largest value for
    floats, with infinities and NaNs in the same places)."""
    for i, (p, s) in enumerate(zip(flat(plain), flat(scheduled), strict=True)):
        assert p.shape == s.shape and p.dtype == s.dtype, (i, p.shape, s.shape)
        if p.dtype.kind != "f":
            np.testing.assert_array_equal(s, p, err_msg=f"seed {seed}, result leaf {i}")
            continue
        finite = np.isfinite(p)
        np.testing.assert_array_equal(np.isfinite(s), finite,
                                      err_msg=f"seed {seed}, leaf {i}: inf/nan differ")
        if finite.any():
            scale = float(np.max(np.abs(p[finite].astype(np.float64))))
            np.testing.assert_allclose(s[finite], p[finite], rtol=0,
                                       atol=REL_TOL[p.dtype] * max(scale, 1e-30),
                                       err_msg=f"seed {seed}, result leaf {i}\n{program.text()}")


MLP = """
func.func @main(%x: tensor<64x784xf32>, %y: tensor<64xi64>, %w1: tensor<784x256xf32>,
                %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %h0 = relax.matmul %x, %w1 : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    %h1 = relax.add %h0, %b1 : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
    %h = relax.relu %h1 : tensor<64x256xf32>
    %z0 = relax.matmul %h, %w2 : tensor<64x256xf32>, tensor<256x10xf32> -> tensor<64x10xf32>
    %z = relax.add %z0, %b2 : tensor<64x10xf32>, tensor<10xf32> -> tensor<64x10xf32>
    %lp = relax.log_softmax %z {axis = -1 : i64} : tensor<64x10xf32>
    %l = relax.nll_loss %lp, %y : tensor<64x10xf32>, tensor<64xi64> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def mlp_args() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal((64, 784)).astype(np.float32),
            rng.integers(0, 10, 64).astype(np.int64),
            (0.05 * rng.standard_normal((784, 256))).astype(np.float32),
            (0.1 * rng.standard_normal(256)).astype(np.float32),
            (0.05 * rng.standard_normal((256, 10))).astype(np.float32),
            (0.1 * rng.standard_normal(10)).astype(np.float32)]


def test_threads_split_tiles_not_sums() -> None:
    module = relax_mlir.gradient(MLP, require_grads=[2, 3, 4, 5])
    args = mlp_args()
    one = relax_mlir.compile(module)["main_adjoint"](*args)
    two = relax_mlir.compile(module, num_threads=2)["main_adjoint"](*args)
    plain = relax_mlir.compile(module, opt_level=0)["main_adjoint"](*args)
    for a, b, p in zip(flat(one), flat(two), flat(plain)):
        np.testing.assert_array_equal(b, a)
        np.testing.assert_allclose(a, p, rtol=0, atol=1e-5 * float(np.max(np.abs(p))))


def test_threaded_code_is_parallel_only_when_asked() -> None:
    module = relax_mlir.gradient(MLP, require_grads=[2, 3, 4, 5])
    assert "omp." not in str(relax_mlir.compile(module).llvm_module)
    assert "omp.parallel" in str(relax_mlir.compile(module, num_threads=2).llvm_module)
    assert "vector<" not in str(relax_mlir.compile(module, opt_level=0).llvm_module)


OUTER = """
func.func @main(%x: tensor<128x{n}xf32>, %g: tensor<128x{n}xf32>) -> {rtype} {{
  %r = relax.dataflow -> ({rtype}) {{
    %xt = relax.permute_dims %x {{axes = array<i64: 1, 0>}} : tensor<128x{n}xf32> -> tensor<{n}x128xf32>
    %p = relax.matmul %xt, %g : tensor<{n}x128xf32>, tensor<128x{n}xf32> -> tensor<{n}x{n}xf32>
    {body}
  }}
  return %r : {rtype}
}}"""

READ_BACK = """%pt = relax.permute_dims %p {{axes = array<i64: 1, 0>}} : tensor<{n}x{n}xf32> -> tensor<{n}x{n}xf32>
    %y = relax.add %p, %pt : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32> -> tensor<{n}x{n}xf32>
    %t = relax.tuple(%p, %y : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>)
    relax.output %t : tuple<tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>>"""


@pytest.mark.parametrize("n, read_back, streamed", [
    # 516x516 floats (1 MiB and more), only written: streamed (the last
    # column tile partial)
    (516, False, True),
    # the same result also read (returned with p + p^T): not streamed
    (516, True, False),
    # under 1 MiB: ordinary stores
    (256, False, False),
])
def test_large_results_stored_non_temporally_hold_the_product(n: int, read_back: bool,
                                                              streamed: bool) -> None:
    """x^T @ g into a large result the function only writes is stored
    non-temporally (no read of each line before it is overwritten), with a
    fence after the loop nest; with one thread and two it holds the product
    (float64 reference), and the rows of x^T are prefetched."""
    if read_back:
        rtype = f"tuple<tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>>"
        body = READ_BACK.format(n=n)
    else:
        rtype = f"tensor<{n}x{n}xf32>"
        body = f"relax.output %p : {rtype}"
    src = OUTER.format(n=n, rtype=rtype, body=body)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, n)).astype(np.float32)
    g = rng.standard_normal((128, n)).astype(np.float32)
    want = x.T.astype(np.float64) @ g.astype(np.float64)
    atol = 1e-4 * float(np.max(np.abs(want)))
    for threads in (1, 2):
        exe = relax_mlir.compile(src, num_threads=threads)
        llvm = str(exe.llvm_module)
        assert ("nontemporal" in llvm) == streamed
        assert ("llvm.fence" in llvm) == streamed
        assert "llvm.intr.prefetch" in llvm
        got = exe["main"](x, g)
        if read_back:
            np.testing.assert_allclose(got[1], want + want.T, rtol=0, atol=2 * atol)
            got = got[0]
        np.testing.assert_allclose(got, want, rtol=0, atol=atol)



@pytest.mark.parametrize("offset", [0, 4, 16, 32])
def test_streamed_rows_at_any_alignment_hold_the_product(offset: int, tmp_path: Any) -> None:
    """The non-temporal row stores of a streamed result are whole vectors
    (alignment 64) only at addresses that are multiples of 64, checked per
    row, other rows stored plainly: rows of 1028 floats lie 4112 bytes apart, so every fourth row of a
    buffer is aligned; an exported library called with result memory at
    each offset from 64 bytes holds the product in every row."""
    n = 1028
    src = OUTER.format(n=n, rtype=f"tensor<{n}x{n}xf32>", body=f"relax.output %p : tensor<{n}x{n}xf32>")
    exe = relax_mlir.compile(src)
    llvm = str(exe.llvm_module)
    assert "{alignment = 64 : i64, nontemporal} : vector<64xf32>" in llvm
    # A misaligned row is stored plainly: non-temporal, it was movnti four
    # bytes at a time (slower to run, and 40 ms of instruction selection).
    assert "{alignment = 4 : i64} : vector<64xf32>" in llvm
    assert "{alignment = 4 : i64, nontemporal}" not in llvm
    lib = relax_mlir.runtime.load(exe.export(str(tmp_path / "streamed.so")))
    addresses = []

    def shifted(nbytes: int) -> np.ndarray:
        raw = np.empty(nbytes + 128, np.uint8)
        start = (-raw.ctypes.data) % 64 + offset
        addresses.append(raw.ctypes.data + start)
        return raw[start:start + nbytes]

    lib._pool_bytes = shifted  # type: ignore[method-assign]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((128, n)).astype(np.float32)
    g = rng.standard_normal((128, n)).astype(np.float32)
    want = x.T.astype(np.float64) @ g.astype(np.float64)
    got = lib["main"](x, g)
    assert addresses and addresses[0] % 64 == offset and got.ctypes.data == addresses[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * float(np.max(np.abs(want))))


MATMUL = """
func.func @main(%a: tensor<{m}x{k}x{t}>, %b: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %r = relax.dataflow -> (tensor<{m}x{n}x{t}>) {{
    %p = relax.matmul %a, %b : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}> -> tensor<{m}x{n}x{t}>
    relax.output %p : tensor<{m}x{n}x{t}>
  }}
  return %r : tensor<{m}x{n}x{t}>
}}"""


@pytest.mark.parametrize("m, k, n, dtype", [
    (128, 1024, 1024, np.float32),  # the deep MLP's x @ w: 4 KiB rows
    (70, 600, 520, np.float32),     # ragged row, column and reduction blocks
    (64, 300, 256, np.float64),     # 2 KiB rows of doubles
])
def test_local_panels_hold_the_rhs_rows(m: int, k: int, n: int, dtype: Any) -> None:
    """x @ w with rows of w 2 KiB or more apart: the register tiles read them
    from a panel on the stack (one per thread), copied once per column block;
    with one thread and two the product matches float64."""
    t = "f32" if dtype == np.float32 else "f64"
    src = MATMUL.format(m=m, k=k, n=n, t=t)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    atol = (1e-4 if dtype == np.float32 else 1e-10) * float(np.max(np.abs(want)))
    for threads in (1, 2):
        exe = relax_mlir.compile(src, num_threads=threads)
        assert "llvm.alloca" in str(exe.llvm_module)
        np.testing.assert_allclose(exe["main"](a, b), want, rtol=0, atol=atol)


def test_successive_products_share_one_panel_buffer() -> None:
    """The panels of a chain of products (x @ w1 @ w2 @ w3 @ w4) are never
    held at once: one stack buffer serves them all, so the frame does not
    grow with depth; the chain matches float64."""
    t = "tensor<128x1024xf32>"
    w = "tensor<1024x1024xf32>"
    lines, prev = [], "%x"
    for i in range(1, 5):
        lines.append(f"%h{i} = relax.matmul {prev}, %w{i} : {t}, {w} -> {t}")
        prev = f"%h{i}"
    params = ", ".join(f"%w{i}: {w}" for i in range(1, 5))
    src = (f"func.func @main(%x: {t}, {params}) -> {t} {{\n"
           f"  %r = relax.dataflow -> ({t}) {{\n    " + "\n    ".join(lines) +
           f"\n    relax.output {prev} : {t}\n  }}\n  return %r : {t}\n}}")
    rng = np.random.default_rng(6)
    x = rng.standard_normal((128, 1024)).astype(np.float32)
    ws = [(rng.standard_normal((1024, 1024)) / 32).astype(np.float32) for _ in range(4)]
    want = x.astype(np.float64)
    for wi in ws:
        want = want @ wi.astype(np.float64)
    exe = relax_mlir.compile(src)
    assert str(exe.llvm_module).count("llvm.alloca") == 1
    np.testing.assert_allclose(exe["main"](x, *ws), want, rtol=0,
                               atol=1e-4 * float(np.max(np.abs(want))))


ABT = """
func.func @main(%a: tensor<{m}x{k}x{t}>, %b: tensor<{n}x{k}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %r = relax.dataflow -> (tensor<{m}x{n}x{t}>) {{
    %bt = relax.permute_dims %b {{axes = array<i64: 1, 0>}} : tensor<{n}x{k}x{t}> -> tensor<{k}x{n}x{t}>
    %p = relax.matmul %a, %bt : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}> -> tensor<{m}x{n}x{t}>
    relax.output %p : tensor<{m}x{n}x{t}>
  }}
  return %r : tensor<{m}x{n}x{t}>
}}"""


PERMUTE = """
func.func @main(%x: tensor<{src}>) -> tensor<{dst}> {{
  %r = relax.dataflow -> (tensor<{dst}>) {{
    %y = relax.permute_dims %x {{axes = array<i64: {axes}>}} : tensor<{src}> -> tensor<{dst}>
    relax.output %y : tensor<{dst}>
  }}
  return %r : tensor<{dst}>
}}"""


@pytest.mark.parametrize("shape, axes, dtype, squares", [
    ((128, 1024), (1, 0), np.float32, True),    # 16x16 tiles, shuffle transposes
    ((48, 32), (1, 0), np.int32, True),         # 32-bit integers alike
    ((64, 40), (1, 0), np.float64, True),       # 8x8 tiles of doubles
    ((3, 32, 48), (0, 2, 1), np.float32, True),  # the last two of three
    ((32, 5, 48), (2, 1, 0), np.float32, True),  # outermost and innermost
    ((48, 40), (1, 0), np.float32, True),       # 40 = 2 x 16 + a peeled 8
    ((40, 8), (1, 0), np.float32, False),       # 8 < 16: rows
    ((64, 32), (1, 0), np.float16, True),       # 16x16 of 32 lanes
    ((17, 33, 5), (2, 0, 1), np.float32, False),
    # a 3x3 filter gradient to OIHW: [576, 128] -> [128, 576] once the runs
    # of loops both sides read in order are collapsed
    ((64, 3, 3, 128), (3, 0, 1, 2), np.float32, True),
    ((16, 64, 4, 4), (0, 2, 3, 1), np.float32, True),  # NCHW -> NHWC, H*W = 16
    ((6, 5, 5, 16), (3, 0, 1, 2), np.float32, True),  # [150, 16], a peeled 6
])
def test_transposing_copies_move_every_element(shape: tuple[int, ...], axes: tuple[int, ...],
                                               dtype: Any, squares: bool) -> None:
    """A materialized transpose runs in square tiles (rows of the input
    transposed in registers) when both loops it swaps (after collapsing the
    runs of loops both sides read in order) are at least a tile long, a
    partial tile peeled, in rows otherwise: every element lands where numpy's
    transpose puts it."""
    t = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.float16: "f16"}[dtype]
    dst = tuple(shape[a] for a in axes)
    src = PERMUTE.format(src="x".join(map(str, shape)) + "x" + t,
                         dst="x".join(map(str, dst)) + "x" + t, axes=", ".join(map(str, axes)))
    vector = str(relax_mlir.lower(src, "vector"))
    side = 8 if dtype == np.float64 else 16
    square = re.search(rf"vector\.transpose .* : vector<(1x)*{side}x(1x)*{side}x{t}>", vector)
    assert (square is not None) == squares
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    np.testing.assert_array_equal(relax_mlir.compile(src)["main"](x), np.transpose(x, axes))


def test_boolean_masks_between_ops_are_vectorized() -> None:
    """A causal mask computed once and read by a `where` in the forward and
    in the backward pass is held as bytes between them
    (relax-widen-booleans): no linalg op of the vector stage reads or writes
    an i1 tensor (those stay scalar loops), and the loss and the gradient
    match float64 numpy."""
    import relax_mlir.numpy as rnp

    def loss(s: Any) -> Any:
        mask = rnp.tril(rnp.ones((64, 64), dtype=rnp.bool_))
        return rnp.sum(rnp.square(rnp.where(mask, s, 0.0)))

    rng = np.random.default_rng(8)
    s = rng.standard_normal((4, 64, 64)).astype(np.float32)
    step = relax_mlir.jit(relax_mlir.value_and_grad(loss))
    adjoint = step.lower(s).module("adjoint")
    vector = str(relax_mlir.lower(adjoint, "vector"))
    assert "xi8>" in vector
    assert re.search(r"linalg\.\w+[^\n]*xi1>", vector) is None
    value, grad = step(s)
    mask = np.tril(np.ones((64, 64), bool))
    s64 = s.astype(np.float64)
    np.testing.assert_allclose(value, np.sum(np.where(mask, s64, 0.0) ** 2), rtol=1e-5)
    np.testing.assert_allclose(grad, np.where(mask, 2 * s64, 0.0), rtol=1e-6)


TRANSPOSED_LHS = """
func.func @main(%h: tensor<{k}x{m}x{t}>, %g: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %r = relax.dataflow -> (tensor<{m}x{n}x{t}>) {{
    %ht = relax.permute_dims %h {{axes = array<i64: 1, 0>}} : tensor<{k}x{m}x{t}> -> tensor<{m}x{k}x{t}>
    %p = relax.matmul %ht, %g : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}> -> tensor<{m}x{n}x{t}>
    relax.output %p : tensor<{m}x{n}x{t}>
  }}
  return %r : tensor<{m}x{n}x{t}>
}}"""


@pytest.mark.parametrize("k, m, n, dtype, copied", [
    (128, 1024, 1024, np.float32, True),  # the deep MLP's weight gradient
    (16, 1030, 256, np.float32, False),   # rows 4120 bytes apart: all L1 sets
    (16, 1024, 300, np.float32, True),    # a ragged column tile
    (40, 512, 256, np.float64, True),     # rows of 512 doubles
    (64, 784, 256, np.float32, False),    # the MLP's: rows 3136 bytes apart
    (1024, 1024, 256, np.float32, False),  # a reduction walked in cache blocks
])
def test_transposed_lhs_copied_row_major_when_its_rows_share_cache_sets(
        k: int, m: int, n: int, dtype: Any, copied: bool) -> None:
    """x^T @ g whose x rows lie a multiple of 4 KiB apart (each step of a row
    tile one row, all in one L1 set) is computed from a row-major copy of
    x^T (a transposing copy first); other strides, and reductions long
    enough to be walked in cache blocks, read x in place. With one thread
    and two the product matches float64."""
    t = "f32" if dtype == np.float32 else "f64"
    src = TRANSPOSED_LHS.format(k=k, m=m, n=n, t=t)
    vector = str(relax_mlir.lower(src, "vector"))
    assert (f"tensor.empty() : tensor<{m}x{k}x{t}>" in vector) == copied
    rng = np.random.default_rng(8)
    h = rng.standard_normal((k, m)).astype(dtype)
    g = rng.standard_normal((k, n)).astype(dtype)
    want = h.T.astype(np.float64) @ g.astype(np.float64)
    atol = (1e-4 if dtype == np.float32 else 1e-10) * float(np.max(np.abs(want)))
    for threads in (1, 2):
        got = relax_mlir.compile(src, num_threads=threads)["main"](h, g)
        np.testing.assert_allclose(got, want, rtol=0, atol=atol)


@pytest.mark.parametrize("m, n, k, dtype", [
    (6, 4, 16, np.float32),     # one whole 6x4 tile: 24 rows of 16 partial sums
    (13, 7, 48, np.float32),    # ragged tiles: 1-row and 3-column remainders
    (128, 10, 512, np.float32),  # tiles of 6 x 4 and 6 x 2 (b larger than the output)
    (9, 5, 24, np.float64),     # 8-lane partial sums (f64), odd tile counts
])
def test_a_times_b_transposed_sums_partial_products_exactly_once(m: int, n: int, k: int,
                                                                 dtype: Any) -> None:
    """a @ b^T as partial dot products, whose lanes are summed for all the
    tile's outputs at once by one shuffle-and-add tree: each output gets the
    sum of its own products (float64 reference), whatever the tile shape."""
    t = "f32" if dtype == np.float32 else "f64"
    rng = np.random.default_rng(m * 1000 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k)).astype(dtype)
    got = relax_mlir.compile(ABT.format(m=m, n=n, k=k, t=t))["main"](a, b)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * k)


BATCHED_ABT = """
func.func @main(%a: tensor<{h}x{m}x{k}xf32>, %b: tensor<{h}x{n}x{k}xf32>) -> tensor<{h}x{m}x{n}xf32> {{
  %r = relax.dataflow -> (tensor<{h}x{m}x{n}xf32>) {{
    %bt = relax.permute_dims %b {{axes = array<i64: 0, 2, 1>}} : tensor<{h}x{n}x{k}xf32> -> tensor<{h}x{k}x{n}xf32>
    %p = relax.matmul %a, %bt : tensor<{h}x{m}x{k}xf32>, tensor<{h}x{k}x{n}xf32> -> tensor<{h}x{m}x{n}xf32>
    relax.output %p : tensor<{h}x{m}x{n}xf32>
  }}
  return %r : tensor<{h}x{m}x{n}xf32>
}}"""


@pytest.mark.parametrize("h, m, n, k", [
    (2, 128, 128, 64),  # attention's q @ k^T per head: b copied transposed (fewer than 1024 rows)
    (3, 40, 24, 32),    # ragged row tiles (40 = 6 * 6 + 4), b copied (768 <= 960 elements)
    (3, 20, 24, 32),    # b larger than the output (768 > 480): partial dot products
])
def test_batched_a_times_b_transposed_with_few_rows(h: int, m: int, n: int, k: int) -> None:
    """Batched a @ b^T below 1024 rows: with b no larger than the output, b
    is copied transposed per batch and the outer-product tiles read the copy;
    else partial dot products. Both against float64, through the CPU
    schedule and at opt_level 0."""
    rng = np.random.default_rng(h * 100 + m)
    a = rng.standard_normal((h, m, k)).astype(np.float32)
    b = rng.standard_normal((h, n, k)).astype(np.float32)
    want = a.astype(np.float64) @ np.swapaxes(b.astype(np.float64), 1, 2)
    src = BATCHED_ABT.format(h=h, m=m, n=n, k=k)
    for opt_level in (0, 3):
        got = relax_mlir.compile(src, opt_level=opt_level)["main"](a, b)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * k)


EPILOGUE = """
func.func @main(%a: tensor<{m}x{k}xf32>, %w: tensor<{k}x{n}xf32>, %b: tensor<{n}xf32>) -> {rtype} {{
  %r = relax.dataflow -> ({rtype}) {{
    %p = relax.matmul %a, %w : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
    %s = relax.add %p, %b : tensor<{m}x{n}xf32>, tensor<{n}xf32> -> tensor<{m}x{n}xf32>
    {body}
    relax.output %y : {rtype}
  }}
  return %r : {rtype}
}}"""


def _gelu(v: np.ndarray) -> np.ndarray:
    return 0.5 * v * (1.0 + np.vectorize(math.erf)(v / math.sqrt(2.0)))


@pytest.mark.parametrize("m, k, n, body, reference", [
    # register tiles of 6 rows and a remainder of 4; relu on each tile
    (64, 784, 256, "%y = relax.relu %s : tensor<64x256xf32>", lambda s: np.maximum(s, 0)),
    # rhs column panels (>= 512 rows) with a 2-row remainder; gelu on the panelled tile
    (514, 256, 1024, "%y = relax.gelu %s : tensor<514x1024xf32>", _gelu),
    # bias fused into the tiles, the sum then transposed by its own loop nest
    (66, 128, 192, "%y = relax.permute_dims %s {axes = array<i64: 1, 0>} : "
                   "tensor<66x192xf32> -> tensor<192x66xf32>", lambda s: s.T),
])
def test_fused_epilogues_compute_the_product_then_the_elementwise_ops(
        m: int, k: int, n: int, body: str, reference: Any) -> None:
    out = n if "permute" in body else m
    cols = m if "permute" in body else n
    text = EPILOGUE.format(m=m, k=k, n=n, body=body, rtype=f"tensor<{out}x{cols}xf32>")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    expected = reference(a.astype(np.float64) @ w.astype(np.float64) + b)
    got = relax_mlir.compile(text)["main"](a, w, b)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * float(np.max(np.abs(expected))))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_num_threads_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="num_threads must be a positive int"):
        relax_mlir.compile(MLP, num_threads=bad)


@pytest.mark.parametrize("bad", [4, -1, True, "3"])
def test_opt_level_must_be_0_to_3(bad: Any) -> None:
    with pytest.raises(ValueError, match="opt_level must be 0, 1, 2 or 3"):
        relax_mlir.compile(MLP, opt_level=bad)


def unary(op: str, n: int) -> str:
    return f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %r = relax.dataflow -> (tensor<{n}xf32>) {{
    %y = relax.{op} %x : tensor<{n}xf32>
    relax.output %y : tensor<{n}xf32>
  }}
  return %r : tensor<{n}xf32>
}}"""


@pytest.mark.parametrize("op, lo, hi, reference", [
    ("tanh", -12.0, 12.0, np.tanh),
    ("erf", -5.0, 5.0, np.vectorize(math.erf)),
    ("exp", -87.0, 88.0, np.exp),
])
def test_vector_approximations_within_4_ulp(op: str, lo: float, hi: float,
                                                reference: Any) -> None:
    n = 8192
    x = np.linspace(lo, hi, n).astype(np.float32)
    fn = relax_mlir.compile(unary(op, n))["main"]
    assert f"llvm.intr.{op}" not in str(relax_mlir.compile(unary(op, n)).llvm_module)
    got = fn(x).astype(np.float64)
    want = reference(x.astype(np.float64))
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    err = np.abs(got - want) / ulp
    # Measured: tanh 3.8, erf 3.3, exp 1 ulp at most.
    assert err.max() <= 4.0, f"{op}: {err.max():.1f} ulp at x = {x[np.argmax(err)]}"
    specials = np.array([np.inf, -np.inf, np.nan, 0.0] + [0.0] * (n - 4), np.float32)
    out = fn(specials)[:4]
    want_specials = reference(specials[:4].astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out, want_specials)


def test_temporaries_come_from_a_pool_that_does_not_grow() -> None:
    """The compiled code's temporaries are recycled: after the first call the
    pool holds them, and further calls neither grow it nor leak from it. The
    large results come from the pool too and return to it when freed: a loop
    that keeps one step's results at a time reaches a steady state."""
    from relax_mlir._mlir_libs import _relax_runtime

    module = relax_mlir.gradient(MLP, require_grads=[2, 3, 4, 5])
    fn = relax_mlir.compile(module)["main_adjoint"]
    args = mlp_args()
    _relax_runtime.pool_trim()
    assert _relax_runtime.pool_cached_bytes() == 0
    first = fn(*args)
    cached = _relax_runtime.pool_cached_bytes()
    # At least the 64x256 activations went through the pool.
    assert cached >= 64 * 256 * 4
    # The w1 gradient (784x256 float32, 784 KiB) is a pool block that
    # returns to the pool when the array dies.
    grad_w1 = flat_list(first)[1]
    assert grad_w1.shape == (784, 256) and grad_w1.ctypes.data % 64 == 0
    assert relax_mlir.memory_stats()["live_bytes"] == 0
    # `first`, the previous step's results and the new ones are alive at once
    # from the third call on; from then on the pool stays the same.
    again = fn(*args)
    again = fn(*args)
    steady = _relax_runtime.pool_cached_bytes()
    assert steady >= cached
    for _ in range(20):
        again = fn(*args)
    assert _relax_runtime.pool_cached_bytes() == steady
    del again
    assert _relax_runtime.pool_cached_bytes() >= steady + 784 * 256 * 4
    again = fn(*args)
    for a, b in zip(flat(first), flat(again)):
        np.testing.assert_array_equal(a, b)
    _relax_runtime.pool_trim()
    assert _relax_runtime.pool_cached_bytes() == 0
    np.testing.assert_array_equal(flat_list(fn(*args))[0], flat_list(first)[0])


def flat_list(value: Any) -> list[np.ndarray]:
    return list(flat(value))


def test_pool_reuses_a_block_only_for_an_alignment_it_meets() -> None:
    """Blocks freed from 128-byte-aligned requests are not handed to 256-byte
    ones (the free lists were keyed on "aligned beyond 64" alone, so a reused
    block met a 256 alignment only by chance)."""
    import ctypes

    from relax_mlir._mlir_libs import _relax_runtime

    symbols = dict(_relax_runtime.pool_symbols())
    aligned_alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)(
        symbols["_mlir_memref_to_llvm_aligned_alloc"])
    free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(symbols["_mlir_memref_to_llvm_free"])
    _relax_runtime.pool_trim()
    blocks = [aligned_alloc(128, 4096) for _ in range(16)]
    assert all(b % 128 == 0 for b in blocks)
    for b in blocks:
        free(b)
    again = [aligned_alloc(256, 4096) for _ in range(16)]
    assert all(b % 256 == 0 for b in again), [hex(b) for b in again]
    for b in again:
        free(b)
    _relax_runtime.pool_trim()


def _offset_copy(a: np.ndarray, offset_bytes: int) -> np.ndarray:
    """A copy of `a` whose data starts `offset_bytes` past a 64-byte boundary."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    start = -raw.ctypes.data % 64 + offset_bytes
    out = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("offset", [0, 4, 16, 48])
def test_large_inputs_at_any_alignment_give_the_same_results(offset: int) -> None:
    """Large inputs not 64-byte aligned are copied into aligned buffers for the
    call (vector loads across cache lines cost 1.5x): the results do not
    depend on where the caller's data starts, and large results are aligned."""
    rng = np.random.default_rng(3)
    text = """
    func.func @f(%a: tensor<64x256xf32>, %b: tensor<256x1024xf32>) -> tensor<64x1024xf32> {
      %r = relax.matmul %a, %b : tensor<64x256xf32>, tensor<256x1024xf32> -> tensor<64x1024xf32>
      return %r : tensor<64x1024xf32>
    }"""
    fn = relax_mlir.compile(text)["f"]
    a = rng.standard_normal((64, 256)).astype(np.float32)
    b = rng.standard_normal((256, 1024)).astype(np.float32)
    want = fn(_offset_copy(a, 0), _offset_copy(b, 0))
    got = fn(_offset_copy(a, offset), _offset_copy(b, offset))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-4, atol=1e-3)
    assert got.ctypes.data % 64 == 0
    assert relax_mlir.memory_stats()["live_bytes"] == 0


def test_only_contraction_inputs_get_aligned_copies() -> None:
    """A misaligned large input read by a matmul is copied into an aligned pool
    buffer for the call (seen in the pool's peak); one the function only reads
    elementwise is passed as it is (a copy would cost more than it saves: an
    11-argument call took 112 us instead of 6 when every input was copied)."""
    text = """
    func.func @f(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>) -> tensor<128x128xf32> {
      %r = relax.matmul %a, %b : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
      return %r : tensor<128x128xf32>
    }
    func.func @g(%a: tensor<128x256xf32>) -> tensor<128x256xf32> {
      %r = relax.negative %a : tensor<128x256xf32>
      return %r : tensor<128x256xf32>
    }"""
    exe = relax_mlir.compile(text)
    rng = np.random.default_rng(5)
    a = _offset_copy(rng.standard_normal((128, 256)).astype(np.float32), 16)
    b = _offset_copy(rng.standard_normal((256, 128)).astype(np.float32), 16)
    exe.g(a)
    relax_mlir.memory_stats(reset_peak=True)
    np.testing.assert_array_equal(exe.g(a), -a)
    assert relax_mlir.memory_stats(reset_peak=True)["peak_bytes"] == 0
    exe.f(a, b)
    relax_mlir.memory_stats(reset_peak=True)
    exe.f(a, b)
    assert relax_mlir.memory_stats(reset_peak=True)["peak_bytes"] >= a.nbytes + b.nbytes


def test_transposes_fused_into_an_integer_abs_lower_and_compute() -> None:
    """A transpose of an elementwise result becomes one generic with it; its
    body then runs on 2-d vectors, which math.absi's LLVM lowering rejected
    (random program 31: `abs(-permute_dims(permute_dims(c)))` on i64)."""
    text = """func.func @main(%c: tensor<2x3x2x2xi64>) -> tensor<2x2x2x3xi64> {
  %a = relax.permute_dims %c {axes = array<i64: 3, 2, 0, 1>} : tensor<2x3x2x2xi64> -> tensor<2x2x2x3xi64>
  %b = relax.permute_dims %a {axes = array<i64: 3, 0, 1, 2>} : tensor<2x2x2x3xi64> -> tensor<3x2x2x2xi64>
  %n = relax.negative %b : tensor<3x2x2x2xi64>
  %t = relax.permute_dims %n {axes = array<i64: 1, 2, 3, 0>} : tensor<3x2x2x2xi64> -> tensor<2x2x2x3xi64>
  %y = relax.abs %t : tensor<2x2x2x3xi64>
  return %y : tensor<2x2x2x3xi64>
}"""
    c = np.arange(-12, 12, dtype=np.int64).reshape(2, 3, 2, 2)
    c[0, 0, 0, 0] = np.iinfo(np.int64).min  # abs(INT_MIN) wraps to INT_MIN, as numpy's
    want = np.abs(-np.transpose(np.transpose(np.transpose(c, (3, 2, 0, 1)), (3, 0, 1, 2)),
                                (1, 2, 3, 0)))
    got = relax_mlir.compile(text).main(c)
    np.testing.assert_array_equal(np.asarray(got), want)

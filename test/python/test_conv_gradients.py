"""conv2d's input and filter gradients across strides, dilations, paddings,
kernels smaller than the stride (phases of x no tap reads) and groups, in
float64, against the adjoint written directly: each window tap scatters
g * w back to the input position it read (dx) and gathers x * g (dw)."""

from __future__ import annotations

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing.harness import compile_gradient, tensor_type

# (x shape, w shape, strides, padding (top, left, bottom, right), dilation, groups)
CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ((1, 2, 8, 9), (3, 2, 3, 2), (2, 3), (1, 0, 2, 1), (1, 1), 1),
    ((1, 2, 9, 9), (2, 2, 3, 3), (2, 2), (2, 2, 2, 2), (2, 2), 1),   # gcd(stride, dilation) = 2
    ((1, 2, 10, 8), (2, 2, 3, 2), (3, 2), (0, 1, 1, 0), (2, 3), 1),  # gcd 1
    ((2, 2, 7, 7), (3, 2, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),   # 1x1, odd phases unread
    ((1, 1, 9, 8), (2, 1, 2, 2), (3, 3), (0, 0, 0, 0), (1, 1), 1),   # kernel < stride
    ((1, 4, 7, 8), (6, 2, 3, 3), (2, 2), (1, 1, 0, 0), (1, 1), 2),   # grouped
    ((2, 3, 5, 5), (2, 3, 5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 1),
    ((1, 2, 6, 6), (2, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),   # stride 1
]


def reference(x: np.ndarray, w: np.ndarray, g: np.ndarray, strides, padding, dilation,
              groups: int) -> tuple[np.ndarray, np.ndarray]:
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, left, bottom, right = padding
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    oh, ow = g.shape[2:]
    og = o // groups
    for gi in range(groups):
        cs, os_ = slice(gi * cg, (gi + 1) * cg), slice(gi * og, (gi + 1) * og)
        for a in range(kh):
            for b in range(kw):
                r0, c0 = a * dilation[0], b * dilation[1]
                rows = slice(r0, r0 + (oh - 1) * strides[0] + 1, strides[0])
                cols = slice(c0, c0 + (ow - 1) * strides[1] + 1, strides[1])
                dxp[:, cs, rows, cols] += np.einsum("nohw,oc->nchw", g[:, os_], w[os_, :, a, b])
                dw[os_, :, a, b] += np.einsum("nohw,nchw->oc", g[:, os_], xp[:, cs, rows, cols])
    return dxp[:, :, top:top + h, left:left + wd], dw


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CASES,
                         ids=[f"x{'x'.join(map(str, c[0]))}-w{'x'.join(map(str, c[1]))}"
                              f"-s{c[2][0]}{c[2][1]}-d{c[4][0]}{c[4][1]}-g{c[5]}" for c in CASES])
def test_conv2d_gradients_match_the_direct_adjoint(xs, ws, strides, padding, dilation,
                                                   groups) -> None:
    rng = np.random.default_rng(abs(hash((xs, ws, strides))) % 2**32)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    oh = (xs[2] + padding[0] + padding[2] - dilation[0] * (ws[2] - 1) - 1) // strides[0] + 1
    ow = (xs[3] + padding[1] + padding[3] - dilation[1] * (ws[3] - 1) - 1) // strides[1] + 1
    ys = (xs[0], ws[0], oh, ow)
    c = rng.standard_normal(ys)
    tx, tw, ty = (tensor_type(s, np.float64) for s in (xs, ws, ys))
    text = f"""func.func @main(%x: {tx}, %w: {tw}, %c: {ty}) -> tensor<f64> {{
  %y = relax.conv2d %x, %w {{strides = array<i64: {strides[0]}, {strides[1]}>,
      padding = array<i64: {', '.join(map(str, padding))}>,
      dilation = array<i64: {dilation[0]}, {dilation[1]}>, groups = {groups} : i64}} : {tx}, {tw} -> {ty}
  %p = relax.multiply %y, %c : {ty}, {ty} -> {ty}
  %s = relax.sum %p : {ty} -> tensor<f64>
  return %s : tensor<f64>
}}"""
    _, (dx, dw) = compile_gradient(text, (0, 1)).main_adjoint(x, w, c)
    want_dx, want_dw = reference(x, w, c, strides, padding, dilation, groups)
    np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(dw), want_dw, rtol=1e-12, atol=1e-12)


# Convolutions whose patches exceed relax-cpu-pack's 512 KiB per chunk (float64): gathered and
# multiplied in a loop over chunks of images (the largest divisor of the batch that fits).
CHUNKED = [
    # 400 x 100 patches of 8 bytes per image, 100 pixels (one product for the batch's columns):
    # chunks of 1 image; the input gradient's (150 x 196 per image) chunks of 2.
    ((8, 16, 14, 14), (6, 16, 5, 5), (1, 1), (0, 0, 0, 0)),
    # 400 pixels per image (a product per image): 115 KiB each, chunks of 3 of the 6 images.
    ((6, 4, 20, 20), (3, 4, 3, 3), (1, 1), (1, 1, 1, 1)),
    # stride 2, a batch of 7 (prime): chunks of 1 image.
    ((7, 8, 24, 24), (4, 8, 3, 3), (2, 2), (1, 1, 1, 1)),
]


@pytest.mark.parametrize("xs, ws, strides, padding", CHUNKED,
                         ids=[f"x{'x'.join(map(str, c[0]))}-w{'x'.join(map(str, c[1]))}"
                              for c in CHUNKED])
def test_conv2d_in_chunks_of_images_matches_the_direct_adjoint(xs, ws, strides, padding) -> None:
    """The forward value and both gradients of convolutions large enough that
    their patches are gathered a chunk of images at a time."""
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    oh = (xs[2] + padding[0] + padding[2] - ws[2]) // strides[0] + 1
    ow = (xs[3] + padding[1] + padding[3] - ws[3]) // strides[1] + 1
    ys = (xs[0], ws[0], oh, ow)
    c = rng.standard_normal(ys)
    tx, tw, ty = (tensor_type(s, np.float64) for s in (xs, ws, ys))
    text = f"""func.func @main(%x: {tx}, %w: {tw}, %c: {ty}) -> tensor<f64> {{
  %y = relax.conv2d %x, %w {{strides = array<i64: {strides[0]}, {strides[1]}>,
      padding = array<i64: {', '.join(map(str, padding))}>}} : {tx}, {tw} -> {ty}
  %p = relax.multiply %y, %c : {ty}, {ty} -> {ty}
  %s = relax.sum %p : {ty} -> tensor<f64>
  return %s : tensor<f64>
}}"""
    value, (dx, dw) = compile_gradient(text, (0, 1)).main_adjoint(x, w, c)
    want_dx, want_dw = reference(x, w, c, strides, padding, (1, 1), 1)
    # The forward value: sum(conv(x, w) * c) = sum(w * dw) (the filter adjoint is linear in g).
    np.testing.assert_allclose(float(value), float(np.sum(w * want_dw)), rtol=1e-11)
    np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(np.asarray(dw), want_dw, rtol=1e-11, atol=1e-11)


# (input X, the view x = X[:, :, ::2, :] of it the convolution reads, filter, padding); float64.
VIEWED = [
    ((8, 16, 28, 14), (6, 16, 5, 5), (0, 0, 0, 0)),    # chunks of 1 image, input gradient of 2
    ((64, 1, 56, 28), (6, 1, 5, 5), (2, 2, 2, 2)),    # one channel, 153 KiB per image: chunks of 2
    ((1, 16, 28, 14), (6, 16, 5, 5), (0, 0, 0, 0)),   # one image: no loop
    ((0, 16, 28, 14), (6, 16, 5, 5), (0, 0, 0, 0)),   # an empty batch
]


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
@pytest.mark.parametrize("xs, ws, padding", VIEWED,
                         ids=[f"x{'x'.join(map(str, c[0]))}" for c in VIEWED])
def test_chunked_conv2d_of_a_strided_view_at_every_opt_level(xs, ws, padding, opt_level) -> None:
    """A convolution of every other row of its input (a stepped slice), with
    patches large enough for chunks of images, and with batches of one and
    zero images: the value and the gradients of the input and the filter,
    against the direct adjoint, at every opt_level."""
    rng = np.random.default_rng(xs[0] * 10 + xs[1])
    big, w = rng.standard_normal(xs), rng.standard_normal(ws)
    x = big[:, :, ::2, :]
    vs = x.shape
    ys = (vs[0], ws[0], vs[2] + padding[0] + padding[2] - ws[2] + 1,
          vs[3] + padding[1] + padding[3] - ws[3] + 1)
    c = rng.standard_normal(ys)
    tb, tv, tw, ty = (tensor_type(s, np.float64) for s in (xs, vs, ws, ys))
    text = f"""func.func @main(%big: {tb}, %w: {tw}, %c: {ty}) -> tensor<f64> {{
  %x = relax.strided_slice %big {{axes = array<i64: 2>, begin = array<i64: 0>,
      end = array<i64: {xs[2]}>, strides = array<i64: 2>}} : {tb} -> {tv}
  %y = relax.conv2d %x, %w {{padding = array<i64: {', '.join(map(str, padding))}>}} : {tv}, {tw} -> {ty}
  %p = relax.multiply %y, %c : {ty}, {ty} -> {ty}
  %s = relax.sum %p : {ty} -> tensor<f64>
  return %s : tensor<f64>
}}"""
    module = relax_mlir.gradient(text, func="main", require_grads=[0, 1])
    exe = relax_mlir.compile(module, opt_level=opt_level, functions=["main_adjoint"])
    value, (dbig, dw) = exe["main_adjoint"](big, w, c)
    want_dx, want_dw = reference(x, w, c, (1, 1), padding, (1, 1), 1)
    want_dbig = np.zeros_like(big)
    want_dbig[:, :, ::2, :] = want_dx
    np.testing.assert_allclose(float(value), float(np.sum(w * want_dw)), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(np.asarray(dbig), want_dbig, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(np.asarray(dw), want_dw, rtol=1e-11, atol=1e-11)

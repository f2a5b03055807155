"""Second order: adjoints differentiated again, in both modes.

Reverse over reverse: the gradient pass inlines calls before differentiating,
so a function that calls `@f_adjoint`, takes the gradient field, multiplies it
by `v` and sums is differentiated into a Hessian-vector product. Forward over
reverse: the jvp of `@f_adjoint` along v carries H v as the tangent of its
gradients (and v . grad as the tangent of the loss). Each case compares both
with float64 central differences of the compiled first derivative:
(grad(x + h v) - grad(x - h v)) / 2h, and the two with each other.
"""

from __future__ import annotations

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt

H = 1e-5


def hvp_module(body: str, params: list[tuple[str, str]], result: str,
               grads: list[str]) -> str:
    """@f(params) = body (returning the 0-d `result`), the declaration of
    @f_adjoint (gradients of the parameters named in `grads`), and
    @hvp(params, v...) = sum over `grads` of sum(grad_i * v_i)."""
    types = dict(params)
    sig = ", ".join(f"%{n}: {t}" for n, t in params)
    grads_t = "tuple<" + ", ".join(types[n] for n in grads) + ">"
    adj_t = f"tuple<tensor<f64>, {grads_t}>"
    vs = ", ".join(f"%v_{n}: {types[n]}" for n in grads)
    lines = [f"    %t = func.call @f_adjoint({', '.join('%' + n for n, _ in params)}) : "
             f"({', '.join(t for _, t in params)}) -> {adj_t}",
             f"    %gs = relax.tuple_get_item %t[1] : {adj_t}"]
    terms = []
    for i, n in enumerate(grads):
        t = types[n]
        lines += [f"    %g{i} = relax.tuple_get_item %gs[{i}] : {grads_t}",
                  f"    %m{i} = relax.multiply %g{i}, %v_{n} : {t}, {t} -> {t}",
                  f"    %s{i} = relax.sum %m{i} : {t} -> tensor<f64>"]
        terms.append(f"%s{i}")
    acc = terms[0]
    for i, term in enumerate(terms[1:]):
        lines.append(f"    %acc{i} = relax.add {acc}, {term} : tensor<f64>, tensor<f64> -> tensor<f64>")
        acc = f"%acc{i}"
    hvp_body = "\n".join(lines)
    return f"""
func.func @f({sig}) -> tensor<f64> {{
  %r = relax.dataflow -> (tensor<f64>) {{
{body}
    relax.output {result} : tensor<f64>
  }}
  return %r : tensor<f64>
}}
func.func private @f_adjoint({", ".join(t for _, t in params)}) -> {adj_t}
func.func @hvp({sig}, {vs}) -> tensor<f64> {{
  %r = relax.dataflow -> (tensor<f64>) {{
{hvp_body}
    relax.output {acc} : tensor<f64>
  }}
  return %r : tensor<f64>
}}
"""


def check_hvp(body: str, args: dict[str, np.ndarray], result: str,
              extra: dict[str, np.ndarray] | None = None, rtol: float = 1e-5,
              atol: float = 1e-7) -> None:
    """H v of f over the float64 `args` against central differences of the
    compiled gradient; `extra` are parameters held fixed (their gradients, for
    float ones, still flow through @f_adjoint with a zero direction)."""
    extra = extra or {}
    everything = {**args, **extra}
    params = [(n, rt.tensor_type(a.shape, a.dtype)) for n, a in everything.items()]
    floats = [n for n, a in everything.items() if np.issubdtype(a.dtype, np.floating)]
    text = hvp_module(body, params, result, floats)
    names = list(everything)
    f_grads = [names.index(n) for n in floats]
    module = relax_mlir.gradient(text, func="f", require_grads=f_grads)
    n_diff = len(args)
    module = relax_mlir.gradient(module, func="hvp", require_grads=list(range(n_diff)))
    exe = relax_mlir.compile(module)
    gen = rt.rng("hvp", body)
    vs = {n: (gen.uniform(-1, 1, everything[n].shape) if n in args
              else np.zeros_like(everything[n])) for n in floats}
    _, hv = exe.hvp_adjoint(*everything.values(), *vs.values())
    # The first derivative compiled on its own (in the module above @f_adjoint
    # took the private visibility of its declaration).
    first_module = relax_mlir.gradient(text.split("func.func private @f_adjoint")[0], func="f",
                                       require_grads=f_grads)
    first = relax_mlir.compile(first_module)

    def grads(shift: float) -> list[np.ndarray]:
        moved = [a + shift * vs[n] if n in args else a for n, a in everything.items()]
        return list(first.f_adjoint(*moved)[1][:n_diff])

    # Forward over reverse: the tangent of (loss, grads) along v.
    forward = relax_mlir.compile(relax_mlir.jacobian_vector_product(
        first_module, func="f_adjoint", wrt=list(range(n_diff))))
    (_, g0), (dloss, hv_forward) = forward.f_adjoint_jvp(
        *everything.values(), *[vs[n] for n in args])
    np.testing.assert_allclose(dloss, sum(np.sum(g * vs[n]) for n, g in zip(args, g0)),
                               rtol=1e-12, atol=1e-12, err_msg="tangent of the loss: v . grad")

    plus, minus = grads(H), grads(-H)
    for name, got, fwd, gp, gm in zip(args, hv[:n_diff], hv_forward, plus, minus):
        np.testing.assert_allclose(got, (gp - gm) / (2 * H), rtol=rtol, atol=atol,
                                   err_msg=f"H v (reverse over reverse), block of {name}")
        np.testing.assert_allclose(fwd, (gp - gm) / (2 * H), rtol=rtol, atol=atol,
                                   err_msg=f"H v (forward over reverse), block of {name}")
        np.testing.assert_allclose(fwd, got, rtol=1e-10, atol=1e-12,
                                   err_msg=f"H v, the two modes, block of {name}")


UNARY = {
    # op: (low, high, attributes)
    "negative": (-2, 2, ""), "exp": (-2, 2, ""), "log": (0.5, 2.5, ""),
    "sqrt": (0.5, 2.5, ""), "rsqrt": (0.5, 2.5, ""), "sin": (-2, 2, ""), "cos": (-2, 2, ""),
    "tan": (-1, 1, ""), "tanh": (-2, 2, ""), "sigmoid": (-3, 3, ""), "abs": (0.2, 2, ""),
    "square": (-2, 2, ""), "erf": (-2, 2, ""), "relu": (0.2, 2, ""), "silu": (-3, 3, ""),
    "gelu": (-3, 3, ""), "softplus": (-3, 3, ""), "leaky_relu": (-2, -0.2, " {alpha = 0.3 : f64}"),
    "clip": (-0.9, 0.9, " {min = -1.0 : f64, max = 1.0 : f64}"),
}


@pytest.mark.parametrize("op", list(UNARY))
def test_second_derivative_of_unary(op: str) -> None:
    low, high, attrs = UNARY[op]
    x = rt.random_array(rt.rng("second", op), (2, 3), np.float64, low, high)
    t = "tensor<2x3xf64>"
    body = (f'    %a = "relax.{op}"(%x){attrs} : ({t}) -> {t}\n'
            f"    %b = relax.multiply %a, %a : {t}, {t} -> {t}\n"
            f"    %s = relax.sum %b : {t} -> tensor<f64>")
    check_hvp(body, {"x": x}, "%s")


def test_hvp_of_an_mlp_with_log_softmax_and_nll_loss() -> None:
    gen = rt.rng("mlp-hvp")
    x = gen.uniform(-1, 1, (4, 5))
    w1, w2 = gen.uniform(-1, 1, (5, 6)), gen.uniform(-1, 1, (6, 3))
    body = """    %h = relax.matmul %x, %w1 : tensor<4x5xf64>, tensor<5x6xf64> -> tensor<4x6xf64>
    %a = relax.tanh %h : tensor<4x6xf64>
    %z = relax.matmul %a, %w2 : tensor<4x6xf64>, tensor<6x3xf64> -> tensor<4x3xf64>
    %p = relax.log_softmax %z : tensor<4x3xf64>
    %l = relax.nll_loss %p, %y : tensor<4x3xf64>, tensor<4xi64> -> tensor<f64>"""
    check_hvp(body, {"w1": w1, "w2": w2}, "%l",
              extra={"x": x, "y": np.array([0, 2, 1, 2], dtype=np.int64)})


def test_hvp_of_layer_norm_and_softmax_cross_entropy() -> None:
    gen = rt.rng("ln-hvp")
    x = gen.uniform(-1, 1, (3, 4))
    g, b = gen.uniform(0.5, 1.5, (4,)), gen.uniform(-0.5, 0.5, (4,))
    labels = gen.dirichlet(np.ones(4), size=3)
    body = """    %y = relax.layer_norm %x, %g, %b {axes = array<i64: -1>} : tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>
    %p = relax.log_softmax %y : tensor<3x4xf64>
    %l = relax.cross_entropy_with_logits %p, %lab : tensor<3x4xf64> -> tensor<f64>"""
    check_hvp(body, {"x": x, "g": g, "b": b}, "%l", extra={"lab": labels})


def test_hvp_through_shape_ops_and_reductions() -> None:
    gen = rt.rng("shape-hvp")
    x = gen.uniform(0.5, 1.5, (4, 3))
    body = """    %c = relax.concat %x, %x {axis = 0 : i64} : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<8x3xf64>
    %s = relax.strided_slice %c {axes = array<i64: 0>, begin = array<i64: 7>, end = array<i64: 0>, strides = array<i64: -2>} : tensor<8x3xf64> -> tensor<4x3xf64>
    %i = arith.constant dense<[0, 2, 2, -1]> : tensor<4xi64>
    %t = relax.take %s, %i {axis = 0 : i64} : tensor<4x3xf64>, tensor<4xi64> -> tensor<4x3xf64>
    %m = relax.multiply %t, %x : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
    %p = relax.prod %m {axis = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
    %v = relax.variance %m : tensor<4x3xf64> -> tensor<f64>
    %q = relax.sum %p : tensor<4xf64> -> tensor<f64>
    %l = relax.add %q, %v : tensor<f64>, tensor<f64> -> tensor<f64>"""
    check_hvp(body, {"x": x}, "%l")

"""`relax_mlir.optim`: optimizers in optax's shape, usable inside `jit`.

An optimizer is a pair of pure functions over pytrees::

    opt = optim.adam(1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optim.apply_updates(params, updates)

so that one compiled training step holds the forward pass, the gradient and
the update (`jit` of a function calling `grad` and `opt.update`). The same
functions run on numpy arrays outside a traced function (numpy arithmetic:
nothing is compiled). The formulas are optax's (and cover TVM
relax.training's SGD, MomentumSGD and Adam): the step count starts at 0, a
`learning_rate` may be a schedule `count -> rate` called with the count
before the step, and Adam's bias corrections use the count after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .errors import call_site
from .tree_util import tree_map

__all__ = ["GradientTransformation", "SgdState", "AdamState", "sgd", "momentum", "adam",
           "adamw", "apply_updates"]

Schedule = Callable[[Any], Any]


class GradientTransformation(NamedTuple):
    """optax's: `init(params) -> state`; `update(grads, state, params=None)
    -> (updates, state)`."""
    init: Callable[[Any], Any]
    update: Callable[..., tuple[Any, Any]]


class SgdState(NamedTuple):
    count: Any   # int32 0-d: steps taken
    trace: Any   # the momentum buffers (None without momentum)


class AdamState(NamedTuple):
    count: Any   # int32 0-d: steps taken
    mu: Any      # first moments, like params
    nu: Any      # second moments, like params


def _zeros_like(x: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic, float, int)):
        return np.zeros_like(x)
    from . import numpy as rnp  # a traced array

    return rnp.zeros_like(x)


def _count(params: Any) -> Any:
    del params
    return np.zeros((), np.int32)


def _rate(learning_rate: float | Schedule, count: Any) -> Any:
    return learning_rate(count) if callable(learning_rate) else learning_rate


def _check(name: str, **values: Any) -> None:
    for key, value in values.items():
        if value is None or callable(value):
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{call_site()}: optim.{name}: {key} must be a non-negative number"
                             f"{' or a schedule (count -> rate)' if key == 'learning_rate' else ''}"
                             f", got {value!r}")


def _float(count: Any, like: Any) -> Any:
    """The step count as a float of `like`'s type (a traced count: astype)."""
    dtype = like.dtype if hasattr(like, "dtype") else np.float32
    return count.astype(dtype)


def sgd(learning_rate: float | Schedule, momentum: float | None = None,
        nesterov: bool = False, *, weight_decay: float = 0.0,
        dampening: float = 0.0) -> GradientTransformation:
    """Stochastic gradient descent: `-rate * g`; with `momentum` β, the
    trace `t = β t + (1 - dampening) g` replaces g (`nesterov`: `g + β t`).
    `weight_decay` λ adds `λ p` to each gradient first (L2; TVM
    relax.training's and PyTorch's SGD; `update` then needs `params`);
    `dampening` is theirs too (optax has neither)."""
    _check("sgd", learning_rate=learning_rate, momentum=momentum, weight_decay=weight_decay,
           dampening=dampening)
    if dampening and momentum is None:
        raise ValueError(f"{call_site()}: optim.sgd: dampening applies to the momentum trace; "
                         f"give momentum too")

    def init(params: Any) -> SgdState:
        trace = tree_map(_zeros_like, params) if momentum is not None else None
        return SgdState(_count(params), trace)

    def update(grads: Any, state: SgdState, params: Any = None) -> tuple[Any, SgdState]:
        grads = _decayed("sgd", grads, params, weight_decay)
        rate = _rate(learning_rate, state.count)
        trace = state.trace
        if momentum is not None:
            trace = tree_map(lambda g, t: (1 - dampening) * g + momentum * t, grads,
                             state.trace)
            direction = tree_map(lambda g, t: g + momentum * t, grads, trace) if nesterov \
                else trace
        else:
            direction = grads
        updates = tree_map(lambda d: -rate * d, direction)
        return updates, SgdState(state.count + 1, trace)

    return GradientTransformation(init, update)


def momentum(learning_rate: float | Schedule, beta: float = 0.9,
             nesterov: bool = False, *, weight_decay: float = 0.0,
             dampening: float = 0.0) -> GradientTransformation:
    """SGD with momentum β (TVM relax.training's MomentumSGD, with its
    `weight_decay` and `dampening`; optax's `sgd(rate, momentum=β)`)."""
    return sgd(learning_rate, momentum=beta, nesterov=nesterov, weight_decay=weight_decay,
               dampening=dampening)


def _require_params(name: str, params: Any) -> None:
    """A weight decay reads the parameters: update must be given them."""
    if params is None:
        raise ValueError(f"{call_site()}: optim.{name}: update needs params for the weight "
                         f"decay: opt.update(grads, state, params)")


def _decayed(name: str, grads: Any, params: Any, weight_decay: float) -> Any:
    """`grads + weight_decay * params` (L2 regularization), or `grads`."""
    if not weight_decay:
        return grads
    _require_params(name, params)
    return tree_map(lambda g, p: g + weight_decay * p, grads, params)


def _adam(name: str, learning_rate: float | Schedule, b1: float, b2: float, eps: float,
          weight_decay: float, l2: float = 0.0) -> GradientTransformation:
    _check(name, learning_rate=learning_rate, b1=b1, b2=b2, eps=eps,
           weight_decay=weight_decay or l2)
    if not (b1 < 1 and b2 < 1):
        raise ValueError(f"{call_site()}: optim.{name}: b1 and b2 must be below 1, got {b1} "
                         f"and {b2}")

    def init(params: Any) -> AdamState:
        return AdamState(_count(params), tree_map(_zeros_like, params),
                         tree_map(_zeros_like, params))

    def update(grads: Any, state: AdamState, params: Any = None) -> tuple[Any, AdamState]:
        if weight_decay:
            _require_params(name, params)
        grads = _decayed(name, grads, params, l2)
        rate = _rate(learning_rate, state.count)
        count = state.count + 1
        mu = tree_map(lambda g, m: b1 * m + (1 - b1) * g, grads, state.mu)
        nu = tree_map(lambda g, v: b2 * v + (1 - b2) * (g * g), grads, state.nu)

        def step(m: Any, v: Any, p: Any) -> Any:
            n = _float(count, m)
            direction = (m / (1 - b1 ** n)) / ((v / (1 - b2 ** n)) ** 0.5 + eps)
            if weight_decay:
                direction = direction + weight_decay * p
            return -rate * direction

        updates = tree_map(step, mu, nu, params if weight_decay else mu)
        return updates, AdamState(count, mu, nu)

    return GradientTransformation(init, update)


def adam(learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8, *, weight_decay: float = 0.0) -> GradientTransformation:
    """Adam (Kingma and Ba): moments `m = b1 m + (1 - b1) g`, `v = b2 v +
    (1 - b2) g²`, update `-rate m̂ / (sqrt(v̂) + eps)` with the bias-corrected
    `m̂ = m / (1 - b1^t)`, `v̂ = v / (1 - b2^t)`. `weight_decay` λ adds `λ p`
    to the gradient first (L2, as TVM relax.training's and PyTorch's Adam;
    `adamw` decouples it)."""
    return _adam("adam", learning_rate, b1, b2, eps, 0.0, l2=weight_decay)


def adamw(learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, weight_decay: float = 1e-4) -> GradientTransformation:
    """Adam with decoupled weight decay (Loshchilov and Hutter): the update
    adds `rate * weight_decay * params` (`update` needs `params`)."""
    return _adam("adamw", learning_rate, b1, b2, eps, weight_decay)


def apply_updates(params: Any, updates: Any) -> Any:
    """`params + updates`, leaf by leaf, in each parameter's dtype."""
    def add(p: Any, u: Any) -> Any:
        out = p + u
        if hasattr(p, "dtype") and hasattr(out, "astype") and out.dtype != p.dtype:
            out = out.astype(p.dtype)
        return out

    return tree_map(add, params, updates)

"""`relax_mlir.random`: random numbers as pure functions of a key, as
`jax.random`.

A key is two 32-bit words; a function of a key always returns the same
numbers, on any machine, thread count or target, and inside a checkpointed
segment its recomputation draws the same numbers by construction. Use a key
once, and `split` it (or `fold_in` a step number) for more::

    import relax_mlir.random as rr

    key = rr.PRNGKey(0)
    key, sub = rr.split(key)
    w = rr.normal(sub, (784, 128)) * 0.01

The generator is Threefry-2x32 with 20 rounds (Salmon et al. 2011, JAX's
default), built from relax ops (`bitwise_xor`, `left_shift`,
`shift_right_logical`, `add`), so it runs wherever the ops run. `PRNGKey`,
`split`, `fold_in`, `uniform` (float32 and float64), `bernoulli`, `randint`
and `permutation` give JAX's values bit for bit (`jax_threefry_partitionable`,
JAX's default); `normal` agrees with JAX's to rounding (its inverse error
function is a polynomial of another evaluation order).

Departures from JAX, and why: a key is a plain int32 array of shape (2,)
holding the two uint32 words' bits (relax has no unsigned type; `np.asarray(
key).view(np.uint32)` shows JAX's words), not a typed key array; float16 and
bfloat16 draws are float32 draws rounded (JAX draws 16 bits); `permutation`
ranks its random sort keys by comparing all pairs (relax has no sort yet):
memory grows with n^2, so it is refused past 8192 elements.

Called inside a traced function, these emit ops into it; called on numpy
values, they run eagerly (compiled once per shape) and return numpy arrays.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as _np

from . import numpy as rnp
from ._trace import Tracer, canonical_dtype, emit_op, is_float, primitive, tensor_type
from .dialects import relax as _r
from .errors import call_site

__all__ = ["PRNGKey", "key", "split", "fold_in", "uniform", "normal", "bernoulli", "randint",
           "permutation", "threefry_2x32"]

# The key schedule's parity constant and the rotations (Random123).
_PARITY = 0x1BD11BDA
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PERMUTATION_LIMIT = 8192

# A traced array (its operators are set at run time, which type checkers do
# not see).
Array = Any


def _i32(value: int) -> Any:
    """A 0-d int32 constant holding the uint32 `value`'s bits."""
    return _np.asarray(_np.uint32(value & 0xFFFFFFFF).view(_np.int32))


def _key_words(key: Any) -> tuple[Array, Array]:
    key = rnp.asarray(key)
    if key.shape != (2,) or key.dtype != _np.int32:
        raise TypeError(f"{call_site()}: a random key is an int32 array of shape (2,) (from "
                        f"PRNGKey, split or "
                        f"fold_in), got shape {key.shape} and dtype {key.dtype}")
    return key[0], key[1]


def _rotate_left(x: Array, r: int) -> Array:
    return emit_op(_r.bitwise_or, emit_op(_r.left_shift, x, rnp.asarray(_i32(r))),
                   emit_op(_r.shift_right_logical, x, rnp.asarray(_i32(32 - r))))


def _threefry(k1: Array, k2: Array, x0: Array, x1: Array) -> tuple[Array, Array]:
    """Threefry-2x32 (20 rounds) of the counter words x0, x1 (int32 arrays of
    one shape) under the key words k1, k2: int32 arrays holding uint32 bits;
    additions wrap as uint32 ones do."""
    ks = [k1, k2, rnp.bitwise_xor(rnp.bitwise_xor(k1, k2), rnp.asarray(_i32(_PARITY)))]
    x0 = x0 + ks[0]
    x1 = x1 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = rnp.bitwise_xor(_rotate_left(x1, r), x0)
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + rnp.asarray(_i32(i + 1))
    return x0, x1


@primitive
def threefry_2x32(key: Any, count: Any) -> Array:
    """The Threefry-2x32 hash of the int32 words `count` under `key`, as
    `jax.prng.threefry_2x32`: the words are split into two halves (padded to
    an even count), hashed pairwise and rejoined in count's shape."""
    k1, k2 = _key_words(key)
    count = rnp.asarray(count)
    if count.dtype != _np.int32:
        raise TypeError(f"{call_site()}: threefry_2x32 hashes int32 words, got dtype "
                        f"{count.dtype}; pass uint32 words as .view(np.int32)")
    flat = rnp.ravel(count) if count.ndim != 1 else count
    n = count.size
    if n % 2:
        flat = rnp.concatenate([flat, rnp.zeros(1, _np.int32)])
    half = (n + 1) // 2
    y0, y1 = _threefry(k1, k2, flat[:half], flat[half:])
    out = rnp.concatenate([y0, y1])
    if n % 2:
        out = out[:n]
    return rnp.reshape(out, count.shape)


def PRNGKey(seed: Any) -> Any:
    """The key of an integer seed, as `jax.random.PRNGKey`: the words
    (seed >> 32, seed & 0xFFFFFFFF). A Python or numpy integer gives a numpy
    key; a traced integer a traced one."""
    if isinstance(seed, Tracer):
        return _traced_key(seed)
    if isinstance(seed, (bool, _np.bool_)) or not isinstance(seed, (int, _np.integer)):
        raise TypeError(f"{call_site()}: PRNGKey takes an integer seed, got "
                        f"{type(seed).__name__}; pass an int such as 0")
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError(f"{call_site()}: PRNGKey seed {seed} does not fit in 64 bits; pass "
                         f"one in [-2**63, 2**64)")
    seed &= 0xFFFFFFFFFFFFFFFF
    return _np.array([_i32(seed >> 32), _i32(seed)], _np.int32)


key = PRNGKey


def _traced_key(seed: Array) -> Array:
    if is_float(seed.dtype) or seed.shape != ():
        raise TypeError(f"{call_site()}: PRNGKey takes a 0-d int32 or int64 seed, got shape "
                        f"{seed.shape} and dtype "
                        f"{seed.dtype}")
    if seed.dtype == _np.int64:
        low = rnp.astype(emit_op(_r.bitwise_and, seed, rnp.asarray(_np.int64(0xFFFFFFFF))),
                         _np.int32)
        high = rnp.astype(emit_op(_r.shift_right_logical, seed, rnp.asarray(_np.int64(32))),
                          _np.int32)
    else:
        low = rnp.astype(seed, _np.int32)
        # A negative 32-bit seed is sign-extended to 64 bits first, as JAX's.
        high = emit_op(_r.right_shift, low, rnp.asarray(_i32(31)))
    return rnp.stack([high, low])


def _iota_words(shape: tuple[int, ...]) -> tuple[Array, Array]:
    """The flat index of each element of `shape` as (high, low) 32-bit words
    (JAX's iota_2x32_shape)."""
    size = math.prod(shape)
    index = _np.arange(size, dtype=_np.uint64).reshape(shape)
    high = (index >> _np.uint64(32)).astype(_np.uint32).view(_np.int32)
    low = (index & _np.uint64(0xFFFFFFFF)).astype(_np.uint32).view(_np.int32)
    return rnp.asarray(high), rnp.asarray(low)


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, _np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _bits_pair(key: Any, shape: tuple[int, ...]) -> tuple[Array, Array]:
    k1, k2 = _key_words(key)
    high, low = _iota_words(shape)
    return _threefry(k1, k2, high, low)


@primitive
def split(key: Any, num: int | Sequence[int] = 2) -> Array:
    """`num` new keys (shape (num, 2); a shape gives shape + (2,)), as
    `jax.random.split`."""
    shape = _shape(num)
    b1, b2 = _bits_pair(key, shape)
    return rnp.stack([b1, b2], axis=len(shape))


@primitive
def fold_in(key: Any, data: Any) -> Array:
    """A new key from `key` and an integer (a step, a layer index), as
    `jax.random.fold_in`: the key hashing the words (0, data)."""
    k1, k2 = _key_words(key)
    data = rnp.asarray(data)
    if is_float(data.dtype) or data.shape != ():
        raise TypeError(f"{call_site()}: fold_in takes a 0-d integer (a step or layer "
                        f"number), got shape {data.shape} and dtype "
                        f"{data.dtype}")
    if data.dtype != _np.int32:
        data = rnp.astype(emit_op(_r.bitwise_and, rnp.astype(data, _np.int64),
                                  rnp.asarray(_np.int64(0xFFFFFFFF))), _np.int32)
    y0, y1 = _threefry(k1, k2, rnp.zeros(1, _np.int32), rnp.reshape(data, (1,)))
    return rnp.concatenate([y0, y1])


def _bits32(key: Any, shape: tuple[int, ...]) -> Array:
    """32 random bits per element (int32 holding uint32 bits), as JAX's
    partitionable random_bits(key, 32, shape)."""
    b1, b2 = _bits_pair(key, shape)
    return rnp.bitwise_xor(b1, b2)


def _zero_extend(x: Array) -> Array:
    """int32 bits as the uint32 value, in int64."""
    return emit_op(_r.bitwise_and, rnp.astype(x, _np.int64), rnp.asarray(_np.int64(0xFFFFFFFF)))


def _float_dtype(dtype: Any) -> Any:
    dtype = canonical_dtype(dtype)
    if not is_float(dtype):
        raise TypeError(f"{call_site()}: expected a float dtype, got {dtype}; pass float32 "
                        f"or float64 (randint draws integers)")
    return dtype


def _unit_floats(key: Any, shape: tuple[int, ...], dtype: Any) -> Array:
    """Uniform floats in [0, 1): random mantissa bits under exponent 0, minus 1."""
    if dtype == _np.float64:
        b1, b2 = _bits_pair(key, shape)
        bits = emit_op(_r.bitwise_or, emit_op(_r.left_shift, _zero_extend(b1),
                                              rnp.asarray(_np.int64(32))), _zero_extend(b2))
        mantissa = emit_op(_r.shift_right_logical, bits, rnp.asarray(_np.int64(12)))
        one = _np.asarray(_np.float64(1.0).view(_np.int64))
        floats: Array = emit_op(_r.bitcast, tensor_type(shape, _np.float64),
                                emit_op(_r.bitwise_or, mantissa, rnp.asarray(one)))
        return floats - 1.0
    bits = _bits32(key, shape)
    mantissa = emit_op(_r.shift_right_logical, bits, rnp.asarray(_i32(9)))
    one = _np.asarray(_np.float32(1.0).view(_np.int32))
    single: Array = emit_op(_r.bitcast, tensor_type(shape, _np.float32),
                            emit_op(_r.bitwise_or, mantissa, rnp.asarray(one)))
    return single - 1.0


@primitive
def uniform(key: Any, shape: Any = (), dtype: Any = _np.float32, minval: Any = 0.0,
            maxval: Any = 1.0) -> Array:
    """Uniform floats in [minval, maxval), as `jax.random.uniform`."""
    shape = _shape(shape)
    dtype = _float_dtype(dtype)
    draw = _np.float32 if dtype not in (_np.float32, _np.float64) else dtype
    u = _unit_floats(key, shape, _np.dtype(draw))
    lo: Array = rnp.asarray(minval, draw)
    hi: Array = rnp.asarray(maxval, draw)
    out = rnp.maximum(lo, u * (hi - lo) + lo)
    return rnp.astype(rnp.broadcast_to(out, shape), dtype)


def _erf_inv(x: Array) -> Array:
    """erf^-1 on (-1, 1): Giles' single-precision polynomials (XLA's), then
    for float64 two Newton steps on erf (each doubles the correct digits)."""
    w = -rnp.log((1.0 - x) * (1.0 + x))
    small = rnp.less(w, 5.0)
    ws = w - 2.5
    wl = rnp.sqrt(rnp.maximum(w, 5.0)) - 3.0
    p_small = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
               0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
    p_large = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
    ps = rnp.full_like(x, p_small[0])
    pl = rnp.full_like(x, p_large[0])
    for cs, cl in zip(p_small[1:], p_large[1:]):
        ps = ps * ws + cs
        pl = pl * wl + cl
    y = rnp.where(small, ps, pl) * x
    if x.dtype == _np.float64:
        for _ in range(2):
            y = y - (rnp.erf(y) - x) / (2.0 / math.sqrt(math.pi) * rnp.exp(-y * y))
    return y


@primitive
def normal(key: Any, shape: Any = (), dtype: Any = _np.float32) -> Array:
    """Standard normal floats, as `jax.random.normal`: sqrt(2) erf^-1(u) for
    u uniform in (-1, 1)."""
    shape = _shape(shape)
    dtype = _float_dtype(dtype)
    draw = _np.dtype(_np.float64 if dtype == _np.float64 else _np.float32)
    lo = _np.nextafter(draw.type(-1.0), draw.type(0.0))
    u = uniform(key, shape, draw, lo, 1.0)
    return rnp.astype(math.sqrt(2.0) * _erf_inv(u), dtype)


@primitive
def bernoulli(key: Any, p: Any = 0.5, shape: Any = None) -> Array:
    """True with probability `p` (broadcast to `shape`, p's shape when None),
    as `jax.random.bernoulli`: uniform < p."""
    # p's float type, as JAX's: a Python float is float64 (float32 unless
    # enable_x64), and the draw is of that type.
    if not isinstance(p, Tracer):
        p = _np.asarray(p)
        p = p.astype(canonical_dtype(p.dtype if is_float(p.dtype) else _np.float64))
    p = rnp.asarray(p)
    if not is_float(p.dtype):
        p = rnp.astype(p, canonical_dtype(_np.float64))
    shape = p.shape if shape is None else _shape(shape)
    return rnp.less(uniform(key, shape, p.dtype), p)


def _rem(a: Array, b: Array) -> Array:
    """a mod b for non-negative int64 a and positive b (relax.divide of
    integers truncates, which is the floor here)."""
    return a - emit_op(_r.divide, a, b) * b


@primitive
def randint(key: Any, shape: Any, minval: Any, maxval: Any, dtype: Any = _np.int32) -> Array:
    """Integers in [minval, maxval) (minval where maxval <= minval), as
    `jax.random.randint` (its algorithm: two 32-bit draws combined modulo the
    span, in uint32 arithmetic emulated in int64)."""
    shape = _shape(shape)
    dtype = _np.dtype(dtype)
    if dtype not in (_np.int32, _np.int64):
        raise TypeError(f"{call_site()}: randint draws int32, got {dtype}; pass "
                        f"dtype=relax_mlir.numpy.int32")
    if dtype == _np.int64:
        raise TypeError(f"{call_site()}: randint of int64 (64 random bits) is not supported; "
                        "draw int32 "
                        "and convert")
    info = _np.iinfo(_np.int32)
    lo = rnp.astype(rnp.clip(rnp.astype(rnp.asarray(minval), _np.int64), int(info.min),
                             int(info.max)), _np.int64)
    hi = rnp.astype(rnp.clip(rnp.astype(rnp.asarray(maxval), _np.int64), int(info.min),
                             int(info.max)), _np.int64)
    k1, k2 = split(key)
    higher = _zero_extend(_bits32(k1, shape))
    lower = _zero_extend(_bits32(k2, shape))
    mask = rnp.asarray(_np.int64(0xFFFFFFFF))
    span = rnp.bitwise_and(hi - lo, mask)
    span = rnp.where(rnp.less_equal(hi, lo), rnp.ones_like(span), span)
    multiplier = _rem(rnp.asarray(_np.int64(2 ** 16)), span)
    # uint32 products wrap: 2^16 * 2^16 is 0.
    multiplier = _rem(rnp.bitwise_and(multiplier * multiplier, mask), span)
    offset = rnp.bitwise_and(_rem(higher, span) * multiplier, mask)
    offset = rnp.bitwise_and(offset + _rem(lower, span), mask)
    offset = _rem(offset, span)
    # minval + offset wraps as int32, as JAX's addition does.
    return rnp.broadcast_to(rnp.astype(lo, _np.int32) + rnp.astype(offset, _np.int32), shape)


@primitive
def permutation(key: Any, x: Any, axis: int = 0) -> Array:
    """A random permutation of `arange(x)` (an int) or of `x` along `axis`, as
    `jax.random.permutation`: the elements ordered by random 32-bit sort keys
    (ranked by comparing all pairs: relax has no sort op yet)."""
    if isinstance(x, (int, _np.integer)):
        x = rnp.arange(int(x))
    x = rnp.asarray(x)
    if x.ndim == 0:
        raise TypeError(f"{call_site()}: permutation takes an int n (a permutation of "
                        f"arange(n)) or an array of at least one dimension")
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if n > _PERMUTATION_LIMIT:
        raise ValueError(f"{call_site()}: permutation of {n} elements: ranking by all pairs "
                         f"needs n^2 memory "
                         f"and is refused past {_PERMUTATION_LIMIT} (relax has no sort op "
                         f"yet); permute with numpy outside the compiled function")
    rounds = int(_np.ceil(3 * _np.log(builtins.max(1, n)) / _np.log(_np.iinfo(_np.uint32).max)))
    order = rnp.arange(n)
    for _ in range(rounds):
        key, subkey = split(key)
        sort_keys = _zero_extend(_bits32(subkey, (n,)))
        # rank[i] = #{j: k_j < k_i} + #{j < i: k_j == k_i} (a stable order).
        ki, kj = sort_keys[:, None], sort_keys[None, :]
        below = rnp.less(kj, ki)
        ties = rnp.logical_and(rnp.equal(kj, ki), _np.tril(_np.ones((n, n), bool), -1))
        rank = rnp.sum(rnp.astype(below, _np.int64), axis=1) + \
            rnp.sum(rnp.astype(ties, _np.int64), axis=1)
        order = rnp.zeros(n, _np.int64).at[rank].set(order)
    return rnp.take(x, order, axis=axis)

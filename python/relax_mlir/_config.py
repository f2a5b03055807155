"""`relax_mlir.config`: the package's settings, set as JAX's are
(`relax_mlir.config.update("log_compiles", True)` or
`relax_mlir.config.log_compiles = True`).

Pure Python (no MLIR): the compiler, the frontend and the compilation cache
read it.
"""

from __future__ import annotations

import logging
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Where `log_compiles` writes (at WARNING, as jax_log_compiles does, so that it
# shows without any logging set-up).
logger = logging.getLogger("relax_mlir")


def _bound(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"config.{name} must be a positive int or None (no bound), "
                         f"got {value!r}")
    return int(value)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"config.{name} must be True or False, got {value!r}")
    return value


def _directory(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise ValueError(f"config.{name} must be a directory path or None (the default), "
                         f"got {value!r}")
    return os.path.abspath(os.path.expanduser(os.fspath(value)))


@dataclass(frozen=True)
class _Setting:
    default: Any
    check: Callable[[str, Any], Any]
    doc: str


_SETTINGS: dict[str, _Setting] = {
    "cache_size": _Setting(64, _bound, (
        "compiled signatures each function keeps in memory per transformation (`jit`, "
        "`grad`, `value_and_grad`, `jvp`, `vjp`: for the whole process, so that "
        "`grad(loss)` made anew finds them); past it, the least recently used one is "
        "dropped (and compiled again, or loaded from the compilation cache, if called "
        "again)")),
    "eager_cache_size": _Setting(128, _bound, (
        "compiled signatures kept for eager calls of `relax_mlir.numpy`/`nn` functions on "
        "numpy arrays, all functions together")),
    "enable_x64": _Setting(False, _flag, (
        "keep float64 in traced functions (default False: float64 arrays, constants and "
        "dtypes become float32 as JAX's default makes them, so that numpy's float64 "
        "defaults do not silently train in float64); the default comes from "
        "$RELAX_MLIR_ENABLE_X64 (1/true)")),
    "log_compiles": _Setting(False, _flag, (
        "log each compilation (what, why, how long, and whether the compilation cache "
        "had it) to the `relax_mlir` logger at WARNING")),
    "enable_compilation_cache": _Setting(True, _flag, (
        "keep compiled CPU executables on disk (`compilation_cache_dir`), so that a new "
        "process, or a signature dropped from memory, loads them instead of compiling")),
    "compilation_cache_dir": _Setting(None, _directory, (
        "the compilation cache's directory; None: $RELAX_MLIR_CACHE_DIR, else "
        "$XDG_CACHE_HOME/relax_mlir, else ~/.cache/relax_mlir")),
    "compilation_cache_max_size": _Setting(2 ** 30, _bound, (
        "bytes the compilation cache may hold; past it, the least recently used entries "
        "are removed (None: no bound)")),
}


class Config:
    """The settings of relax_mlir: `relax_mlir.config.update(name, value)` (as
    `jax.config.update`) or `relax_mlir.config.<name> = value`.

    - `cache_size` (default 64), `eager_cache_size` (default 128): in-memory
      bounds, see `relax_mlir.jit`. Each compiled signature holds its code, about
      3.5 MB; a dropped one's memory is released. `None` keeps every signature.
      A smaller value applies at the next compile; `relax_mlir.clear_caches()`
      drops everything now.
    - `enable_x64` (default False, or $RELAX_MLIR_ENABLE_X64=1): as
      `jax_enable_x64`. Off, the traced functions (`jit`, `grad`, `vmap`, ...,
      and eager `relax_mlir.numpy` calls) take float64 arguments as float32 and
      make float64 constants and `astype(float64)` float32, so results are
      float32. Integers keep their width (int64 stays int64: it is numpy's
      default and the index type of the relax ops). The IR-level API
      (`relax_mlir.compile`) is not affected.
    - `log_compiles` (default False): log each trace (with its signature and
      why: first call, a new signature, a call inside another traced
      function), each compilation and each compilation-cache hit.
    - `enable_compilation_cache` (default True), `compilation_cache_dir`
      (default None: `$RELAX_MLIR_CACHE_DIR`, else `$XDG_CACHE_HOME/relax_mlir`,
      else `~/.cache/relax_mlir`), `compilation_cache_max_size` (default 1 GiB):
      the persistent compilation cache (docs/compile-cache.md)."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {n: s.default for n, s in _SETTINGS.items()})
        # As JAX_ENABLE_X64.
        if os.environ.get("RELAX_MLIR_ENABLE_X64", "").lower() in ("1", "true", "yes", "on"):
            self._values["enable_x64"] = True

    def update(self, name: str, value: Any) -> None:
        """Sets setting `name` (see the class)."""
        setting = _SETTINGS.get(name)
        if setting is None:
            raise AttributeError(f"relax_mlir.config has no setting {name!r}; the settings are "
                                 f"{', '.join(sorted(_SETTINGS))}")
        self._values[name] = setting.check(name, value)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"relax_mlir.config has no setting {name!r}; the settings "
                                 f"are {', '.join(sorted(_SETTINGS))}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self.update(name, value)

    def __repr__(self) -> str:
        return f"relax_mlir.config({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"

    def _defaults_repr(self) -> str:
        """The repr of the settings at their defaults (the API reference's)."""
        return f"relax_mlir.config({', '.join(f'{k}={s.default!r}' for k, s in _SETTINGS.items())})"


config = Config()


def log_compile(message: str) -> None:
    """`message` to the relax_mlir logger when `config.log_compiles` is on."""
    if config.log_compiles:
        logger.warning("relax_mlir: %s", message)

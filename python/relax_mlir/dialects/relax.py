"""Python bindings of the relax dialect (generated op classes)."""

from ._relax_ops_gen import *  # noqa: F401,F403

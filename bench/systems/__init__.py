"""One module per benchmarked system; each has `version() -> str` and
`prepare(workload, arrays, threads) -> workloads.Prepared`.

They are imported lazily by `bench/run_one.py`, after the thread settings
(environment and CPU affinity) are in place.
"""

SYSTEMS = ("relax", "jax", "numpy", "torch")

"""Fitting xdist's workers to the CPUs that are idle."""

from __future__ import annotations

import pytest
from mrv2_conformance.plugin import startup
from mrv2_conformance.plugin.session import run


def fit_to_idle_cpus(config: pytest.Config) -> None:
    """-n N on a machine with fewer idle CPUs: each xdist worker pays the whole
    start-up (about 2 s), and workers that share a CPU with another job made a
    parallel run slower than a serial one. Fewer workers, or none, instead."""
    requested = getattr(config.option, "numprocesses", None)
    if not isinstance(requested, int) or requested < 2 or config.getoption("--exact-workers"):
        return
    idle = startup.idle_cpus()
    if idle is None:
        return
    workers = min(requested, int(idle + 0.25))  # a CPU three-quarters idle counts
    if workers >= requested:
        return
    run(config).workers_note = (
        f"-n {requested} -> {workers if workers >= 2 else 'serial'}: {idle:.1f} CPUs idle "
        f"(--exact-workers keeps {requested})")
    if workers >= 2:
        config.option.numprocesses = workers
        config.option.tx = ["popen"] * workers
    else:
        config.option.numprocesses = 0
        config.option.dist = "no"
        config.option.tx = []

"""``-n auto`` fitted to the CPUs that are idle; ``-n N`` means N workers, as in pytest."""

from __future__ import annotations

import pytest
from mrv2_conformance.plugin import startup
from mrv2_conformance.plugin.session import run


def fit_to_idle_cpus(config: pytest.Config) -> None:
    """``-n auto`` on a machine with fewer idle CPUs than it has: each xdist worker
    pays the whole start-up (about 2 s), and workers that share a CPU with another job
    made a parallel run slower than a serial one. Fewer workers, or none, instead; the
    header says so. Runs before xdist turns "auto" into a number."""
    requested = getattr(config.option, "numprocesses", None)
    if (
        requested not in ("auto", "logical")
        or not config.pluginmanager.has_plugin("xdist")
        or config.getoption("usepdb", False)
    ):
        return
    cpus = int(config.hook.pytest_xdist_auto_num_workers(config=config))
    idle = startup.idle_cpus()
    if idle is None or cpus < 2:
        return
    workers = min(cpus, int(idle + 0.25))  # a CPU three-quarters idle counts
    if workers < 2:
        workers = 0
    run(config).workers_note = (
        f"-n {requested} -> {workers or 'serial'}: {idle:.1f} of {cpus} CPUs idle"
        + (f" (-n {cpus} runs {cpus})" if workers < cpus else "")
    )
    config.option.numprocesses = workers  # xdist sets dist and tx from it

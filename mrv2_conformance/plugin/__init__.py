"""The suite's pytest plugin: its options, and the wiring of a run of the suite.

Registered through the ``pytest11`` entry point of the installed package and named by
the clone's ``conftest.py``, so the installed suite and the clone behave the same. In a
pytest run that is not the suite's (a backend's own tests, in an environment where the
suite is installed) it adds its options and nothing else: no Hypothesis profile, no
hook module, no import of torch, Hypothesis or the suite.

A run of the suite registers its parts as plugins, each one job:
``targets`` (the target, devices, timeouts, the tamper check), ``deviations`` (xfails
files applied), ``header`` (the header and the report's meta), ``reporter`` (summary,
JSON report, reproduction commands).
Its state lives on the config (``session``), and up-front checks of the command line
(``startup``, ``workers``, ``profiles``) end a bad run in one line before any test.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from mrv2_conformance.contract import FAMILIES
from mrv2_conformance.plugin import batches
from mrv2_conformance.plugin.session import (
    RUN_KEY,
    Run,
    active,
    in_suite,
    is_xdist_controller,
    run,
)
from mrv2_conformance.plugin.target import DEFAULT_TARGET, TARGET_ENV_VAR

# Per target call. The slowest call of a real target seen so far: 0.77 s (vllm-ascend's
# partition_batch on vLLM 0.27.1, upstream's kernels in Triton's interpreter;
# docs/usage.md, "Hangs"): a call that takes 60 s has hung.
DEFAULT_TARGET_TIMEOUT_S = 60.0
DEVICE_ENV_VAR = "MRV2_CONFORMANCE_DEVICE"  # also read by plugin/devices.py


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mrv2-conformance")
    group.addoption(
        "--target",
        default=None,
        help="module implementing the target interface (default: "
        f"${TARGET_ENV_VAR} or {DEFAULT_TARGET}, the reference)",
    )
    group.addoption(
        "--xfails",
        default=None,
        type=Path,
        action="append",
        help="known non-conformance of the target: test id prefixes, patterns "
        "and reasons (default: xfails/<target>.txt when it exists); "
        "may be given more than once",
    )
    group.addoption(
        "--strict-xfails",
        action="store_true",
        help="an xfails entry whose test passes fails the run (XPASS strict)",
    )
    group.addoption(
        "--conformance-report",
        default=None,
        type=Path,
        metavar="JSON",
        help="write the JSON conformance report here; render it with "
        "python -m mrv2_conformance.plugin.report JSON",
    )
    group.addoption(
        "--save-failures",
        default=None,
        metavar="DIR|URL",
        help="store every falsifying example in this Hypothesis example database, a "
        "directory or a shared Redis server (redis://host:port/db); not derandomized",
    )
    group.addoption(
        "--replay",
        default=None,
        metavar="DIR|URL",
        help="run only the examples stored in this database (a campaign's)",
    )
    group.addoption(
        "--reproduce",
        default=None,
        metavar="VERSION:BLOB",
        help="replay one recorded example (the failure report prints the "
        "command); select the one property it belongs to",
    )
    group.addoption(
        "--device-type",
        "--device",
        default=None,
        help=f"accelerator tested besides cpu: cuda, npu, cuda:1 ... (default ${DEVICE_ENV_VAR}, "
        "else cuda if visible, else the simulated simdev); named, it must be visible",
    )
    batches.add_option(group)
    group.addoption(
        "--target-timeout",
        default=DEFAULT_TARGET_TIMEOUT_S,
        type=float,
        metavar="SECONDS",
        help="fail a property whose target call does not return within this many "
        "seconds, and go on; later calls of that function fail at once "
        f"(default {DEFAULT_TARGET_TIMEOUT_S:g}; 0 disables)",
    )


def _suite_requested(config: pytest.Config) -> bool:
    """Whether the run collects from the suite (its folders, or its package by
    --pyargs), or names a target: else the plugin stays out of the way."""
    if config.getoption("--target"):
        return True
    for arg in config.args:
        name = str(arg).split("::")[0]
        if name.startswith("mrv2_conformance") or in_suite(
            Path(config.invocation_params.dir, name)
        ):
            return True
    return False


def _start(config: pytest.Config) -> bool:
    """This run's state on the config (once per process); whether the run is the suite's."""
    if RUN_KEY not in config.stash:
        config.stash[RUN_KEY] = Run(active=_suite_requested(config))
        if active(config):
            from mrv2_conformance.plugin import profiles

            profiles.register()
            # A target module in the directory the run starts from imports, however
            # the suite is started (mrv2-conformance, pytest --pyargs, python -m pytest).
            here = str(config.invocation_params.dir)
            if here not in sys.path:
                sys.path.insert(0, here)
    return active(config)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Check what can be known before collection (pytest prints a UsageError as one
    ``ERROR:`` line and exits 4). Runs before Hypothesis' plugin loads
    --hypothesis-profile, so the suite's profiles exist by then."""
    if not _start(config):
        return
    from mrv2_conformance.plugin import profiles, reproduce, startup, workers
    from mrv2_conformance.plugin.devices import check_devices

    profile = profiles.choice(config)
    uses_database = any(config.getoption(o) for o in ("--save-failures", "--replay", "--reproduce"))
    if (
        config.getoption("hypothesis_seed", None) is None
        and not uses_database
        and not profiles.derandomized(profile[0])
    ):
        # A seed of our own choosing (Hypothesis' --hypothesis-seed), so that the
        # header, the report and the rerun command name it; xdist hands the options to
        # its workers. Only runs that work from an example database keep Hypothesis'
        # own per-property seeds, since a fixed seed turns the database off.
        config.option.hypothesis_seed = random.randrange(2**32)
    startup.check_report_path(config.getoption("--conformance-report"))
    startup.check_example_databases(
        config.getoption("--save-failures"), config.getoption("--replay")
    )
    if config.getoption("--reproduce"):
        reproduce.parse_blob(config.getoption("--reproduce"))
    workers.fit_to_idle_cpus(config)
    check_devices(config, [*FAMILIES, "negative_controls"])


@pytest.hookimpl(trylast=True)  # after Hypothesis' plugin loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    for name, doc in FAMILIES.items():
        config.addinivalue_line("markers", f"{name}: contract family - {doc}")
    config.addinivalue_line("markers", "gpu: runs on an accelerator device")
    config.addinivalue_line(
        "markers",
        "needs(capability): a property that a target declaring it lacks the capability "
        "(LACKS, contract.CAPABILITIES) reports as not applicable",
    )
    config.addinivalue_line(
        "markers",
        "negative_controls: runs the suite against every "
        "mutant (minutes); deselect with -m 'not negative_controls'",
    )
    if not _start(config):  # an xdist worker starts here: the controller checked
        return
    batches.configure(config)
    from hypothesis import settings
    from mrv2_conformance.plugin import (
        campaign,
        deviations,
        header,
        offdevice,
        profiles,
        reporter,
        startup,
        targets,
        timeouts,
    )
    from mrv2_conformance.plugin.target import target_name

    if not config.getoption("hypothesis_profile", None):
        settings.load_profile(profiles.choice(config)[0])
    state = run(config)
    state.target_name = target_name(config.getoption("--target"))
    timeouts.calls_dir(config)
    pm = config.pluginmanager
    pm.register(targets, "mrv2-targets")
    pm.register(header, "mrv2-header")
    pm.register(reporter, "mrv2-reporter")
    pm.register(reporter.Records(config), "mrv2-records")
    pm.register(offdevice, "mrv2-offdevice")
    if is_xdist_controller(config):
        # The controller runs no test, but imports the target as a serial run does:
        # a target that fails to import is the same one line (exit 4), and the header
        # names what the target claims. (Its workers start about 1 s later for it.)
        startup.check_target_exists(state.target_name)
        targets.target(config)
    else:
        targets.load_for_tests(config)
    state.xfails = deviations.load(config)
    pm.register(deviations, "mrv2-deviations")
    if campaign.active():  # HypoFuzz calls the properties (plugin/campaign.py)
        pm.register(campaign, "mrv2-campaign")
    profiles.apply_example_database(config)


_USAGE_ERROR_PREFIX = "pytest.UsageError: "  # how a worker's traceback ends


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # an xdist hook
def pytest_testnodedown(node: Any, error: object | None) -> None:
    """An xdist worker that stopped on one of the suite's usage errors (a target that
    fails to import): that one line and exit 4, as in a serial run, not the worker's
    traceback."""
    if error is None or not active(node.config):
        return
    lines = [line for line in str(error).splitlines() if line.startswith(_USAGE_ERROR_PREFIX)]
    if lines:
        pytest.exit(
            f"ERROR: {lines[-1].removeprefix(_USAGE_ERROR_PREFIX)}",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )

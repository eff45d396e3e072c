"""The target and the devices: loading the target where tests run, the ``target``
and ``known_deviations`` fixtures, device-generic tests (``cpu`` always, each visible
accelerator under ``gpu``), and the check that a target left the suite's code alone.
Registered as a plugin only in runs of the suite."""

from __future__ import annotations

from collections.abc import Generator

import pytest
from mrv2_conformance.conformance.target import Target
from mrv2_conformance.contract import FAMILIES, NO_DEVICE, not_applicable
from mrv2_conformance.plugin import reproduce, timeouts
from mrv2_conformance.plugin.devices import (
    HOST_ONLY,
    SIMULATED,
    accelerator_devices,
    device_choice,
    pinned_device,
    unavailable_reason,
)
from mrv2_conformance.plugin.session import ITEM_XFAILS_KEY, hypothesis_handle, in_suite, run
from mrv2_conformance.plugin.target import TargetImportError, load_target
from mrv2_conformance.plugin.xfails import Entry

PROPERTY_TIMEOUT_S = 600.0


def load_for_tests(config: pytest.Config) -> None:
    """Where tests run (a serial run, an xdist worker): torch settings, the
    fingerprinted suite, and the target."""
    import torch
    from mrv2_conformance.conformance import reference

    # The suite's tensors are a few dozen elements: intra-op threads buy nothing and,
    # with xdist workers or another job on the machine, oversubscribe the CPUs.
    torch.set_num_threads(1)
    # The suite's own modules and a private copy of the reference are loaded, and
    # fingerprinted, before the target can touch them (conformance/reference.py).
    reference.import_suite_modules()
    run(config).fingerprint = reference.Fingerprint()
    target(config)


def target(config: pytest.Config) -> Target:
    """The loaded target (loaded on first use on an xdist controller)."""
    state = run(config)
    if state.target is None:
        try:
            # Its import gets ten call deadlines (600 s by default; 0: no deadline).
            import_timeout = 10 * config.getoption("--target-timeout")
            state.target = load_target(state.target_name, import_timeout)
        except TargetImportError as exc:
            raise pytest.UsageError(str(exc)) from None
    return state.target


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "device" not in metafunc.fixturenames or not in_suite(metafunc.definition.path):
        return
    device_type = device_choice(metafunc.config)[0]
    kind = device_type.partition(":")[0]
    params = [pytest.param("cpu", id="cpu")]
    if kind == HOST_ONLY:
        metafunc.parametrize("device", params)
        return
    found = accelerator_devices(device_type)
    worker = getattr(metafunc.config, "workerinput", {}).get("workerid")
    if found and (worker or kind == SIMULATED):
        # One logical accelerator param (every xdist worker collects the same ids),
        # bound to this worker's own device, so `-n <num_gpus>` spreads the work; the
        # simulated device is one param serially too, on an index other than 0.
        params.append(
            pytest.param(pinned_device(found, worker or "gw0"), id=kind, marks=pytest.mark.gpu)
        )
    elif found:
        params += [pytest.param(d, id=d, marks=pytest.mark.gpu) for d in found]
    else:
        params.append(
            pytest.param(
                device_type,
                id=kind,
                marks=[
                    pytest.mark.gpu,
                    pytest.mark.skip(reason=f"{NO_DEVICE}: {unavailable_reason(device_type)}"),
                ],
            )
        )
    metafunc.parametrize("device", params)


def is_property(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(f) is not None for f in FAMILIES)


@pytest.hookimpl(trylast=True)  # after -m / -k deselection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--reproduce applied to the selected property; the per-call deadline
    (conformance/deadline.py) and a timer on every property (without pytest-timeout,
    -p no:timeout, only the deadline)."""
    blob = config.getoption("--reproduce")
    if blob:
        reproduce.apply(items, blob)
    per_call = config.getoption("--target-timeout")
    from mrv2_conformance.conformance import deadline  # torch: not at plugin import

    deadline.configure(per_call)
    # pytest-timeout's timer: a backstop per property, for a hang that the per-call
    # deadline cannot end (one in C code that never returns to Python).
    timeout = (
        max(PROPERTY_TIMEOUT_S, 10 * per_call)
        if per_call and config.pluginmanager.has_plugin("timeout")
        else 0
    )
    for item in items:
        if timeout and is_property(item) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(timeout, method="signal"))
            timeouts.guard_timeouts(item, run(config).target_name, timeout)


def _examples_keyed_by_node(item: pytest.Item) -> None:
    """Store every property's examples under its node id, as HypoFuzz does (Hypothesis
    itself adds the id only to a test parametrized by a mark, not to the device-generic
    ones): a campaign's finds then replay in a plain run of the same property. Set as
    each item runs: the items of one function share its Hypothesis test."""
    handle = hypothesis_handle(item)
    if handle is not None:
        handle.inner_test._hypothesis_internal_add_digest = item.nodeid.encode()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A property that needs a capability the target declares it lacks is not applicable:
    reported at setup, before Hypothesis runs anything (no example block under it)."""
    if is_property(item):
        from mrv2_conformance.conformance import deadline

        deadline.adopt_dead_calls()  # a call that killed another worker: fail it at once
    marker = item.get_closest_marker("needs")
    if marker is None or not is_property(item):
        return
    tgt = target(item.config)
    if tgt.unavailable:
        return
    for cap in marker.args:
        if cap in tgt.lacks:
            pytest.skip(not_applicable(cap, tgt.lacks[cap]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """A failed property's reproduction commands replace Hypothesis' hint
    (plugin/reproduce.py). After every test of the target: the suite's own code must
    be as it was before the target was imported (conformance/reference.py)."""
    if is_property(item):
        _examples_keyed_by_node(item)
    try:
        return (yield)
    except BaseException as exc:
        lost = _database_outage(item.config, exc)
        if lost:  # every later property would fail the same way: one line, and stop
            item.session.shouldstop = lost
            raise pytest.fail.Exception(lost, pytrace=False) from None
        if is_property(item):
            reproduce.on_failure(item, exc, run(item.config).target_name)
        raise
    finally:  # also when the test failed: the tampering is the news
        fingerprint = run(item.config).fingerprint
        changes = (
            fingerprint.changes()
            if fingerprint is not None and "target" in getattr(item, "fixturenames", ())
            else []
        )
        if changes:
            pytest.fail(
                f"target {run(item.config).target_name} changed the suite's own "
                f"code (the oracle it is checked against), so no result of this run "
                f"can be trusted: {'; '.join(changes[:6])}",
                pytrace=False,
            )


def _database_outage(config: pytest.Config, exc: BaseException) -> str:
    """The line that ends a run whose shared example database went away mid-run."""
    location = config.getoption("--save-failures") or config.getoption("--replay")
    from mrv2_conformance import exampledb

    if not location or not exampledb.is_url(location):
        return ""
    why = exampledb.outage(exc)
    return (
        f"the example database {exampledb.redact(location)} stopped answering ({why}); "
        f"the run stops here"
        if why
        else ""
    )


@pytest.fixture(scope="session", name="target")
def target_fixture(pytestconfig: pytest.Config) -> Target:
    tgt = target(pytestconfig)
    if tgt.unavailable:
        pytest.skip(f"target {tgt.name} is unavailable: {tgt.unavailable}")
    return tgt


@pytest.fixture
def known_deviations(request: pytest.FixtureRequest) -> list[Entry]:
    """The xfails entries of this test: a stateful run sets aside the failure lines
    they cover and goes on (conformance/engine_loop.py), instead of ending there."""
    return list(request.node.stash.get(ITEM_XFAILS_KEY, []))

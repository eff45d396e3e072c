"""Suite-wide configuration: target selection, devices, Hypothesis profiles,
markers, the report header and the per-family summary."""

from __future__ import annotations

import os
import platform
import time
import warnings
from pathlib import Path

import hypothesis
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance import reference, xfails
from conformance import report as conformance_report
from conformance.assertions import failure_lines
from conformance.families import FAMILIES
from conformance.target import Target, TargetImportError, load_target, target_name

DEVICE_ENV_VAR = "MRV2_CONFORMANCE_DEVICE"

# deadline=None everywhere: the first call of a torch op is slow, and speed is
# measured in bench/, never in tests.
settings.register_profile("dev", deadline=None)
settings.register_profile(
    "ci", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", deadline=None, max_examples=1000)
# The negative controls' budget: the ci profile without shrinking (a kill needs one
# falsifying example, not the smallest one).
settings.register_profile("kill", parent=settings.get_profile("ci"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
# mutmut runs the covering properties once per mutant of impl/: the same budget.
settings.register_profile("mutmut", parent=settings.get_profile("kill"))
# Real vLLM as the target (tox -e vllm-*): upstream's Triton kernels run in Triton's
# interpreter, so shrinking an expected (xfail) failure takes minutes. The same
# budget without shrinking; failures show the first falsifying example.
settings.register_profile("vllm", parent=settings.get_profile("kill"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

TARGET_KEY = pytest.StashKey[Target]()
FINGERPRINT_KEY = pytest.StashKey[reference.Fingerprint]()
XFAILS_KEY = pytest.StashKey[tuple[Path, list[xfails.Entry]] | None]()
ITEM_XFAILS_KEY = pytest.StashKey[list[xfails.Entry]]()


def current_profile_name() -> str:
    # settings.get_current_profile_name() is recent; older Hypothesis keeps it private.
    getter = getattr(settings, "get_current_profile_name", None)
    return getter() if getter else str(getattr(settings, "_current_profile", "?"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mrv2-conformance")
    group.addoption("--target", default=None,
                    help="module implementing the target interface "
                         "(default: $MRV2_CONFORMANCE_TARGET or 'impl', the reference)")
    group.addoption("--xfails", default=None, type=Path,
                    help="known non-conformance of the target: test id prefixes with reasons "
                         "(default: xfails/<target>.txt when it exists)")
    group.addoption("--strict-xfails", action="store_true",
                    help="an xfails entry whose test passes fails the run (XPASS strict)")
    group.addoption("--conformance-report", default=None, type=Path, metavar="JSON",
                    help="write the JSON conformance report here; render it with "
                         "python -m conformance.report JSON")
    group.addoption("--save-failures", default=None, type=Path, metavar="DIR",
                    help="store every falsifying example in this Hypothesis example "
                         "database (the run is not derandomized; fix it with --hypothesis-seed)")
    group.addoption("--replay", default=None, type=Path, metavar="DIR",
                    help="run only the examples stored by --save-failures DIR, no search")
    group.addoption("--device-type", "--device", default=None,
                    help="accelerator device type tested besides cpu, e.g. cuda or xpu "
                         f"(default: ${DEVICE_ENV_VAR} or 'cuda')")


@pytest.hookimpl(trylast=True)  # after Hypothesis' plugin loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    for name, doc in FAMILIES.items():
        config.addinivalue_line("markers", f"{name}: contract family - {doc}")
    config.addinivalue_line("markers", "gpu: runs on an accelerator device")
    config.addinivalue_line("markers", "negative_controls: runs the suite against every "
                            "mutant (minutes); deselect with -m 'not negative_controls'")
    # The suite's own modules and a private copy of the reference are loaded, and
    # fingerprinted, before the target can touch them (conformance/reference.py).
    reference.import_suite_modules()
    config.stash[FINGERPRINT_KEY] = reference.Fingerprint()
    try:
        config.stash[TARGET_KEY] = load_target(target_name(config.getoption("--target")))
    except TargetImportError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[XFAILS_KEY] = _load_xfails(config)
    _apply_example_database(config)


def _load_xfails(config: pytest.Config) -> tuple[Path, list[xfails.Entry]] | None:
    path = config.getoption("--xfails")
    if path is None:
        path = xfails.default_path(config.rootpath, config.stash[TARGET_KEY].name)
        if not path.exists():
            return None
    try:
        return path, xfails.parse(path)
    except (OSError, UnicodeDecodeError, xfails.XfailsFileError) as exc:
        raise pytest.UsageError(f"xfails file: {exc}") from None


def _apply_example_database(config: pytest.Config) -> None:
    save, replay = config.getoption("--save-failures"), config.getoption("--replay")
    if save and replay:
        raise pytest.UsageError("--save-failures and --replay are exclusive")
    if not (save or replay):
        return
    overrides: dict = {"database": DirectoryBasedExampleDatabase(str(save or replay)),
                       "derandomize": False}
    if replay:
        if not replay.is_dir():
            raise pytest.UsageError(f"--replay {replay}: no such example database")
        overrides["phases"] = [Phase.explicit, Phase.reuse]
    settings.register_profile("mrv2-examples", parent=settings(), **overrides)
    settings.load_profile("mrv2-examples")


def _device_type(config: pytest.Config) -> str:
    return config.getoption("--device-type") or os.environ.get(DEVICE_ENV_VAR) or "cuda"


def accelerator_devices(device_type: str) -> list[str]:
    backend = getattr(torch, device_type, None)
    if backend is None or not hasattr(backend, "is_available") or not backend.is_available():
        return []
    return [f"{device_type}:{i}" for i in range(backend.device_count())]


def pinned_device(devices: list[str], worker_id: str) -> str:
    """xdist worker gwN -> devices[N % len(devices)]."""
    return devices[int(worker_id.removeprefix("gw")) % len(devices)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Device-generic tests: ``cpu`` always, each visible accelerator under ``gpu``."""
    if "device" not in metafunc.fixturenames:
        return
    device_type = _device_type(metafunc.config)
    params = [pytest.param("cpu", id="cpu")]
    found = accelerator_devices(device_type)
    worker = getattr(metafunc.config, "workerinput", {}).get("workerid")
    if worker and found:
        # Under xdist every worker must collect the same ids: one logical accelerator
        # param, bound to this worker's own device, so `-n <num_gpus>` spreads the work.
        params.append(pytest.param(pinned_device(found, worker), id=device_type,
                                   marks=pytest.mark.gpu))
    else:
        params += [pytest.param(d, id=d, marks=pytest.mark.gpu) for d in found]
    if not found:
        params.append(pytest.param(device_type, id=device_type, marks=[
            pytest.mark.gpu,
            pytest.mark.skip(reason=f"no {device_type} device visible to torch "
                                    f"{torch.__version__}")]))
    metafunc.parametrize("device", params)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    loaded = config.stash[XFAILS_KEY]
    if loaded is None:
        return
    path, entries = loaded
    used = set()
    for item in items:
        found = xfails.matching(entries, item.nodeid)
        if found:
            used.update(found)
            item.stash[ITEM_XFAILS_KEY] = found
    for entry in entries:
        if entry not in used:
            warnings.warn(pytest.PytestWarning(
                f"stale xfails entry {path}:{entry.line}: {entry.prefix!r} matches no collected test"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After every test of the target: the suite's own code must be as it was before
    the target was imported (conformance/reference.py)."""
    try:
        return (yield)
    finally:  # also when the test failed: the tampering is the news
        changes = item.config.stash[FINGERPRINT_KEY].changes() \
            if "target" in item.fixturenames else []
        if changes:
            pytest.fail(f"target {item.config.stash[TARGET_KEY].name} changed the suite's own "
                        f"code (the oracle it is checked against), so no result of this run "
                        f"can be trusted: {'; '.join(changes[:6])}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test with xfails entries is an expected failure only when each of its failure
    lines matches an entry's pattern (conformance/xfails.py)."""
    rep = yield
    entries = item.stash.get(ITEM_XFAILS_KEY, None)
    if not entries or rep.when != "call":
        return rep
    path = item.config.stash[XFAILS_KEY][0]
    names = ", ".join(f"{path.name}:{e.line}" for e in entries)
    if rep.failed and call.excinfo is not None:
        used, uncovered = xfails.cover(entries, failure_lines(call.excinfo.value))
        if not uncovered:
            rep.outcome = "skipped"
            rep.wasxfail = "; ".join(f"{e.reason} ({path.name}:{e.line})" for e in used)
            rep.user_properties.append(("xfails_used", [e.line for e in used]))
        else:
            rep.longrepr = (
                f"NOT A KNOWN DEVIATION: the xfails entries for this test ({names}) match "
                f"none of these failure lines:\n"
                + "\n".join(f"  {line}" for line in uncovered) + f"\n\n{rep.longrepr}")
    elif rep.passed:
        if item.config.getoption("--strict-xfails"):
            rep.outcome = "failed"
            rep.longrepr = f"[XPASS(strict)] the known deviation did not show ({names})"
        else:
            rep.wasxfail = f"known deviation did not show ({names})"
    return rep


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    tgt = pytestconfig.stash[TARGET_KEY]
    if tgt.unavailable:
        pytest.skip(f"target {tgt.name} is unavailable: {tgt.unavailable}")
    return tgt


def _run_meta(config: pytest.Config) -> dict[str, str]:
    tgt = config.stash[TARGET_KEY]
    seed = config.getoption("hypothesis_seed", None)
    return {
        "target": tgt.name,
        # A target may describe itself (the vLLM adapter names the vLLM release).
        "target_description": (f"unavailable: {tgt.unavailable}" if tgt.unavailable else
                               getattr(tgt.module, "TARGET_DESCRIPTION", "")),
        "versions": f"python {platform.python_version()}, numpy {np.__version__}, "
                    f"torch {torch.__version__}, hypothesis {hypothesis.__version__}",
        "devices": ", ".join(["cpu", *accelerator_devices(_device_type(config))]),
        "profile": current_profile_name(),
        "seed": str(seed) if seed is not None else (
            "derandomized" if settings().derandomize else "random"),
    }


def pytest_report_header(config: pytest.Config) -> list[str]:
    meta = _run_meta(config)
    module = config.stash[TARGET_KEY].module
    where = meta["target_description"] or getattr(module, "__file__", "?")
    return [
        f"mrv2-conformance target: {meta['target']} ({where})",
        f"versions: {meta['versions']}",
        f"devices: {meta['devices']} (accelerator type {_device_type(config)!r})",
        f"hypothesis profile: {meta['profile']}, seed: {meta['seed']}",
    ]


# One record per property run (conformance/report.py), on the controller under xdist:
# the per-family summary and the JSON report are both read from it.
_records: list[dict] = []
_session_start = time.time()


_xfails_used: set[int] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    rec = conformance_report.record(report)
    if rec is not None:
        _records.append(rec)
    for key, lines in report.user_properties:
        if key == "xfails_used":
            _xfails_used.update(lines)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--conformance-report")
    if path is not None and not hasattr(session.config, "workerinput"):
        conformance_report.write(path, _records, _run_meta(session.config))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    kill_matrix = config.rootpath / "reports" / "kill-matrix.txt"
    if kill_matrix.exists() and kill_matrix.stat().st_mtime >= _session_start:
        terminalreporter.section("negative controls: kill matrix (mutant x family)")
        terminalreporter.write(kill_matrix.read_text())
    loaded = config.stash[XFAILS_KEY]
    ran = {r["property"] for r in _records}
    if loaded is not None and ran:
        path, entries = loaded
        unused = [e for e in entries if e.line not in _xfails_used
                  and any(p.startswith(e.prefix) or e.prefix.startswith(p) for p in ran)]
        for e in unused:
            terminalreporter.write_line(
                f"warning: {path}:{e.line} ({e.prefix}) matched no failure in this run: "
                f"stale, or its deviation did not show on these examples", yellow=True)
    if not _records:
        return
    tally = conformance_report.per_family(_records)
    tr = terminalreporter
    tr.section(f"conformance of {config.stash[TARGET_KEY].name} by contract family")
    cols = ("passed", "failed", "skipped", "xfailed")
    tr.write_line(f"{'family':<14}" + "".join(f"{c:>9}" for c in cols) + "  verdict")
    for family, counts in tally.items():
        verdict = conformance_report.verdict_of(counts)
        tr.write_line(f"{family:<14}" + "".join(f"{counts[c]:>9}" for c in cols)
                      + f"  {verdict}")

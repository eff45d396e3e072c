"""The suite's pytest plugin: options, Hypothesis profiles, markers, target selection,
devices, up-front checks of the command line, the report header, the per-family
summary, the JSON report, reproduction commands and target timeouts.

Registered through the ``pytest11`` entry point of the installed package and named by
the clone's ``conftest.py``, so the installed suite and the clone behave the same. In a
pytest run that does not include the suite (a backend's own tests, in an environment
where the suite is installed) it does nothing beyond adding its options: torch and the
suite's modules are imported only when the suite runs.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import importlib.util
import os
import platform
import random
import subprocess
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import InvalidArgument

from mrv2_conformance import suite_root
from mrv2_conformance.conformance import report as conformance_report
from mrv2_conformance.conformance import reproduce, startup, xfails
from mrv2_conformance.conformance.families import FAMILIES
from mrv2_conformance.conformance.target import DEFAULT_TARGET, TARGET_ENV_VAR

if TYPE_CHECKING:
    from mrv2_conformance.conformance.reference import Fingerprint
    from mrv2_conformance.conformance.target import Target

DEVICE_ENV_VAR = "MRV2_CONFORMANCE_DEVICE"
PROFILE_ENV_VAR = "HYPOTHESIS_PROFILE"
DEFAULT_PROFILE = "dev"
DEFAULT_TARGET_TIMEOUT_S = 600.0

# deadline=None everywhere: the first call of a torch op is slow, and speed is
# measured in bench/, never in tests. print_blob everywhere: a failure's reproduction
# command replays Hypothesis' record of the example (conformance/reproduce.py).
settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile(
    "ci", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
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

TARGET_KEY = pytest.StashKey["Target"]()
TARGET_NAME_KEY = pytest.StashKey[str]()
WORKERS_NOTE_KEY = pytest.StashKey[str]()
FINGERPRINT_KEY: pytest.StashKey[Fingerprint] = pytest.StashKey()
XFAILS_KEY = pytest.StashKey[list[xfails.Entry] | None]()
ITEM_XFAILS_KEY = pytest.StashKey[list[xfails.Entry]]()
ACTIVE_KEY = pytest.StashKey[bool]()


def current_profile_name() -> str:
    # settings.get_current_profile_name() is recent; older Hypothesis keeps it private.
    getter = getattr(settings, "get_current_profile_name", None)
    return getter() if getter else str(getattr(settings, "_current_profile", "?"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mrv2-conformance")
    group.addoption("--target", default=None,
                    help="module implementing the target interface (default: "
                         f"${TARGET_ENV_VAR} or {DEFAULT_TARGET}, the reference)")
    group.addoption("--xfails", default=None, type=Path, action="append",
                    help="known non-conformance of the target: test id prefixes, patterns "
                         "and reasons (default: xfails/<target>.txt when it exists); "
                         "may be given more than once")
    group.addoption("--strict-xfails", action="store_true",
                    help="an xfails entry whose test passes fails the run (XPASS strict)")
    group.addoption("--conformance-report", default=None, type=Path, metavar="JSON",
                    help="write the JSON conformance report here; render it with "
                         "python -m mrv2_conformance.conformance.report JSON")
    group.addoption("--save-failures", default=None, type=Path, metavar="DIR",
                    help="store every falsifying example in this Hypothesis example "
                         "database (the run is not derandomized)")
    group.addoption("--replay", default=None, type=Path, metavar="DIR",
                    help="run only the examples stored by --save-failures DIR, no search")
    group.addoption("--reproduce", default=None, metavar="VERSION:BLOB",
                    help="replay one recorded example (the failure report prints the "
                         "command); select the one property it belongs to")
    group.addoption("--device-type", "--device", default=None,
                    help="accelerator device type tested besides cpu, e.g. cuda or xpu "
                         f"(default: ${DEVICE_ENV_VAR} or 'cuda'); named explicitly, it must "
                         "be visible")
    group.addoption("--exact-workers", action="store_true",
                    help="run -n N with N xdist workers even when fewer CPUs are idle "
                         "(by default a busy machine gets fewer workers, or a serial run)")
    group.addoption("--target-timeout", default=DEFAULT_TARGET_TIMEOUT_S, type=float,
                    metavar="SECONDS",
                    help="fail a property whose target call does not return within this "
                         f"many seconds, and go on (pytest-timeout; default "
                         f"{DEFAULT_TARGET_TIMEOUT_S:g}; 0 disables)")


# --- is this run the suite's? -------------------------------------------------------


def _suite_requested(config: pytest.Config) -> bool:
    """Whether the run collects from the suite (its folders, or its package by
    --pyargs), or names a target: else the plugin stays out of the way."""
    if config.getoption("--target"):
        return True
    for arg in config.args:
        name = str(arg).split("::")[0]
        if name.startswith("mrv2_conformance") or \
                _in_suite(Path(config.invocation_params.dir, name)):
            return True
    return False


def _active(config: pytest.Config) -> bool:
    return config.stash.get(ACTIVE_KEY, False)


def _in_suite(path: Path) -> bool:
    """Whether ``path`` is the suite's root or lies under it."""
    resolved, root = Path(path).resolve(), suite_root()
    return resolved == root or root in resolved.parents


# --- up-front checks: one line and exit 4 before any test runs ------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Check what can be known before collection (pytest prints a UsageError as one
    ``ERROR:`` line and exits 4). Runs on the controller, before Hypothesis' plugin
    loads --hypothesis-profile."""
    config.stash[ACTIVE_KEY] = _suite_requested(config)
    if not _active(config):
        return
    profile = _profile_choice(config)
    uses_database = any(config.getoption(o) for o in ("--save-failures", "--replay", "--reproduce"))
    if config.getoption("hypothesis_seed", None) is None and not uses_database \
            and not settings.get_profile(profile[0]).derandomize:
        # A seed of our own choosing (Hypothesis' --hypothesis-seed), so that the
        # header, the report and the rerun command name it; xdist hands the options to
        # its workers. Only runs that work from an example database keep Hypothesis'
        # own per-property seeds, since a fixed seed turns the database off.
        config.option.hypothesis_seed = random.randrange(2**32)
    startup.check_report_path(config.getoption("--conformance-report"))
    startup.check_example_databases(config.getoption("--save-failures"),
                                    config.getoption("--replay"))
    if config.getoption("--reproduce"):
        reproduce.parse_blob(config.getoption("--reproduce"))
    _fit_workers_to_idle_cpus(config)
    device_type, explicit = _device_choice(config)
    startup.check_devices(device_type, explicit, config.getoption("markexpr", ""),
                          lambda: accelerator_devices(device_type),
                          [*FAMILIES, "negative_controls"])


def _fit_workers_to_idle_cpus(config: pytest.Config) -> None:
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
    config.stash[WORKERS_NOTE_KEY] = (
        f"-n {requested} -> {workers if workers >= 2 else 'serial'}: {idle:.1f} CPUs idle "
        f"(--exact-workers keeps {requested})")
    if workers >= 2:
        config.option.numprocesses = workers
        config.option.tx = ["popen"] * workers
    else:
        config.option.numprocesses = 0
        config.option.dist = "no"
        config.option.tx = []


def _profile_choice(config: pytest.Config) -> tuple[str, str]:
    """(profile name, where it came from), checked to exist."""
    option = config.getoption("hypothesis_profile", None)
    name, source = ((option, "--hypothesis-profile") if option else
                    (os.environ.get(PROFILE_ENV_VAR), f"${PROFILE_ENV_VAR}"))
    if not name:
        return DEFAULT_PROFILE, "default"
    try:
        settings.get_profile(name)
    except InvalidArgument:
        known = ", ".join(sorted(getattr(settings, "_profiles", {}))) or "?"
        raise pytest.UsageError(
            f"unknown Hypothesis profile {name!r} (from {source}); known profiles: "
            f"{known}") from None
    return name, source


def _device_choice(config: pytest.Config) -> tuple[str, bool]:
    """(accelerator device type, whether the user named it)."""
    named = config.getoption("--device-type") or os.environ.get(DEVICE_ENV_VAR)
    return (named or "cuda"), bool(named)


def accelerator_devices(device_type: str) -> list[str]:
    import torch

    backend = getattr(torch, device_type, None)
    if backend is None or not hasattr(backend, "is_available") or not backend.is_available():
        return []
    return [f"{device_type}:{i}" for i in range(backend.device_count())]


def pinned_device(devices: list[str], worker_id: str) -> str:
    """xdist worker gwN -> devices[N % len(devices)]."""
    return devices[int(worker_id.removeprefix("gw")) % len(devices)]


# --- configure ------------------------------------------------------------------------


@pytest.hookimpl(trylast=True)  # after Hypothesis' plugin loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    for name, doc in FAMILIES.items():
        config.addinivalue_line("markers", f"{name}: contract family - {doc}")
    config.addinivalue_line("markers", "gpu: runs on an accelerator device")
    config.addinivalue_line("markers", "negative_controls: runs the suite against every "
                            "mutant (minutes); deselect with -m 'not negative_controls'")
    if ACTIVE_KEY not in config.stash:  # an xdist worker: the controller checked
        config.stash[ACTIVE_KEY] = _suite_requested(config)
    if not _active(config):
        return
    from mrv2_conformance.conformance.target import target_name

    if not config.getoption("hypothesis_profile", None):
        settings.load_profile(_profile_choice(config)[0])
    config.stash[TARGET_NAME_KEY] = target_name(config.getoption("--target"))
    if _is_xdist_controller(config):
        # The controller runs no test: it checks that the target exists, prints a
        # header without importing it, and imports it (with torch) only for the JSON
        # report at the end. Importing it here kept every worker waiting ~1 s.
        startup.check_target_exists(config.stash[TARGET_NAME_KEY])
    else:
        _load_for_tests(config)
    config.stash[XFAILS_KEY] = _load_xfails(config)
    _apply_example_database(config)


_USAGE_ERROR_PREFIX = "pytest.UsageError: "  # how a worker's traceback ends


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # an xdist hook
def pytest_testnodedown(node: Any, error: object | None) -> None:
    """An xdist worker that stopped on one of the suite's usage errors (a target that
    fails to import): that one line and exit 4, as in a serial run, not the worker's
    traceback."""
    if error is None or not _active(node.config):
        return
    lines = [line for line in str(error).splitlines() if line.startswith(_USAGE_ERROR_PREFIX)]
    if lines:
        pytest.exit(f"ERROR: {lines[-1].removeprefix(_USAGE_ERROR_PREFIX)}",
                    returncode=pytest.ExitCode.USAGE_ERROR)


def _is_xdist_controller(config: pytest.Config) -> bool:
    return (not hasattr(config, "workerinput") and config.getoption("dist", "no") != "no"
            and bool(config.getoption("tx", None)))


def _load_for_tests(config: pytest.Config) -> None:
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
    config.stash[FINGERPRINT_KEY] = reference.Fingerprint()
    _target(config)


def _target(config: pytest.Config) -> Target:
    """The loaded target (loaded on first use on an xdist controller)."""
    from mrv2_conformance.conformance.target import TargetImportError, load_target

    if TARGET_KEY not in config.stash:
        try:
            config.stash[TARGET_KEY] = load_target(config.stash[TARGET_NAME_KEY])
        except TargetImportError as exc:
            raise pytest.UsageError(str(exc)) from None
    return config.stash[TARGET_KEY]


def _load_xfails(config: pytest.Config) -> list[xfails.Entry] | None:
    paths = config.getoption("--xfails")
    if paths is None:
        path = xfails.default_path(suite_root(), config.stash[TARGET_NAME_KEY])
        if not path.exists():
            return None
        paths = [path]
    try:
        return [e for path in paths for e in xfails.parse(path)]
    except xfails.XfailsFileError as exc:
        raise pytest.UsageError(f"xfails file: {exc}") from None


def _apply_example_database(config: pytest.Config) -> None:
    from hypothesis.database import DirectoryBasedExampleDatabase

    save, replay = config.getoption("--save-failures"), config.getoption("--replay")
    if not (save or replay):
        return
    overrides: dict = {"database": DirectoryBasedExampleDatabase(str(save or replay)),
                       "derandomize": False}
    if replay:
        overrides["phases"] = [Phase.explicit, Phase.reuse]
    settings.register_profile("mrv2-examples", parent=settings(), **overrides)
    settings.load_profile("mrv2-examples")


# --- collection -----------------------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Device-generic tests: ``cpu`` always, each visible accelerator under ``gpu``."""
    if "device" not in metafunc.fixturenames or not _in_suite(metafunc.definition.path):
        return
    import torch

    device_type = _device_choice(metafunc.config)[0]
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


@pytest.hookimpl(trylast=True)  # after -m / -k deselection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _active(config):
        return
    blob = config.getoption("--reproduce")
    if blob:
        reproduce.apply(items, blob)
    # Without pytest-timeout (-p no:timeout) there is no timer to set.
    timeout = config.getoption("--target-timeout") \
        if config.pluginmanager.has_plugin("timeout") else 0
    for item in items:
        if timeout and _is_property(item) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(timeout, method="signal"))
            reproduce.guard_timeouts(item, config.stash[TARGET_NAME_KEY], timeout)
    entries = config.stash[XFAILS_KEY]
    if entries is None:
        return
    used = set()
    for item in items:
        found = xfails.matching(entries, item.nodeid)
        if found:
            used.update(found)
            item.stash[ITEM_XFAILS_KEY] = found
    for entry in entries:
        if entry not in used:
            warnings.warn(pytest.PytestWarning(
                f"stale xfails entry {entry.source}:{entry.line}: {entry.prefix!r} matches no "
                f"collected test"), stacklevel=1)


def _is_property(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(f) is not None for f in FAMILIES)


# --- running --------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After every test of the target: the suite's own code must be as it was before
    the target was imported (conformance/reference.py)."""
    try:
        return (yield)
    finally:  # also when the test failed: the tampering is the news
        changes = item.config.stash[FINGERPRINT_KEY].changes() \
            if _active(item.config) and "target" in getattr(item, "fixturenames", ()) else []
        if changes:
            pytest.fail(f"target {item.config.stash[TARGET_NAME_KEY]} changed the suite's own "
                        f"code (the oracle it is checked against), so no result of this run "
                        f"can be trusted: {'; '.join(changes[:6])}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A failed property gets its reproduction commands; a test with xfails entries is
    an expected failure only when each of its failure lines matches an entry's pattern
    (conformance/xfails.py)."""
    rep = yield
    if not _active(item.config) or rep.when != "call":
        return rep
    loaded = item.config.stash.get(TARGET_KEY, None)
    if loaded is not None and loaded.module is not None:  # the summary names the revision
        rep.user_properties.append(("contract_revision", loaded.revision))
        # and what the target says it replaced (stand-ins), also from xdist workers
        disclosures = getattr(loaded.module, "DISCLOSURES", ())
        if disclosures:
            rep.user_properties.append(("target_disclosures", list(disclosures)))
    if rep.failed and call.excinfo is not None and _is_property(item):
        reproduce.attach(rep, item, call.excinfo.value, item.config.stash[TARGET_NAME_KEY])
    entries = item.stash.get(ITEM_XFAILS_KEY, None)
    if not entries:
        return rep
    from mrv2_conformance.conformance.assertions import failure_lines

    names = ", ".join(e.where for e in entries)
    if rep.failed and call.excinfo is not None:
        used, uncovered = xfails.cover(entries, failure_lines(call.excinfo.value))
        if not uncovered:
            rep.outcome = "skipped"
            rep.wasxfail = "; ".join(f"{xfails.cite_lines(e.reason)} ({e.where})"
                                     for e in used)
            rep.user_properties.append(("xfails_used", [e.where for e in used]))
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
    tgt = _target(pytestconfig)
    if tgt.unavailable:
        pytest.skip(f"target {tgt.name} is unavailable: {tgt.unavailable}")
    return tgt


@pytest.fixture
def known_deviations(request: pytest.FixtureRequest) -> list[xfails.Entry]:
    """The xfails entries of this test: a stateful run sets aside the failure lines
    they cover and goes on (conformance/engine_loop.py), instead of ending there."""
    return list(request.node.stash.get(ITEM_XFAILS_KEY, []))


# --- the header, the report and the summary -------------------------------------------


def _run_meta(config: pytest.Config, *, light: bool = False) -> dict[str, Any]:
    """What the header and the report say about the run. ``light``: without importing
    torch or the target (an xdist controller's header, printed before its workers get
    their tests: the import would keep them waiting)."""
    seed = config.getoption("hypothesis_seed", None)
    device_type = _device_choice(config)[0]
    if light:
        max_model_len = None
        description, revision, devices = "", "", (
            "cpu; accelerators: those each worker sees, listed in the report")
    else:
        tgt = _target(config)
        # A target may describe itself (the vLLM adapter names the vLLM release).
        description = (f"unavailable: {tgt.unavailable}" if tgt.unavailable else
                       getattr(tgt.module, "TARGET_DESCRIPTION", ""))
        revision = "" if tgt.unavailable else tgt.revision
        max_model_len = None if tgt.unavailable else tgt.max_model_len
        devices = ", ".join(["cpu", *accelerator_devices(device_type)])
    return {
        "target": config.stash[TARGET_NAME_KEY],
        "target_description": description,
        "contract_revision": revision,
        "max_model_len": max_model_len,
        "versions": f"python {platform.python_version()}, numpy {_version('numpy')}, "
                    f"torch {_version('torch')}, hypothesis {hypothesis.__version__}",
        "devices": devices,
        "profile": current_profile_name(),
        "seed": str(seed) if seed is not None else (
            "derandomized" if settings().derandomize else
            "Hypothesis' own per property (an example database is in use)"),
        "rerun": reproduce.rerun_command(config),
    }


def _suite_commit() -> str:
    """The suite's git commit ("+modified" with uncommitted changes), or "" outside a
    clone (an installed wheel)."""
    root = suite_root()
    if not (root / ".git").exists():
        return ""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+modified" if dirty else "")


def _version(dist: str) -> str:
    """An installed distribution's version, read without importing it."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not _active(config):
        return []
    light = _is_xdist_controller(config)
    meta = _run_meta(config, light=light)
    if light:
        spec = importlib.util.find_spec(meta["target"])
        where = spec.origin if spec else "?"
    else:
        where = meta["target_description"] or getattr(_target(config).module, "__file__", "?")
    # Under xdist the controller has not imported the target: the summary lists these.
    disclosed = [] if light else getattr(_target(config).module, "DISCLOSURES", [])
    return [
        f"mrv2-conformance target: {meta['target']} ({where})",
        *([f"contract revision claimed: {meta['contract_revision']!r}"]
          if meta["contract_revision"] else []),
        *([f"prompts up to {meta['max_model_len']:,} tokens (the target's MAX_MODEL_LEN; "
           f"contexts to the int32 limit)"] if meta.get("max_model_len") else []),
        f"versions: {meta['versions']}",
        f"devices: {meta['devices']} (accelerator type {_device_choice(config)[0]!r})",
        f"hypothesis profile: {meta['profile']}, seed: {meta['seed']}",
        *(f"target discloses: {line}" for line in disclosed),
        *([f"workers: {config.stash[WORKERS_NOTE_KEY]}"] if WORKERS_NOTE_KEY in config.stash
          else []),
    ]


# One record per property run (conformance/report.py), on the controller under xdist:
# the per-family summary and the JSON report are both read from it.
_records: list[dict] = []
_session_start = time.time()
_xfails_used: set[str] = set()
_disclosures: list[str] = []  # DISCLOSURES of the target, as a worker reported them


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    rec = conformance_report.record(report)
    if rec is not None:
        _records.append(rec)
    for key, value in report.user_properties:
        lines = cast("list[str]", value)
        if key == "xfails_used":
            _xfails_used.update(lines)
        elif key == "target_disclosures" and not _disclosures:
            _disclosures.extend(lines)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not _active(config) or hasattr(config, "workerinput"):
        return
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    if _records and not interrupted and not conformance_report.tested_anything(_records):
        # Every selected property skipped: nothing was tested, which is not a pass.
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
    path = config.getoption("--conformance-report")
    if path is not None:
        conformance_report.write(path, _records, {
            **_run_meta(config), "interrupted": interrupted, "suite_commit": _suite_commit(),
            "disclosures": list(_disclosures),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _active(config):
        return
    tr = terminalreporter
    kill_matrix = suite_root() / "reports" / "kill-matrix.txt"
    if kill_matrix.exists() and kill_matrix.stat().st_mtime >= _session_start:
        tr.section("negative controls: kill matrix (mutant x family)")
        tr.write(kill_matrix.read_text())
    entries = config.stash[XFAILS_KEY]
    ran = {r["property"] for r in _records}
    if entries is not None and ran:
        unused = [e for e in entries if e.where not in _xfails_used
                  and any(p.startswith(e.prefix) or e.prefix.startswith(p) for p in ran)]
        for e in unused:
            tr.write_line(
                f"warning: {e.source}:{e.line} ({e.prefix}) matched no failure in this run: "
                f"stale, or its deviation did not show on these examples", yellow=True)
    if _disclosures:
        tr.section("what the target replaced or generated (its DISCLOSURES)")
        for line in _disclosures:
            tr.write_line(line)
    if not _records:
        return
    tally = conformance_report.per_family(_records)
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    tr.section(f"conformance of {config.stash[TARGET_NAME_KEY]} by contract family"
               + (" (INTERRUPTED: incomplete)" if interrupted else ""))
    cols = ("passed", "failed", "skipped", "xfailed")
    tr.write_line(f"{'family':<14}" + "".join(f"{c:>9}" for c in cols) + "  verdict")
    for family, counts in tally.items():
        verdict = conformance_report.verdict_of(counts, interrupted=interrupted)
        tr.write_line(f"{family:<14}" + "".join(f"{counts[c]:>9}" for c in cols)
                      + f"  {verdict}")
    if not conformance_report.tested_anything(_records):
        tr.write_line("nothing was tested: every selected property skipped (see -rs); "
                      "the run fails", red=True)
    else:
        line = conformance_report.overall(config.stash[TARGET_NAME_KEY], _records, interrupted)
        tr.write_line(line, bold=True, green=" conforms " in line, red="NOT" in line)
    if any(r["outcome"] in ("failed", "xpassed") for r in _records) or interrupted:
        tr.write_line(f"rerun this run with: {reproduce.rerun_command(config)}", bold=True)

"""Honest exits: each bad input ends the run with one line naming it and a non-zero
exit, before any test runs where that can be known up front; a hung target call
fails its property and the run goes on; Ctrl-C leaves a report marked interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
import torch
from mrv2_conformance.plugin import report, startup
from mrv2_conformance.plugin.session import RUN_KEY, Run
from mrv2_conformance.plugin.workers import fit_to_idle_cpus
from mrv2_conformance.tests.helpers import ROOT, run_suite

ONE = ("conformance/test_slot_table.py",)
HANGS = "mrv2_conformance.tests.targets.hangs"
KILLS = "mrv2_conformance.tests.targets.kills_its_process"
no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="a cuda device is visible")


def lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]


def assert_usage_error(proc: subprocess.CompletedProcess, message: str) -> None:
    """Exit 4 and exactly one line, ``ERROR: <message>...``; no test ran."""
    out = lines(proc)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, "\n".join(out[-30:])
    assert len(out) == 1 and out[0].startswith(f"ERROR: {message}"), "\n".join(out[-30:])


def no_compiler(tmp_path) -> dict[str, str]:
    """An environment where the simulated device cannot be built: an empty build
    cache and a C++ compiler that does not exist."""
    return {"MRV2_SIMDEVICE_CACHE": str(tmp_path), "CXX": "/nonexistent/c++"}


@no_cuda
def test_gpu_marker_without_a_device(tmp_path):
    env = no_compiler(tmp_path)
    assert_usage_error(
        run_suite(*ONE, "-m", "gpu", env=env),
        "-m 'gpu' selects only accelerator tests, and the simulated device is unavailable: "
        "cannot build simdevice.cpp: /bin/sh: 1: /nonexistent/c++: not found",
    )
    assert_usage_error(
        run_suite(*ONE, "-m", "gpu and pcp", env=env), "-m 'gpu and pcp' selects only"
    )
    # A marker expression that also selects cpu tests is fine.
    assert run_suite(*ONE, "-m", "gpu or slot_table", env=env).returncode == pytest.ExitCode.OK


@no_cuda
def test_no_compiler_leaves_the_device_families_not_checked(tmp_path):
    """A failed build of the simulated device is one line, and the device families
    say "not checked on a device", never "conforms"."""
    proc = run_suite("conformance/test_dtype_width.py", "-rs", env=no_compiler(tmp_path))
    out = proc.stdout
    assert proc.returncode == pytest.ExitCode.OK, out[-2000:]
    assert "/nonexistent/c++: not found" in out
    assert "dtype_width" in out and "not checked on a device" in out, out[-2000:]
    assert "conforms" not in out


def test_hypothesis_marker_selects_cpu_properties():
    """Hypothesis marks every property ``hypothesis``; HypoFuzz collects by it."""
    families = ["slot_table", "pcp", "negative_controls"]
    assert not startup.requires_device("hypothesis", families)
    assert not startup.requires_device("hypothesis and slot_table", families)
    assert startup.requires_device("hypothesis and gpu", families)


def test_named_device_that_is_not_visible():
    assert_usage_error(
        run_suite(*ONE, "--device", "npu"), "--device npu: no npu device is visible to torch"
    )
    assert_usage_error(
        run_suite(*ONE, env={"MRV2_CONFORMANCE_DEVICE": "xpu"}),
        "--device xpu: no xpu device is visible to torch",
    )
    assert_usage_error(run_suite(*ONE, "--device", "cpu"), "--device cpu: cpu is always tested")


def test_unknown_hypothesis_profile():
    assert_usage_error(
        run_suite(*ONE, env={"HYPOTHESIS_PROFILE": "nope"}),
        "unknown Hypothesis profile 'nope' (from $HYPOTHESIS_PROFILE); known profiles: ",
    )
    assert_usage_error(
        run_suite(*ONE, "--hypothesis-profile", "fast"),
        "unknown Hypothesis profile 'fast' (from --hypothesis-profile)",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not a text file"),
        (
            b"conformance/test_keyerror.py::test_x | KeyError\n",
            "expected '<test id prefix> | <pattern> | <reason>'",
        ),
        (b"conformance/ | ( | unbalanced\n", "bad pattern '('"),
    ],
    ids=["binary", "two-fields", "bad-pattern"],
)
def test_bad_xfails_file(tmp_path, content, message):
    path = tmp_path / "xfails.txt"
    path.write_bytes(content)
    assert_usage_error(run_suite(*ONE, f"--xfails={path}"), f"xfails file: {path}")
    assert message in lines(run_suite(*ONE, f"--xfails={path}"))[0]


def test_missing_xfails_file(tmp_path):
    assert_usage_error(
        run_suite(*ONE, f"--xfails={tmp_path / 'none.txt'}"),
        f"xfails file: {tmp_path / 'none.txt'}: cannot be read",
    )


def test_report_path_that_cannot_be_written_is_refused_up_front(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert_usage_error(
        run_suite(*ONE, f"--conformance-report={blocker / 'r.json'}"),
        f"--conformance-report {blocker / 'r.json'}: cannot be written",
    )
    assert_usage_error(
        run_suite(*ONE, f"--conformance-report={tmp_path}"),
        f"--conformance-report {tmp_path}: is a directory",
    )
    assert not (blocker.parent / "r.json").exists()


def test_replay_of_an_empty_or_missing_database(tmp_path):
    assert_usage_error(
        run_suite(*ONE, f"--replay={tmp_path / 'nope'}"),
        f"--replay {tmp_path / 'nope'}: no such example database",
    )
    (tmp_path / "empty").mkdir()
    assert_usage_error(
        run_suite(*ONE, f"--replay={tmp_path / 'empty'}"),
        f"--replay {tmp_path / 'empty'}: the example database is empty",
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[1, 2]", "expected an object with 'meta'"),
        (
            '{"meta": {}, "results": [{"property": "p", "family": "speed", "device": "cpu", '
            '"outcome": "passed"}]}',
            "has unknown family 'speed'",
        ),
        ('{"meta": {}, "results": [{"property": "p"}]}', "result 0 lacks one of"),
        ("{not json", "Expecting property name"),
    ],
    ids=["list", "unknown-family", "short-record", "not-json"],
)
def test_report_of_the_wrong_shape_is_one_line(tmp_path, data, message):
    path = tmp_path / "r.json"
    path.write_text(data)
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance.plugin.report", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = lines(proc)
    assert line.startswith(f"cannot render conformance report {path}: ") and message in line


def test_a_hung_target_call_fails_its_property_and_the_run_goes_on(tmp_path):
    """A call past its deadline fails its property; a later property that needs the
    same function fails at once, naming the hang; one that does not, passes."""
    path = tmp_path / "report.json"
    started = time.monotonic()
    proc = run_suite(
        "conformance/test_ordering.py",
        "conformance/test_keyerror.py",
        "-k",
        "(cpu or sort) and not gather",
        "--target",
        HANGS,
        "--target-timeout=2",
        f"--conformance-report={path}",
        timeout=120,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert f"target {HANGS} did not return within 2 s from prepare_inputs() (stopped in " in out
    records = json.loads(path.read_text())["results"]
    outcomes = {r["property"]: r["outcome"] for r in records}
    later = next(r for r in records if r["property"].startswith("conformance/test_keyerror.py"))
    assert later["outcome"] == "failed", later
    assert later["message"].startswith(f"an earlier call hung: target {HANGS} did not"), later
    assert "not called again in this process" in later["message"], later
    assert time.monotonic() - started < 60  # one deadline, not one per property
    # The property that calls prepare_inputs failed; the sort's, which never calls it,
    # ran after it and passed.
    assert outcomes["conformance/test_ordering.py::test_prepare_inputs_values"] == "failed"
    assert (
        outcomes["conformance/test_ordering.py::test_sort_batch_req_ids_spec_order"] == "passed"
    ), outcomes


def test_a_call_that_kills_its_worker_fails_there_and_at_once_elsewhere(tmp_path):
    """Under xdist, a target call that kills its process fails that property (the
    worker's death, named); every later property that needs the function fails at once
    in every worker, naming the earlier death, and the run ends whole: a verdict, the
    report, no worker-restart limit reached."""
    path = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "conformance",
            "-n",
            "2",
            "--target",
            KILLS,
            f"--conformance-report={path}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "maximum crashed workers reached" not in out, out[-3000:]
    assert f"{KILLS} does NOT conform" in out, out[-3000:]
    records = json.loads(path.read_text())["results"]
    failed = [r for r in records if r["outcome"] == "failed"]
    died = [r for r in failed if r["message"].startswith("the process running this property")]
    at_once = [r for r in failed if r["message"].startswith("an earlier call killed its process")]
    # One death: the first call of prepare_inputs is gated (conformance/deadline.py).
    assert len(died) == 1 and at_once, [r["message"][:120] for r in failed]
    assert len(died) + len(at_once) == len(failed), [r["message"][:120] for r in failed]
    assert "prepare_inputs() ended process" in at_once[0]["message"]
    assert not json.loads(path.read_text())["meta"]["partial"]


def _as_from_a_terminal() -> None:
    """A shell starts background jobs with SIGINT ignored, and children inherit that:
    restore the default, as in a run started from a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("workers", [("-p", "no:xdist"), ("-n", "2")], ids=["serial", "xdist"])
def test_ctrl_c_leaves_a_report_marked_interrupted(tmp_path, workers):
    marker, path = tmp_path / "inside", tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    env["MRV2_TEST_HANG_MARKER"] = str(marker)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            *workers,
            "conformance/test_ordering.py",
            "--target",
            HANGS,
            f"--conformance-report={path}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=_as_from_a_terminal,
    )
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert marker.exists(), "the run never reached the hung call"
    # Inside the hung call (or a line before it): Ctrl-C is handled wherever it lands.
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "(INTERRUPTED: incomplete)" in out and "  conforms" not in out, out[-3000:]
    data = json.loads(path.read_text())
    assert data["meta"]["interrupted"] is True
    md = report.to_markdown(data)
    assert "INTERRUPTED" in md and "conforms" not in md.replace("do not show conformance", "")


class _Config:
    """The parts of pytest.Config that the worker fitting reads and writes."""

    def __init__(self, numprocesses, cpus=2):
        self.option = SimpleNamespace(numprocesses=numprocesses)
        self.stash = pytest.Stash()
        self.stash[RUN_KEY] = Run(active=True)
        self.pluginmanager = SimpleNamespace(has_plugin=lambda name: name == "xdist")
        self.hook = SimpleNamespace(pytest_xdist_auto_num_workers=lambda config: cpus)

    def getoption(self, name, default=None):
        assert name == "usepdb"
        return False


@pytest.mark.parametrize(
    ("idle", "requested", "cpus", "workers"),
    [
        (2.0, "auto", 2, 2),  # idle machine: one per CPU
        (0.9, "auto", 2, 0),  # one job beside on 2 CPUs: serial
        (3.1, "auto", 8, 3),  # fewer workers
        (None, "auto", 2, "auto"),  # the system does not say: as xdist picks
        (0.5, 2, 2, 2),  # -n N means N workers, whatever the load
        (0.5, 8, 2, 8),
    ],
)
def test_auto_workers_fit_the_idle_cpus(monkeypatch, idle, requested, cpus, workers):
    monkeypatch.setattr(startup, "idle_cpus", lambda: idle)
    config = _Config(requested, cpus)
    fit_to_idle_cpus(config)
    assert config.option.numprocesses == workers
    note = config.stash[RUN_KEY].workers_note
    assert bool(note) == (requested == "auto" and idle is not None), note
    if workers != "auto" and requested == "auto":
        assert note.startswith(f"-n auto -> {workers or 'serial'}: {idle:.1f} of {cpus} CPUs")


def test_idle_cpus_is_a_share_of_this_process_cpus():
    idle = startup.idle_cpus(0.05)
    if idle is None:
        pytest.skip("no /proc/stat here")
    assert 0 <= idle <= len(os.sched_getaffinity(0))


def _call_past_the_deadline() -> None:
    from mrv2_conformance.conformance import deadline

    try:
        deadline.guarded("t", "sleeps", time.sleep)(30)
    except deadline.TargetTimeout:
        os._exit(0)
    os._exit(1)


def test_the_deadline_holds_in_a_forked_child():
    """A process forked after its watchdog started (HypoFuzz forks its workers from a
    process that imported the target under the import deadline): the child's calls are
    watched too, by a watchdog of its own."""
    import multiprocessing

    from mrv2_conformance.conformance import deadline

    saved = deadline.WATCH.seconds
    deadline.configure(0.5)
    try:
        deadline.guarded("t", "returns", int)()  # the watchdog runs here now
        assert deadline.WATCH.thread is not None
        child = multiprocessing.get_context("fork").Process(target=_call_past_the_deadline)
        child.start()
        child.join(timeout=20)
        if child.exitcode is None:
            child.kill()
        assert child.exitcode == 0, "the forked child's call was not stopped at its deadline"
    finally:
        deadline.configure(saved)

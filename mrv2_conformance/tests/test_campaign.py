"""Fuzzing campaigns (mrv2_conformance/campaign/): two campaign processes against a
mutant share a real Redis server, each from its own working directory; one finds the
failure, and a third process, in a fresh directory, replays it by the command the
campaign printed. Known deviations are not finds; a bad database or a missing HypoFuzz
is one line. The HypoFuzz parts run in ``tox -e campaign`` ($MRV2_REQUIRE_CAMPAIGN
there makes a missing HypoFuzz a failure, not a skip); the rest runs everywhere."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis.internal.reflection import function_digest
from mrv2_conformance.plugin import xfails
from mrv2_conformance.plugin.campaign import _absorbing
from mrv2_conformance.tests.helpers import pasted, run_suite

HAVE_HYPOFUZZ = importlib.util.find_spec("hypofuzz") is not None
if os.environ.get("MRV2_REQUIRE_CAMPAIGN") == "1" and not HAVE_HYPOFUZZ:
    raise RuntimeError("MRV2_REQUIRE_CAMPAIGN=1 but HypoFuzz is not installed")
needs_hypofuzz = pytest.mark.skipif(
    not HAVE_HYPOFUZZ, reason="HypoFuzz (the campaign extra) is not installed: tox -e campaign"
)

MUTANT = "mrv2_conformance.tests.mutants.m_sort_unstable"
SORT = "test_sort_matches_reference"
BUDGET_S = "45"
# A confirmed find's line, and the replay command printed after its property's finds.
FIRST_FIND = r"^FOUND (\S+) \([\d.]+ s in\): (.+)$(?:\n.*)*?\n  replay: (mrv2-conformance .+)$"


def campaign(*args: str, cwd: Path) -> subprocess.Popen:
    """The installed command, as a user starts it, from ``cwd``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    command = Path(sys.executable).with_name("mrv2-conformance")
    return subprocess.Popen(
        [str(command), "campaign", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finished(proc: subprocess.Popen) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=600)
    return proc.returncode, out


def short_campaign(tmp_path: Path, target: str, *more: str) -> tuple[int, str]:
    """A 30 s campaign of one process against ``target``, its database in tmp_path."""
    database = str(tmp_path / "db")
    args = ("--seconds", "30", "-n", "1", "--database", database, "--target", target)
    return finished(campaign(*args, *more, cwd=tmp_path))


@needs_hypofuzz
def test_two_campaigns_share_redis_and_a_third_process_replays_the_find(tmp_path):
    from mrv2_conformance.campaign.server import local_redis

    dirs = [tmp_path / name for name in ("first", "second", "replay")]
    for d in dirs:
        d.mkdir()
    with local_redis(tmp_path) as url:
        args = ("--seconds", BUDGET_S, "-n", "1", "--database", url, "--target", MUTANT)
        runs = [finished(p) for p in [campaign(*args, cwd=d) for d in dirs[:2]]]
        found = [out for code, out in runs if code == 1 and "\nFOUND conformance/" in out]
        assert found, "\n\n".join(out[-3000:] for _, out in runs)
        # The first confirmed find, and the command printed for its property.
        find = re.search(FIRST_FIND, found[0], re.M)
        assert find, found[0][-3000:]
        nodeid, message, command = find.groups()
        assert url in command and MUTANT in command
        replay = pasted(command, cwd=dirs[2])
    out = replay.stdout + replay.stderr
    assert replay.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "stored examples replayed, no search" in out, out[-3000:]
    assert re.search(rf"^FAILED \S*{re.escape(nodeid)}$", out, re.M), out[-3000:]
    # The same kind of failure (both campaigns may have stored a find of this property:
    # the replay reports the smallest, or both, as an exception group).
    kind = message.split(":", 1)[0]
    assert f"{kind}: " in out, (message, out[-3000:])


@needs_hypofuzz
def test_known_deviations_are_not_finds(tmp_path):
    """The mutant's sort failure, declared in an xfails file: the campaign fuzzes the
    property for its whole budget and reports no find (plugin/campaign.py)."""
    known = tmp_path / "known.txt"
    known.write_text(
        f"conformance/test_differential.py::{SORT} | order \\(expected: the reference's\\) "
        f"| the mutant's unstable sort, declared\n"
    )
    code, out = short_campaign(tmp_path, MUTANT, "--xfails", str(known), "-k", SORT)
    assert code == 0 and "no find" in out, out[-3000:]
    examples = re.search(r"campaign: 1 properties of .*?, (\d+) examples", out)
    assert examples and int(examples.group(1)) > 0, out[-3000:]


@needs_hypofuzz
def test_a_hanging_call_is_a_find_and_the_campaign_goes_on(tmp_path):
    """The per-call deadline applies inside a campaign: the hang is a find (in a normal
    run it fails its property), not the end of HypoFuzz's worker. Either device variant
    may hang first; the other then fails at once with "an earlier call hung"."""
    code, out = short_campaign(
        tmp_path,
        "mrv2_conformance.tests.targets.hangs",
        "--target-timeout",
        "2",
        "-k",
        "test_prepare_inputs_values or test_sort_batch_req_ids_is_pure",
    )
    assert code == 1 and re.search(r"^campaign: \d+ properties", out, re.M), out[-3000:]
    assert re.search(
        r"^FOUND \S+test_prepare_inputs_values\[[\w:]+\] .*TargetHung: .*did not return within "
        r"2 s from prepare_inputs\(\)",
        out,
        re.M,
    ), out[-3000:]
    assert "Traceback" not in out, out[-3000:]


@needs_hypofuzz
def test_exitfirst_stops_the_campaign_at_its_first_find(tmp_path):
    """--exitfirst: the campaign ends soon after its first find, well within a budget
    that the same campaign without it spends whole, and reports the find."""
    database = str(tmp_path / "db")
    args = ("--seconds", "300", "-n", "1", "--database", database, "--target", MUTANT)
    code, out = finished(campaign(*args, "--exitfirst", "-k", SORT, cwd=tmp_path))
    assert code == 1 and re.search(FIRST_FIND, out, re.M), out[-3000:]
    took = re.search(r"^campaign: 1 properties of .*? examples in (\d+) s", out, re.M)
    assert took and int(took.group(1)) < 120, out[-3000:]


@needs_hypofuzz
def test_a_bad_database_and_an_empty_selection_are_one_line(tmp_path):
    from mrv2_conformance.campaign.server import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    code, out = finished(campaign("--seconds", "5", "--database", url, cwd=tmp_path))
    assert code == 4 and out.strip().splitlines() == [
        f"ERROR: --database {url}: the example database is unreachable: "
        + out.split("unreachable: ", 1)[-1].strip()
    ], out
    code, out = finished(campaign("--seconds", "5", "-k", "no_such_property", cwd=tmp_path))
    assert code == 5 and out.strip().startswith("ERROR: nothing to fuzz"), out


@pytest.mark.skipif(HAVE_HYPOFUZZ, reason="HypoFuzz is installed here")
def test_without_hypofuzz_the_campaign_says_what_to_install(tmp_path):
    code, out = finished(campaign("--seconds", "5", cwd=tmp_path))
    assert code == 4, out
    assert out.strip() == (
        "ERROR: campaigns need HypoFuzz (AGPL-3.0, an optional extra): "
        "pip install 'mrv2-conformance[campaign]'"
    )


def test_absorbing_passes_only_failures_every_line_of_which_is_known(tmp_path):
    def prop(case: int) -> None:
        if case == 1:
            raise AssertionError("order (expected: the reference's) is [1]")
        if case == 2:
            raise AssertionError("idx_mapping has dtype int32")

    path = tmp_path / "known.txt"
    path.write_text("conformance/test_x.py::test_y | order \\(expected | declared\n")
    known = {"conformance/test_x.py::test_y": xfails.parse(path)}
    absorbing = _absorbing(prop, known)
    assert absorbing(0) is None and absorbing(1) is None
    with pytest.raises(AssertionError, match="int32"):
        absorbing(2)


def test_absorbing_keeps_hypothesis_database_key():
    """A find of the wrapped property replays in a plain run, which does not wrap it."""

    def prop(target, device, case):
        assert case

    prop._hypothesis_internal_add_digest = b"conformance/test_x.py::test_y[cpu]"
    absorbing = _absorbing(prop, {})
    absorbing._hypothesis_internal_add_digest = prop._hypothesis_internal_add_digest
    assert function_digest(absorbing) == function_digest(prop)


def test_every_property_is_keyed_by_its_node_id(tmp_path):
    """As HypoFuzz keys a property's examples, so a plain run does, the device-generic
    properties included (Hypothesis keys those by their function alone): a campaign's
    find of one replays in a plain run. (A property without explicit examples: a
    failing explicit example is never saved.)"""
    from hypothesis.database import DirectoryBasedExampleDatabase
    from mrv2_conformance.conformance.test_dtype_width import (
        test_async_copy_to_gpu_keeps_dtype as prop,
    )

    db = tmp_path / "db"
    proc = run_suite(
        "conformance/test_dtype_width.py",
        "-k",
        "test_async_copy_to_gpu_keeps_dtype and cpu",
        "--target",
        "mrv2_conformance.tests.mutants.m_copy_narrows_int64",
        f"--save-failures={db}",
    )
    failed = re.search(r"^FAILED (\S+\[cpu\])", proc.stdout, re.M)
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED and failed, proc.stdout[-3000:]
    inner = prop.hypothesis.inner_test
    before = getattr(inner, "_hypothesis_internal_add_digest", None)
    try:
        inner._hypothesis_internal_add_digest = failed.group(1).encode()
        key = function_digest(inner)
    finally:
        inner._hypothesis_internal_add_digest = before
    assert list(DirectoryBasedExampleDatabase(str(db)).fetch(key)), "not keyed by its node id"


def test_time_to_find_hunts_one_mutant_per_boundary_and_refuses_others(capsys):
    """campaign/time_to_find.py: each boundary's mutant exists, no mutant serves two
    boundaries, and a --mutant that is not one of them is a usage error naming it."""
    import importlib

    from mrv2_conformance.campaign import time_to_find

    mutants = [m for _, m in time_to_find.BOUNDARIES]
    assert len(set(mutants)) == len(mutants)
    for mutant in mutants:
        module = importlib.import_module(f"mrv2_conformance.tests.mutants.{mutant}")
        assert module.__doc__, mutant
    with pytest.raises(SystemExit) as stop:
        time_to_find.main(["--mutant", "m_not_a_boundary", "--campaign-seconds", "1"])
    assert stop.value.code == 2
    assert "--mutant m_not_a_boundary: not a boundary mutant" in capsys.readouterr().err

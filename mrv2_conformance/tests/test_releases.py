"""The README's revision and release tables (releases.py), from reports."""

from __future__ import annotations

import json

from mrv2_conformance import releases


def _report(version: str, revision: str, results: list[dict]) -> dict:
    return {
        "meta": {
            "target": "mrv2_conformance.adapters.vllm",
            "target_description": f"vLLM {version} at /x, contract revision {revision!r}",
            "contract_revision": revision,
            "date": "2026-12-03T13:00:00+00:00",
            "suite_commit": "0123456789abcdef",
        },
        "results": results,
    }


def _result(prop: str, family: str, outcome: str, reason: str = "") -> dict:
    return {
        "property": prop,
        "family": family,
        "device": "cpu",
        "outcome": outcome,
        "reason": reason,
    }


def test_tables_from_reports(tmp_path, capsys):
    cite = "vllm/v1/worker/gpu/input_batch.py:{} (InputBatch.make_dummy)"
    newer = _report(
        "0.10.0",
        "0.30",
        [
            _result("conformance/test_ordering.py::a", "ordering", "passed"),
            _result(
                "conformance/test_dummy_parity.py::b",
                "dummy_parity",
                "xfailed",
                f"asserts at {cite.format(120)} (vllm.txt:4)",
            ),
        ],
    )
    older = _report(
        "0.9.0",
        "#51210",
        [
            _result("conformance/test_ordering.py::a", "ordering", "failed"),
            _result(
                "conformance/test_dummy_parity.py::b",
                "dummy_parity",
                "xfailed",
                f"asserts at {cite.format(99)} (vllm.txt:4); int32; also (vllm.txt:7)",
            ),
        ],
    )
    paths = []
    for name, data in (("new", newer), ("old", older)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(data))
    assert releases.main([str(p) for p in paths]) == 0
    out = capsys.readouterr().out
    assert "| `0.30` | vLLM 0.30.0 and later |" in out  # the revision table
    rows = [line for line in out.splitlines() if line.startswith("| 0.")]
    # Sorted by release as numbers (0.9.0 before 0.10.0), each with its revision and run.
    assert rows[0].startswith("| 0.9.0 | `#51210` | **1 FAIL** | 0 pass, 1 deviate |")
    assert rows[1].startswith("| 0.10.0 | `0.30` | conforms (1) | 0 pass, 1 deviate |")
    assert rows[1].endswith("| 2026-12-03, `0123456789ab` |")
    # One deviation across releases, with the line each release's source has.
    assert (
        "- asserts at vllm/v1/worker/gpu/input_batch.py::InputBatch.make_dummy  \n"
        "  *0.9.0 (L99), 0.10.0 (L120)*"
    ) in out
    assert "- int32; also  \n  *0.9.0*" in out  # a reason holding "; " stays whole
    assert releases.main(["--without-revisions", str(paths[0])]) == 0
    out = capsys.readouterr().out
    assert "Contract revisions" not in out and "| 0.10.0 |" in out


def test_bad_input_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert releases.main([str(bad)]) == 2
    assert "cannot read conformance report" in capsys.readouterr().err
    assert releases.main([]) == 2

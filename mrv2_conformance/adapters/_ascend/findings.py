"""The port's own findings, one command each (docs/vllm-ascend-bug-report.md):

    MRV2_VLLM_ASCEND_SRC=<checkout> python -m mrv2_conformance.adapters._ascend.findings [1|2|3]

Each prints the contract clause, the call, what the contract expects, what the port
does, and the port's source line; exit 1 when the port deviates, 0 when it conforms.
They run the port's own code through the suite's target (stand-ins disclosed there).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from mrv2_conformance.plugin.xfails import cite_lines
from mrv2_conformance.contract import SchedulerBatch

P = "vllm_ascend/worker/v2"


def _target() -> Any:
    import mrv2_conformance.adapters.vllm_ascend as target

    return target


# (clause, call, expected, actual, source, conforms)
Finding = tuple[str, str, str, str, str, bool]


def finding_1() -> Finding:
    t = _target()
    table = t.SlotTable(4)
    table.add_request("a", 8)
    out = t.prepare_inputs(SchedulerBatch({"a": 8}), table, t.InputBuffers(4, 64, "cpu"), 1)
    actual = f"idx_mapping_np {out.idx_mapping_np.dtype}, idx_mapping {out.idx_mapping.dtype}"
    ok = out.idx_mapping_np.dtype == np.intp and out.idx_mapping.dtype == torch.int64
    return (
        "F1.2: idx_mapping_np is np.intp and idx_mapping torch.int64",
        "prepare_inputs(one request 'a' of 8 tokens)",
        "idx_mapping_np int64 (intp), idx_mapping torch.int64",
        actual,
        f"{P}/model_runner.py::NPUModelRunner.prepare_inputs",
        ok,
    )


def finding_2() -> Finding:
    t = _target()
    buffers = t.InputBuffers(4, 64, "cpu")
    out = t.make_dummy(2, 4, buffers)
    shares = (
        out.query_start_loc.untyped_storage().data_ptr()
        == buffers.query_start_loc.untyped_storage().data_ptr()
    )
    same = out.expanded_idx_mapping is out.idx_mapping
    return (
        "F2: the dummy has the real batch's form: expanded_idx_mapping is idx_mapping "
        "(no drafts), query_start_loc and seq_lens are views of the input buffers",
        "make_dummy(2, 4, buffers)",
        "expanded_idx_mapping is idx_mapping: True; query_start_loc in the buffers: True",
        f"expanded_idx_mapping is idx_mapping: {same}; query_start_loc in the buffers: {shares}",
        f"{P}/input_batch.py::AscendInputBatch.make_dummy",
        same and shares,
    )


def finding_3() -> Finding:
    from mrv2_conformance.adapters._vllm import runner
    from mrv2_conformance.adapters._vllm.upstream import API

    t = _target()
    table = t.SlotTable(4)
    table.add_request("a", 8)
    buffers = t.InputBuffers(4, 64, "cpu")
    buffers.seq_lens_cpu.fill_(-1)
    before = buffers.seq_lens_cpu.clone()
    stand_in = runner.stand_in(table.states_on(table.device), 1, buffers)
    step = runner.scheduler_output({"a": 8, "missing": 1}, {}, 9)
    try:
        API.classes.runner._update_seq_lens_cpu(  # type: ignore[attr-defined]
            stand_in, step, ["a", "missing"]
        )
        raised = "nothing"
    except KeyError as exc:
        raised = f"KeyError({exc.args[0]!r})"
    changed = (buffers.seq_lens_cpu != before).nonzero().flatten().tolist()
    return (
        "F1.2: a missing request id raises KeyError(req_id) and nothing changes",
        "the seq_lens_cpu update of prepare_inputs for ['a', 'missing'] ('missing' is "
        "not in the slot table)",
        "KeyError('missing'), seq_lens_cpu unchanged",
        f"{raised}, seq_lens_cpu rows {changed} written ({buffers.seq_lens_cpu[changed].tolist()})",
        f"{P}/model_runner.py::NPUModelRunner._update_seq_lens_cpu",
        not changed,
    )


FINDINGS: dict[str, Callable[[], Finding]] = {"1": finding_1, "2": finding_2, "3": finding_3}


def main(argv: list[str] | None = None) -> int:
    which = (sys.argv[1:] if argv is None else argv) or list(FINDINGS)
    unknown = [w for w in which if w not in FINDINGS]
    if unknown:
        print(f"unknown finding {unknown[0]!r}; known: {', '.join(FINDINGS)}", file=sys.stderr)
        return 2
    deviates = False
    for w in which:
        clause, call, expected, actual, source, ok = FINDINGS[w]()
        deviates |= not ok
        print(
            f"finding {w}: {'conforms' if ok else 'DEVIATES'}\n  clause:   {clause}\n"
            f"  call:     {call}\n  expected: {expected}\n  actual:   {actual}\n"
            f"  source:   {cite_lines(source)}\n"
        )
    return 1 if deviates else 0


if __name__ == "__main__":
    sys.exit(main())

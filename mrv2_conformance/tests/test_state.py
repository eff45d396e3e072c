"""The suite's own state snapshots, aliasing checks and oracle protection."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from mrv2_conformance.conformance import reference, state
from mrv2_conformance.contract import DEFAULT_REVISION
from mrv2_conformance.conformance.aliasing import check_batch_aliasing
from mrv2_conformance.conformance.assertions import ContractViolation, every_failure

from mrv2_conformance import impl


def _roots():
    table = SimpleNamespace(
        arr=np.arange(4, dtype=np.int32),
        ids={"a": 1},
        free=[0, 2],
        inner=SimpleNamespace(t=torch.zeros(3, dtype=torch.int64)),
    )
    buffers = SimpleNamespace(
        seq_lens=torch.zeros(3, dtype=torch.int32),
        seq_lens_cpu=np.zeros(3, dtype=np.int32),
        mask=torch.zeros(2, dtype=torch.bool),
        empty=np.zeros(0),
    )
    return {"table": table, "buffers": buffers}


def test_walk_finds_every_array_and_plain_container_by_path():
    paths = {p for p, _ in state.walk(_roots())}
    assert paths == {
        "table.arr",
        "table.ids",
        "table.free",
        "table.inner.t",
        "buffers.seq_lens",
        "buffers.seq_lens_cpu",
        "buffers.mask",
        "buffers.empty",
    }


def test_unchanged_state_passes_and_each_change_is_named():
    roots = _roots()
    state.fill_with_sentinels({"buffers": roots["buffers"]})
    assert int(roots["buffers"].seq_lens[0]) < -1_000_000
    before = state.snapshot(roots)
    state.assert_unchanged("f()", before, roots)
    roots["buffers"].seq_lens_cpu[2] = 5
    roots["table"].free.append(9)
    roots["table"].inner.t = torch.zeros(3, dtype=torch.int64)
    roots["buffers"].extra = np.zeros(1)
    with pytest.raises(ContractViolation) as info, every_failure():
        state.assert_unchanged("f()", before, roots)
    lines = info.value.failures
    assert any(
        line.startswith("f(): buffers.seq_lens_cpu changed at index 2") and line.endswith("-> 5")
        for line in lines
    ), lines
    assert any("table.free changed" in line for line in lines)
    assert any("table.inner.t was replaced" in line for line in lines)
    assert any("new state appeared" in line and "buffers.extra" in line for line in lines)


def test_aliasing_check_names_twins_buffers_and_other_fields():
    buffers = impl.InputBuffers(4, 8, "cpu")
    out = impl.make_dummy(2, 3, buffers)
    with every_failure():
        check_batch_aliasing("make_dummy", out, buffers)
    out.idx_mapping = out.expanded_idx_mapping = torch.from_numpy(out.idx_mapping_np)
    out.seq_lens = out.seq_lens.clone()
    out.prefill_len_np = out.num_computed_tokens_np
    with pytest.raises(ContractViolation) as info, every_failure():
        check_batch_aliasing("make_dummy", out, buffers)
    text = "\n".join(info.value.failures)
    assert (
        "idx_mapping must be a fresh array, but it shares memory with its host twin "
        "idx_mapping_np" in text
    )
    assert "seq_lens must be a view of a persistent input buffer" in text
    assert (
        "prefill_len_np must be a fresh array, but it shares memory with "
        "num_computed_tokens_np (another field of this batch)" in text
    )


def test_the_private_reference_is_out_of_the_targets_reach(monkeypatch):
    private = reference.private_reference()
    assert private is not impl and private.gather is not impl.gather
    assert "mrv2_conformance.impl" in sys.modules and sys.modules["mrv2_conformance.impl"] is impl
    fp = reference.Fingerprint()
    assert fp.changes() == []
    monkeypatch.setattr(impl.gather, "build_idx_mapping", lambda *a: None)
    monkeypatch.setattr(impl.SlotTable, "add_request", lambda *a: None)
    changes = fp.changes()
    assert "mrv2_conformance.impl.gather.build_idx_mapping replaced or changed" in changes
    assert "mrv2_conformance.impl.slot_table.SlotTable.add_request replaced or changed" in changes
    # The private copy does not see the patch.
    assert private.gather.build_idx_mapping({"a": 3}, ["a"]).tolist() == [3]


def test_the_differential_family_compares_with_the_private_copy():
    from mrv2_conformance.conformance.differential import reference_target

    ref = reference_target(DEFAULT_REVISION)
    assert ref.module._module is reference.private_reference()
    assert ref.revision == DEFAULT_REVISION
    assert ref.prepare_inputs is reference.private_reference().prepare_inputs
    assert ref.prepare_inputs is not impl.prepare_inputs
    assert ref.partition_batch.func is reference.private_reference().partition_batch

"""Family `keyerror`: a scheduled id missing from the slot table raises
``KeyError(req_id)`` (never a default slot, never numpy's TypeError) and changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.build import PREPARE_CALL, buffers_line, note_reproduction
from conformance.state import (
    assert_buffers_unchanged,
    assert_table_unchanged,
    snapshot_buffers,
    snapshot_table,
)
from impl.scheduler import SchedulerBatch
from strategies import missing_id_cases

pytestmark = pytest.mark.keyerror

GATHER_CALL = "gather_batch_req_state(batch, table, decode_query_len)"


def assert_raises_keyerror(call: str, missing: str, fn, *args) -> None:
    try:
        result = fn(*args)
    except KeyError as exc:
        assert exc.args == (missing,), (
            f"{call}: KeyError args are {exc.args!r}, expected ({missing!r},) - "
            f"the missing request id alone")
        return
    except Exception as exc:
        hint = (" (the pre-#51210 dict.get lookup: None reached numpy)"
                if isinstance(exc, TypeError) else "")
        raise AssertionError(
            f"{call}: request {missing!r} is not in the slot table; expected "
            f"KeyError({missing!r}), got {type(exc).__name__}: {exc}{hint}") from exc
    raise AssertionError(
        f"{call}: request {missing!r} is not in the slot table; expected "
        f"KeyError({missing!r}), but the call returned normally (a default slot?): "
        f"{getattr(result, 'idx_mapping_np', result)!r}")


@given(case=missing_id_cases())
def test_gather_missing_id_raises_keyerror(target, case):
    note_reproduction(case.snippet(target.name, "cpu", f"t.{GATHER_CALL}"))
    table = case.build_table(target)
    before = snapshot_table(table)
    assert_raises_keyerror(GATHER_CALL, case.missing_id, target.gather_batch_req_state,
                           case.batch(), table, case.decode_query_len)
    assert_table_unchanged(GATHER_CALL + " after its KeyError", before, table)


@given(case=missing_id_cases())
def test_prepare_inputs_missing_id_raises_keyerror_and_changes_nothing(target, case, device):
    """Buffers first hold a valid batch (the same one without the missing id), so a
    write before the lookup cannot go unseen."""
    present = {r: n for r, n in case.num_scheduled_tokens.items() if r != case.missing_id}
    note_reproduction(case.snippet(
        target.name, device, buffers_line(case),
        f"t.prepare_inputs(SchedulerBatch({present!r}, {case.draft_tokens!r}), table, "
        "buffers, decode_query_len)", f"t.{PREPARE_CALL}"))
    table = case.build_table(target)
    buffers = target.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    if present:
        target.prepare_inputs(SchedulerBatch(present, dict(case.draft_tokens)), table,
                              buffers, case.decode_query_len)
    table_before, buffers_before = snapshot_table(table), snapshot_buffers(buffers)
    assert_raises_keyerror(PREPARE_CALL, case.missing_id, target.prepare_inputs,
                           case.batch(), table, buffers, case.decode_query_len)
    assert_table_unchanged(PREPARE_CALL + " after its KeyError", table_before, table)
    assert_buffers_unchanged(PREPARE_CALL + " after its KeyError", buffers_before, buffers)

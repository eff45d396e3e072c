"""Family `keyerror`: a scheduled id missing from the slot table raises exactly
``KeyError(req_id)`` naming a missing id (never a default slot, never numpy's
TypeError, never a KeyError subclass) and changes nothing.

"Nothing" is checked from a state no partial write can reproduce: every array of the
input buffers is first filled with sentinels, then every array, tensor and container
reachable from the buffers and the slot table is compared byte for byte
(conformance/state.py), whatever the target calls them.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.assertions import ContractViolation
from mrv2_conformance.conformance.build import GATHER_CALL, PREPARE_CALL
from mrv2_conformance.strategies import BatchCase, missing_id_cases, missing_id_examples

pytestmark = pytest.mark.keyerror


def assert_raises_keyerror(call: str, case: BatchCase, fn, *args) -> None:
    missing = case.missing_ids
    expected = (
        f"KeyError(r) with r one of {list(missing)!r}"
        if len(missing) > 1
        else f"KeyError({missing[0]!r})"
    )
    try:
        result = fn(*args)
    except Exception as exc:
        if type(exc) is KeyError and len(exc.args) == 1 and exc.args[0] in missing:
            return
        hint = (
            " (the pre-#51210 dict.get lookup: None reached numpy)"
            if isinstance(exc, TypeError)
            else ""
        )
        kind = type(exc).__qualname__
        if type(exc).__module__ != "builtins":  # a subclass: say whose
            kind = f"{type(exc).__module__}.{kind}"
        got = f"{kind}({', '.join(map(repr, exc.args))})"
        raise ContractViolation(
            [
                (
                    f"{call}: scheduled ids {list(missing)!r} are not in the slot table; expected "
                    f"exactly {expected} (args == (req_id,)), got {got}{hint}"
                )
            ]
        ) from exc
    raise ContractViolation(
        [
            (
                f"{call}: scheduled ids {list(missing)!r} are not in the slot table; expected "
                f"{expected}, but the call returned normally (a default slot?): "
                f"{getattr(result, 'idx_mapping_np', result)!r}"
            )
        ]
    )


@given(case=missing_id_cases())
@missing_id_examples
def test_gather_missing_id_raises_keyerror(target, case):
    table = case.build_table(target)
    roots = {"table": table}
    before = state.snapshot(roots)
    assert_raises_keyerror(
        GATHER_CALL, case, target.gather_batch_req_state, case.batch(), table, case.decode_query_len
    )
    state.assert_unchanged(GATHER_CALL + " after its KeyError", before, roots)


@given(case=missing_id_cases())
@missing_id_examples
def test_prepare_inputs_missing_id_raises_keyerror_and_changes_nothing(target, case, device):
    table = case.build_table(target)
    buffers = target.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    roots = {"table": table, "buffers": buffers}
    state.fill_with_sentinels({"buffers": buffers})
    before = state.snapshot(roots)
    assert_raises_keyerror(
        PREPARE_CALL,
        case,
        target.prepare_inputs,
        case.batch(),
        table,
        buffers,
        case.decode_query_len,
    )
    state.assert_unchanged(PREPARE_CALL + " after its KeyError", before, roots)

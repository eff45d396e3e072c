"""The stateful family's checks after each step (``conformance/engine_loop.py`` runs
the steps): the target's table against the engine model (F4), its batch against the
model and F1's order, each PCP rank's rows against F3's segments, and the target
against the reference field by field, with the target's slots relabelled onto the
reference's where the CONTRACT leaves the order of freed slots open."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance import oracle
from mrv2_conformance.conformance.assertions import (
    ContractViolation,
    assert_equal,
    assert_rank_rows,
    assert_values,
    fail,
)
from mrv2_conformance.conformance.differential import assert_same_field, assert_same_outcome
from mrv2_conformance.conformance.engine import Engine, Step
from mrv2_conformance.conformance.fields import check_batch_layout, field

# Fields whose values are slots: compared in the reference's slot numbering.
SLOT_FIELDS = frozenset({"idx_mapping_np", "idx_mapping", "expanded_idx_mapping"})
UPDATE_CALL = "update_states(step, table)"
PREPARE_CALL = "prepare_inputs(step, table, buffers, decode_query_len)"


class LoopChecks:
    """Mixed into the engine loop's state machine, whose state these read."""

    context: Any  # engine_loop.Context
    sides: list[Any]  # engine_loop.Side: the target's, then the reference's if it runs
    engine: Engine
    deployment: Any  # strategies.engine.Deployment
    steps: int
    relabel: np.ndarray  # target slot -> reference slot
    freed_together: dict[int, int]  # reference slot -> the step that freed it with others
    slots_before: dict[str, int]

    def _relabel_new(self, step: Step) -> None:
        """Follow the reference's slots: a new request's slot must be the reference's,
        up to the order of slots freed together in one step."""
        if len(self.sides) < 2:
            return
        target, ref = (s.table.req_id_to_index for s in self.sides)
        freed = [ref_slot for r in step.finished if (ref_slot := self._was(r)) is not None]
        if len(freed) > 1:
            group = self.steps
            self.freed_together.update(dict.fromkeys(freed, group))
        for req in step.batch.scheduled_new_reqs:
            if req.req_id not in target or req.req_id not in ref:
                continue
            t, s = int(target[req.req_id]), int(ref[req.req_id])
            mapped = int(self.relabel[t])
            if mapped != s:
                freed_at = self.freed_together.get(mapped)
                if freed_at is None or self.freed_together.get(s) != freed_at:
                    expected = int(np.flatnonzero(self.relabel == s)[0])
                    self.context.set_aside(
                        ContractViolation(
                            [
                                f"{UPDATE_CALL}: new request {req.req_id!r} got slot {t}; the free "
                                f"list (last in, first out: CONTRACT Terms, F4) hands out slot "
                                f"{expected} next (the reference's {s})"
                            ]
                        )
                    )
                other = int(np.flatnonzero(self.relabel == s)[0])
                self.relabel[t], self.relabel[other] = s, mapped
            self.freed_together.pop(s, None)
        self.slots_before = dict(ref)

    def _was(self, req_id: str) -> int | None:
        return getattr(self, "slots_before", {}).get(req_id)

    def _check_table(self) -> None:
        """The target's table holds exactly the engine's running requests, each with
        its prompt length and computed tokens (F4)."""
        table = self.sides[0].table
        running = self.engine.running
        mapping = dict(table.req_id_to_index)
        if set(mapping) != set(running):
            fail(
                f"the slot table holds {sorted(mapping)!r:.300}, the engine runs "
                f"{sorted(running)!r:.300} (CONTRACT F4)"
            )
            return
        if not running:
            return
        ids = list(running)
        slots = np.array([mapping[r] for r in ids], dtype=np.intp)
        if (
            len(set(slots.tolist())) != len(slots)
            or slots.min() < 0
            or slots.max() >= self.deployment.max_num_reqs
        ):
            fail(
                f"the slot table's slots {slots.tolist()} are not distinct slots in "
                f"[0, {self.deployment.max_num_reqs})"
            )
            return
        prefill = np.array([running[r].prefill_len for r in ids], dtype=np.int64)
        # What the runner was told: a running request the step does not schedule keeps
        # the count of its last scheduled step (vLLM's update_requests, F4).
        computed = np.array([running[r].told for r in ids], dtype=np.int64)
        where = "the slot table after the step's update"
        assert_values(
            where,
            "prefill_len[slots of the running requests]",
            np.asarray(table.prefill_len)[slots],
            prefill,
        )
        assert_values(
            where,
            "num_computed_tokens[slots of the running requests]",
            np.asarray(table.num_computed_tokens)[slots],
            computed,
        )
        assert_values(
            where,
            "num_computed_prefill_tokens[slots of the running requests]",
            np.asarray(table.num_computed_prefill_tokens)[slots],
            np.minimum(computed, prefill),
        )

    def _check_batch(self, step: Step, out: Any) -> None:
        """The batch against the engine's model (independent of the reference)."""
        device, batch = self.context.device, step.batch
        check_batch_layout(PREPARE_CALL, out, device)
        order = oracle.spec_order(
            batch.num_scheduled_tokens,
            batch.scheduled_spec_decode_tokens,
            self.deployment.decode_query_len,
        )
        assert_equal(PREPARE_CALL, "req_ids", field(PREPARE_CALL, out, "req_ids"), order)
        mapping = self.sides[0].table.req_id_to_index
        counts = np.array([batch.num_scheduled_tokens[r] for r in order], dtype=np.int64)
        computed = np.array([self.engine.running[r].computed for r in order], dtype=np.int64)
        assert_values(
            PREPARE_CALL,
            "idx_mapping_np",
            out.idx_mapping_np,
            np.array([mapping[r] for r in order]),
        )
        assert_values(PREPARE_CALL, "num_scheduled_tokens", out.num_scheduled_tokens, counts)
        assert_values(PREPARE_CALL, "num_computed_tokens_np", out.num_computed_tokens_np, computed)
        assert_values(PREPARE_CALL, "seq_lens", out.seq_lens, computed + counts)
        assert_values(
            PREPARE_CALL,
            "query_start_loc_np",
            out.query_start_loc_np,
            oracle.query_start_loc(counts.tolist()),
        )

    def _check_rank(self, call: str, global_batch: Any, out: Any, world: int, rank: int) -> None:
        """One rank's rows are F3's segments in the declared revision's order."""
        check_batch_layout(call, out, self.context.device)
        segs = oracle.rank_segments_of(global_batch, world, rank, self.context.target.revision)
        if not segs:
            assert_equal(call, "num_tokens (a placeholder rank)", out.num_tokens, 0)
            return
        assert_rank_rows(call, out, segs)

    def _agree(self, call: str, outs: list[Any], names: list[str], slots: bool = True) -> None:
        """A step that must succeed (inside ``_checks``): the target returned, and where
        the reference ran beside it (``outs[1]``), the two agree in outcome and, field by
        field, in value."""
        got = outs[0]
        if got.error is not None:
            fail(f"{call}: raised {type(got.error).__name__}: {got.error}")
        elif len(outs) == 2 and not assert_same_outcome(call, outs[1], got):
            self._compare(call, outs[1].value, got.value, names, slots)

    def _compare(self, call: str, ref: Any, got: Any, names: list[str], slots: bool = True) -> None:
        """Field by field, the target against the reference; slots in the reference's
        numbering (the relabelling above). A dummy's mapping holds rows, not slots."""
        for name in names:
            r, g = field(call, ref, name), field(call, got, name)
            if (
                slots
                and name in SLOT_FIELDS
                and isinstance(g, (np.ndarray, torch.Tensor))
                and isinstance(r, type(g))
            ):
                if getattr(g, "dtype", None) != getattr(r, "dtype", None) or tuple(
                    g.shape
                ) != tuple(r.shape):
                    assert_same_field(call, name, r, g)  # names the dtype or shape
                    continue
                values = g.detach().cpu().numpy() if isinstance(g, torch.Tensor) else g
                assert_values(
                    call,
                    f"{name} (slots in the reference's numbering; expected: the reference's)",
                    self.relabel[np.asarray(values, dtype=np.intp)],
                    r.cpu().numpy() if isinstance(r, torch.Tensor) else r,
                )
                if isinstance(g, torch.Tensor) and g.device != r.device:
                    fail(f"{call}: {name} is on {g.device}, the reference's on {r.device}")
            else:
                assert_same_field(call, name, r, g)

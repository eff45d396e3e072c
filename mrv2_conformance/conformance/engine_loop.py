"""The stateful family's state machine: one target driven as a vLLM engine drives its
runner, on one slot table and one set of input buffers for its whole life, with the
reference driven in lockstep through the same steps (``conformance/test_stateful.py``).

Rules: requests arrive; scheduler steps run (F4's update, then ``prepare_inputs``;
on a PCP deployment every rank partitions the batch into its own persistent buffers);
a step names an id the table does not hold (``KeyError``, nothing of what
``prepare_inputs`` touches changes, and the run goes on); a step admits more requests
than the table holds (refused, nothing changes); dummy steps build into the same
buffers. After every step: the target's outcome equals the reference's (results and
errors), the table holds what the engine model says, the batch is in F1 order with
the table's slots and counts, every result returned earlier still holds what it held
(``conformance/frozen.py``; the views of the buffers excepted), and every argument a
function only reads is unchanged (``conformance/effects.py``, on each call).

Slots: when one step frees several slots, the CONTRACT leaves open the order in which
they go back on the free list (F4). The machine keeps a relabelling of the target's
slots onto the reference's, and accepts a different slot for a new request only where
it is one of a group freed together; every other slot must be exactly the reference's.
"""

from __future__ import annotations

from contextlib import contextmanager
import dataclasses
from dataclasses import dataclass
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import note
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.assertions import (
    ContractViolation,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.build import synchronize
from mrv2_conformance.conformance.effects import Held, change_since_held, hold, table_state
from mrv2_conformance.conformance.differential import (
    Outcome,
    assert_same_outcome,
    run,
)
from mrv2_conformance.conformance.engine import Engine, Step
from mrv2_conformance.conformance.engine_checks import (
    PREPARE_CALL,
    UPDATE_CALL,
    LoopChecks,
)
from mrv2_conformance.conformance.fields import (
    ARRAY_FIELDS,
    SCALAR_FIELDS,
)
from mrv2_conformance.conformance.frozen import difference, freeze
from mrv2_conformance.conformance.deadline import TargetTimeout, is_timeout
from mrv2_conformance.conformance.target import Target
from mrv2_conformance.strategies.limits import allows
from mrv2_conformance.strategies.engine import (
    DUMMY_BEFORE_STEP,
    DUMMY_BYTES,
    MAX_ARRIVALS,
    Deployment,
    arrival_codes,
    arrival_counts,
    deployments,
    dummy_codes,
    step_plans,
)

BATCH_FIELDS = [*(f.name for f in ARRAY_FIELDS), *SCALAR_FIELDS]
LOCAL_FIELDS = [*BATCH_FIELDS, "local_to_global_batch_req_idx_np"]


# What a life reaches through the runner (beside conformance/engine.py's).
DUMMY_BETWEEN = "a dummy step between real ones"
PCP_STEP = "a step partitioned on every PCP rank"
UNKNOWN_ID_STEP = "a step naming an id the table lacks"
OVERFULL_STEP = "a step past a full table"

# The lives a machine leads: the rules every life has, plus at most one error path. A
# run ends at its first failure, so a known deviation on one path (vLLM's assert for a
# full table) must not end the runs that check everything else.
LIVES = ("steady", "unknown_ids", "full_table")


@dataclass(frozen=True)
class Context:
    target: Target
    reference: Target | None  # None when the target is the reference
    device: str
    max_model_len: int
    life: str = "steady"
    # The test's xfails entries, and the failure lines of theirs seen in any run: a known
    # deviation is set aside, so that the run goes on and finds what else there is.
    known: tuple[Any, ...] = ()
    seen: set[str] = dataclasses.field(default_factory=set)

    def set_aside(self, exc: ContractViolation) -> None:
        """Raise ``exc`` with the lines no known deviation covers; keep the others."""
        if not self.known:
            raise exc
        # self.known holds the test's plugin/xfails.py entries; each has its pattern.
        unknown = [f for f in exc.failures if not any(k.pattern.search(f) for k in self.known)]
        self.seen.update(f for f in exc.failures if f not in unknown)
        if unknown:
            raise ContractViolation(unknown) from exc


@dataclass
class Side:
    """One implementation's runner state: its table, buffers and PCP ranks' buffers."""

    impl: Target
    table: Any
    buffers: Any
    rank_buffers: list[Any]


class EngineLoopBase(LoopChecks, RuleBasedStateMachine):
    """Subclassed per test run with its ``context`` (``machine``)."""

    context: Context

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.held: list[Held] = []
        self.diverged = False  # a known deviation left the two sides apart
        # Target calls made, and made by the last check of the held results: a rule that
        # calls nothing (an arrival) cannot change them.
        self.calls = self.calls_checked = 0
        self.real_steps = 0  # steps whose batch prepare_inputs built (tests/reach.py)

    @contextmanager
    def _checks(self, diverges: bool = False) -> Iterator[None]:
        """Every check of the block, its known deviations set aside (``Context``). In a
        step that must change nothing (``diverges``), a known deviation may have left
        the target's table apart from the reference's: the run ends there."""
        try:
            with every_failure():
                yield
        except ContractViolation as exc:
            self.context.set_aside(exc)
            self.diverged = self.diverged or diverges

    # --- setup -------------------------------------------------------------------------

    @initialize(deployment=deployments())
    def start(self, deployment: Deployment) -> None:
        ctx = self.context
        self.deployment = deployment
        self.engine = Engine(deployment, ctx.max_model_len)
        self.sides = [self._side(ctx.target)]
        if ctx.reference is not None:
            self.sides.append(self._side(ctx.reference))
        # target slot -> reference slot, and the groups of reference slots freed together
        self.relabel = np.arange(deployment.max_num_reqs)
        self.freed_together: dict[int, int] = {}
        note(f"deployment: {deployment}")

    def _side(self, impl: Target) -> Side:
        d, device = self.deployment, self.context.device
        return Side(
            impl,
            self._call(impl.SlotTable, d.max_num_reqs),
            self._call(impl.InputBuffers, d.max_num_reqs, d.max_num_tokens, device),
            [
                self._call(impl.InputBuffers, 2 * d.max_num_reqs, d.max_num_tokens, device)
                for _ in range(d.pcp_world_size)
                if d.pcp_world_size > 1
            ],
        )

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """A target call, with pytest-timeout's stop turned into the suite's (so
        Hypothesis does not call the hung function again while shrinking)."""
        self.calls += 1
        try:
            return fn(*args, **kwargs)
        except pytest.fail.Exception as exc:
            if is_timeout(exc):
                raise TargetTimeout(
                    f"target {self.context.target.name} did not return in time ({exc})"
                ) from None
            raise

    def _run(self, fn: Any, *args: Any) -> Outcome:
        self.calls += 1
        try:
            return run(fn, *args)
        except pytest.fail.Exception as exc:
            if is_timeout(exc):
                raise TargetTimeout(
                    f"target {self.context.target.name} did not return in time ({exc})"
                ) from None
            raise

    # --- rules -------------------------------------------------------------------------

    @rule(arrivals=arrival_codes, count=arrival_counts, dummy=dummy_codes, plan=step_plans)
    def step(self, arrivals: bytes, count: int, dummy: bytes, plan: bytes) -> None:
        """One engine step: requests arrive (no runner call), a dummy batch may run
        first (warm-up, graph capture, an idle data-parallel rank), then the scheduler's
        step. Arrivals, dummies and steps are one rule, so that no run of the machine
        is left without real steps (Hypothesis' swarm testing turns rules off per run)."""
        if self.diverged:
            return
        self._arrive(arrivals, count)
        if dummy[-1] < DUMMY_BEFORE_STEP:
            self._dummy(dummy)
        self._step(self.engine.plan(plan))  # _arrive left the engine something to run

    def _arrive(self, codes: bytes, count: int) -> None:
        # An idle engine gets at least one request: every step has something to run.
        count = count or int(not (self.engine.running or self.engine.waiting))
        for req in self.engine.arrive(codes, count):
            note(f"arrives: {req}")

    def _dummy(self, codes: bytes) -> None:
        """A dummy batch into the same buffers: no request changes (F2)."""
        if self.real_steps:
            self.engine.reached.add(DUMMY_BETWEEN)
        d = self.deployment
        a, b, c, _ = codes[:DUMMY_BYTES]
        num_reqs = 1 + (a << 8 | b) % min(d.max_num_reqs, d.max_num_tokens)
        num_tokens = num_reqs + (b << 8 | c) % (d.max_num_tokens - num_reqs + 1)
        longest = -(-num_tokens // num_reqs)
        max_query_len = None if c % 2 or not allows("max_query_len") else longest + c % 3
        call = f"make_dummy({num_reqs}, {num_tokens}, buffers, max_query_len={max_query_len})"
        self.steps += 1
        note(f"step {self.steps}: {call}")
        tables = [freeze(table_state(s.table)) for s in self.sides]
        outs = [
            self._run(s.impl.make_dummy, num_reqs, num_tokens, s.buffers, max_query_len)
            for s in self.sides
        ]
        synchronize(self.context.device)
        got = outs[0]
        with self._checks():
            self._agree(call, outs, [f for f in BATCH_FIELDS if f != "req_ids"], slots=False)
            for side, before in zip(self.sides, tables, strict=True):
                change = difference(before, freeze(table_state(side.table)), "table")
                if change:
                    fail(
                        f"{call}: the slot table changed (a dummy step reads and writes "
                        f"none, CONTRACT F2): {change}"
                    )
        if got.error is None:
            self._hold(f"step {self.steps}'s dummy batch", got.value, self.sides[0].buffers)

    # --- one scheduler step -------------------------------------------------------------

    def _step(self, step: Step) -> None:
        self.steps += 1
        note(f"step {self.steps}: {step.describe()}")
        updated = [self._run(s.impl.update_states, step.batch, s.table) for s in self.sides]
        with self._checks():
            if updated[0].error is not None:
                fail(f"{UPDATE_CALL}: raised {type(updated[0].error).__name__}: {updated[0].error}")
            if len(updated) == 2:
                assert_same_outcome(UPDATE_CALL, updated[1], updated[0])
        self._relabel_new(step)
        self.engine.admit(step)
        with self._checks():
            self._check_table()
        if not step.batch.num_scheduled_tokens:
            return  # vLLM's runner stops after the update when nothing is scheduled
        if step.missing:
            self._step_that_raises(step)
            return
        dql = self.deployment.decode_query_len
        outs = [
            self._run(s.impl.prepare_inputs, step.batch, s.table, s.buffers, dql)
            for s in self.sides
        ]
        synchronize(self.context.device)
        got = outs[0]
        with self._checks():
            self._agree(PREPARE_CALL, outs, BATCH_FIELDS)
            if got.error is None:
                self._check_batch(step, got.value)
        self._hold(f"step {self.steps}'s batch", got.value, self.sides[0].buffers)
        self.real_steps += 1
        if self.deployment.pcp_world_size > 1:
            self.engine.reached.add(PCP_STEP)
            self._partition(step, [o.value for o in outs])
        self.engine.advance(step)

    def _step_that_raises(self, step: Step) -> None:
        self.engine.reached.add(UNKNOWN_ID_STEP)
        dql = self.deployment.decode_query_len
        target = self.sides[0]
        state.fill_with_sentinels({"buffers": target.buffers})
        before = state.snapshot({"table": target.table, "buffers": target.buffers})
        outs = [
            self._run(s.impl.prepare_inputs, step.batch, s.table, s.buffers, dql)
            for s in self.sides
        ]
        got = outs[0]
        with self._checks(diverges=True):
            if not (
                type(got.error) is KeyError
                and len(got.error.args) == 1
                and got.error.args[0] in step.missing
            ):
                fail(
                    f"{PREPARE_CALL}: scheduled {list(step.missing)!r}, which the table "
                    f"does not hold; expected exactly KeyError({step.missing[0]!r}), got "
                    f"{got.describe()} (CONTRACT F1.2, F4)"
                )
            if len(outs) == 2:
                assert_same_outcome(PREPARE_CALL, outs[1], got, step.missing)
            state.assert_unchanged(
                f"{PREPARE_CALL} after its KeyError",
                before,
                {"table": target.table, "buffers": target.buffers},
            )

    def _partition(self, step: Step, globals_: list[Any]) -> None:
        world = self.deployment.pcp_world_size
        for rank in range(world):
            call = f"partition_batch(global_batch, {world}, {rank}, rank_buffers[{rank}])"
            outs = [
                self._run(s.impl.partition_batch, g, world, rank, s.rank_buffers[rank])
                for s, g in zip(self.sides, globals_, strict=True)
            ]
            synchronize(self.context.device)
            got = outs[0]
            with self._checks():
                self._agree(call, outs, LOCAL_FIELDS)
                if got.error is None:
                    self._check_rank(call, globals_[0], got.value, world, rank)
            self._hold(
                f"step {self.steps}'s rank {rank} batch",
                got.value,
                self.sides[0].rank_buffers[rank],
            )

    def _hold(self, label: str, value: Any, buffers: Any) -> None:
        if value is not None:
            self.held.append(hold(label, value, buffers))

    @invariant()
    def earlier_results_hold(self) -> None:
        """Every batch returned earlier still holds every value it held."""
        if self.diverged or self.calls == self.calls_checked:
            return
        self.calls_checked = self.calls
        synchronize(self.context.device)
        with self._checks():
            for held in self.held:
                change = change_since_held(held)
                if change:
                    fail(change)


class UnknownIdsLoop(EngineLoopBase):
    """The ``unknown_ids`` life: steps, and steps naming an id the table lacks."""

    @rule(arrivals=arrival_codes, count=arrival_counts, plan=step_plans)
    def step_naming_an_id_the_table_lacks(self, arrivals: bytes, count: int, plan: bytes) -> None:
        """A scheduled id that left earlier (or was never seen): the update applies,
        ``prepare_inputs`` raises ``KeyError`` and changes nothing, the run goes on."""
        if self.diverged:
            return
        self._arrive(arrivals, count)
        reuse = plan[-1] % (MAX_ARRIVALS + 1)
        gone = [r for r in self.engine.left if r not in self.engine._taken()]
        missing = gone[reuse % len(gone)] if gone and reuse > 1 else self.engine.fresh_id()
        self._step(self.engine.plan(plan, missing=[missing]))


class FullTableLoop(EngineLoopBase):
    """The ``full_table`` life: steps, and steps past a full table (on tables that a
    few steps' arrivals fill)."""

    @initialize(deployment=deployments(small_tables=True))
    def start(self, deployment: Deployment) -> None:
        super().start(deployment)

    @rule(arrivals=arrival_codes, count=arrival_counts, plan=step_plans)
    def step_past_a_full_table(self, arrivals: bytes, count: int, plan: bytes) -> None:
        """More new requests than free slots: refused, and nothing changes. (Requests
        arrive first; while the queue does not outnumber the free slots, the step is
        an ordinary one.)"""
        if self.diverged:
            return
        self._arrive(arrivals, count)
        if len(self.engine.waiting) <= self.engine.free_slots:
            self._step(self.engine.plan(plan))
            return
        step = self.engine.plan(plan, overfill=True)
        self.engine.reached.add(OVERFULL_STEP)
        self.steps += 1
        note(f"step {self.steps} (past a full table): {step.describe()}")
        before = [state.snapshot({"table": s.table}) for s in self.sides]
        outcomes = [self._run(s.impl.update_states, step.batch, s.table) for s in self.sides]
        with self._checks(diverges=True):
            if outcomes[0].error is None:
                fail(
                    f"{UPDATE_CALL}: the step adds {len(step.new)} requests to a table with "
                    f"{self.engine.free_slots} free slots (after its finished ids "
                    f"{sorted(step.finished)!r} leave); it must be refused (CONTRACT F4)"
                )
            if len(outcomes) == 2:
                assert_same_outcome(UPDATE_CALL + " past a full table", outcomes[1], outcomes[0])
            for side, snap in zip(self.sides, before, strict=True):
                state.assert_unchanged(
                    f"{side.impl.name}: {UPDATE_CALL}, refused", snap, {"table": side.table}
                )


# Each life's rules are its class's: a life has no rule that it cannot run (Hypothesis'
# swarm testing would otherwise spend runs with only such rules turned on).
_LIVES: dict[str, type[EngineLoopBase]] = {
    "steady": EngineLoopBase,
    "unknown_ids": UnknownIdsLoop,
    "full_table": FullTableLoop,
}


def machine(context: Context) -> type[EngineLoopBase]:
    """The machine class for one test run (a class per run: the bases stay as the
    suite's fingerprint recorded them)."""
    return type("EngineLoop", (_LIVES[context.life],), {"context": context})

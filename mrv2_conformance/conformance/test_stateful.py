"""Family `stateful`: one target through an engine's life (conformance/engine_loop.py).

Requests arrive, run for many steps (chunked prefills continuing from earlier steps,
decodes with and without drafts), finish and come back; dummy steps and PCP steps sit
between real ones; a step names an id the table lacks, or admits more requests than
it holds; one slot table and one set of input buffers serve the whole run, with the
reference driven in lockstep. A failure prints the shrunk program of steps
(``state.step(...)``), each step's scheduler output, and the command that replays it.
"""

from __future__ import annotations

import pytest
from hypothesis import reproduce_failure, settings
from hypothesis.stateful import run_state_machine_as_test
from mrv2_conformance.conformance.assertions import ContractViolation
from mrv2_conformance.conformance.differential import REFERENCE, reference_target
from mrv2_conformance.conformance.engine_loop import LIVES, Context, machine
from mrv2_conformance.impl._checks import INT32_MAX

pytestmark = pytest.mark.stateful

# Steps per run, and runs per profile's max_examples (a run of real steps is ~40
# property examples' work): the steady life most, the lives with an error path (which
# also run the steady one's steps) less.
STEPS = 15
RUNS_PER_EXAMPLES = {"steady": 1 / 7, "unknown_ids": 1 / 12, "full_table": 1 / 14}


def run_settings(life: str) -> settings:
    current = settings()
    runs = max(4, int(current.max_examples * RUNS_PER_EXAMPLES[life]))
    return settings(current, max_examples=runs, stateful_step_count=STEPS)


@pytest.mark.parametrize("life", LIVES)
def test_engine_loop(target, device, life, known_deviations):
    """``steady``: arrivals, steps, finishes, re-adds, dummies, PCP ranks.
    ``unknown_ids``: and steps naming an id the table lacks. ``full_table``: and steps
    past a full table."""
    reference = None if target.name == REFERENCE else reference_target(target.revision)
    context = Context(
        target,
        reference,
        device,
        target.max_model_len or INT32_MAX,
        life,
        known=tuple(known_deviations),
    )
    loop = machine(context)
    if test_engine_loop.replay_state_machine:  # --reproduce (plugin/reproduce.py)
        version, blob = test_engine_loop.replay_state_machine
        loop = reproduce_failure(version, blob.encode())(loop)
    run_state_machine_as_test(loop, settings=run_settings(life))
    if context.seen:  # only known deviations showed: the xfails entries report them
        raise ContractViolation(sorted(context.seen))


test_engine_loop.replay_state_machine = None

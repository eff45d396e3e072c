"""The stateful family's engine loop (conformance/test_stateful.py) in the form HypoFuzz
fuzzes: a unittest case per life whose ``runTest`` names its state machine factory
(as Hypothesis' ``RuleBasedStateMachine.TestCase`` does). The campaign command adds
this module to what it collects; a find replays under plain pytest by naming it
(``mrv2_conformance.campaign.stateful``), as the campaign's report prints.

Each factory is a module-level function: Hypothesis keys a stateful test's examples by
its factory's source, so the three lives keep apart in a shared database and a find
replays in any process. The machine is the suite's own, on the session's target, the
reference in lockstep, on the host; known deviations (the xfails entries of
``test_engine_loop``) are set aside and the run goes on, as in a normal run."""

from __future__ import annotations

import unittest
from collections.abc import Callable

import pytest
from hypothesis.stateful import run_state_machine_as_test
from mrv2_conformance.conformance.differential import REFERENCE, reference_target
from mrv2_conformance.conformance.engine_loop import Context, EngineLoopBase, machine
from mrv2_conformance.conformance.target import Target
from mrv2_conformance.conformance.test_stateful import run_settings
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.plugin import xfails
from mrv2_conformance.plugin.session import run

pytestmark = pytest.mark.stateful

# The context of each life in this process, set by each case's fixture.
_contexts: dict[str, Context] = {}


def steady_engine() -> EngineLoopBase:
    return machine(_contexts["steady"])()


def unknown_ids_engine() -> EngineLoopBase:
    return machine(_contexts["unknown_ids"])()


def full_table_engine() -> EngineLoopBase:
    return machine(_contexts["full_table"])()


class _EngineCase(unittest.TestCase):
    __test__ = False  # the lives below are the cases
    life = "steady"

    @pytest.fixture(autouse=True)
    def _engine_context(self, target: Target, request: pytest.FixtureRequest) -> None:
        known = xfails.matching(
            run(request.config).xfails or [],
            f"conformance/test_stateful.py::test_engine_loop[cpu-{self.life}]",
        )
        tgt = target
        _contexts[self.life] = Context(
            tgt,
            None if tgt.name == REFERENCE else reference_target(tgt.revision),
            "cpu",
            tgt.max_model_len or INT32_MAX,
            self.life,
            known=tuple(known),
        )


def _case(life: str, factory: Callable[[], EngineLoopBase]) -> type[unittest.TestCase]:
    def runTest(self: unittest.TestCase) -> None:
        # A factory function, as its docs allow (its annotation says a class).
        run_state_machine_as_test(factory, settings=run_settings(life))  # type: ignore[arg-type]

    # What HypoFuzz looks for (hypothesis.stateful's TestCase sets the same two).
    runTest.is_hypothesis_test = True  # type: ignore[attr-defined]
    runTest._hypothesis_state_machine_class = factory  # type: ignore[attr-defined]
    name = "TestEngineLoop" + "".join(w.title() for w in life.split("_"))
    return type(
        name,
        (_EngineCase,),
        {
            "__test__": True,
            "life": life,
            "runTest": runTest,
            # HypoFuzz runs the machine with the case's settings (its step count).
            "settings": run_settings(life),
            "__module__": __name__,
            "__qualname__": name,
        },
    )


TestEngineLoopSteady = _case("steady", steady_engine)
TestEngineLoopUnknownIds = _case("unknown_ids", unknown_ids_engine)
TestEngineLoopFullTable = _case("full_table", full_table_engine)

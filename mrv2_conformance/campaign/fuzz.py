"""The campaign's HypoFuzz process: ``python -m mrv2_conformance.campaign.fuzz
[HypoFuzz options] -- [pytest args]``, started by the campaign command (command.py).

Two mends to HypoFuzz 25.11 are made here, in this process (and its workers) only:

- when a worker leaves a property for another, HypoFuzz tears the property's fixtures
  down (session-scoped ones too) but keeps the pytest request that cached them, so
  coming back to the property fails with "The fixture value for 'target' is not
  available" (pytest 8 and 9). The request is made anew after the teardown, as pytest
  does after each test;
- a fixture that skips its property (``reference`` does, when the target is the
  reference) ended the worker with an AssertionError (HypoFuzz looks for the example
  that skipped, and there is none). The property is set aside for the campaign, as
  HypoFuzz sets aside one that skips in its body."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def _mend() -> None:
    from _pytest.outcomes import Skipped
    from hypofuzz import hypofuzz

    target_class = hypofuzz.FuzzTarget
    if getattr(target_class, "_mrv2_mended", False):
        return
    exit_fixtures, enter_fixtures = target_class._exit_fixtures, target_class._enter_fixtures

    def _exit_fixtures(self: Any) -> None:
        exit_fixtures(self)
        if self.pytest_item is not None:
            self.pytest_item._initrequest()

    def _enter_fixtures(self: Any) -> None:
        try:
            enter_fixtures(self)
        except Skipped:
            # Undo the partial setup (pytest's setup state would refuse the next
            # property), then what the worker does with a property that failed
            # fatally: no longer fuzzed; unlike a fatal failure, nothing is recorded.
            self.pytest_item.session._setupstate.teardown_exact(None)
            self.pytest_item._initrequest()
            self.skipped_dynamically = self.failed_fatally = True
            raise hypofuzz.FailedFatally from None

    target_class._exit_fixtures = _exit_fixtures
    target_class._enter_fixtures = _enter_fixtures
    target_class._mrv2_mended = True


FLUSH_S = 5.0


def _stop_now(signum: int, frame: object) -> None:
    """The budget is over (command.py stops the process group). No exception may be
    raised into the property being run: Hypothesis counts even SystemExit as a failure,
    and HypoFuzz would record the interrupted example as a find. So: let the database's
    background writer finish what is queued, then leave at once."""
    import gc
    import warnings

    from hypothesis.database import BackgroundWriteDatabase

    with warnings.catch_warnings():  # isinstance() on some torch objects warns
        warnings.simplefilter("ignore")
        writers = [o for o in gc.get_objects() if isinstance(o, BackgroundWriteDatabase)]
    for db in writers:
        db._join(FLUSH_S)
    sys.stdout.flush()
    os._exit(0)


def main(argv: list[str]) -> int:
    from mrv2_conformance.plugin.campaign import CAMPAIGN_ENV_VAR

    os.environ[CAMPAIGN_ENV_VAR] = "1"  # the suite's campaign plugin (plugin/campaign.py)
    signal.signal(signal.SIGTERM, _stop_now)  # HypoFuzz's forked workers inherit it
    _mend()
    from hypofuzz.entrypoint import fuzz

    return int(fuzz.main(args=argv, prog_name="hypothesis fuzz", standalone_mode=False) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

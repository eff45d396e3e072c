"""The campaign's HypoFuzz process: ``python -m mrv2_conformance.campaign.fuzz
[HypoFuzz options] -- [pytest args]``, started by the campaign command (command.py).

One mend to HypoFuzz 25.11 is made here, in this process only: when a worker leaves a
property for another, HypoFuzz tears the property's fixtures down (session-scoped
ones too) but keeps the pytest request that cached them, so coming back to the
property fails with "The fixture value for 'target' is not available" (pytest 8 and
9). The request is made anew after the teardown, as pytest does after each test."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def _mend_fixture_reentry() -> None:
    from hypofuzz import hypofuzz

    exit_fixtures = hypofuzz.FuzzTarget._exit_fixtures
    if getattr(exit_fixtures, "_mrv2_mended", False):
        return

    def _exit_fixtures(self: Any) -> None:
        exit_fixtures(self)
        if self.pytest_item is not None:
            self.pytest_item._initrequest()

    _exit_fixtures._mrv2_mended = True  # type: ignore[attr-defined]
    hypofuzz.FuzzTarget._exit_fixtures = _exit_fixtures


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
    _mend_fixture_reentry()
    from hypofuzz.entrypoint import fuzz

    return int(fuzz.main(args=argv, prog_name="hypothesis fuzz", standalone_mode=False) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

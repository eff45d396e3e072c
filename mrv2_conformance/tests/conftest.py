"""The suite's own tests: the negative controls' kill matrix (mutant x family), which
a test records on its report, printed at the end of the run (also under xdist: the
report travels to the controller)."""

from __future__ import annotations

from typing import Any

import pytest

KILL_MATRIX = "kill_matrix"
_MATRIX = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_KeepMatrix(config), "mrv2-kill-matrix")


class _KeepMatrix:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == KILL_MATRIX:
                self.config.stash[_MATRIX] = str(value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        matrix = self.config.stash.get(_MATRIX, None)
        if matrix:
            terminalreporter.section("negative controls: kill matrix (mutant x family)")
            terminalreporter.write(matrix)

"""``mrv2-conformance [--target MODULE] [pytest args]``: the installed suite, from any
directory, with the suite's own pytest configuration (never the one of the project it
is run from). Without a test argument it runs every property
(``mrv2_conformance.conformance``); a test is named as ``--pyargs`` names it, e.g.
``mrv2_conformance.conformance.test_keyerror``, as the reproduction commands do."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mrv2_conformance import CLI_ARGS_ENV_VAR, suite_root

INI = Path(__file__).with_name("pytest.ini")
PROPERTIES = "mrv2_conformance.conformance"


# Options whose value is the next argument (pytest's, its plugins' and the suite's
# most used): their values are not test names.
_TAKES_VALUE = frozenset({
    "-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--tb", "--maxfail", "--junitxml",
    "--rootdir", "--dist", "--durations", "--timeout", "--basetemp", "--deselect",
    "--ignore", "--hypothesis-seed", "--hypothesis-profile", "--hypothesis-verbosity",
    "--target", "--xfails", "--conformance-report", "--save-failures", "--replay",
    "--reproduce", "--device", "--device-type", "--target-timeout", "--numprocesses"})


def _names_tests(args: list[str]) -> bool:
    """Whether the arguments name tests (a module as --pyargs names it, or a path)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in _TAKES_VALUE
        elif arg.startswith("mrv2_conformance") or Path(arg.split("::")[0]).exists():
            return True
    return False


def pytest_args(args: list[str]) -> list[str]:
    return ["-c", str(INI), f"--rootdir={suite_root()}", "-p", "mrv2_conformance.plugin",
            "--pyargs", *([] if _names_tests(args) else [PROPERTIES]), *args]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    os.environ[CLI_ARGS_ENV_VAR] = json.dumps(args)
    # As `python -m` does: a target module in the current directory imports.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return int(pytest.main(pytest_args(args)))


if __name__ == "__main__":
    sys.exit(main())

"""How the suite's pytest is invoked, for the ``mrv2-conformance`` command (cli.py)
and the campaign's workers (campaign/command.py): the suite's own configuration and
plugin, and the properties unless the arguments name tests."""

from __future__ import annotations

from pathlib import Path

from mrv2_conformance import suite_root

INI = Path(__file__).with_name("pytest.ini")
PROPERTIES = "mrv2_conformance.conformance"


# Options whose value is the next argument (pytest's, its plugins' and the suite's
# most used): their values are not test names.
_TAKES_VALUE = frozenset(
    {
        "-k",
        "-m",
        "-p",
        "-c",
        "-o",
        "-n",
        "-W",
        "-r",
        "--tb",
        "--maxfail",
        "--junitxml",
        "--rootdir",
        "--dist",
        "--durations",
        "--timeout",
        "--basetemp",
        "--deselect",
        "--ignore",
        "--hypothesis-seed",
        "--hypothesis-profile",
        "--hypothesis-verbosity",
        "--target",
        "--xfails",
        "--conformance-report",
        "--save-failures",
        "--replay",
        "--reproduce",
        "--device",
        "--device-type",
        "--target-timeout",
        "--numprocesses",
    }
)


def names_tests(args: list[str]) -> bool:
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
    return [
        "-c",
        str(INI),
        f"--rootdir={suite_root()}",
        "-p",
        "mrv2_conformance.plugin",
        "--pyargs",
        *([] if names_tests(args) else [PROPERTIES]),
        *args,
    ]

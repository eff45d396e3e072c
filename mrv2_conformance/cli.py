"""``mrv2-conformance [--target MODULE] [pytest args]``: the installed suite, from any
directory, with the suite's own pytest configuration (never the one of the project it
is run from). Without a test argument it runs every property
(``mrv2_conformance.conformance``); a test is named as ``--pyargs`` names it, e.g.
``mrv2_conformance.conformance.test_keyerror``, as the reproduction commands do."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from mrv2_conformance import CLI_ARGS_ENV_VAR
from mrv2_conformance.invocation import pytest_args

# pytest's options a run of the suite uses most (the rest: --help-pytest).
_PYTEST_OPTIONS = (
    ("-m FAMILY", "one contract family (a partial run: it never conforms)"),
    ("-k EXPR", "properties whose names match (a partial run)"),
    ("-n N | -n auto", "N xdist workers; auto: one per idle CPU"),
    ("-x, --maxfail N", "stop after the first (N) failures (a partial run)"),
    ("--hypothesis-profile P", "dev (default), ci (derandomized), thorough"),
    ("--hypothesis-seed N", "rerun a random run (the header and rerun line name it)"),
    ("-q, -v", "less, more output"),
)


def usage() -> str:
    """The suite's own options first and briefly (pytest's --help lists hundreds)."""
    from mrv2_conformance.plugin import pytest_addoption

    parser = pytest.Parser()
    pytest_addoption(parser)
    rows = [
        (
            ", ".join(o.names()) + (f" {o.attrs()['metavar']}" if o.attrs().get("metavar") else ""),
            str(o.attrs().get("help", "")),
        )
        for o in parser.getgroup("mrv2-conformance").options
    ]
    width = max(len(name) for name, _ in [*rows, *_PYTEST_OPTIONS]) + 2

    def table(pairs: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> list[str]:
        return [
            textwrap.fill(
                " ".join(text.split()),
                92,
                initial_indent=f"  {name:<{width}}",
                subsequent_indent=" " * (width + 2),
            )
            for name, text in pairs
        ]

    return "\n".join(
        [
            "usage: mrv2-conformance [options] [property ...]",
            "",
            "Runs the MRV2 index-contract properties against a target (default: the reference).",
            "A property is named as --pyargs names it, e.g. "
            "mrv2_conformance.conformance.test_keyerror.",
            "",
            "the suite's options:",
            *table(rows),
            "",
            "pytest's options a run uses most:",
            *table(_PYTEST_OPTIONS),
            "",
            "every pytest option: mrv2-conformance --help-pytest",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["campaign"]:  # a fuzzing campaign (mrv2_conformance/campaign/)
        from mrv2_conformance.campaign import command

        return command.main(args[1:])
    if "--help-pytest" in args:
        return int(pytest.main(pytest_args(["--help"])))
    if "-h" in args or "--help" in args:
        sys.stdout.write(usage())
        return 0
    os.environ[CLI_ARGS_ENV_VAR] = json.dumps(args)
    # A target module in the current directory imports: the plugin puts the directory
    # a run starts from on the path (plugin/__init__.py, _start).
    return int(pytest.main(pytest_args(args)))


if __name__ == "__main__":
    sys.exit(main())

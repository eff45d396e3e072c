"""Reproducing a failure: one command per failed example, and one per failed run.

The recorder is Hypothesis' own: under every profile of the suite (``print_blob``) a
failure carries the choice sequence of its example, ``@reproduce_failure(version,
blob)``. ``--reproduce VERSION:BLOB`` applies it to the one selected property, so the
printed command rebuilds the very input, calls the target and runs the same checks:
it fails with the same message, from any directory, with nothing but the installed
suite and the target importable. A failure of an explicit example has no blob: its
command reruns the property, whose explicit examples run first.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path


import pytest
from hypothesis import reproduce_failure

from mrv2_conformance import CLI_ARGS_ENV_VAR, suite_root
from mrv2_conformance.plugin.target import TARGET_ENV_VAR
from mrv2_conformance.plugin.timeouts import is_hang, timeout_text

SECTION = "Reproduce with:"
_BLOB = re.compile(r"@reproduce_failure\('([^']+)', b'([^']+)'\)")


def parse_blob(value: str) -> tuple[str, str]:
    version, sep, blob = value.partition(":")
    if not sep or not version or not blob:
        raise pytest.UsageError(
            f"--reproduce {value!r}: expected VERSION:BLOB, as printed under '{SECTION}'"
        )
    return version, blob


def blobs(exc: BaseException) -> list[tuple[str, str]]:
    """The (version, blob) of every failing example recorded on ``exc`` and on the
    exceptions it groups, each once."""
    found = [
        (m.group(1), m.group(2))
        for e in _walk(exc)
        for note in getattr(e, "__notes__", ())
        for m in _BLOB.finditer(str(note))
    ]
    return list(dict.fromkeys(found))


def pyarg(item: pytest.Item) -> str:
    """The item as ``--pyargs`` names it: ``mrv2_conformance.conformance.test_x::test_y[cpu]``."""
    rel = Path(item.path).resolve().relative_to(suite_root()).with_suffix("")
    return f"mrv2_conformance.{'.'.join(rel.parts)}::{item.name}"


def command(item: pytest.Item, target: str, blob: tuple[str, str] | None) -> str:
    args = ["python", "-m", "mrv2_conformance", "--target", target, pyarg(item)]
    if blob is not None:
        args += ["--reproduce", ":".join(blob)]
    return shlex.join(args)


COMMANDS_KEY = pytest.StashKey[list[str]]()


def _walk(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it groups, at any depth."""
    return [exc, *(e for sub in getattr(exc, "exceptions", ()) for e in _walk(sub))]


def _leaves(exc: BaseException) -> list[BaseException]:
    return [e for e in _walk(exc) if not getattr(e, "exceptions", None)]


def _take_hints(exc: BaseException) -> list[tuple[str, str]]:
    """The (version, blob) of every failing example recorded on ``exc`` (and the
    exceptions it groups), with Hypothesis' hint to decorate the test with
    ``@reproduce_failure`` removed: an installed suite's user cannot edit the test;
    the suite's command replays the same record."""
    found = blobs(exc)
    for e in _walk(exc):
        notes = getattr(e, "__notes__", None)
        if notes:
            notes[:] = [n for n in notes if not _BLOB.search(str(n))]
    return found


def _commands(item: pytest.Item, target: str, found: list[tuple[str, str]]) -> str:
    """The reproduction commands of a failure (one per recorded example, else one that
    reruns the property), kept for the report; the section that shows them."""
    examples: list[tuple[str, str] | None] = [*found] or [None]
    commands = [command(item, target, b) for b in examples]
    item.stash[COMMANDS_KEY] = commands
    return SECTION + "".join(f"\n  {c}" for c in commands)


def on_failure(item: pytest.Item, exc: BaseException, target: str) -> None:
    """A property failed: its reproduction commands replace Hypothesis' hint, in the
    exception's notes (so in what the terminal shows), and are kept for the report."""
    if is_hang(exc):
        return
    found = _take_hints(exc)
    if not item.config.getoption("--reproduce"):  # else this run is the reproduction
        exc.add_note(_commands(item, target, found))


def on_report(rep: pytest.TestReport, item: pytest.Item, exc: BaseException, target: str) -> None:
    """A property that failed where ``on_failure`` did not see it (its setup, the
    tamper check after its body): its command, as a section of the report."""
    if COMMANDS_KEY in item.stash or is_hang(exc) or item.config.getoption("--reproduce"):
        return
    section = _commands(item, target, blobs(exc)) + "\n"
    addsection = getattr(rep.longrepr, "addsection", None)
    if addsection is not None:  # shown after the traceback, and in str()
        addsection("mrv2-conformance", section)
    else:
        rep.longrepr = f"{rep.longrepr}\n{section}"


def failure_record(item: pytest.Item, exc: BaseException, target: str) -> dict[str, str]:
    """What the reports keep of a failure, from the exception itself: every line of
    its message (each failure of a group), the example that failed (Hypothesis'
    notes) and the reproduction commands."""
    if is_hang(exc):
        return {"message": timeout_text(exc, target), "falsifying_example": "", "reproduction": ""}
    leaves = _leaves(exc)
    messages = []
    for leaf in leaves:
        text = str(leaf).strip()
        # pytest.fail(...) prints its bare message, as an assertion does
        bare = isinstance(leaf, AssertionError | pytest.fail.Exception) and text
        messages.append(text if bare else f"{type(leaf).__name__}: {text}")
    noted = leaves if exc in leaves else [*leaves, exc]
    notes = [
        str(n) for e in noted for n in getattr(e, "__notes__", ()) if not str(n).startswith(SECTION)
    ]
    commands: list[str] = item.stash.get(COMMANDS_KEY, [])
    return {
        "message": "\n".join(messages),
        "falsifying_example": "\n".join(notes),
        "reproduction": "\n".join(commands),
    }


def apply(items: list[pytest.Item], value: str) -> None:
    """Make the one selected property replay the recorded example."""
    version, blob = parse_blob(value)
    on_worker = bool(items) and hasattr(items[0].config, "workerinput")
    if len(items) != 1 and not on_worker:
        raise pytest.UsageError(
            f"--reproduce replays one property's example; select exactly one property "
            f"({len(items)} selected)"
        )
    for item in items:
        assert isinstance(item, pytest.Function)  # collected properties are functions
        if hasattr(item.obj, "replay_state_machine"):
            # A stateful property runs its machine itself: it applies the record to it
            # (Hypothesis refuses @reproduce_failure on a test without @given).
            item.obj.replay_state_machine = (version, blob)
        else:
            reproduce_failure(version, blob.encode())(item.obj)


def rerun_command(config: pytest.Config) -> str:
    """One command that reruns the whole run, with the seed and profile it used."""
    cli = os.environ.get(CLI_ARGS_ENV_VAR)
    if cli is not None:
        prefix, args = ["python", "-m", "mrv2_conformance"], list(json.loads(cli))
    else:
        prefix, args = ["python", "-m", "pytest"], list(config.invocation_params.args)
    given = " ".join(args)
    seed = config.getoption("hypothesis_seed", None)
    if seed is not None and "--hypothesis-seed" not in given:
        args.append(f"--hypothesis-seed={seed}")
    profile = os.environ.get("HYPOTHESIS_PROFILE")
    if profile and "--hypothesis-profile" not in given:
        args.append(f"--hypothesis-profile={profile}")
    target = os.environ.get(TARGET_ENV_VAR)
    if target and "--target" not in given:
        args.append(f"--target={target}")
    return f"cd {shlex.quote(str(config.invocation_params.dir))} && {shlex.join(prefix + args)}"

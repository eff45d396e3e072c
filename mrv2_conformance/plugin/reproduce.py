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

import functools
import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import reproduce_failure

from mrv2_conformance import CLI_ARGS_ENV_VAR, suite_root
from mrv2_conformance.plugin.target import TARGET_ENV_VAR

SECTION = "Reproduce with:"
_BLOB = re.compile(r"@reproduce_failure\('([^']+)', b'([^']+)'\)")


def is_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is pytest-timeout's failure: raised from its signal handler (its
    message differs between releases: 'Timeout >2.0s', 'Timeout (>2.0s) from ...')."""
    if not isinstance(exc, pytest.fail.Exception):
        return False
    tb = exc.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).name == "pytest_timeout.py":
            return True
        tb = tb.tb_next
    return False


class TargetTimeout(BaseException):
    """A target call that did not return in time. A BaseException, so Hypothesis does
    not catch it and run the hung call again while shrinking."""


def parse_blob(value: str) -> tuple[str, str]:
    version, sep, blob = value.partition(":")
    if not sep or not version or not blob:
        raise pytest.UsageError(
            f"--reproduce {value!r}: expected VERSION:BLOB, as printed under '{SECTION}'"
        )
    return version, blob


def blobs(exc: BaseException) -> list[tuple[str, str]]:
    """The (version, blob) of every failing example recorded on ``exc``."""
    found = [
        (m.group(1), m.group(2))
        for note in getattr(exc, "__notes__", ())
        for m in _BLOB.finditer(str(note))
    ]
    for sub in getattr(exc, "exceptions", ()):
        found += [b for b in blobs(sub) if b not in found]
    return found


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


def _leaves(exc: BaseException) -> list[BaseException]:
    subs = getattr(exc, "exceptions", None)
    return [leaf for sub in subs for leaf in _leaves(sub)] if subs else [exc]


def _take_hints(exc: BaseException) -> list[tuple[str, str]]:
    """The (version, blob) of every failing example recorded on ``exc`` (and the
    exceptions it groups), with Hypothesis' hint to decorate the test with
    ``@reproduce_failure`` removed: an installed suite's user cannot edit the test;
    the suite's command replays the same record."""
    found = blobs(exc)
    for e in [exc, *getattr(exc, "exceptions", ())]:
        notes = getattr(e, "__notes__", None)
        if notes:
            notes[:] = [n for n in notes if not _BLOB.search(str(n))]
        if e is not exc:
            _take_hints(e)
    return found


def on_failure(item: pytest.Item, exc: BaseException, target: str) -> None:
    """A property failed: its reproduction commands replace Hypothesis' hint, in the
    exception's notes (so in what the terminal shows), and are kept for the report."""
    if isinstance(exc, TargetTimeout) or is_timeout(exc):
        return
    found: list[tuple[str, str] | None] = [*_take_hints(exc)] or [None]
    if item.config.getoption("--reproduce"):
        return  # this run is the reproduction
    commands = [command(item, target, b) for b in found]
    item.stash[COMMANDS_KEY] = commands
    exc.add_note(SECTION + "".join(f"\n  {c}" for c in commands))


def on_report(rep: pytest.TestReport, item: pytest.Item, exc: BaseException, target: str) -> None:
    """A property that failed where ``on_failure`` did not see it (its setup, the
    tamper check after its body): its command, as a section of the report."""
    if (
        COMMANDS_KEY in item.stash
        or isinstance(exc, TargetTimeout)
        or is_timeout(exc)
        or item.config.getoption("--reproduce")
    ):
        return
    found: list[tuple[str, str] | None] = [*blobs(exc)] or [None]
    commands = [command(item, target, b) for b in found]
    item.stash[COMMANDS_KEY] = commands
    section = SECTION + "".join(f"\n  {c}" for c in commands) + "\n"
    addsection = getattr(rep.longrepr, "addsection", None)
    if addsection is not None:  # shown after the traceback, and in str()
        addsection("mrv2-conformance", section)
    else:
        rep.longrepr = f"{rep.longrepr}\n{section}"


def failure_record(item: pytest.Item, exc: BaseException, target: str) -> dict[str, str]:
    """What the reports keep of a failure, from the exception itself: every line of
    its message (each failure of a group), the example that failed (Hypothesis'
    notes) and the reproduction commands."""
    if isinstance(exc, TargetTimeout) or is_timeout(exc):
        return {"message": timeout_text(exc, target), "falsifying_example": "", "reproduction": ""}
    messages, notes = [], []
    for leaf in _leaves(exc):
        text = str(leaf).strip()
        # pytest.fail(...) prints its bare message, as an assertion does
        bare = isinstance(leaf, AssertionError | pytest.fail.Exception) and text
        messages.append(text if bare else f"{type(leaf).__name__}: {text}")
        notes += [str(n) for n in getattr(leaf, "__notes__", ()) if not str(n).startswith(SECTION)]
    if exc not in _leaves(exc):
        notes += [str(n) for n in getattr(exc, "__notes__", ()) if not str(n).startswith(SECTION)]
    commands: list[str] = item.stash.get(COMMANDS_KEY, [])
    return {
        "message": "\n".join(messages),
        "falsifying_example": "\n".join(notes),
        "reproduction": "\n".join(commands),
    }


def timeout_text(exc: BaseException, target: str) -> str:
    return (
        str(exc)
        if isinstance(exc, TargetTimeout)
        else f"target {target} did not return within the timeout ({exc})"
    )


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


def guard_timeouts(item: pytest.Item, target: str, timeout: float) -> None:
    """Turn pytest-timeout's failure inside a property's body into ``TargetTimeout``,
    which ends the property at once (Hypothesis' ``inner_test`` is the documented
    place to wrap what runs per example)."""
    hyp = getattr(getattr(item, "obj", None), "hypothesis", None)
    if hyp is None or getattr(hyp.inner_test, "_mrv2_timeout_guard", False):
        return
    inner = hyp.inner_test

    @functools.wraps(inner)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return inner(*args, **kwargs)
        except pytest.fail.Exception as exc:
            if not is_timeout(exc):
                raise
            raise TargetTimeout(
                f"target {target} did not return within {timeout:g} s{_where(exc)}"
            ) from None

    guarded._mrv2_timeout_guard = True  # type: ignore[attr-defined]
    hyp.inner_test = guarded


def _where(exc: BaseException) -> str:
    """Where the call was stopped: its innermost frame outside pytest-timeout."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        if (
            "pytest_timeout" not in tb.tb_frame.f_code.co_filename
            and "_pytest" not in tb.tb_frame.f_code.co_filename
        ):
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f" (stopped in {code.co_name}, {code.co_filename}:{last.tb_lineno})"


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

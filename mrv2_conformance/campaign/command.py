"""``mrv2-conformance campaign``: every property of a target (the conformance families
and the engine loop) fuzzed by HypoFuzz for a given time over N processes, then the
finds and the command that replays each. HypoFuzz gives each process the properties
that make progress (new behaviours per second) and stops a property once it fails.

    mrv2-conformance campaign --target my_port --seconds 3600 -n 8 \\
        --database redis://fuzz-db.internal:6379/0 [pytest args]

The suite's options apply inside a campaign as in a normal run (--target, --xfails,
--target-timeout, --hypothesis-profile, -m, -k): they are pytest arguments that every
HypoFuzz worker collects with. Exit: 0 no find, 1 finds (or a property that could not
run), 4 bad input (one line), as the suite's runs do."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_DATABASE = ".mrv2-campaign"
STATEFUL = "mrv2_conformance.campaign.stateful"
# After the budget: HypoFuzz's processes get SIGTERM (campaign/fuzz.py ends each
# quietly), then SIGKILL after this long.
STOP_GRACE_S = 15.0
POLL_S = 1.0  # how often --exitfirst looks for a find in the database
INSTALL_HINT = (
    "campaigns need HypoFuzz (AGPL-3.0, an optional extra): "
    "pip install 'mrv2-conformance[campaign]'"
)


class UsageError(Exception):
    """Bad input: the message is the one line to print (exit 4)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mrv2-conformance campaign",
        description="Fuzz every property of a target with HypoFuzz for a given time; "
        "print each find and the command that replays it. Other arguments go to pytest "
        "(--target, --xfails, --target-timeout, -m, -k ...).",
    )
    p.add_argument("--seconds", type=float, default=600.0, help="budget (default 600)")
    p.add_argument(
        "-n", "--processes", type=int, default=os.cpu_count() or 1, help="HypoFuzz workers"
    )
    p.add_argument(
        "--database",
        default=DEFAULT_DATABASE,
        metavar="DIR|URL",
        help="where finds (and HypoFuzz's corpus) are kept: a directory, or a Redis "
        f"server every machine shares (redis://host:port/db) (default {DEFAULT_DATABASE})",
    )
    p.add_argument(
        "-x",
        "--exitfirst",
        action="store_true",
        help="stop at the first find, within the budget (a time to find)",
    )
    p.add_argument("--dashboard", action="store_true", help="serve HypoFuzz's dashboard")
    p.add_argument("--port", type=int, default=9999, help="the dashboard's port")
    p.add_argument("--target", default=None, help="the target module (as the suite's runs)")
    return p


def pytest_args(target: str | None, database: str, rest: list[str]) -> list[str]:
    """What every HypoFuzz worker collects with: the mrv2-conformance command's own
    arguments (its configuration, rootdir, plugin), the properties and the engine loop,
    and the database as the example database of the run."""
    from mrv2_conformance import invocation

    names = [] if invocation.names_tests(rest) else [invocation.PROPERTIES, STATEFUL]
    chosen = [*(["--target", target] if target else []), "--save-failures", database]
    # -n (xdist) would fork workers inside HypoFuzz's: the campaign's -n is HypoFuzz's.
    return invocation.pytest_args([*chosen, "-p", "no:xdist", *names, *rest])


def check(args: argparse.Namespace) -> None:
    from mrv2_conformance import exampledb

    if args.seconds <= 0:
        raise UsageError(f"--seconds {args.seconds:g}: the budget must be positive")
    if args.processes < 1:
        raise UsageError(f"-n {args.processes}: at least one process")
    try:
        import hypofuzz  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    try:
        exampledb.open_database(args.database)
    except exampledb.DatabaseError as exc:
        raise UsageError(f"--database {exc}") from None
    if not exampledb.is_url(args.database) and Path(args.database).is_file():
        raise UsageError(f"--database {args.database}: is a file, not an example database")


def fuzz(
    args: argparse.Namespace,
    collect_with: list[str],
    found: Callable[[], bool] | None = None,
) -> bool:
    """Run HypoFuzz in its own process group for the budget, or until ``found()``
    says there is a find (polled); the group is stopped after it (HypoFuzz itself runs
    until every property has failed). Whether the campaign was interrupted (Ctrl-C):
    what it found so far is reported all the same."""
    dashboard = ["--dashboard", "--port", str(args.port)] if args.dashboard else ["--no-dashboard"]
    cmd = [sys.executable, "-m", "mrv2_conformance.campaign.fuzz"]
    cmd += ["-n", str(args.processes), *dashboard, "--", *collect_with]
    proc = subprocess.Popen(cmd, start_new_session=True)
    interrupted = False
    deadline = time.monotonic() + args.seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            try:
                proc.wait(timeout=left if found is None else min(left, POLL_S))
                break
            except subprocess.TimeoutExpired:
                if found is not None and found():
                    break
    except KeyboardInterrupt:
        interrupted = True
    _stop(proc)
    return interrupted


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the whole group (each process finishes its queued database writes
    and leaves: campaign/fuzz.py), then SIGKILL to what is left after the grace."""
    group = proc.pid
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline:
        proc.poll()  # reaps the group's leader once it has left
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    proc.wait()


def report(args: argparse.Namespace, targets: list, since: float, target: str) -> int:
    from hypothesis import settings
    from mrv2_conformance.campaign import findings

    # The database the collection configured (--save-failures): the campaign's.
    rows = findings.read(targets, settings().database, since=since)
    examples = sum(r.examples for r in rows)
    print(
        f"\ncampaign: {len(rows)} properties of {target}, {examples} examples in "
        f"{time.time() - since:.0f} s over {args.processes} process(es); "
        f"database {_shown(args)}"
    )
    bad = [r for r in rows if r.finds or r.unconfirmed or r.fatal]
    for row in bad:
        for find, at in zip(row.finds, row.found_at, strict=True):
            print(f"FOUND {row.nodeid} ({max(0.0, at - since):.1f} s in): {find}")
        for find in row.unconfirmed:
            print(
                f"FOUND, NOT CONFIRMED {row.nodeid}: HypoFuzz's last run of the shrunk "
                f"example did not fail ({find}): flaky in the campaign; the replay tells"
            )
        if row.fatal:
            print(f"COULD NOT RUN {row.nodeid}: {row.fatal}")
        if row.finds or row.unconfirmed:
            print(f"  replay: {findings.replay_command(row, target, args.database)}")
    if not bad:
        print("no find")
    return 1 if bad else 0


def _shown(args: argparse.Namespace) -> str:
    from mrv2_conformance.exampledb import redact

    return redact(args.database)


def main(argv: list[str]) -> int:
    from mrv2_conformance.campaign import findings
    from mrv2_conformance.plugin.target import target_name

    args, rest = parser().parse_known_args(argv)
    try:
        check(args)
    except UsageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 4
    collect_with = pytest_args(args.target, args.database, rest)
    # Collected here first, as each worker will: a bad target or option ends the
    # campaign before it starts, with pytest's own line (HypoFuzz exits with its code).
    try:
        targets = findings.collect(collect_with)
    except findings.CollectionError as exc:
        if exc.code != 5:  # pytest's "no tests collected" is the line below
            print(str(exc), file=sys.stderr)
            return exc.code
        targets = []
    if not targets:
        print(
            "ERROR: nothing to fuzz: no property was selected, or every selected one is "
            "skipped for this target (see a normal run's -rs)",
            file=sys.stderr,
        )
        return 5
    since = time.time()
    found = None
    if args.exitfirst:
        from hypothesis import settings

        database = settings().database  # the campaign's (--save-failures configured it)
        found = lambda: findings.found_since(targets, database, since)  # noqa: E731
    if fuzz(args, collect_with, found):
        print(f"\ninterrupted after {time.time() - since:.0f} s", file=sys.stderr)
    return report(args, targets, since, target_name(args.target))

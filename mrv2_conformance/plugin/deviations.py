"""Known deviations in runs of the suite: the xfails files applied to the collected
tests, and a failure that each of its lines matches an entry's pattern reported as
an expected one (the format: plugin/xfails.py)."""

from __future__ import annotations

import warnings
from collections.abc import Generator

import pytest
from mrv2_conformance import suite_root
from mrv2_conformance.plugin import xfails
from mrv2_conformance.plugin.session import ITEM_XFAILS_KEY, run


def load(config: pytest.Config) -> list[xfails.Entry] | None:
    paths = config.getoption("--xfails")
    if paths is None:
        path = xfails.default_path(suite_root(), run(config).target_name)
        if not path.exists():
            return None
        paths = [path]
    try:
        return [e for path in paths for e in xfails.parse(path)]
    except xfails.XfailsFileError as exc:
        raise pytest.UsageError(f"xfails file: {exc}") from None


@pytest.hookimpl(trylast=True)  # after -m / -k deselection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    entries = run(config).xfails
    if entries is None:
        return
    # An entry that needs a cause the target does not declare does not apply: its
    # failure is reported (plugin/xfails.py, CONDITIONS).
    from mrv2_conformance.plugin.targets import target

    declared = frozenset(getattr(target(config).module, "CONDITIONS", ()))
    entries = run(config).xfails = xfails.holding(entries, declared)
    used = set()
    for item in items:
        found = xfails.matching(entries, item.nodeid)
        if found:
            used.update(found)
            item.stash[ITEM_XFAILS_KEY] = found
    for entry in entries:
        if entry not in used:
            warnings.warn(
                pytest.PytestWarning(
                    f"stale xfails entry {entry.source}:{entry.line}: {entry.prefix!r} matches no "
                    f"collected test"
                ),
                stacklevel=1,
            )


# tryfirst: the outermost wrapper, so it sees the report after the reproduction
# commands were attached (plugin/reporter.py).
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    rep = yield
    entries = item.stash.get(ITEM_XFAILS_KEY, None)
    if rep.when != "call" or not entries:
        return rep
    from mrv2_conformance.conformance.assertions import failure_lines

    names = ", ".join(e.where for e in entries)
    if rep.failed and call.excinfo is not None:
        used, uncovered = xfails.cover(entries, failure_lines(call.excinfo.value))
        if not uncovered:
            rep.outcome = "skipped"
            rep.wasxfail = "; ".join(f"{xfails.cite_lines(e.reason)} ({e.where})" for e in used)
            rep.user_properties.append(("xfails_used", [e.where for e in used]))
        else:
            rep.longrepr = (
                f"NOT A KNOWN DEVIATION: the xfails entries for this test ({names}) match "
                f"none of these failure lines:\n"
                + "\n".join(f"  {line}" for line in uncovered)
                + f"\n\n{rep.longrepr}"
            )
    elif rep.passed:
        if item.config.getoption("--strict-xfails"):
            rep.outcome = "failed"
            rep.longrepr = f"[XPASS(strict)] the known deviation did not show ({names})"
        else:
            rep.wasxfail = f"known deviation did not show ({names})"
    return rep


def unused_warnings(config: pytest.Config) -> list[str]:
    """Entries of the properties that ran which matched no failure in this run."""
    state = run(config)
    ran = {r["property"] for r in state.records}
    if state.xfails is None or not ran:
        return []
    return [
        f"warning: {e.source}:{e.line} ({e.prefix}) matched no failure in this run: "
        f"stale, or its deviation did not show on these examples"
        for e in state.xfails
        if e.where not in state.xfails_used
        and any(p.startswith(e.prefix) or e.prefix.startswith(p) for p in ran)
    ]

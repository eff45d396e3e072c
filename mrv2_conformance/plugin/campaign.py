"""The suite inside a fuzzing campaign (mrv2_conformance/campaign/). HypoFuzz collects
the properties with pytest, then calls each property's Hypothesis test itself, outside
pytest's runtest hooks. So what those hooks do in a normal run is set up here, at
collection, for the calls HypoFuzz makes:

- a property that needs a capability the target declares it lacks is skipped (HypoFuzz
  leaves skipped tests alone), with the reason a normal run gives; so is a
  differential one when the target is the reference (its fixture skips it);
- a failure whose every line a known deviation (the xfails entries) covers is not a
  find: the property goes on being fuzzed for what else there is, as a normal run
  reports it as expected;
- a target call past the per-call deadline is a find (``TargetHung``), as it fails
  its property in a normal run: the deadline's own exception is a BaseException, so
  that Hypothesis does not retry a hang, and it would end HypoFuzz's worker instead
  (the engine loop's calls included).

The per-call deadline and the profiles apply as they do in a normal run (they are set
at configure and collection). Registered as a plugin only when $MRV2_CAMPAIGN is 1,
which the campaign command sets for the processes it starts."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Generator
from typing import Any

import pytest
from mrv2_conformance.contract import not_applicable
from mrv2_conformance.plugin import xfails
from mrv2_conformance.plugin.session import ITEM_XFAILS_KEY, hypothesis_handle

CAMPAIGN_ENV_VAR = "MRV2_CAMPAIGN"


def active() -> bool:
    return os.environ.get(CAMPAIGN_ENV_VAR) == "1"


# A wrapper: its code after the yield runs after every other plugin's collection hook,
# the xfails entries (plugin/deviations.py) included, and before HypoFuzz's collector
# reads the items (pytest_collection_finish).
@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    yield
    from mrv2_conformance.conformance import deadline
    from mrv2_conformance.conformance.differential import REFERENCE
    from mrv2_conformance.plugin.targets import is_property, target

    deadline.raise_hangs_as(TargetHung)

    tgt = target(config)
    for item in items:
        if not is_property(item):
            continue
        if tgt.unavailable:  # every property skips, as in a normal run: nothing to fuzz
            item.add_marker(pytest.mark.skip(reason=f"target unavailable: {tgt.unavailable}"))
            continue
        marker = item.get_closest_marker("needs")
        lacked = [c for c in (marker.args if marker else ()) if c in tgt.lacks]
        if lacked:
            why = not_applicable(lacked[0], tgt.lacks[lacked[0]])
            item.add_marker(pytest.mark.skip(reason=why))
            continue
        if tgt.name == REFERENCE and "reference" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.skip(reason="the target is the reference"))
            continue
        _wrap(item, item.stash.get(ITEM_XFAILS_KEY, []))


class TargetHung(Exception):
    """A target call that did not return within the per-call deadline, in a campaign."""


def _wrap(item: pytest.Item, entries: list[xfails.Entry]) -> None:
    """Wrap the property's Hypothesis test (what HypoFuzz calls) once per function;
    its parametrized items share it, so the entries are kept per node id."""
    handle = hypothesis_handle(item)
    if handle is None:  # not a @given test (the stateful run sets aside on its own)
        return
    inner = handle.inner_test
    known: dict[str, list[xfails.Entry]] | None = getattr(inner, "_mrv2_known", None)
    if known is None:
        known = {}
        handle.inner_test = _absorbing(inner, known)
    known[item.nodeid] = entries


def _absorbing(inner: Callable[..., Any], known: dict[str, list[xfails.Entry]]) -> Callable:
    """``functools.wraps`` keeps Hypothesis' database key of the test (its source,
    signature and node id), so a find replays in a plain run, which does not wrap."""
    from hypothesis.errors import HypothesisException
    from mrv2_conformance.conformance.assertions import failure_lines

    @functools.wraps(inner)
    def absorbing(*args: Any, **kwargs: Any) -> Any:
        try:
            return inner(*args, **kwargs)
        except HypothesisException:  # assume(), Hypothesis' own control flow
            raise
        except Exception as exc:
            entries = _entries_now(known)
            if entries and not xfails.cover(entries, failure_lines(exc))[1]:
                return None  # a known deviation: not a find
            raise

    absorbing._mrv2_known = known  # type: ignore[attr-defined]
    return absorbing


def _entries_now(known: dict[str, list[xfails.Entry]]) -> list[xfails.Entry]:
    """The entries of the item HypoFuzz is running (it says which through Hypothesis'
    current_pytest_item); all of the function's items' where that is not known."""
    try:
        from hypothesis.internal.escalation import current_pytest_item
    except ImportError:  # pragma: no cover - a Hypothesis without it
        current = None
    else:
        current = current_pytest_item.value
    nodeid = getattr(current, "nodeid", None)
    if nodeid in known:
        return known[nodeid]
    return [e for entries in known.values() for e in entries]

"""The state of one run of the suite, kept on pytest's config (``run(config)``), never
in module globals: the target, the xfails, and what the reports are built from."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mrv2_conformance import suite_root

if TYPE_CHECKING:
    from mrv2_conformance.conformance.reference import Fingerprint
    from mrv2_conformance.conformance.target import Target
    from mrv2_conformance.plugin.xfails import Entry


@dataclass
class Run:
    active: bool  # the run collects from the suite or names a target
    target_name: str = ""
    target: Target | None = None  # loaded where tests run (on an xdist controller: lazily)
    fingerprint: Fingerprint | None = None
    xfails: list[Entry] | None = None  # None: no xfails file applies
    workers_note: str = ""  # how -n was fitted to the idle CPUs
    # What the summary and the reports are built from (on the xdist controller, from
    # the workers' reports):
    records: list[dict[str, Any]] = field(default_factory=list)  # one per property run
    xfails_used: set[str] = field(default_factory=set)
    disclosures: list[str] = field(default_factory=list)  # the target's DISCLOSURES
    started: float = field(default_factory=time.time)
    partial: list[str] = field(default_factory=list)  # why the run is not a full one


RUN_KEY = pytest.StashKey[Run]()
ITEM_XFAILS_KEY = pytest.StashKey["list[Entry]"]()


def run(config: pytest.Config) -> Run:
    """This run's state; an inactive one for a config the suite did not set up."""
    found = config.stash.get(RUN_KEY, None)
    return found if found is not None else Run(active=False)


def active(config: pytest.Config) -> bool:
    return run(config).active


def is_xdist_controller(config: pytest.Config) -> bool:
    return (
        not hasattr(config, "workerinput")
        and config.getoption("dist", "no") != "no"
        and bool(config.getoption("tx", None))
    )


def in_suite(path: os.PathLike[str] | str) -> bool:
    """Whether ``path`` is the suite's package folder or lies under it."""
    resolved, root = Path(path).resolve(), suite_root()
    return resolved == root or root in resolved.parents


def hypothesis_handle(item: pytest.Item) -> Any:
    """The ``.hypothesis`` handle of a property's @given test (its ``inner_test`` is
    where the suite wraps what runs per example), or None for any other test."""
    obj = getattr(item, "obj", None)
    return getattr(getattr(obj, "__func__", obj), "hypothesis", None)

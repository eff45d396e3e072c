"""Whether a run checked the whole contract. Only a full run can conform: a run that
selected properties (-m, -k, node ids, --deselect), stopped early (-x, --maxfail, an
interrupt) or replayed stored examples (--replay, --reproduce) is reported as partial,
with what it checked, never as conformance."""

from __future__ import annotations

import ast
import functools
from collections import Counter, defaultdict
from typing import Any

import pytest
from mrv2_conformance import suite_root
from mrv2_conformance.contract import FAMILIES
from mrv2_conformance.plugin import startup


@functools.cache
def all_properties() -> frozenset[str]:
    """Every property function of the suite (``conformance/test_x.py::test_y``), read
    from the sources: the xdist controller collects nothing itself."""
    found = set()
    for path in sorted((suite_root() / "conformance").glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        found |= {
            f"conformance/{path.name}::{node.name}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    return frozenset(found)


def _marks_deselect_properties(markexpr: str) -> bool:
    """Whether -m leaves out a family's properties on cpu (its gpu variants aside)."""
    return any(not startup.selects(markexpr, {family}) for family in FAMILIES)


def partial_reasons(
    config: pytest.Config,
    session: pytest.Session | None,
    records: list[dict[str, Any]],
    interrupted: bool,
) -> list[str]:
    """Why this run is not a conformance result (empty: it is one)."""
    why = []
    markexpr = config.getoption("markexpr", "") or ""
    if _marks_deselect_properties(markexpr):
        why.append(f"selected by -m {markexpr!r}")
    if config.getoption("keyword", ""):
        why.append(f"selected by -k {config.getoption('keyword')!r}")
    if config.getoption("deselect", None):
        why.append("--deselect")
    if any("::" in str(a) for a in config.args):
        why.append("node ids named")
    if config.getoption("--reproduce") or config.getoption("--replay"):
        why.append("stored examples replayed, no search")
    if interrupted:
        why.append("interrupted")
    elif session is not None and (session.shouldfail or session.shouldstop):
        why.append(f"stopped early ({session.shouldfail or session.shouldstop})")
    ran = {r["property"].partition("[")[0] for r in records}
    missing = all_properties() - ran
    if missing and not why:
        why.append(f"{len(missing)} of {len(all_properties())} properties did not run")
    return why


def checked(records: list[dict[str, Any]]) -> str:
    """What a partial run checked: its properties, by family."""
    per: dict[str, set[str]] = {}
    for r in records:
        if r["outcome"] != "skipped":
            per.setdefault(r["family"], set()).add(r["property"].partition("[")[0])
    if not per:
        return "nothing"
    total = sum(len(p) for p in per.values())
    return (
        f"{total} of {len(all_properties())} properties ("
        + ", ".join(f"{f} {len(per[f])}" for f in FAMILIES if f in per)
        + ")"
    )


def tested_anything(records: list[dict[str, Any]]) -> bool:
    """Whether any property ran to a verdict (skips test nothing)."""
    return any(r["outcome"] != "skipped" for r in records)


def per_family(records: list[dict[str, Any]]) -> dict[str, Counter]:
    """Outcome counts per family, in FAMILIES order; an unexpected pass counts as a
    failure (the target no longer deviates as documented)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        outcome = "failed" if r["outcome"] == "xpassed" else r["outcome"]
        per[r["family"]][outcome] += 1
        if r.get("not_applicable"):
            per[r["family"]]["not_applicable"] += 1
        if r.get("no_device"):
            per[r["family"]]["no_device"] += 1
        if r.get("off_device"):
            per[r["family"]]["off_device"] += 1
    return {f: per[f] for f in FAMILIES if f in per}

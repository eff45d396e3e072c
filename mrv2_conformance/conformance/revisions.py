"""The contract's revisions (docs/CONTRACT.md, "Revisions"): what the suite knows a
target may claim. A target declares one in ``CONTRACT_REVISION`` (absent: ``DEFAULT``);
the properties check the rules of that revision, and the report names it.

Upstream changed the contract after #51210 in one place only: the order of the rows
on a PCP rank. Anything else a release does differently is a deviation, not a revision.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Revision:
    name: str
    releases: str  # the vLLM releases that implement it
    pcp_row_order: str  # what the revision says, in the README's words


REVISIONS: dict[str, Revision] = {r.name: r for r in (
    Revision("#51210", "vLLM 0.28.0-0.29.0 (the PR that made the mappings pointer-width)",
             "global batch order (row, then position); pure prefills (start position 0) "
             "moved last, stably"),
    Revision("0.30", "vLLM 0.30.0 and later",
             "decodes first, then prefills; by global row, then position, within each"),
)}
DEFAULT = "#51210"


class UnknownRevision(ValueError):
    pass


def check(name: object, who: str) -> str:
    if name not in REVISIONS:
        known = "; ".join(f"{r.name!r} ({r.releases})" for r in REVISIONS.values())
        raise UnknownRevision(f"{who} declares CONTRACT_REVISION {name!r}, which the suite does "
                              f"not know; known: {known}")
    return str(name)


def table() -> str:
    """The README's revision table (markdown)."""
    lines = ["| revision | implemented by | rows on a PCP rank |", "|---|---|---|"]
    lines += [f"| `{r.name}` | {r.releases} | {r.pcp_row_order} |" for r in REVISIONS.values()]
    return "\n".join(lines)

"""The contract's revisions (docs/CONTRACT.md, "Revisions"), as the reference
implements them. What differs between them is the order of the rows on a PCP rank.

A target declares the revision it claims in ``CONTRACT_REVISION`` (this package:
``DEFAULT``); the suite checks it against that revision's rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from mrv2_conformance.contract import DEFAULT_REVISION, REVISIONS

DEFAULT = DEFAULT_REVISION  # what this package claims (impl.CONTRACT_REVISION)


class Row(Protocol):
    @property
    def global_req_idx(self) -> int: ...
    @property
    def global_start(self) -> int: ...

    def is_pure_prefill(self, is_prefilling: Sequence[bool]) -> bool: ...


R = TypeVar("R", bound=Row)


def check_revision(revision: str) -> str:
    if revision not in REVISIONS:
        raise ValueError(
            f"unknown contract revision {revision!r}; the reference implements "
            f"{', '.join(map(repr, REVISIONS))}"
        )
    return revision


def order_rank_rows(rows: Sequence[R], is_prefilling: Sequence[bool], revision: str) -> list[R]:
    """One rank's rows, given in global (row, position) order, in ``revision``'s order.

    "#51210": that order, with the pure prefills (start position 0) moved last, stably.
    "0.30": decodes first, then prefills; by global row, then position, within each.
    """
    if check_revision(revision) == "0.30":
        return sorted(
            rows,
            key=lambda s: (bool(is_prefilling[s.global_req_idx]), s.global_req_idx, s.global_start),
        )
    impure = [s for s in rows if not s.is_pure_prefill(is_prefilling)]
    return impure + [s for s in rows if s.is_pure_prefill(is_prefilling)]

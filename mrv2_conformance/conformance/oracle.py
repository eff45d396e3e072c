"""Independent restatements of CONTRACT rules, computed from plain inputs.

They are written from the CONTRACT text, not from ``impl/``, so that a bug in the
reference cannot hide behind the same bug in the oracle.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence

from typing import Any

import numpy as np


def spec_sort_key(
    num: Mapping[str, int], drafts: Mapping[str, Sequence[int]], decode_query_len: int
) -> Callable[[str], tuple[bool, bool, int]]:
    """F1.1's key: (no drafts, not a uniform decode, token count)."""

    def key(r: str) -> tuple[bool, bool, int]:
        return (not drafts.get(r), num[r] != decode_query_len, num[r])

    return key


def spec_order(
    num: Mapping[str, int], drafts: Mapping[str, Sequence[int]], decode_query_len: int
) -> list[str]:
    """F1.1 by insertion: a request goes after every earlier one whose key is <= its own
    (found by bisection: ``keys`` stays sorted, and a batch may hold 1,024 requests)."""
    key = spec_sort_key(num, drafts, decode_query_len)
    out: list[str] = []
    keys: list[tuple[bool, bool, int]] = []
    for r in num:  # scheduler order; placing after equal keys keeps it stable
        k = key(r)
        i = bisect.bisect_right(keys, k)
        keys.insert(i, k)
        out.insert(i, r)
    return out


def query_start_loc(counts: Sequence[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.asarray(counts, dtype=np.int64))])


def logits_layout(
    counts: Sequence[int], num_drafts: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logits_indices, cu_num_logits, local_pos): each request samples its last
    1 + num_drafts positions."""
    qsl = query_start_loc(counts)
    indices: list[int] = []
    local: list[int] = []
    for i, k in enumerate(num_drafts):
        end = int(qsl[i + 1])
        indices += range(end - 1 - k, end)
        local += range(k + 1)
    cu = query_start_loc([k + 1 for k in num_drafts])
    return np.array(indices, dtype=np.int64), cu, np.array(local, dtype=np.int64)


def even_split(num_reqs: int, num_tokens: int) -> list[int]:
    """F2: num_tokens // num_reqs each, +1 on the last num_tokens % num_reqs."""
    base, extra = divmod(num_tokens, num_reqs)
    return [base + (i >= num_reqs - extra) for i in range(num_reqs)]


def pcp_row_key(revision: str, prefilling: bool, row: int, start: int) -> tuple[int, int, int]:
    """The key that sorts the rows of a PCP rank into ``revision``'s order (Revisions):
    "#51210" keeps (row, position) order with pure prefills last; "0.30" puts decodes
    first, then prefills, each by (row, position)."""
    if revision == "0.30":
        return (int(prefilling), row, start)
    return (int(prefilling and start == 0), row, start)


def pcp_rank_segments(
    counts: Sequence[int],
    computed: Sequence[int],
    prefilling: Sequence[bool],
    world_size: int,
    rank: int,
    revision: str,
) -> list[tuple[int, int, int]]:
    """F3 layout for one rank as (global row, start position in request, tokens), in
    ``revision``'s row order."""
    segs = []
    for g, q in enumerate(counts):
        if q == 0:
            continue
        if prefilling[g]:
            size = math.ceil(q / (2 * world_size))
            for c in (rank, 2 * world_size - 1 - rank):
                n = max(0, min(size, q - c * size))
                if n:
                    segs.append((g, computed[g] + c * size, n))
        else:
            segs.append((g, computed[g], q))
    return sorted(segs, key=lambda s: pcp_row_key(revision, prefilling[s[0]], s[0], s[1]))


def rank_segments_of(
    global_batch: Any, world_size: int, rank: int, revision: str
) -> list[tuple[int, int, int]]:
    """``pcp_rank_segments`` of a global input batch (its host arrays)."""
    return pcp_rank_segments(
        np.asarray(global_batch.num_scheduled_tokens).tolist(),
        np.asarray(global_batch.num_computed_tokens_np).tolist(),
        np.asarray(global_batch.is_prefilling_np).tolist(),
        world_size,
        rank,
        revision,
    )

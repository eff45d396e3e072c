"""PCP worlds: a draft-free global batch and a world size of 1-8 (every rank is checked).

Random draws alone leave some world sizes out of a 100-example run (one ci run of the
layout property never saw W=2 or W=3), so every PCP property also runs
``every_world_size``: one explicit example per world size over a fixed mixed batch
(a long fresh prefill, a chunked prefill, decodes, a prefill shorter than 2W, a reused
slot), and ``placeholder_examples``: a rank with nothing to do at every W >= 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from hypothesis import event, example
from hypothesis import strategies as st
from mrv2_conformance.strategies.batches import BatchCase, batches
from mrv2_conformance.strategies.slot_tables import SlotHistory, sampled

MAX_WORLD_SIZE = 8
WORLD_SIZES = tuple(range(1, MAX_WORLD_SIZE + 1))
F = TypeVar("F", bound=Callable[..., object])


@dataclass(frozen=True)
class PcpCase:
    batch_case: BatchCase
    world_size: int


@st.composite
def pcp_cases(draw: st.DrawFn, world_sizes: tuple[int, ...] = WORLD_SIZES) -> PcpCase:
    # The world size is the first choice: drawn before the batch it spreads evenly.
    world_size = draw(sampled(world_sizes), label="pcp_world_size")
    case = draw(batches(("prefill", "mixed", "decode")))
    event(f"pcp_world_size: {world_size}")
    return PcpCase(case, world_size)


MIXED_BATCH = BatchCase(
    SlotHistory.from_ops(
        6,
        ("add", "long-prefill", 37, 0),
        ("add", "chunked", 40, 10),
        ("add", "decode-a", 5, 9),
        ("add", "gone", 3, 0),
        ("remove", "gone", 0, 0),
        ("add", "short", 2, 0),
        ("add", "decode-b", 3, 3),
    ),
    {"decode-a": 1, "long-prefill": 37, "short": 2, "chunked": 5, "decode-b": 1},
    {},
    1,
    "mixed",
    max_num_tokens=50,
)


def every_world_size(test: F) -> F:
    """One explicit example per world size over MIXED_BATCH."""
    for w in reversed(WORLD_SIZES):
        test = example(case=PcpCase(MIXED_BATCH, w))(test)
    return test


def placeholder_case(world_size: int, prefill_lens: tuple[int, ...]) -> PcpCase:
    """Fresh prefills shorter than W: rank W-1's chunks W-1 and W are empty."""
    ids = [f"req-{i}" for i in range(len(prefill_lens))]
    lens = dict(zip(ids, prefill_lens, strict=True))
    hist = SlotHistory.from_ops(len(ids), *[("add", r, q, 0) for r, q in lens.items()])
    case = BatchCase(hist, lens, {}, 1, "prefill", sum(prefill_lens))
    return PcpCase(case, world_size)


@functools.cache
def _chunk_lens(world_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, world_size - 1), min_size=1, max_size=4)


@st.composite
def placeholder_cases(draw: st.DrawFn) -> PcpCase:
    world_size = draw(sampled(WORLD_SIZES[1:]), label="pcp_world_size")
    lens = draw(_chunk_lens(world_size), label="q")
    return placeholder_case(world_size, tuple(lens))


def placeholder_examples(test: F) -> F:
    for w in reversed(WORLD_SIZES[1:]):
        test = example(case=placeholder_case(w, (w - 1,)))(test)
    return test

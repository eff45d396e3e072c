"""Slot tables built by replaying random add/remove histories (holes, LIFO reuse).

Aligned choices: a strategy here draws a choice on every branch, also where the branch
ignores it (``initial_adds`` of a table that starts full, ``num_speculative_tokens`` of
a batch without drafts). Shrinking flips branches; a choice that exists on one branch
only shifts every later choice, and a bytes value cannot be reread as an integer, so
the shrinker stalls on a large case.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.strategies.ids import ID_SCHEMES, make_fresh
from mrv2_conformance.strategies.limits import max_batch_requests, max_model_len

# (op, req_id, prefill_len, num_computed_tokens); remove ops carry zeros.
Op = tuple[str, str, int, int]


@dataclass
class SlotHistory:
    max_num_reqs: int
    ops: list[Op]
    live: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (prefill, computed)
    removed: list[str] = field(default_factory=list)  # ids removed and not re-added

    @classmethod
    def from_ops(cls, max_num_reqs: int, *ops: Op) -> SlotHistory:
        """A fixed history (explicit examples): live and removed ids derived from ops."""
        hist = cls(max_num_reqs, list(ops))
        for op, req_id, prefill_len, computed in ops:
            if op == "add":
                hist.live[req_id] = (prefill_len, computed)
            else:
                del hist.live[req_id]
                hist.removed.append(req_id)
        hist.removed = [r for r in hist.removed if r not in hist.live]
        return hist

    def build(self, target: Any) -> Any:
        """Replay the history on ``target.SlotTable``."""
        table = target.SlotTable(self.max_num_reqs)
        for op, req_id, prefill_len, computed in self.ops:
            if op == "add":
                table.add_request(req_id, prefill_len, computed)
            else:
                table.remove_request(req_id)
        return table


SMALL_TABLE = 16
LARGE_TABLE = 64
_MAX_PREFILL = 96
_MAX_OFFSET = 64
# A request's code (two bytes of a history's blob): prefill_len = 1 + code % 96, and
# code // 96 in 0..80 gives the computed-token offset from the state boundary: 0 for a
# fifth of the codes (a fresh prefill, a just-finished prompt: the boundary is a case
# of its own), else 0-64.
_BOUNDARY_CODES = 16
_REQUEST_CODES = _MAX_PREFILL * (_BOUNDARY_CODES + _MAX_OFFSET + 1)
_SIZE_CLASS = st.sampled_from(("small",) * 8 + ("large",) * 2 + ("production",))
_SMALL_SIZE = st.integers(1, SMALL_TABLE)
_LARGE_SIZE = st.integers(SMALL_TABLE + 1, LARGE_TABLE)
# vLLM's max_num_seqs: 256 by default, 1,024 on large GPUs (its limit); and the
# neighbours of every power of two from 256 to 1,024 (a uint8 index, a buffer or a
# kernel's block that changes there), a third of the draws each. Half of such tables
# are filled to capacity (a batch of 255-1,024 requests in one step: one table in 22,
# a few examples of each property, each costing as much as a hundred small ones); the
# other half holds a few requests, on its top slots (the free list hands those out
# first).
PRODUCTION_TABLES = (255, 256, 257, 511, 512, 513, 1023, 1024)
_PRODUCTION_SIZE = st.sampled_from((*PRODUCTION_TABLES, 1024))
_MAX_LEN = 12
# (prompt scale, context base) of a history's requests: small numbers mostly; prompts
# of up to 8,192 and 65,536 tokens (a step of vLLM's default or a prefill-heavy
# deployment's max_num_batched_tokens, one chunk taking most of it); contexts straddling
# the int16 and uint16 limits, past a million, at float32's last exact integer, and
# below the int32 limit (a step still fits on top).
CONTEXT_LIMIT = INT32_MAX - 2**17
MAGNITUDES = ((1, 0),) * 7 + (
    (86, 0),
    (683, 0),
    (1, 2**15 - 48),
    (1, 2**16 - 48),
    (1, 2**20),
    (1, 2**24 - 48),
    (1, CONTEXT_LIMIT - 2**16),
)
# Whether the table starts full, and the magnitude of its requests: one choice.
_START = st.sampled_from([(full, m) for m in MAGNITUDES for full in (False, True)])


def decode_request(code: int) -> tuple[int, int]:
    """(prefill_len, offset) of a request code."""
    high, low = divmod(code, _MAX_PREFILL)
    return low + 1, max(0, high - _BOUNDARY_CODES)


# Longer blobs (a production table's requests) are expanded from a drawn seed:
# Hypothesis draws a bytes choice byte by byte (about 3 us each), which made the
# thousand-request examples most of a run's cost.
SEEDED_BLOB = 256
_SEED = st.integers(0, 2**64 - 1)


def draw_codes(draw: st.DrawFn, n: int, bound: int, label: str, width: int = 2) -> list[int]:
    """n codes in [0, bound) from one bytes choice of ``width`` bytes per code: one
    choice for a whole history or batch instead of one per request (per-request
    choices were most of the suite's run time). Shrinks towards code 0. Exactly
    ``n * width`` bytes: a variable-size bytes choice costs one more choice per byte.
    Past ``SEEDED_BLOB`` bytes the blob is a seed's pseudo-random bytes (seed 0: all
    zeros, where the shrinker goes)."""
    if n == 0:
        return []
    if n * width > SEEDED_BLOB:
        seed = draw(_SEED, label=label + "_seed")
        blob = random.Random(seed).randbytes(n * width) if seed else bytes(n * width)
    else:
        blob = draw(_blob(n * width), label=label)
    return [int.from_bytes(blob[i : i + width], "big") % bound for i in range(0, n * width, width)]


@functools.cache
def _blob(size: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=size, max_size=size)


@functools.cache
def int_range(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)``, built once per range: building and validating a
    strategy at every draw cost as much as the draw."""
    return st.integers(lo, hi)


@functools.cache
def sampled(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    """``st.sampled_from(values)``, built once per tuple (as ``int_range``)."""
    return st.sampled_from(values)


def draw_table_size(draw: st.DrawFn, label: str = "max_num_reqs") -> int:
    """max_num_reqs: 1-16 mostly, 17-64 now and then (size-dependent code paths: a
    sort or lookup that changes method past a threshold), and a production size
    (``PRODUCTION_TABLES``) in one draw of eleven, while most examples stay small."""
    size_class = draw(_SIZE_CLASS, label=label + "_class")
    small = draw(_SMALL_SIZE, label=label)  # aligned choices: drawn for every class
    if size_class == "small":
        return small
    return draw(_LARGE_SIZE if size_class == "large" else _PRODUCTION_SIZE, label=label + "_large")


def _lift(prefill_len: int, computed: int, base: int, limit: int) -> tuple[int, int]:
    """A request moved ``base`` tokens further into its life, in the same state: a
    prefill's prompt and computed tokens both (a long prompt, mostly cached), a
    decode's context only (a long output). Prompts stay within ``limit``."""
    if computed < prefill_len:
        lift = max(0, min(base, limit - prefill_len))
        prefill_len, computed = min(prefill_len, limit), computed + lift
        return prefill_len + lift, min(computed, prefill_len + lift - 1)
    return min(prefill_len, limit), computed + base


@st.composite
def table_sizes(draw: st.DrawFn) -> int:
    return draw_table_size(draw)


@st.composite
def slot_histories(
    draw: st.DrawFn,
    *,
    max_num_reqs: int | None = None,
    state: str = "any",
    min_live: int = 1,
    end_full: bool = False,
    max_len: int = _MAX_LEN,
) -> SlotHistory:
    """A random history ending with at least ``min_live`` live requests.

    ``end_full``: the history ends with every slot taken (after its removals).
    ``state`` constrains the added requests: ``"prefill"`` (computed < prefill_len),
    ``"decode"`` (prompt done) or ``"any"``.

    A few choices per history whatever its length: the requests' codes and the
    add/remove tail are one bytes choice each (see ``draw_codes``).
    """
    if max_num_reqs is None:
        max_num_reqs = max(min_live, draw_table_size(draw))
    hist = SlotHistory(max_num_reqs, [])
    ids = draw(ID_SCHEMES, label="ids")
    # A full table is a case of its own; so are production magnitudes.
    start_full, (scale, base) = draw(_START, label="start_full_and_magnitude")
    limit = max_model_len()
    used: set[str] = set()

    def add(code: int) -> None:
        req_id = make_fresh(ids.name(len(used)), used)
        used.add(req_id)
        prefill_len, offset = decode_request(code)
        prefill_len, offset = 1 + (prefill_len - 1) * scale, offset * scale
        # Computed tokens as an offset from a state boundary: shrinks to the boundary
        # (a fresh prefill, a just-finished prompt).
        if state == "prefill":
            computed = min(offset, prefill_len - 1)
        elif state == "decode":
            computed = prefill_len + offset
        else:
            computed = offset
        prefill_len, computed = _lift(prefill_len, computed, base, limit)
        hist.ops.append(("add", req_id, prefill_len, computed))
        hist.live[req_id] = (prefill_len, computed)

    # An initial fill (up to a full table), then a random add/remove tail. The
    # simplest example is "add min_live requests".
    # A large table starts with more than SMALL_TABLE requests: that is its point. A
    # production-size table either starts full (a batch of up to 1,024 requests: its
    # requests at the smallest scale, so that a step stays within a deployment's
    # budget of tokens) or holds a few, on its top slots.
    production = max_num_reqs > LARGE_TABLE
    if production and max_num_reqs > max_batch_requests():
        start_full = False  # past --max-batch-requests: a sparse table only
    least = min_live if max_num_reqs <= SMALL_TABLE or production else SMALL_TABLE + 1
    most = min(max_num_reqs, SMALL_TABLE) if production else max_num_reqs
    # Drawn even when the table starts full (aligned choices, above).
    initial = draw(int_range(least, most), label="initial_adds")
    if start_full:
        initial = max_num_reqs
        scale = 1 if production else scale
    for code in draw_codes(draw, initial, _REQUEST_CODES, "requests"):
        add(code)
    # The add/remove tail: three bytes per op, read as (op, request code): an even op
    # adds that request, an odd one removes a live request (half and half; shrinks
    # to "add").
    num_ops = draw(int_range(0, max_len), label="extra_ops")
    if production and start_full and not end_full:
        num_ops = 0  # a full production table stays full: a batch at exact capacity
    for code in draw_codes(draw, num_ops, 256 * _REQUEST_CODES, "ops", width=3):
        op, request = divmod(code, _REQUEST_CODES)
        live = sorted(hist.live)
        if op % 2 == 0 and len(live) < max_num_reqs:
            add(request)
        elif live and len(live) > min_live:  # a full table frees a slot
            victim = live[op // 2 % len(live)]
            del hist.live[victim]
            hist.removed.append(victim)
            hist.ops.append(("remove", victim, 0, 0))
    if end_full and (start_full or not production):  # a sparse production table stays so
        for code in draw_codes(draw, max_num_reqs - len(hist.live), _REQUEST_CODES, "fill"):
            add(code)
    hist.removed = [r for r in hist.removed if r not in hist.live]
    return hist


@functools.cache
def histories(**kwargs: Any) -> st.SearchStrategy[SlotHistory]:
    """``slot_histories(**kwargs)``, built once per argument set (as ``int_range``), for
    strategies that draw a history at every example."""
    return slot_histories(**kwargs)


TABLE_SIZES = table_sizes()

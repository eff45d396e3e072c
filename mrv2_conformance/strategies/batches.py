"""Scheduler batches over a slot table: decode-only, prefill-only, mixed, spec-decode,
small and large, and batches that schedule ids missing from the table."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import event, example
from hypothesis import strategies as st
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.contract import SchedulerBatch
from mrv2_conformance.strategies.ids import ID_SCHEMES, draw_fresh_id, make_fresh
from mrv2_conformance.strategies.limits import allows, max_batch_requests, max_model_len
from mrv2_conformance.strategies.slot_tables import (
    SMALL_TABLE,
    SlotHistory,
    draw_codes,
    draw_table_size,
    histories,
    int_range,
    sampled,
)

BATCH_KINDS = ("decode", "prefill", "mixed", "spec_decode")
_BOOL = st.booleans()
_STATE_FOR_KIND = {"decode": "decode", "prefill": "prefill", "mixed": "any"}
# How the missing ids of a batch sit among the present ones (missing_id_cases).
MISSING_SHAPES = ("one", "several", "all")


@dataclass(frozen=True)
class BatchCase:
    """A slot-table history plus one scheduler step over it."""

    history: SlotHistory
    num_scheduled_tokens: dict[str, int]
    draft_tokens: dict[str, list[int]]
    decode_query_len: int
    kind: str
    max_num_tokens: int  # buffer capacity, >= total tokens
    missing_ids: tuple[str, ...] = field(default=())  # scheduled but not in the table

    @property
    def max_num_reqs(self) -> int:
        """Buffer capacity in requests: the table's, or more when missing ids make the
        batch larger than the table (a lookup must fail before any capacity check)."""
        return max(self.history.max_num_reqs, len(self.num_scheduled_tokens))

    @property
    def num_tokens(self) -> int:
        return sum(self.num_scheduled_tokens.values())

    def batch(self) -> SchedulerBatch:
        # Fresh containers each time: a target that mutates its input cannot
        # poison the next call.
        return SchedulerBatch(
            dict(self.num_scheduled_tokens), {k: list(v) for k, v in self.draft_tokens.items()}
        )

    def build_table(self, target: Any) -> Any:
        return self.history.build(target)


def _size_event(num_reqs: int) -> str:
    return "1" if num_reqs == 1 else "2-4" if num_reqs <= 4 else "5-16" if num_reqs <= 16 else "17+"


_SPEC_STATE = st.sampled_from(("any", "decode"))
_SCOPE = st.sampled_from(("some", "all_live", "full_table"))
_NUM_SPEC = st.integers(1, 4)
_DRAFT_TOKEN = st.integers(0, 50_000)
_SPARE = st.integers(0, 8)


@functools.cache
def _permutation_codes(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, math.factorial(n) - 1)


# Past this many items a Lehmer code's arithmetic (factorials of thousands of digits)
# costs more than the rest of the example: a bytes choice drives a shuffle instead.
_LEHMER_MAX = 64


def draw_permutation(draw: st.DrawFn, items: list[str], label: str) -> list[str]:
    """``items`` in an order drawn as one choice (its Lehmer code, or for a production
    batch two bytes per item driving a Fisher-Yates shuffle), not one choice per
    element; shrinks to the given order."""
    if len(items) < 2:
        return list(items)
    if len(items) > _LEHMER_MAX:
        out = list(items)
        codes = draw_codes(draw, len(out) - 1, 2**16, label)
        for i, code in zip(range(len(out) - 1, 0, -1), codes, strict=True):
            j = i - code % (i + 1)  # code 0 leaves item i where it is
            out[i], out[j] = out[j], out[i]
        return out
    code = draw(_permutation_codes(len(items)), label=label)
    pool, out = list(items), []
    for i in range(len(items) - 1, -1, -1):
        index, code = divmod(code, math.factorial(i))
        out.append(pool.pop(index))
    return out


def _chunk(code: int, rest: int) -> int:
    """A prefill chunk of 1..rest tokens from a byte code: the whole rest of the
    prompt for a quarter of the codes (the step that finishes a prefill)."""
    return rest if code % 4 == 0 else 1 + code // 4 % rest


@st.composite
def batch_cases(
    draw: st.DrawFn, kinds: tuple[str, ...] = BATCH_KINDS, max_num_reqs: int | None = None
) -> BatchCase:
    # Choices that only some kinds use are drawn for every kind (slot_tables: aligned
    # choices).
    kind = draw(sampled(kinds), label="kind")
    # Half the spec-decode batches are all decodes, so every request may draft.
    spec_state = draw(_SPEC_STATE, label="spec_decode_state")
    state = spec_state if kind == "spec_decode" else _STATE_FOR_KIND[kind]
    size = max_num_reqs if max_num_reqs is not None else draw_table_size(draw)
    # Some of the live requests, all of them, or all of a full table (full batches are
    # a case of their own: every slot index in use).
    scope = draw(_SCOPE, label="scheduled")
    hist = draw(
        histories(state=state, max_num_reqs=size, end_full=scope == "full_table"),
        label="history",
    )
    drawn_spec = draw(_NUM_SPEC, label="num_speculative_tokens")
    num_spec = drawn_spec if kind == "spec_decode" and allows("drafts") else 0
    decode_query_len = 1 + num_spec
    order = draw_permutation(draw, sorted(hist.live), label="scheduler_order")
    # A large table schedules a large batch (past SMALL_TABLE) where it can.
    least = 1 if hist.max_num_reqs <= SMALL_TABLE else min(len(order), SMALL_TABLE + 1)
    num_reqs = draw(int_range(least, len(order)), label="num_reqs")
    scheduled = order if scope != "some" else order[:num_reqs]
    num: dict[str, int] = {}
    drafts: dict[str, list[int]] = {}
    # One byte per request (one choice for the batch): a prefill's chunk, a decode's
    # number of drafts.
    codes = draw_codes(draw, len(scheduled), 256, "per_request", width=1)
    token = draw(_DRAFT_TOKEN, label="draft_token")
    for req_id, code in zip(scheduled, codes, strict=True):
        prefill_len, computed = hist.live[req_id]
        if computed < prefill_len:  # chunked prefill: up to the rest of the prompt
            num[req_id] = _chunk(code, prefill_len - computed)
        elif num_spec:
            k = code % (num_spec + 1)
            if k:
                drafts[req_id] = [token] * k
            num[req_id] = 1 + k
        else:
            num[req_id] = 1
    # Drawn for every kind (aligned choices): a choice drawn only for some kinds was
    # rarely true where it applied under Hypothesis 6.130.
    foreign = draw(_BOOL, label="foreign_draft_entry")
    if num_spec and foreign:
        # Draft entries for ids outside the batch must be ignored.
        drafts[draw_fresh_id(draw, num, label="foreign_draft_id")] = [7]
    total = sum(num.values())
    case = BatchCase(
        hist,
        num,
        drafts,
        decode_query_len,
        kind,
        max_num_tokens=total + draw(_SPARE, label="spare_tokens"),
    )
    event(f"batch kind: {kind}")
    event(f"num_reqs: {_size_event(len(num))}")
    if len(num) < len(hist.live) or hist.removed:
        event("slot table has holes")
    return case


@functools.cache
def batches(kinds: tuple[str, ...] = BATCH_KINDS) -> st.SearchStrategy[BatchCase]:
    """``batch_cases(kinds)``, built once per argument (as ``slot_tables.int_range``),
    for strategies that draw a batch at every example."""
    return batch_cases(kinds)


_MISSING_SHAPE = st.sampled_from(MISSING_SHAPES)
_NUM_MISSING = st.integers(2, 4)
_MISSING_TOKENS = st.integers(1, 8)


@st.composite
def missing_id_cases(draw: st.DrawFn) -> BatchCase:
    """A batch that schedules ids absent from the slot table: one, several, or only
    missing ids (a one-request batch among them), at any position. Missing ids are
    ids removed earlier where the history has some, else never-seen ids. Their token
    counts copy a present request's now and then, so that they tie with it in the
    batch order and land between present ids, not only after them."""
    case = draw(batches())
    shape = draw(_MISSING_SHAPE, label="missing_shape")
    items = [] if shape == "all" else list(case.num_scheduled_tokens.items())
    # A batch of missing ids only is a lone id half the time: an aligned choice, so
    # the one-request batch keeps its share whatever else biases integer draws.
    lone = shape == "all" and draw(_BOOL, label="lone_missing_id") is True
    count = 1 if shape == "one" or lone else draw(_NUM_MISSING, label="num_missing")
    removed = [r for r in case.history.removed if r not in case.num_scheduled_tokens]
    missing: list[str] = []
    for _ in range(count):
        if removed and draw(_BOOL, label="missing_was_removed") is True:
            req_id = removed.pop(draw(int_range(0, len(removed) - 1), label="removed_id"))
        else:
            req_id = draw_fresh_id(
                draw,
                {*case.history.live, *case.num_scheduled_tokens, *case.history.removed, *missing},
                label="missing_id",
            )
        if items and draw(_BOOL, label="missing_ties_a_present_request") is True:
            tokens = items[draw(int_range(0, len(items) - 1), label="tie_with")][1]
        else:
            tokens = draw(_MISSING_TOKENS, label="missing_tokens")
        items.insert(draw(int_range(0, len(items)), label="missing_position"), (req_id, tokens))
        missing.append(req_id)
    num = dict(items)
    drafts = {r: d for r, d in case.draft_tokens.items() if r not in missing}
    event(f"missing ids: {shape}" + (" (one-request batch)" if len(num) == 1 else ""))
    return replace(
        case,
        num_scheduled_tokens=num,
        draft_tokens=drafts,
        max_num_tokens=sum(num.values()) + 8,
        missing_ids=tuple(missing),
    )


def _fixed_history() -> SlotHistory:
    """Four live decodes and one freed id, slots with a hole."""
    return SlotHistory.from_ops(
        6,
        *[("add", r, 4, 6) for r in ("a", "b", "c", "gone")],
        ("remove", "gone", 0, 0),
        ("add", "d", 4, 6),
    )


def _missing_example(num: dict[str, int], missing: tuple[str, ...]) -> BatchCase:
    return BatchCase(_fixed_history(), num, {}, 1, "decode", sum(num.values()) + 8, missing)


# Every shape of a missing id at every budget (decodes sort by token count, then
# scheduler order): looked up first, in the middle, last; several; only missing ids;
# a one-request batch of a missing id; a missing id that was removed earlier.
MISSING_ID_EXAMPLES = (
    _missing_example({"x": 1, "a": 1, "b": 2}, ("x",)),
    _missing_example({"a": 1, "x": 1, "b": 1}, ("x",)),
    _missing_example({"a": 1, "b": 1, "x": 3}, ("x",)),
    _missing_example({"a": 1, "x": 2, "b": 1, "gone": 1, "c": 3}, ("x", "gone")),
    _missing_example({"x": 1, "y": 2, "gone": 1}, ("x", "y", "gone")),
    _missing_example({"x": 1}, ("x",)),
    _missing_example({"a": 1, "b": 1, "c": 1, "gone": 2}, ("gone",)),
)


# CONTRACT, Clarifications, No drafts: entries that are empty or name requests outside
# the batch leave a draft-free batch (expanded_idx_mapping *is* idx_mapping). Random
# draws reach it now and then; this pins it.
NO_DRAFT_ENTRIES_EXAMPLE = BatchCase(
    _fixed_history(), {"a": 1, "b": 1, "c": 1}, {"b": [], "outsider": [7]}, 2, "spec_decode", 11
)


# Production limits and their neighbours (CONTRACT, Terms: Magnitudes), each an
# explicit example of every property that builds a real batch:
# - contexts at the int16, uint16 and float32-exact boundaries, past a million, and one
#   token below the int32 limit (its seq_lens is exactly 2**31 - 1);
# - the top slots of vLLM's table sizes: 1,024 (and 1,023), 256 and 257 (slot 256 is
#   the first past uint8); full tables of 257, 513 and 1,024 requests in one step;
# - steps of vLLM's default and large budgets (16,384 and 65,536 tokens, one prefill
#   chunk taking all but one of them), and of 32,768 tokens (past int16);
# - request ids that only the engine's random suffix tells apart, that share their
#   first 64 characters, and of 4,096 characters.
_BOUNDARIES = (2**15 - 1, 2**15, 2**16 - 1, 2**16, 2**20 + 1, 2**24, 2**24 + 1, INT32_MAX - 1)


def _decodes_at(contexts: tuple[int, ...], ids: tuple[str, ...], size: int) -> BatchCase:
    hist = SlotHistory.from_ops(
        size, *[("add", r, 5, c) for r, c in zip(ids, contexts, strict=True)]
    )
    return BatchCase(hist, dict.fromkeys(ids, 1), {}, 1, "decode", len(ids) + 2)


def _top_slots(size: int) -> BatchCase:
    ids = ("a", "b", "c", "gone", "d")
    hist = SlotHistory.from_ops(
        size, *[("add", r, 4, 6) for r in ids[:4]], ("remove", "gone", 0, 0), ("add", "d", 4, 6)
    )
    return BatchCase(hist, {"d": 1, "a": 1, "c": 1, "b": 1}, {}, 1, "decode", 8)


def _long_step(total: int) -> BatchCase:
    """A prompt of all but one of the step's tokens, and a decode: the prompt within the
    target's MAX_MODEL_LEN (strategies/limits.py)."""
    prompt = min(total - 1, max_model_len())
    hist = SlotHistory.from_ops(4, ("add", "prompt", prompt, 0), ("add", "decode", 3, 3))
    return BatchCase(hist, {"prompt": prompt, "decode": 1}, {}, 1, "mixed", prompt + 1)


@dataclass(frozen=True)
class NamedBatchCase(BatchCase):
    """An explicit example shown as the call that builds it: Hypothesis prints every
    explicit example it runs, and the full repr of a thousand requests cost more than
    running the example."""

    made_by: str = ""

    def __repr__(self) -> str:
        return self.made_by

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.made_by)


def full_table(size: int) -> BatchCase:
    """Every slot of a production table scheduled in one step (exact capacity): a
    prefill chunk every third request among decodes, scheduled in the reverse of
    admission order, so that scheduler order, batch order and slot order all differ."""
    ids = [f"cmpl-{i:04x}" for i in range(size)]
    hist = SlotHistory.from_ops(
        size, *[("add", r, 8, 2 if i % 3 == 0 else 8) for i, r in enumerate(ids)]
    )
    num = {r: 1 + i % 6 if i % 3 == 0 else 1 for i, r in reversed(list(enumerate(ids)))}
    return NamedBatchCase(
        hist,
        num,
        {},
        1,
        "mixed",
        sum(num.values()) + 1,
        made_by=f"mrv2_conformance.strategies.batches.full_table({size})",
    )


# Full tables on both sides of the powers of two a batch of requests crosses (uint8's
# 256, 512, vLLM's largest max_num_seqs 1,024); random draws fill production tables too,
# in one table of 22 (strategies/slot_tables.py).
FULL_TABLES = (257, 513, 1024)

_SUFFIXED = tuple(f"chatcmpl-client 7 é-{s:08x}" for s in (0x0A1B2C3D, 0x0A1B2C3E, 7))
_PREFIXED = tuple("x" * 64 + tail for tail in ("-0", "-1", ""))


def production_cases() -> list[BatchCase]:
    """The examples at the current limits (built when a test module is decorated,
    after the plugin has configured the target's MAX_MODEL_LEN)."""
    cases = [
        _decodes_at(_BOUNDARIES, tuple(f"cmpl-{i:016x}-{i:08x}" for i in range(8)), 8),
        _top_slots(1024),
        _top_slots(1023),
        _top_slots(257),
        _top_slots(256),
        *(full_table(n) for n in FULL_TABLES if n <= max_batch_requests()),
        _decodes_at((2**16, 2**16 + 1, 2**16 + 2), _SUFFIXED, 3),
        _decodes_at((3, 4, 5), _PREFIXED, 3),
        _decodes_at((7, 2**20), ("é" * 4096, "é" * 4095 + "e"), 2),
    ]
    # Steps past the target's longest prompt are not examples of it.
    steps = {_long_step(n).num_tokens: _long_step(n) for n in (16384, 32768, 65536)}
    return cases + list(steps.values())


def production_examples(test: Any) -> Any:
    for case in reversed(production_cases()):
        test = example(case=case)(test)
    return test


def no_draft_entries_example(test: Any) -> Any:
    return example(case=NO_DRAFT_ENTRIES_EXAMPLE)(test)


def missing_id_examples(test: Any) -> Any:
    for case in reversed(MISSING_ID_EXAMPLES):
        test = example(case=case)(test)
    return test


@dataclass(frozen=True)
class SortCase:
    """Arguments of sort_batch_req_ids alone: no slot table needed, so the search
    is dense in the shapes that distinguish orders (ties, partial drafts)."""

    num_tokens_per_req: dict[str, int]
    draft_tokens: dict[str, list[int]]
    decode_query_len: int


MAX_SORT_IDS = 64


_DECODE_QUERY_LEN = st.integers(1, 4)
_SORT_SIZE = st.sampled_from(("small", "small", "small", "large"))
_SMALL_SORT = st.integers(1, SMALL_TABLE)
_LARGE_SORT = st.integers(SMALL_TABLE + 1, MAX_SORT_IDS)
# One choice per id: num_tokens 1-6, drafts 0..num_tokens-1, and whether a draft-free id
# carries an empty draft entry. Small counts make ties and uniform decodes
# (num == decode_query_len) common.
_SORT_ID_CODES = 6 * 6 * 2


@st.composite
def sort_cases(draw: st.DrawFn) -> SortCase:
    decode_query_len = draw(_DECODE_QUERY_LEN, label="decode_query_len")
    # Past any small-input special case (numpy's and many sorts' insertion sort
    # below 17 elements) in a quarter of the cases.
    large = draw(_SORT_SIZE, label="sort_size") == "large"
    n = draw(_LARGE_SORT if large else _SMALL_SORT, label="num_ids")
    scheme = draw(ID_SCHEMES, label="ids")
    num: dict[str, int] = {}
    drafts: dict[str, list[int]] = {}
    for i, code in enumerate(draw_codes(draw, n, _SORT_ID_CODES, "sort_ids", width=1)):
        req_id = make_fresh(scheme.name(i), num)
        num[req_id] = 1 + code % 6
        k = code // 6 % 6 % num[req_id] if allows("drafts") else 0
        if k or code // 36:
            drafts[req_id] = [0] * k  # an empty list means no drafts, like a missing key
    event(f"sort ids: {_size_event(len(num))}")
    return SortCase(num, drafts, decode_query_len)

"""An engine's life, for the stateful family: the deployment a runner serves, and the
decisions that drive it step by step (requests arriving, scheduler steps, dummy steps).

Each decision is drawn as one fixed-size bytes choice (slot_tables: ``draw_codes``),
and ``conformance/engine.py`` turns it into a concrete scheduler step from the engine's
state, so a sequence of decisions stays valid while the shrinker removes steps before
it. Magnitudes are production ones, drawn as large *values*, never long arrays:
prompts up to millions of tokens and to the int32 limit, contexts (computed tokens)
past 1,000,000 and up to the limit, steps of up to 65,536 tokens with one prefill chunk
taking most of it, tables of up to 1,024 slots (vLLM's defaults and limits:
``engine/arg_utils.py`` ``_get_default_max_num_batched_tokens``, ``max_num_seqs``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.strategies.ids import ID_SCHEMES, IdScheme
from mrv2_conformance.strategies.limits import allows
from mrv2_conformance.strategies.slot_tables import _blob

# Table sizes: mostly small (cheap, and full tables within reach), then sizes past any
# small-table special case, then the production sizes and their neighbours (vLLM's
# max_num_seqs: 256 by default, 1,024 on large GPUs).
_TABLE = st.sampled_from((1, 2, 3, 4, 5, 6, 8, 8, 12, 16, 17, 31, 64, 255, 256, 1023, 1024))
# max_num_batched_tokens: small budgets (a few requests fill a step), and vLLM's
# defaults (2,048 / 8,192 / 16,384) and what prefill-heavy deployments set (65,536).
_BUDGET = st.sampled_from((8, 16, 24, 32, 48, 64, 96, 128, 2048, 8192, 16384, 65536))
_NUM_SPEC = st.sampled_from((0, 0, 0, 1, 2, 3, 4))
# PCP world sizes deployments use (1: no PCP).
_WORLD = st.sampled_from((1, 1, 1, 2, 4, 8))

ARRIVAL_BYTES = 4  # per request: size class, magnitude (2 bytes), context class
MAX_ARRIVALS = 4
STEP_HEADER = 4
STEP_BYTES = 40  # header, then one byte per running request (cycled past 36)
DUMMY_BYTES = 4


@dataclass(frozen=True)
class Deployment:
    """What one runner serves for its whole life."""

    max_num_reqs: int
    max_num_tokens: int  # max_num_batched_tokens: each step's budget and the buffers' size
    num_speculative_tokens: int
    pcp_world_size: int
    ids: IdScheme

    @property
    def decode_query_len(self) -> int:
        return 1 + self.num_speculative_tokens


# Tables that a few steps' arrivals fill (the stateful family's full_table life).
_SMALL_TABLE = st.sampled_from((1, 2, 3, 4, 5, 6, 8))


@st.composite
def deployments(draw: st.DrawFn, small_tables: bool = False) -> Deployment:
    # Every choice is drawn whatever the others are (slot_tables: aligned choices).
    max_num_reqs = draw(_SMALL_TABLE if small_tables else _TABLE, label="max_num_reqs")
    budget = draw(_BUDGET, label="max_num_batched_tokens")
    num_spec = draw(_NUM_SPEC, label="num_speculative_tokens")
    world = draw(_WORLD, label="pcp_world_size")
    ids = draw(ID_SCHEMES, label="ids")
    # PCP does not take drafts (CONTRACT F3): a PCP deployment speculates not.
    world = world if allows("pcp") else 1
    num_spec = num_spec if world == 1 and allows("drafts") else 0
    return Deployment(max_num_reqs, max(budget, 2), num_spec, world, ids)


arrival_codes = _blob(ARRIVAL_BYTES * MAX_ARRIVALS)
step_plans = _blob(STEP_BYTES)
dummy_codes = _blob(DUMMY_BYTES)
arrival_counts = st.integers(0, MAX_ARRIVALS)
# A step is preceded by a dummy batch (warm-up, graph capture, an idle data-parallel
# rank) when its dummy code's last byte is below this: about one step in four.
DUMMY_BEFORE_STEP = 64


def prompt_length(size_class: int, magnitude: int, max_model_len: int) -> int:
    """A prompt (prefill) length from a request's size class and 16-bit magnitude:
    short (1-96) for most, then up to 16,384, then 65,536 to ~2.1 million, then the
    last few thousand below the int32 limit; never past ``max_model_len`` (what the
    target can hold, its ``MAX_MODEL_LEN``)."""
    if size_class < 160:
        n = 1 + magnitude % 96
    elif size_class < 208:
        n = 97 + magnitude % 16288
    elif size_class < 240:
        n = 2**16 + magnitude * 31
    else:
        n = INT32_MAX - magnitude % 4096
    return max(1, min(n, max_model_len))


# How far past a finished prompt a resumed request's context reaches: small, at the
# int16 / uint16 / float32-exact boundaries, past a million, up to the int32 limit.
_CONTEXT_OFFSETS = (
    0,
    1,
    7,
    200,
    2**15 - 1,
    2**15,
    2**16 - 1,
    2**16,
    2**20,
    2**24 + 1,
    2**30,
    INT32_MAX,
)


def computed_at_arrival(context_class: int, prefill_len: int, magnitude: int) -> int:
    """Tokens a new request has computed already: none (a fresh prompt), a cached
    prefix, the whole prompt (it decodes from its first step), or the prompt and a
    long output (a request resumed after preemption). Leaves room below the int32
    limit for any step on top of it."""
    kind = context_class % 4
    if kind == 0:
        computed = 0
    elif kind == 1:
        computed = prefill_len * (magnitude % 256) // 256
    elif kind == 2:
        computed = prefill_len
    else:
        computed = prefill_len + _CONTEXT_OFFSETS[context_class // 4 % len(_CONTEXT_OFFSETS)]
    return min(computed, CONTEXT_LIMIT)


# The largest context a request arrives with: a full step (65,536 tokens, and its
# drafts) still fits below the int32 limit on top of it.
CONTEXT_LIMIT = INT32_MAX - 2**17

"""Request ids: the forms vLLM's servers make, and arbitrary unicode text of any length.

A history names its requests with an ``IdScheme`` drawn once (a few choices) rather
than with one id draw per request: per-request draws were most of a batch's cost, and
the contract only ever hashes ids. Every scheme still reaches the awkward ids (empty,
whitespace, digits, NUL, non-ASCII, astral) and arbitrary unicode through its prefix.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from hypothesis import strategies as st

realistic_ids = st.builds(
    lambda h, n: f"cmpl-{h:032x}-{n}", st.integers(0, 2**128 - 1), st.integers(0, 3)
)

# Any text at all, including "", surrogate-free unicode, whitespace and digits:
# upstream only ever hashes ids, so the contract must hold for every str.
arbitrary_ids = st.text(max_size=6)


# Arbitrary first so shrinking heads for "" / "0", the shortest readable ids.
_REQUEST_IDS = st.one_of(arbitrary_ids, realistic_ids)


def request_ids() -> st.SearchStrategy[str]:
    return _REQUEST_IDS


def draw_fresh_id(draw: st.DrawFn, taken: Container[str], label: str = "req_id") -> str:
    """A request id not in ``taken``. Made unique by suffixing rather than by
    ``.filter``, which would reject and redraw (slow, and shrinks worse)."""
    return make_fresh(draw(_REQUEST_IDS, label=label), taken)


def make_fresh(req_id: str, taken: Container[str]) -> str:
    """``req_id``, primed until it is not in ``taken``."""
    while req_id in taken:
        req_id += "'"
    return req_id


# The ids a vLLM engine (0.34.0) hands its runner, by where they come from: the OpenAI
# server prefixes a base id, the client's X-Request-Id header or a random 16-hex id
# (entrypoints/openai/completion/serving.py:192, chat_completion/serving.py:321,
# pooling/base/serving.py:115: embd, pooling, classify, score; trsc, trsl, decision,
# tokenize), multi-prompt and batch requests add "-{i}" or "_{i}" (completion/serving.py,
# chat_completion/batch_serving.py:157, responses/serving.py:667 "resp_..._{k}"), n > 1
# sampling makes children "{index}_{parent}" (v1/engine/parallel_sampling.py:94), the
# offline LLM class counts "0", "1", ...; and the engine appends "-{8 random hex}" to
# every id (v1/engine/input_processor.py:359) unless VLLM_DISABLE_REQUEST_ID_RANDOMIZATION
# is set. Releases before the 16-hex uuid used 32 hex digits ("cmpl-<32 hex>-0").
VLLM_TEMPLATES = (
    "cmpl-{h}-{s}",
    "chatcmpl-{h}-{s}",
    "{i}_cmpl-{h}-{s}",
    "cmpl-{h}-{k}-{s}",
    "chatcmpl-{h}_{k}-{s}",
    "embd-{h}-{k}-{s}",
    "{n}-{s}",
    "resp_{h}_{k}-{s}",
    "pooling-{h}-{k}-{s}",
    "classify-{h}-{s}",
    "score-{h}-{k}-{s}",
    "trsc-{h}-{s}",
    "{n}",
    "cmpl-{H}-{k}",
    "chatcmpl-{x}-{s}",
    "decision-{h}-{s}",
)


def vllm_id(base: int, i: int) -> str:
    """Request ``i`` of a history named by ``VLLM_TEMPLATES``: hex digits from ``base + i``,
    the engine's random suffix mixed from them; the client id ``x`` is the same for the
    whole history, so those ids differ only in the engine's suffix (a client that
    reuses its X-Request-Id)."""
    v = (base + i) % 2**128
    return VLLM_TEMPLATES[i % len(VLLM_TEMPLATES)].format(
        h=f"{v % 2**64:016x}",
        H=f"{v:032x}",
        s=f"{(v * 0x9E3779B97F4A7C15 >> 40) % 2**32:08x}",
        i=i % 4,
        k=i // len(VLLM_TEMPLATES) % 3,
        n=i,
        x=f"client {base % 997} é",
    )


# Appended to a text scheme's prefix in turn: the first request of a history with an
# empty prefix is "", the next ones digits, whitespace, non-ASCII, NUL, astral.
_SUFFIXES = ("", "0", " ", "é", "\x00", "🙂", "A", "-1", "\u200b", "10")
ID_STYLES = ("text", "mixed", "realistic", "vllm")


@dataclass(frozen=True)
class IdScheme:
    """Names request ``i`` of a history: ``text`` ids are the drawn prefix plus a
    suffix, ``realistic`` ids are ``cmpl-<base + i as hex>-<i mod 4>``, ``vllm`` ids
    take the forms of ``VLLM_TEMPLATES`` in turn, ``mixed`` alternates text and vllm
    ids (text first). ``repeat`` > 1 repeats a text prefix (ids of any length, drawn as
    one number, not as long text)."""

    style: str
    prefix: str = ""
    base: int = 0
    repeat: int = 1

    def name(self, i: int) -> str:
        if self.style == "realistic":
            return f"cmpl-{(self.base + i) % 2**128:032x}-{i % 4}"
        if self.style == "vllm" or (self.style == "mixed" and i % 2):
            return vllm_id(self.base, i)
        j = i if self.style == "text" else i // 2
        k = len(_SUFFIXES)
        return self.prefix * self.repeat + _SUFFIXES[j % k] + (str(j // k) if j >= k else "")


# (style, length): mostly short ids; now and then a text prefix repeated to at least
# hundreds or thousands of characters (a client's X-Request-Id has no length limit).
# One choice.
_STYLE = st.sampled_from(
    [(s, 0) for s in ID_STYLES] * 3 + [("text", 64), ("text", 1000), ("mixed", 1200)]
)
_LONG_FILLER = "r"  # a long style's prefix where the drawn one is empty
_BASE = st.integers(0, 2**128 - 1)


@st.composite
def id_schemes(draw: st.DrawFn) -> IdScheme:
    # Every choice is drawn whatever the style (slot_tables: aligned choices).
    style, length = draw(_STYLE, label="id_style")
    prefix = draw(arbitrary_ids, label="id_prefix")
    base = draw(_BASE, label="id_base")
    text = style in ("text", "mixed")
    if length and not prefix:
        prefix = _LONG_FILLER
    repeat = -(-length // len(prefix)) if length else 1  # the prefix reaches `length`
    return IdScheme(
        style, prefix if text else "", base if style != "text" else 0, repeat if text else 1
    )


# The one id_schemes() the other strategies draw from: built once, as
# slot_tables.int_range explains.
ID_SCHEMES = id_schemes()

"""Request ids: realistic ``cmpl-<hex>-<n>`` ids and arbitrary unicode text.

A history names its requests with an ``IdScheme`` drawn once (a few choices) rather
than with one id draw per request: per-request draws were most of a batch's cost, and
the contract only ever hashes ids. Every scheme still reaches the awkward ids (empty,
whitespace, digits, NUL, non-ASCII, astral) and arbitrary unicode through its prefix.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

realistic_ids = st.builds(
    lambda h, n: f"cmpl-{h:032x}-{n}",
    st.integers(0, 2**128 - 1), st.integers(0, 3))

# Any text at all, including "", surrogate-free unicode, whitespace and digits:
# upstream only ever hashes ids, so the contract must hold for every str.
arbitrary_ids = st.text(max_size=6)


# Arbitrary first so shrinking heads for "" / "0", the shortest readable ids.
_REQUEST_IDS = st.one_of(arbitrary_ids, realistic_ids)


def request_ids() -> st.SearchStrategy[str]:
    return _REQUEST_IDS


def draw_fresh_id(draw: st.DrawFn, taken: set[str] | dict[str, object],
                  label: str = "req_id") -> str:
    """A request id not in ``taken``. Made unique by suffixing rather than by
    ``.filter``, which would reject and redraw (slow, and shrinks worse)."""
    return make_fresh(draw(_REQUEST_IDS, label=label), taken)


def make_fresh(req_id: str, taken: set[str] | dict[str, object]) -> str:
    """``req_id``, primed until it is not in ``taken``."""
    while req_id in taken:
        req_id += "'"
    return req_id


# Appended to a text scheme's prefix in turn: the first request of a history with an
# empty prefix is "", the next ones digits, whitespace, non-ASCII, NUL, astral.
_SUFFIXES = ("", "0", " ", "é", "\x00", "🙂", "A", "-1", "\u200b", "10")
ID_STYLES = ("text", "mixed", "realistic")


@dataclass(frozen=True)
class IdScheme:
    """Names request ``i`` of a history: ``text`` ids are the drawn prefix plus a
    suffix, ``realistic`` ids are ``cmpl-<base + i as hex>-<i mod 4>``, ``mixed``
    alternates the two (text first)."""

    style: str
    prefix: str = ""
    base: int = 0

    def name(self, i: int) -> str:
        if self.style == "realistic" or (self.style == "mixed" and i % 2):
            return f"cmpl-{(self.base + i) % 2**128:032x}-{i % 4}"
        j = i if self.style == "text" else i // 2
        k = len(_SUFFIXES)
        return self.prefix + _SUFFIXES[j % k] + (str(j // k) if j >= k else "")


_STYLE = st.sampled_from(ID_STYLES)
_BASE = st.integers(0, 2**128 - 1)


@st.composite
def id_schemes(draw: st.DrawFn) -> IdScheme:
    # Every choice is drawn whatever the style (slot_tables: aligned choices).
    style = draw(_STYLE, label="id_style")
    prefix = draw(arbitrary_ids, label="id_prefix")
    base = draw(_BASE, label="id_base")
    return IdScheme(style, prefix if style != "realistic" else "",
                    base if style != "text" else 0)

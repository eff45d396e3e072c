"""Request ids: realistic ``cmpl-<hex>-<n>`` ids and arbitrary unicode text."""

from __future__ import annotations

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
    req_id = draw(_REQUEST_IDS, label=label)
    while req_id in taken:
        req_id += "'"
    return req_id

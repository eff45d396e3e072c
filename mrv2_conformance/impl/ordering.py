"""F1.1: the order in which a scheduler batch is laid out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mrv2_conformance.impl._checks import check_int


def sort_batch_req_ids(
    num_tokens_per_req: Mapping[str, int],
    draft_tokens: Mapping[str, Sequence[int]],
    decode_query_len: int,
) -> list[str]:
    """Requests with drafts first; within each group uniform decodes
    (``num == decode_query_len``) first; then ascending token count. ``sorted`` is
    stable, so ties keep the scheduler's order."""
    check_int("decode_query_len", decode_query_len, minimum=1)

    def key(req_id: str) -> tuple[bool, bool, int]:
        num = num_tokens_per_req[req_id]
        return (not draft_tokens.get(req_id), num != decode_query_len, num)

    return sorted(num_tokens_per_req, key=key)

"""A configurable copy of the PCP segment builder, for the PCP mutants: each one
changes one knob and patches it into ``impl.pcp``."""

from __future__ import annotations

from collections.abc import Callable

from mrv2_conformance.impl import RankSegment, pcp
from mrv2_conformance.impl.revisions import DEFAULT
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl


def make_rank_segments(
    chunk_ids: Callable[[int, int], tuple[int, ...]] = lambda w, r: (r, 2 * w - 1 - r),
    chunk_size: Callable[[int, int], int] = lambda q, n: -(-q // n),
    replicate_decodes: bool = True,
    reverse_within_group: bool = False,
):
    def rank_segments(global_batch, world_size, rank, revision=DEFAULT):
        # The mutants claim the default revision; ``revision`` is ignored.
        segments = []
        for g, q in enumerate(global_batch.num_scheduled_tokens.tolist()):
            start = int(global_batch.query_start_loc_np[g])
            computed = int(global_batch.num_computed_tokens_np[g])
            if global_batch.is_prefilling_np[g]:
                size = chunk_size(q, 2 * world_size)
                pieces = [(c * size, min(size, q - c * size)) for c in chunk_ids(world_size, rank)]
            elif replicate_decodes or rank == 0:
                pieces = [(0, q)]
            else:
                pieces = []
            segments += [RankSegment(g, start + o, n, computed + o) for o, n in pieces if n > 0]
        segments.sort(
            key=lambda s: (
                s.is_pure_prefill(global_batch.is_prefilling_np),
                -s.global_req_idx if reverse_within_group else 0,
            )
        )
        return segments

    return rank_segments


def patched_pcp(rank_segments):
    """(build_pcp_layout, partition_batch) of the reference with ``rank_segments``."""
    patch = (pcp, "_rank_segments", rank_segments)
    return (with_patches(impl.build_pcp_layout, patch), with_patches(impl.partition_batch, patch))

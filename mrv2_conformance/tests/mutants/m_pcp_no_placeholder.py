"""A rank with no segment gets an empty batch (0 rows) instead of one placeholder row."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "pcp"


def partition_batch(*args):
    out = impl.partition_batch(*args)
    if out.num_tokens == 0:
        out.num_reqs, out.req_ids = 0, []
        for name in (
            "idx_mapping_np",
            "idx_mapping",
            "num_scheduled_tokens",
            "seq_lens",
            "num_computed_tokens_np",
            "prefill_len_np",
            "num_computed_prefill_tokens_np",
            "is_prefilling_np",
            "local_to_global_batch_req_idx_np",
            "expanded_local_pos",
        ):
            setattr(out, name, getattr(out, name)[:0])
        out.expanded_idx_mapping = out.idx_mapping
        for name in ("query_start_loc", "query_start_loc_np", "cu_num_logits", "cu_num_logits_np"):
            setattr(out, name, getattr(out, name)[:1])
    return out

"""What the target can hold, which the strategies respect.

A target may declare ``MAX_MODEL_LEN``: the longest prompt (prefill tokens) a request
of it may have (vLLM's ``max_model_len``, which sizes a runner's per-request token
store). The plugin configures it here once per process, after importing the target,
and every strategy keeps prompts within it; contexts (computed tokens) of decoding
requests are not limited by it. Without a declaration the limit is the contract's:
int32.
"""

from __future__ import annotations

from dataclasses import dataclass

from mrv2_conformance.impl._checks import INT32_MAX


# vLLM's largest max_num_seqs: the most requests one step schedules.
MAX_BATCH_REQUESTS = 1024


@dataclass
class Limits:
    max_model_len: int = INT32_MAX
    # The most requests a drawn batch schedules (--max-batch-requests): production
    # tables up to this size are filled to capacity now and then; larger ones stay sparse.
    max_batch_requests: int = MAX_BATCH_REQUESTS
    # Capabilities the target declares it lacks (contract.CAPABILITIES): the strategies
    # generate no input that needs one (no drafts, no PCP world, no max_query_len).
    lacks: frozenset[str] = frozenset()


LIMITS = Limits()


def configure(max_model_len: int | None, lacks: frozenset[str] = frozenset()) -> None:
    """Called by the plugin with the target's ``MAX_MODEL_LEN`` (None: undeclared) and
    the capabilities it lacks."""
    valid = (
        isinstance(max_model_len, int)
        and not isinstance(max_model_len, bool)
        and 1 <= max_model_len <= INT32_MAX
    )
    if max_model_len is not None and not valid:
        raise ValueError(f"MAX_MODEL_LEN must be an int in [1, {INT32_MAX}], got {max_model_len!r}")
    LIMITS.max_model_len = INT32_MAX if max_model_len is None else max_model_len
    LIMITS.lacks = frozenset(lacks)


def configure_batches(max_batch_requests: int) -> None:
    """Called by the plugin with --max-batch-requests."""
    if (
        not isinstance(max_batch_requests, int)
        or isinstance(max_batch_requests, bool)
        or max_batch_requests < 1
    ):
        raise ValueError(f"--max-batch-requests must be a positive int, got {max_batch_requests!r}")
    LIMITS.max_batch_requests = max_batch_requests


def max_batch_requests() -> int:
    return LIMITS.max_batch_requests


def max_model_len() -> int:
    return LIMITS.max_model_len


def allows(capability: str) -> bool:
    """Whether the strategies may generate input that needs ``capability``."""
    return capability not in LIMITS.lacks

"""Stand-ins for what upstream's runner methods read, when they are called unbound.

* ``stand_in``: a ``GPUModelRunner`` with exactly the attributes those methods read
  (found by reading them, per release) and the runner class's own methods, set to
  what a plain single-GPU runner has: no
  pipeline/decode-context parallelism, no adaptive verification, no fast prefill, no
  R-SWA, one sampled token per step. An attribute it lacks raises an AttributeError
  naming it and the release, so a release that reads something new says what.
* ``scheduler_output``: upstream's own ``SchedulerOutput`` (its ``make_empty()``, or
  its dataclass defaults), with the step's tokens filled in: a field upstream adds
  arrives with upstream's default, never silently missing.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from mrv2_conformance.adapters._vllm.upstream import (
    API,
    VERSION,
    SchedulerOutput,
    UnknownApi,
    model_runner,
)


class Bookkeeping:
    """The runner's per-request state outside the contract (the model's own state, KV
    block tables, LoRA, pending draft tokens), which ``add_requests`` and
    ``finish_requests`` keep next to the slot table: it records nothing. Disclosed by
    the targets."""

    num_new_sampled_tokens_per_step = 1

    def add_request(self, *args: Any, **kwargs: Any) -> None:
        pass

    def remove_request(self, *args: Any, **kwargs: Any) -> None:
        pass

    def apply_staged_writes(self) -> None:
        pass

    def append_block_ids(self, *args: Any, **kwargs: Any) -> None:
        pass

    def discard(self, *args: Any, **kwargs: Any) -> None:
        pass


BOOKKEEPING = ("model_state", "block_tables", "lora_state", "draft_tokens_handler")
# Hidden attributes the methods read that have nothing to do with the contract: a
# plain generating runner on the last (only) pipeline stage, without pooling,
# multimodal encoders, prompt logprobs, a speculator or adaptive verification.
_PLAIN_RUNNER: dict[str, Any] = dict(
    use_pp=False,
    use_dcp=False,
    dcp_size=1,
    dcp_rank=0,
    cp_interleave=1,
    pcp_manager=None,
    adaptive_verification=None,
    fast_prefill=None,
    kv_block_zeroer=None,
    kv_caches=[],
    replayssm_block_copy_tensors=[],
    model_config=SimpleNamespace(rswa_window=None),
    pooling_runner=None,
    pp_handler=None,
    encoder_cache=None,
    prompt_logprobs_worker=None,
    speculator=None,
    sampler=None,
    is_last_pp_rank=True,
    **dict.fromkeys(BOOKKEEPING, Bookkeeping()),
)


class _StandIn:
    """Mixed in before the runner class: an attribute the runner's methods read that the
    stand-in was not given is named, with the release, instead of a bare AttributeError.
    (Methods and properties of the runner class resolve normally, ``super()`` included.)"""

    def __getattr__(self, name: str) -> Any:  # only for attributes it does not have
        if name.startswith("__"):
            raise AttributeError(name)
        missing = getattr(type(self), "_missing", None)
        if missing is not None:  # the import probe lists every gap (probe.py)
            return missing(name)
        raise AttributeError(
            f"vLLM {VERSION}: {type(self).__mro__[2].__name__} reads self.{name}, which the "
            f"adapter's runner stand-in does not have (give it with runner_attrs; "
            f"docs/plugins.md)"
        )


@dataclasses.dataclass(frozen=True)
class Derived:
    """A runner attribute computed from the stand-in once its other attributes are set
    (a plugin's host copy of the slot table's state, sized like it)."""

    compute: Any  # Callable[[runner], value]


@functools.cache
def stand_in_class(runner_class: type) -> type:
    """``runner_class`` itself, built without its ``__init__`` (which wants a whole
    engine config): its methods, overrides and ``super()`` calls run as in the engine."""
    return type(f"StandIn[{runner_class.__name__}]", (_StandIn, runner_class), {})


def stand_in(req_states: Any, decode_query_len: int, input_buffers: Any = None) -> Any:
    """An instance of the driven runner class (``API.classes.runner``) holding the plain
    runner's attributes; a plugin's own (``API.classes.runner_attrs``) replace them."""
    runner: Any = object.__new__(stand_in_class(API.classes.runner))
    attrs = {
        **_PLAIN_RUNNER,
        **dict(API.classes.runner_attrs),
        "req_states": req_states,
        "decode_query_len": decode_query_len,
        # What a runner with that many draft tokens per step was configured with (older
        # releases size the drafts' expansion by it).
        "num_speculative_steps": decode_query_len - 1,
    }
    if input_buffers is not None:
        attrs.update(
            input_buffers=input_buffers,
            device=input_buffers.device,
            max_num_reqs=input_buffers.max_num_reqs,
        )
    vars(runner).update(attrs)  # (a read-only property of the class keeps its own value)
    for name, value in attrs.items():
        if isinstance(value, Derived):
            vars(runner)[name] = value.compute(runner)
    return runner


def _empty_step() -> Any:
    if hasattr(SchedulerOutput, "make_empty"):
        return SchedulerOutput.make_empty()
    try:
        return SchedulerOutput()
    except TypeError as exc:
        raise UnknownApi(f"vLLM {VERSION}: cannot build an empty SchedulerOutput: {exc}") from None


def scheduler_output(
    num_scheduled_tokens: dict[str, int],
    scheduled_spec_decode_tokens: dict[str, list[int]],
    total_num_scheduled_tokens: int,
    new_reqs: Sequence[Any] = (),
    cached: dict[str, int] | None = None,
    finished: set[str] | frozenset[str] = frozenset(),
) -> Any:
    """Upstream's ``SchedulerOutput`` of a step: its tokens, its new requests (prompts
    of token id 0, no sampling or pooling parameters, no blocks), its running requests'
    computed tokens (no new tokens or blocks) and its finished ids; no structured
    output."""
    empty = _empty_step()
    changes: dict[str, Any] = dict(
        num_scheduled_tokens=num_scheduled_tokens,
        scheduled_spec_decode_tokens=scheduled_spec_decode_tokens,
        total_num_scheduled_tokens=total_num_scheduled_tokens,
    )
    if new_reqs:
        changes["scheduled_new_reqs"] = [_new_request(r) for r in new_reqs]
    if cached:
        changes["scheduled_cached_reqs"] = _cached_requests(cached)
    if finished:
        changes["finished_req_ids"] = set(finished)
    return dataclasses.replace(empty, **changes)


def scheduler_output_of(step: Any) -> Any:
    """Upstream's ``SchedulerOutput`` of one of the suite's steps (``SchedulerBatch``)."""
    return scheduler_output(
        step.num_scheduled_tokens,
        step.scheduled_spec_decode_tokens,
        step.total_num_scheduled_tokens,
        getattr(step, "scheduled_new_reqs", ()),
        getattr(step, "scheduled_cached_reqs", None),
        getattr(step, "finished_req_ids", frozenset()),
    )


def _new_request(req: Any) -> Any:
    """Upstream's ``NewRequestData``, every field bound by name (calls.py)."""
    tokens = [0] * req.prefill_len
    return API.new_request_data(
        req_id=req.req_id,
        prompt_token_ids=tokens,
        prefill_token_ids=list(tokens),
        mm_features=[],
        sampling_params=None,
        pooling_params=None,
        block_ids=([],),
        num_computed_tokens=req.num_computed_tokens,
        lora_request=None,
    )


def _cached_requests(cached: dict[str, int]) -> Any:
    n = len(cached)
    return API.cached_request_data(
        req_ids=list(cached),
        num_computed_tokens=list(cached.values()),
        new_token_ids=[[] for _ in range(n)],
        new_block_ids=[None] * n,
        num_output_tokens=[0] * n,
        resumed_req_ids=set(),
        all_token_ids={},
    )


def update_requests(req_states: Any) -> None:
    """Upstream's per-step bookkeeping (it clamps ``num_computed_prefill_tokens`` to
    ``prefill_len``), for a step that only admitted requests."""
    API.update_requests(stand_in(req_states, 1), scheduler_output=scheduler_output({}, {}, 0))


def eager_descriptor(num_tokens: int) -> Any:
    """The batch descriptor of the plain path: eager, no token or request padding."""
    from vllm.config import CUDAGraphMode

    return model_runner.BatchExecutionDescriptor(
        cg_mode=CUDAGraphMode.NONE, num_tokens=num_tokens, num_reqs=None
    )


__all__ = [
    "BOOKKEEPING",
    "Bookkeeping",
    "Derived",
    "eager_descriptor",
    "scheduler_output",
    "scheduler_output_of",
    "stand_in",
    "stand_in_class",
    "update_requests",
]

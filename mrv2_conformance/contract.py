"""The contract's own types (docs/CONTRACT.md), imported by the reference, the
strategies, the properties, the adapters and the plugin alike: the interface a target
exposes, its input (one scheduler step), the contract families and the revisions.

Nothing here implements a function of the contract or depends on the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- the interface ----------------------------------------------------------------------

# The names the suite calls on a target (README, "Testing your implementation").
INTERFACE: tuple[str, ...] = (
    "SlotTable",
    "sort_batch_req_ids",
    "gather_batch_req_state",
    "async_copy_to_gpu",
    "InputBuffers",
    "prepare_inputs",
    "make_dummy",
    "build_pcp_layout",
    "partition_batch",
    "update_states",
)


class TargetUnavailable(Exception):
    """Raised by a target module at import when it cannot run here (e.g. the library
    it adapts is not installed): every test that needs the target skips with this
    message, instead of the run stopping."""


# --- the input: one scheduler step --------------------------------------------------------


@dataclass(frozen=True)
class NewRequest:
    """A request the runner has not seen (upstream ``NewRequestData``): its prompt as
    the runner prefills it (``prefill_len`` tokens, prompt plus any output a resumed
    request already has) and the tokens already computed (prefix-cache hits)."""

    req_id: str
    prefill_len: int
    num_computed_tokens: int = 0


@dataclass(frozen=True)
class SchedulerBatch:
    """One scheduler step (the part of upstream ``SchedulerOutput`` that the index
    mapping reads; CONTRACT, Terms): tokens per request (insertion order = scheduler
    order) and draft tokens per request (missing or empty = no drafts); and the request
    updates that come with it (F4): requests finished since the last step, new
    requests, and the running requests' computed tokens (id -> count, in scheduler
    order). The containers belong to the engine: every function only reads them."""

    num_scheduled_tokens: dict[str, int]
    scheduled_spec_decode_tokens: dict[str, list[int]] = field(default_factory=dict)
    total_num_scheduled_tokens: int | None = None
    scheduled_new_reqs: list[NewRequest] = field(default_factory=list)
    scheduled_cached_reqs: dict[str, int] = field(default_factory=dict)
    finished_req_ids: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.total_num_scheduled_tokens is None:
            object.__setattr__(
                self, "total_num_scheduled_tokens", sum(self.num_scheduled_tokens.values())
            )

    def num_drafts(self, req_id: str) -> int:
        return len(self.scheduled_spec_decode_tokens.get(req_id) or ())


# --- the families (pytest markers) ----------------------------------------------------------

FAMILIES: dict[str, str] = {
    "ordering": "F1.1-F1.3 batch order and mapping values",
    "dtype_width": "index arrays intp/int64, counts int32, no conversion on use",
    "keyerror": "missing ids raise KeyError(req_id); nothing changes",
    "dummy_parity": "F2 dummy batch and its parity with a real batch",
    "device_host": "device tensors equal host twins; F1.4 copy semantics",
    "pcp": "F3 prefill context parallel partition",
    "aliasing": "views of the persistent buffers vs fresh arrays, in real, dummy and PCP batches",
    "slot_table": "slot table LIFO, capacity and removal semantics",
    "differential": "the target and the reference give the same outcome on the same input",
    "effects": "what each function reads and may change (checked on every call of every family)",
    "stateful": "an engine's life: many steps on one table and one set of buffers, in lockstep",
}


# --- capabilities a partial port may declare it lacks (CONTRACT, "Partial ports") ------
# A target's ``LACKS = {capability: why}``: the properties that need one are reported
# "not applicable (declared by the target)", the strategies stop generating it, and the
# verdict names the clauses that were not checked.

CAPABILITIES: dict[str, str] = {
    "pcp": "F3, the prefill-context-parallel partition: build_pcp_layout, partition_batch",
    "drafts": "F1.1's drafts-first group and F1.3's expanded mapping, for speculative drafts",
    "max_query_len": "F2's bound on a dummy batch: make_dummy's max_query_len",
}
NOT_APPLICABLE = "not applicable (declared by the target)"
# A device variant's skip reason where no accelerator could be tested on (the
# simulated device failed to build): its families are then "not checked".
NO_DEVICE = "no device under test"
# A device variant's skip reason where the target called what only CUDA has on the
# simulated device (plugin/offdevice.py): named, its families then "not checked".
OFF_DEVICE = "not applicable on this device"


def check_capabilities(lacks: object, who: str) -> dict[str, str]:
    """``lacks`` as declared, or ValueError naming what is wrong with it."""
    if not isinstance(lacks, dict):
        raise ValueError(f"{who}: LACKS must be a dict {{capability: why}}, got {lacks!r}")
    for cap, why in lacks.items():
        if cap not in CAPABILITIES:
            raise ValueError(
                f"{who}: LACKS names {cap!r}, which is no capability the suite knows "
                f"(known: {', '.join(CAPABILITIES)})"
            )
        if not isinstance(why, str) or not why.strip():
            raise ValueError(f"{who}: LACKS[{cap!r}] must say why, got {why!r}")
    return dict(lacks)


def not_applicable(cap: str, why: str) -> str:
    """The skip reason of a property that needs a capability the target lacks."""
    return f"{NOT_APPLICABLE}: lacks {cap} ({CAPABILITIES[cap]}): {why}"


# --- the revisions (CONTRACT, "Revisions") ------------------------------------------------
# What a target may claim in CONTRACT_REVISION (absent: DEFAULT). Upstream changed the
# contract after #51210 in one place only: the order of the rows on a PCP rank.
# Anything else a release does differently is a deviation, not a revision.


@dataclass(frozen=True)
class Revision:
    name: str
    releases: str  # the vLLM releases that implement it
    pcp_row_order: str  # what the revision says, in the docs' words


REVISIONS: dict[str, Revision] = {
    r.name: r
    for r in (
        Revision(
            "#51210",
            "vLLM 0.28.0-0.29.0 (the PR that made the mappings pointer-width)",
            "global batch order (row, then position); pure prefills (start position 0) "
            "moved last, stably",
        ),
        Revision(
            "0.30",
            "vLLM 0.30.0 and later",
            "decodes first, then prefills; by global row, then position, within each",
        ),
    )
}
DEFAULT_REVISION = "#51210"


class UnknownRevision(ValueError):
    pass


def check_revision(name: object, who: str) -> str:
    if name not in REVISIONS:
        known = "; ".join(f"{r.name!r} ({r.releases})" for r in REVISIONS.values())
        raise UnknownRevision(
            f"{who} declares CONTRACT_REVISION {name!r}, which the suite does "
            f"not know; known: {known}"
        )
    return str(name)


def revision_table() -> str:
    """The revision table (Markdown), as the release results print it."""
    lines = ["| revision | implemented by | rows on a PCP rank |", "|---|---|---|"]
    lines += [f"| `{r.name}` | {r.releases} | {r.pcp_row_order} |" for r in REVISIONS.values()]
    return "\n".join(lines)

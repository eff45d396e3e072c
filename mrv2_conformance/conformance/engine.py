"""The engine's side of the stateful family: what requests exist and what the next
scheduler step is, from the decisions ``strategies/engine.py`` draws.

``Engine`` is the model a state machine (``conformance/engine_loop.py``) drives the target
with. It holds what a vLLM engine holds for one runner: requests waiting to be
scheduled, requests running (in the runner's slot table), the ids that left (which may
come back), and each running request's prompt length and computed tokens. ``plan``
turns one bytes decision into a concrete step (``impl.SchedulerBatch`` with its request
updates, F4) that is valid for the current state, as vLLM's scheduler would send it:
finished ids first, running requests before new ones, each step within its token
budget, drafts only for decodes, and a request finished before its context would pass
the int32 limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mrv2_conformance.contract import NewRequest, SchedulerBatch
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.strategies.engine import (
    ARRIVAL_BYTES,
    STEP_BYTES,
    STEP_HEADER,
    Deployment,
    computed_at_arrival,
    prompt_length,
)
from mrv2_conformance.strategies.ids import make_fresh


# What an engine's life may reach (Engine.reached; the machine adds the runner calls').
ID_COMES_BACK = "a finished id comes back"
PREFILL_CONTINUES = "a prefill continues from an earlier step"
STREAMING_READD = "a running request is re-added (streaming input)"
FINISHES = "a request finishes"
DRAFTS = "drafts"
DRAFTS_REJECTED = "drafts the sampler rejects"
LARGE_STEP = "a step of 8,192+ tokens"
LONG_CONTEXT = "a context past 1,000,000 tokens"
REPEAT = "a step schedules an earlier step's requests again"

MAX_COMPOSITIONS = 8  # recent batches a step may schedule again


@dataclass
class Request:
    req_id: str
    prefill_len: int
    computed: int
    told: int = field(default=-1, repr=False)  # what the runner was last told (F4)
    came_back: bool = field(default=False, repr=False)  # its id had left before

    @property
    def prefilling(self) -> bool:
        return self.computed < self.prefill_len


@dataclass
class Step:
    """One planned step: the batch sent to the runner, and what it means for the model."""

    batch: SchedulerBatch
    new: list[Request]
    finished: list[str]  # running ids that leave (others in the batch's set are unknown)
    rejected: dict[str, int]  # drafts the sampler will reject, per request
    missing: tuple[str, ...] = ()  # scheduled ids the table does not hold
    aborted: list[str] = field(default_factory=list)  # waiting ids dropped

    def describe(self) -> str:
        b = self.batch
        parts = [f"finished {sorted(b.finished_req_ids)!r}"] if b.finished_req_ids else []
        if b.scheduled_new_reqs:
            parts.append(
                "new "
                + ", ".join(
                    f"{r.req_id!r}(prefill {r.prefill_len}, computed {r.num_computed_tokens})"
                    for r in b.scheduled_new_reqs
                )
            )
        if b.scheduled_cached_reqs:
            parts.append(f"running {b.scheduled_cached_reqs!r}")
        parts.append(f"scheduled {b.num_scheduled_tokens!r}")
        drafts = {k: len(v) for k, v in b.scheduled_spec_decode_tokens.items()}
        if drafts:
            parts.append(f"drafts {drafts!r}")
        if self.missing:
            parts.append(f"not in the table: {list(self.missing)!r}")
        return "; ".join(parts)[:2000]


class Engine:
    def __init__(self, deployment: Deployment, max_model_len: int = INT32_MAX) -> None:
        self.deployment = deployment
        self.max_model_len = max_model_len
        self.waiting: list[Request] = []
        self.running: dict[str, Request] = {}  # the runner's table, in scheduling order
        self.left: list[str] = []  # ids that finished: a later request may reuse one
        self.named = 0  # ids named so far (the deployment's IdScheme numbers them)
        # What this life reached (the names above, and the machine's): the stateful
        # family's reach table (tests/reach.py) counts the runs that reach each.
        self.reached: set[str] = set()
        # The requests of recent steps' batches, for steps that schedule one again (a
        # batch composition that repeats; a backend may cache by it).
        self.compositions: list[tuple[tuple[Request, int, int], ...]] = []

    @property
    def free_slots(self) -> int:
        return self.deployment.max_num_reqs - len(self.running)

    def _taken(self) -> set[str]:
        return {*self.running, *(r.req_id for r in self.waiting)}

    def fresh_id(self) -> str:
        self.named += 1
        return make_fresh(self.deployment.ids.name(self.named - 1), {*self._taken(), *self.left})

    def arrive(self, codes: bytes, count: int) -> list[Request]:
        """``count`` requests join the queue; each may reuse an id that left."""
        out = []
        for i in range(count):
            size, mag_hi, mag_lo, context = codes[i * ARRIVAL_BYTES : (i + 1) * ARRIVAL_BYTES]
            magnitude = mag_hi << 8 | mag_lo
            prefill = prompt_length(size, magnitude, self.max_model_len)
            reusable = [r for r in self.left if r not in self._taken()]
            if context >= 192 and reusable:  # an id that left comes back: mostly one
                # of the two that left last, while batches with it are recent
                req_id = (
                    reusable[-1 - magnitude % min(2, len(reusable))]
                    if magnitude & 1
                    else reusable[magnitude % len(reusable)]
                )
                self.reached.add(ID_COMES_BACK)
            else:
                req_id = self.fresh_id()
            req = Request(
                req_id,
                prefill,
                computed_at_arrival(context, prefill, magnitude),
                came_back=req_id in self.left,
            )
            self.waiting.append(req)
            out.append(req)
        # An id that comes back queues behind the requests it arrived with, so that one
        # of them, admitted first, takes the slot it left (LIFO) and it gets another.
        back = [r for r in out if r.came_back]
        if back and len(back) < len(out):
            self.waiting[-len(out) :] = [*(r for r in out if not r.came_back), *back]
        return out

    def plan(self, plan: bytes, *, overfill: bool = False, missing: Sequence[str] = ()) -> Step:
        """The next step. ``overfill``: admit one request more than the free slots hold
        (the runner must refuse the step). ``missing``: ids to schedule that the table
        does not hold (the runner's ``prepare_inputs`` must raise ``KeyError``)."""
        d = self.deployment
        admit_code, scope, flags, pos_code = plan[:STEP_HEADER]
        codes = plan[STEP_HEADER:]

        def code(i: int) -> int:
            return codes[i % (STEP_BYTES - STEP_HEADER)]

        finished: list[str] = []
        num: dict[str, int] = {}
        drafts: dict[str, list[int]] = {}
        rejected: dict[str, int] = {}
        cached: dict[str, int] = {}
        left = d.max_num_tokens
        subset = scope % 4 == 0
        repeat = self._repeat(pos_code) if scope % 4 == 1 and not overfill else None
        for i, req in enumerate(self.running.values()):
            c = code(i)
            # A decode ends (its last token, a stop string) in about one step in five; a
            # prefill is aborted now and then.
            ends = c < (8 if req.prefilling else 52)
            if repeat is not None:  # exactly an earlier batch's requests, and no others
                if req.req_id not in repeat:
                    if ends:
                        finished.append(req.req_id)
                    continue
            elif ends and not overfill:
                finished.append(req.req_id)
                continue
            elif subset and not c & 1:
                continue
            n, k = self._tokens(req, c, left)
            if repeat is not None and not req.prefilling:  # a decode as it was then
                n0, k0 = repeat[req.req_id]
                if n0 == 1 + k0 and n0 <= left and k0 <= d.num_speculative_tokens:
                    n, k = n0, k0
            if req.computed + n > INT32_MAX:  # the engine stops it at its max length
                finished.append(req.req_id)
                continue
            if n == 0:
                continue
            num[req.req_id] = n
            cached[req.req_id] = req.computed
            left -= n
            if req.prefilling:
                self.reached.add(PREFILL_CONTINUES)
            if k:
                drafts[req.req_id] = [flags] * k
                rejected[req.req_id] = (c >> 5) % (k + 1)
            elif flags & 8 and d.num_speculative_tokens:
                drafts[req.req_id] = []  # an empty entry means no drafts
        aborted: list[str] = []
        if flags & 1 and self.waiting and not overfill:  # aborted before it was scheduled
            aborted.append(self.waiting[-1].req_id)
        unseen = [self.fresh_id()] if flags & 2 else []  # never reached the runner
        free = d.max_num_reqs - len(self.running) + len(finished)
        queue = [r for r in self.waiting if r.req_id not in aborted]
        # 0-4 new requests, or all that fit; at least one when nothing runs (a scheduler
        # with free slots and budget does not leave an idle runner idle).
        wanted = admit_code % 6 if admit_code % 6 < 5 else len(queue)
        admit = free + 1 if overfill else min(free, max(wanted, int(not num)))
        if repeat is not None and num:
            admit = 0
        new: list[Request] = []
        idle = [
            r for r in self.running.values() if r.req_id not in num and r.req_id not in finished
        ]
        if flags & 32 and idle and not overfill and repeat is None:
            # Streaming input: a running request's prompt grows; vLLM sends it as new
            # again, and the runner removes and re-adds it (F4).
            req = idle[pos_code % len(idle)]
            again = Request(
                req.req_id,
                min(req.prefill_len + 1 + pos_code % 64, max(self.max_model_len, req.prefill_len)),
                req.computed,
            )
            queue.insert(0, again)
            admit += 1
            self.reached.add(STREAMING_READD)
        for j, req in enumerate(queue[:admit]):
            if req.prefilling:
                n, _ = self._tokens(req, code(len(self.running) + j), left)
            else:  # a resumed request decodes; it has no drafts yet
                n = min(1, left)
            if n == 0 and not overfill:
                break
            new.append(req)
            num[req.req_id] = max(n, 1)
            left = max(0, left - n)
        if flags & 4 and drafts:  # a draft entry for an id outside the batch is ignored
            drafts[self.fresh_id()] = [7]
        items = list(num.items())
        for m, req_id in enumerate(missing):
            items.insert((pos_code + m) % (len(items) + 1), (req_id, 1 + (flags >> 4) % 4))
        self._note_reached(num, drafts, rejected, finished, new)
        batch = SchedulerBatch(
            dict(items),
            drafts,
            scheduled_new_reqs=[NewRequest(r.req_id, r.prefill_len, r.computed) for r in new],
            scheduled_cached_reqs=cached,
            finished_req_ids={*finished, *aborted, *unseen},
        )
        return Step(batch, new, finished, rejected, tuple(missing), aborted)

    def _repeat(self, pos_code: int) -> dict[str, tuple[int, int]] | None:
        """A recent batch whose requests all run now (one chosen by ``pos_code``):
        each id's tokens and drafts in it; or None."""
        running = self.running
        fits = [c for c in self.compositions if all(r.req_id in running for r, _, _ in c)]
        # Those with a request that left and came back first: where a cache keyed by
        # the batch's ids would hand out the slot it had before.
        returned = [
            c
            for c in fits
            if any(running[r.req_id] is not r and running[r.req_id].came_back for r, _, _ in c)
        ]
        fits = returned or fits
        if not fits:
            return None
        self.reached.add(REPEAT)
        return {r.req_id: (n, k) for r, n, k in fits[pos_code % len(fits)]}

    def _note_reached(
        self,
        num: dict[str, int],
        drafts: dict[str, list[int]],
        rejected: dict[str, int],
        finished: list[str],
        new: list[Request],
    ) -> None:
        if finished:
            self.reached.add(FINISHES)
        if any(drafts.values()):
            self.reached.add(DRAFTS)
        if any(rejected.values()):
            self.reached.add(DRAFTS_REJECTED)
        if sum(num.values()) >= 8192:
            self.reached.add(LARGE_STEP)
        contexts = [r.computed for r in (*self.running.values(), *new)]
        if contexts and max(contexts) > 1_000_000:
            self.reached.add(LONG_CONTEXT)

    def _tokens(self, req: Request, c: int, left: int) -> tuple[int, int]:
        """(tokens, drafts) of one request in a step with ``left`` tokens of budget:
        a prefill chunk (the whole rest for a quarter of the codes: one request takes
        most of a step), or a decode of 1 + drafts."""
        if left <= 0:
            return 0, 0
        if req.prefilling:
            rest = req.prefill_len - req.computed
            mode = c >> 1 & 3
            n = rest if mode == 0 else 1 if mode == 1 else 1 + (c * 2654435761) % rest
            return min(n, left), 0
        k = (c >> 2) % (self.deployment.num_speculative_tokens + 1)
        k = min(k, left - 1)
        return 1 + k, k

    def admit(self, step: Step) -> None:
        """The step's request updates (F4) reached the runner's table."""
        for req_id in step.finished:
            del self.running[req_id]
            self.left.append(req_id)
        dropped = {*step.aborted, *(r.req_id for r in step.new)}  # admitted or aborted
        self.waiting = [r for r in self.waiting if r.req_id not in dropped]
        self.left = [r for r in self.left if r not in dropped]
        for req in step.new:
            self.running[req.req_id] = req
            req.told = req.computed
        for req_id in step.batch.scheduled_cached_reqs:
            self.running[req_id].told = self.running[req_id].computed

    def advance(self, step: Step) -> None:
        """The step's batch ran: its requests advance by their scheduled tokens, minus
        the drafts the sampler rejected (the runner's table learns the new counts from
        the next step's ``scheduled_cached_reqs``)."""
        for req_id, n in step.batch.num_scheduled_tokens.items():
            if req_id in self.running:
                self.running[req_id].computed += n - step.rejected.get(req_id, 0)
        b = step.batch
        self.compositions = [
            *self.compositions[-(MAX_COMPOSITIONS - 1) :],
            tuple(
                (self.running[r], n, b.num_drafts(r))
                for r, n in b.num_scheduled_tokens.items()
                if r in self.running
            ),
        ]

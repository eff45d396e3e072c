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

from mrv2_conformance.impl import NewRequest, SchedulerBatch
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


@dataclass
class Request:
    req_id: str
    prefill_len: int
    computed: int
    told: int = field(default=-1, repr=False)  # what the runner was last told (F4)

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
            parts.append("new " + ", ".join(f"{r.req_id!r}(prefill {r.prefill_len}, computed "
                                             f"{r.num_computed_tokens})"
                                             for r in b.scheduled_new_reqs))
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

    @property
    def free_slots(self) -> int:
        return self.deployment.max_num_reqs - len(self.running)

    def _taken(self) -> set[str]:
        return {*self.running, *(r.req_id for r in self.waiting)}

    def fresh_id(self) -> str:
        self.named += 1
        return make_fresh(self.deployment.ids.name(self.named - 1),
                          {*self._taken(), *self.left})

    def arrive(self, codes: bytes, count: int) -> list[Request]:
        """``count`` requests join the queue; each may reuse an id that left."""
        out = []
        for i in range(count):
            size, mag_hi, mag_lo, context = codes[i * ARRIVAL_BYTES: (i + 1) * ARRIVAL_BYTES]
            magnitude = mag_hi << 8 | mag_lo
            prefill = prompt_length(size, magnitude, self.max_model_len)
            reusable = [r for r in self.left if r not in self._taken()]
            if context >= 224 and reusable:  # an id that left comes back
                req_id = reusable[magnitude % len(reusable)]
            else:
                req_id = self.fresh_id()
            req = Request(req_id, prefill, computed_at_arrival(context, prefill, magnitude))
            self.waiting.append(req)
            out.append(req)
        return out

    def plan(self, plan: bytes, *, overfill: bool = False, missing: Sequence[str] = ()
             ) -> Step:
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
        for i, req in enumerate(self.running.values()):
            c = code(i)
            if c < 20 and not overfill:
                finished.append(req.req_id)
                continue
            if subset and not c & 1:
                continue
            n, k = self._tokens(req, c, left)
            if req.computed + n > INT32_MAX:  # the engine stops it at its max length
                finished.append(req.req_id)
                continue
            if n == 0:
                continue
            num[req.req_id] = n
            cached[req.req_id] = req.computed
            left -= n
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
        admit = free + 1 if overfill else min(free, admit_code % 6 if admit_code % 6 < 5
                                              else len(queue))
        new: list[Request] = []
        idle = [r for r in self.running.values() if r.req_id not in num
                and r.req_id not in finished]
        if flags & 32 and idle and not overfill:
            # Streaming input: a running request's prompt grows; vLLM sends it as new
            # again, and the runner removes and re-adds it (F4).
            req = idle[pos_code % len(idle)]
            again = Request(req.req_id, min(req.prefill_len + 1 + pos_code % 64,
                                            max(self.max_model_len, req.prefill_len)),
                            req.computed)
            queue.insert(0, again)
            admit += 1
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
        batch = SchedulerBatch(
            dict(items), drafts, scheduled_new_reqs=[
                NewRequest(r.req_id, r.prefill_len, r.computed) for r in new],
            scheduled_cached_reqs=cached, finished_req_ids={*finished, *aborted, *unseen})
        return Step(batch, new, finished, rejected, tuple(missing), aborted)

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

"""The import probe: one tiny input through every path the properties take, so that
what the installed code lacks for the adapter is named at import, all of it in one
message (one line per gap), instead of every property failing on the first gap.

Paths: a plain step; a request that arrives, continues and finishes; a step with
drafts; a dummy batch with ``max_query_len``; a PCP partition. A path the target
declares it lacks (``LACKS``) is not taken. A runner attribute the stand-in lacks is
recorded and replaced by an inert placeholder, so the path goes on to the next gap;
what fails after a placeholder was handed out is not reported (it is the
placeholder's doing). Any other failure on a path is left to the properties: it may
be a deviation, which they report with the input.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mrv2_conformance.adapters._vllm import runner
from mrv2_conformance.adapters._vllm.upstream import UnknownApi
from mrv2_conformance.contract import NewRequest, SchedulerBatch
from mrv2_conformance.frames import innermost


class _Absent:
    """What a missing runner attribute reads as during the probe: inert, falsy, empty."""

    def __getattr__(self, name: str) -> _Absent:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> _Absent:
        return self

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __index__(self) -> int:
        return 0


@contextlib.contextmanager
def _recording_missing(missing: dict[str, str]) -> Iterator[None]:
    def record(name: str) -> _Absent:
        cls = runner.API.classes.runner
        missing.setdefault(
            f"runner attribute self.{name}",
            f"{cls.__name__} reads self.{name}, which the adapter's runner stand-in does not "
            f"have (give it in runner_attrs: docs/plugins.md)",
        )
        return _Absent()

    runner._StandIn._missing = staticmethod(record)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del runner._StandIn._missing  # type: ignore[attr-defined]


def upstream_frame(exc: BaseException) -> str:
    """The innermost frame of ``exc`` outside the suite: ``name, file:line``."""
    return innermost(exc, (str(Path(__file__).resolve().parents[2]),))


def _gap(exc: Exception) -> str | None:
    """The gap an exception names, or None where it may be a deviation."""
    text = f"{type(exc).__name__}: {exc}"
    where = upstream_frame(exc)
    at = f" (at {where})" if where else ""
    if isinstance(exc, UnknownApi):
        return str(exc)  # a Missing call (calls.py), or a gap the adapter names itself
    if isinstance(exc, NotImplementedError) and " has no " in str(exc):
        return str(exc)  # upstream.need(): an optional call this path cannot do without
    if isinstance(exc, (ImportError, AttributeError, NameError)):
        return f"{text}{at}"
    if isinstance(exc, TypeError) and any(
        s in str(exc) for s in ("argument", "not callable", "not subscriptable")
    ):
        return f"{text}{at}"
    return None


def _paths(lacks: dict[str, str]) -> list[tuple[str, Callable[[], Any]]]:
    from mrv2_conformance.adapters._vllm import interface

    buffers_class = interface.buffers_class(runner.API.classes.input_buffers)

    def fresh() -> tuple[Any, Any]:
        table = interface.SlotTable(4)
        table.add_request("probe", 4)
        return table, buffers_class(4, 16, table.device)

    def plain() -> None:
        table, buffers = fresh()
        interface.prepare_inputs(SchedulerBatch({"probe": 4}), table, buffers, 1)

    def continuing() -> None:
        table, buffers = fresh()
        arrive = SchedulerBatch({"next": 2}, scheduled_new_reqs=[NewRequest("next", 4)])
        go_on = SchedulerBatch(
            {"next": 2}, scheduled_cached_reqs={"next": 2}, finished_req_ids={"probe"}
        )
        for step in (arrive, go_on):
            interface.update_states(step, table)
            interface.prepare_inputs(step, table, buffers, 1)

    def drafts() -> None:
        table, buffers = fresh()
        arrive = SchedulerBatch({"d": 1}, scheduled_new_reqs=[NewRequest("d", 1)])
        interface.update_states(arrive, table)
        interface.prepare_inputs(arrive, table, buffers, 2)
        step = SchedulerBatch({"d": 2}, {"d": [7]}, scheduled_cached_reqs={"d": 1})
        interface.update_states(step, table)
        if runner.API.sort is not None:  # else the order is inline in prepare_inputs
            interface.sort_batch_req_ids(
                step.num_scheduled_tokens, step.scheduled_spec_decode_tokens, 2
            )
        interface.prepare_inputs(step, table, buffers, 2)

    def dummy() -> None:
        interface.make_dummy(2, 4, fresh()[1], *(() if "max_query_len" in lacks else (2,)))

    def pcp() -> None:
        from mrv2_conformance.adapters._vllm import pcp as pcp_path

        table, buffers = fresh()
        batch = interface.prepare_inputs(SchedulerBatch({"probe": 4}), table, buffers, 1)
        pcp_path.build_pcp_layout(batch, 2)
        local = buffers_class(8, 16, table.device)
        pcp_path.partition_batch(batch, 2, 1, local)

    paths = [("a step", plain), ("arriving and continuing requests", continuing)]
    paths.append(("a dummy batch", dummy))
    if "drafts" not in lacks:
        paths.append(("a step with drafts", drafts))
    if "pcp" not in lacks:
        paths.append(("a PCP partition", pcp))
    return paths


def probe(lacks: dict[str, str] | None = None, who: str = "") -> None:
    """Raise one ``UnknownApi`` naming every gap found on every path, one per line."""
    lacks = lacks or {}
    gaps: dict[str, str] = dict.fromkeys(runner.API.gaps, "")
    for path, run in _paths(lacks):
        missing: dict[str, str] = {}
        try:
            with _recording_missing(missing):
                run()
        except Exception as exc:
            gap = None if missing else _gap(exc)
            if gap is not None:
                gaps.setdefault(gap, path)
        for line in missing.values():
            gaps.setdefault(line, path)
    if gaps:
        lines = [
            f"  - {gap}" + (f" (on the path of {path})" if path else "")
            for gap, path in gaps.items()
        ]
        raise UnknownApi(
            f"{who or 'the installed vLLM'}: {len(gaps)} thing(s) the adapter needs are "
            f"missing:\n" + "\n".join(lines)
        )


__all__ = ["probe", "upstream_frame"]

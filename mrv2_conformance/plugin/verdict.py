"""The verdicts: a family's (its row of the summary table) and the run's (the last
line), from the records of the properties that ran (plugin/report.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from mrv2_conformance.contract import CAPABILITIES, NOT_APPLICABLE, OFF_DEVICE
from mrv2_conformance.plugin.completeness import checked


def verdict_of(counts: dict[str, int], interrupted: bool = False, partial: bool = False) -> str:
    """A family conforms only if it has passes and no failure *and no known
    deviation*: an xfail is a documented non-conformance, not a pass. An interrupted
    or partial run never says a family conforms."""
    if counts.get("failed"):
        return "NON-CONFORMING"
    if interrupted:
        return "incomplete (interrupted)"
    if counts.get("no_device"):  # its device variants had no device to run on
        return "not checked on a device"
    if counts.get("off_device"):  # some device variants call what only CUDA has
        return OFF_DEVICE
    if partial:
        return (
            "partial run: not checked whole"
            if counts.get("passed") or counts.get("xfailed")
            else "not checked"
        )
    if counts.get("xfailed"):
        return "known deviations"
    if counts.get("passed"):
        return "conforms where applicable" if counts.get("not_applicable") else "conforms"
    return NOT_APPLICABLE if counts.get("not_applicable") else "not checked"


def lacked(records: list[dict[str, Any]], declared: Iterable[str] = ()) -> list[str]:
    """The capabilities the target declares it lacks, and those whose properties were
    reported not applicable, in contract order."""
    found = {r["not_applicable"] for r in records if r.get("not_applicable")} | set(declared)
    return [cap for cap in CAPABILITIES if cap in found]


def _except_lacked(records: list[dict[str, Any]], declared: Iterable[str]) -> str:
    caps = lacked(records, declared)
    if not caps:
        return ""
    named = "; ".join(f"{cap} ({CAPABILITIES[cap]})" for cap in caps)
    return f"; not checked, as the target declares it lacks them: {named}"


def overall(
    target: str,
    records: list[dict[str, Any]],
    interrupted: bool = False,
    partial: list[str] | tuple[str, ...] = (),
    lacks: Iterable[str] = (),
) -> str:
    """One line: whether the target conforms to the contract revision it claims. A
    failure is a non-conformance in any run; only a full run can conform. The claim
    covers only what was checked: what the target declares it lacks is named."""
    claimed = sorted({r["revision"] for r in records if r.get("revision")})
    revision = " / ".join(map(repr, claimed)) or "(unknown)"
    tally = Counter(r["outcome"] for r in records)
    failed = tally["failed"] + tally["xpassed"]
    if failed:
        return f"{target} does NOT conform to contract revision {revision}: {failed} failed" + (
            f" (partial run: {'; '.join(partial)})" if partial else ""
        )
    if interrupted:
        return f"{target}: incomplete (interrupted) against contract revision {revision}"
    if partial:
        return (
            f"{target}: PARTIAL RUN ({'; '.join(partial)}), not a conformance result: "
            f"checked {checked(records)} against contract revision {revision}"
        )
    no_device = sorted({r["no_device"] for r in records if r.get("no_device")})
    if no_device:
        return (
            f"{target}: device families not checked ({'; '.join(no_device)}), not a "
            f"conformance result against contract revision {revision}"
        )
    off_device = sorted({r["off_device"] for r in records if r.get("off_device")})
    if off_device:
        return (
            f"{target}: {sum(1 for r in records if r.get('off_device'))} device variants "
            f"{OFF_DEVICE} ({'; '.join(off_device)}), not a conformance result against "
            f"contract revision {revision}"
        )
    if tally["xfailed"]:  # documented is not conforming
        return (
            f"{target} does not conform to contract revision {revision}: "
            f"{tally['xfailed']} known deviations (xfails), no other failure"
            + _except_lacked(records, lacks)
        )
    return f"{target} conforms to contract revision {revision}" + _except_lacked(records, lacks)


__all__ = ["lacked", "overall", "verdict_of"]

"""Known non-conformance per target: ``xfails/<target>.txt`` (or ``--xfails FILE``).

One entry per line: a test id prefix, whitespace, then the reason (required).
Lines starting with ``#`` are comments. A prefix marks every collected test whose id starts with it
as xfail; an entry that matches nothing is reported as stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    prefix: str
    reason: str
    line: int


class XfailsFileError(Exception):
    pass


def default_path(rootdir: Path, target: str) -> Path:
    return rootdir / "xfails" / f"{target}.txt"


def parse(path: Path) -> list[Entry]:
    entries = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        prefix, _, reason = line.partition(" ")
        if not reason.strip():
            raise XfailsFileError(f"{path}:{lineno}: entry {prefix!r} has no reason")
        entries.append(Entry(prefix, reason.strip(), lineno))
    return entries


def match(entries: list[Entry], nodeid: str) -> Entry | None:
    # The longest (most specific) prefix wins.
    hits = [e for e in entries if nodeid.startswith(e.prefix)]
    return max(hits, key=lambda e: len(e.prefix)) if hits else None

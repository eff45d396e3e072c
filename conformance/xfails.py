"""Known non-conformance per target: ``xfails/<target>.txt`` (or ``--xfails FILE``).

One entry per line, three fields separated by `` | ``::

    <test id prefix> | <regular expression> | <reason>

Lines starting with ``#`` are comments. An entry applies to every collected test whose
id starts with the prefix. A test with entries is an expected failure only if *every*
failure line it reports (one per field that breaks the contract: see
``assertions.every_failure``) matches the pattern of one of its entries
(``re.search``); any other failure fails the run and names the entries that did not
cover it, so a documented deviation cannot absorb a new regression. An entry whose
pattern matches no failure of the run is stale (a warning; an error with
``--strict-xfails``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SEPARATOR = " | "


@dataclass(frozen=True)
class Entry:
    prefix: str
    pattern: re.Pattern[str]
    reason: str
    line: int


class XfailsFileError(Exception):
    pass


def default_path(rootdir: Path, target: str) -> Path:
    return rootdir / "xfails" / f"{target}.txt"


def parse(path: Path) -> list[Entry]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise XfailsFileError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as exc:
        raise XfailsFileError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if "\0" in text:
        raise XfailsFileError(f"{path}: not a text file (it holds NUL bytes)")
    entries = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(SEPARATOR, 2)]
        if len(parts) != 3 or not all(parts):
            raise XfailsFileError(
                f"{path}:{lineno}: expected '<test id prefix> | <pattern> | <reason>', got "
                f"{line[:80]!r}")
        prefix, pattern, reason = parts
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise XfailsFileError(f"{path}:{lineno}: bad pattern {pattern!r}: {exc}") from None
        entries.append(Entry(prefix, compiled, reason, lineno))
    return entries


def matching(entries: list[Entry], nodeid: str) -> list[Entry]:
    return [e for e in entries if nodeid.startswith(e.prefix)]


def cover(entries: list[Entry], failures: list[str]) -> tuple[list[Entry], list[str]]:
    """(the entries that match some failure line, the failure lines no entry matches)."""
    used = [e for e in entries if any(e.pattern.search(f) for f in failures)]
    uncovered = [f for f in failures if not any(e.pattern.search(f) for e in entries)]
    return used, uncovered

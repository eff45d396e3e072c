"""Where a failure happened: the innermost frame of its traceback outside given code,
so that an error whose text names nothing still names the call that failed."""

from __future__ import annotations

import traceback


def innermost(exc: BaseException, skip: tuple[str, ...] = ()) -> str:
    """``name, file:line`` of the innermost frame whose file starts with none of
    ``skip`` (and is not the import machinery), or "" when there is none."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith(skip) and "importlib" not in f.filename
    ]
    return f"{frames[-1].name}, {frames[-1].filename}:{frames[-1].lineno}" if frames else ""

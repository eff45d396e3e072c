"""A target whose import fails with an error that names nothing (target-loading
tests): the message must say where it happened."""

from mrv2_conformance.impl import *  # noqa: F403

_hook = None


def _configure_backend() -> None:
    _hook()  # type: ignore[misc]  # TypeError: 'NoneType' object is not callable


_configure_backend()

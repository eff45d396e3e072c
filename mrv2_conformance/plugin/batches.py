"""--max-batch-requests: the most requests a drawn batch schedules in one step
(strategies/limits.py), set in every process before a test module builds its explicit
examples."""

from __future__ import annotations

import os

import pytest

BATCH_ENV_VAR = "MRV2_CONFORMANCE_MAX_BATCH_REQUESTS"


def add_option(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--max-batch-requests",
        default=None,
        type=int,
        metavar="N",
        help="most requests in one drawn batch (default 1024; docs/usage.md)",
    )


def configure(config: pytest.Config) -> None:
    """The option, else its environment variable, else the default; a bad value is a
    usage error naming it."""
    from mrv2_conformance.strategies import limits

    value = config.getoption("--max-batch-requests")
    if value is None:
        raw = os.environ.get(BATCH_ENV_VAR, "").strip()
        try:
            value = int(raw) if raw else limits.MAX_BATCH_REQUESTS
        except ValueError:
            raise pytest.UsageError(
                f"${BATCH_ENV_VAR} must be a positive int, got {raw!r}"
            ) from None
    try:
        limits.configure_batches(value)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None

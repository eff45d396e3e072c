"""Known-bad targets: each is the reference wrong in exactly one documented way.

Every module sets ``FAMILY``, the contract family whose properties must kill it,
and its docstring says what is wrong. ``tests/test_negative_controls.py`` runs the
conformance suite against each one.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path


def mutant_names() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if m.name.startswith("m_")
    )

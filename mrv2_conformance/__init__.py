"""mrv2-conformance: a property-based conformance suite for the index-mapping data
contract of vLLM's ModelRunner V2 input preparation (docs/CONTRACT.md).

Subpackages: ``mrv2_conformance.impl`` (the reference), ``.strategies``,
``.conformance`` (the properties), ``.adapters``, ``.tests`` (the suite's own tests,
mutants included) and ``.bench``; ``.plugin`` is the pytest plugin and ``.cli`` the
``mrv2-conformance`` command.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__version__ = "0.1.0"

# Set by the mrv2-conformance command: the user's own arguments, for the rerun line.
CLI_ARGS_ENV_VAR = "MRV2_CONFORMANCE_CLI_ARGS"


@cache
def suite_root() -> Path:
    """The package's folder, holding ``conformance/``, ``xfails/`` and the others (in the
    clone and installed alike)."""
    return Path(__file__).resolve().parent

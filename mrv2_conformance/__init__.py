"""mrv2-conformance: a property-based conformance suite for the index-mapping data
contract of vLLM's ModelRunner V2 input preparation (docs/CONTRACT.md).

The repository's folders are installed under this package: ``mrv2_conformance.impl``
(the reference), ``.strategies``, ``.conformance`` (the properties), ``.adapters``,
``.tests`` and ``.bench``; ``.plugin`` is the pytest plugin and ``.cli`` the
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
    """The folder holding ``conformance/``, ``xfails/`` and the other folders: the
    clone's root in development, ``site-packages/mrv2_conformance`` when installed."""
    from mrv2_conformance import conformance

    return Path(conformance.__file__).resolve().parent.parent

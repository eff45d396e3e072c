"""A target claiming a contract revision the suite does not know."""

from mrv2_conformance.impl import *  # noqa: F403

CONTRACT_REVISION = "0.99"

"""The reference, except that ``prepare_inputs`` kills its process (os._exit)."""

import os

from mrv2_conformance.impl import *  # noqa: F403


def prepare_inputs(*args, **kwargs):
    os._exit(9)

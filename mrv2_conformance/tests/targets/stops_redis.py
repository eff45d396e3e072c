"""The reference, except that its first ``SlotTable`` shuts down the Redis server that
``MRV2_TEST_REDIS_URL`` names: the shared example database goes away in mid-run."""

import contextlib
import os

import redis

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import SlotTable as _SlotTable


class SlotTable(_SlotTable):
    def __init__(self, *args, **kwargs):
        url = os.environ.get("MRV2_TEST_REDIS_URL")
        if url:
            # Already down: redis-py reports the closed connection as an error.
            with contextlib.suppress(redis.ConnectionError):
                redis.Redis.from_url(url).shutdown(nosave=True)
        super().__init__(*args, **kwargs)

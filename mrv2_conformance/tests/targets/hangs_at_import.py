"""A target whose import never ends (target-loading tests)."""

import time

while True:
    time.sleep(3600)

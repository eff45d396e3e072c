"""A target that calls sys.exit while it is imported (target-loading tests)."""

import sys

sys.exit(3)

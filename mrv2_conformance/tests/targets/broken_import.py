"""A target whose import fails (target-loading tests)."""

raise ImportError("this target needs a backend that is not installed")

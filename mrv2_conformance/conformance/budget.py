"""A property's share of the profile's example budget, for properties whose clauses
other properties also exercise on every call or step.

Test modules are imported after the plugin has loaded the run's profile, so
``settings()`` here is that profile's."""

from __future__ import annotations

from hypothesis import settings

MIN_EXAMPLES = 10


def share(divisor: int) -> settings:
    """The current profile with ``1/divisor`` of its examples (at least MIN_EXAMPLES)."""
    return settings(max_examples=max(MIN_EXAMPLES, settings().max_examples // divisor))

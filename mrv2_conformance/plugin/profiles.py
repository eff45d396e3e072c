"""The suite's Hypothesis profiles, registered only in runs of the suite, and the
example database options (--save-failures, --replay)."""

from __future__ import annotations

import os

import pytest

PROFILE_ENV_VAR = "HYPOTHESIS_PROFILE"
DEFAULT_PROFILE = "dev"


def register() -> None:
    """deadline=None everywhere: the first call of a torch op is slow, and speed is
    measured in bench/, never in tests. print_blob everywhere: a failure's reproduction
    command replays Hypothesis' record of the example (plugin/reproduce.py)."""
    from hypothesis import HealthCheck, Phase, settings

    settings.register_profile("dev", deadline=None, print_blob=True)
    settings.register_profile(
        "ci",
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
    # The negative controls' budget: the ci profile without shrinking (a kill needs one
    # falsifying example, not the smallest one).
    settings.register_profile(
        "kill",
        parent=settings.get_profile("ci"),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    # mutmut runs the covering properties once per mutant of impl/: the same budget.
    settings.register_profile("mutmut", parent=settings.get_profile("kill"))
    # Real vLLM as the target (tox -e vllm-*): upstream's Triton kernels run in Triton's
    # interpreter, so shrinking an expected (xfail) failure takes minutes. The same
    # budget without shrinking; failures show the first falsifying example.
    settings.register_profile("vllm", parent=settings.get_profile("kill"))


def current_profile_name() -> str:
    from hypothesis import settings

    # settings.get_current_profile_name() is recent; older Hypothesis keeps it private.
    getter = getattr(settings, "get_current_profile_name", None)
    return getter() if getter else str(getattr(settings, "_current_profile", "?"))


def choice(config: pytest.Config) -> tuple[str, str]:
    """(profile name, where it came from), checked to exist."""
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    option = config.getoption("hypothesis_profile", None)
    name, source = (
        (option, "--hypothesis-profile")
        if option
        else (os.environ.get(PROFILE_ENV_VAR), f"${PROFILE_ENV_VAR}")
    )
    if not name:
        return DEFAULT_PROFILE, "default"
    try:
        settings.get_profile(name)
    except InvalidArgument:
        known = ", ".join(sorted(getattr(settings, "_profiles", {}))) or "?"
        raise pytest.UsageError(
            f"unknown Hypothesis profile {name!r} (from {source}); known profiles: {known}"
        ) from None
    return name, source


def derandomized(name: str) -> bool:
    from hypothesis import settings

    return bool(settings.get_profile(name).derandomize)


def apply_example_database(config: pytest.Config) -> None:
    """--save-failures / --replay: a directory or a Redis URL (exampledb.py), checked
    to answer before collection (plugin/startup.py)."""
    from hypothesis import Phase, settings
    from mrv2_conformance import exampledb

    save, replay = config.getoption("--save-failures"), config.getoption("--replay")
    if not (save or replay):
        return
    try:
        database = exampledb.open_database(save or replay)
    except exampledb.DatabaseError as exc:  # went down since the controller checked
        option = "--replay" if replay else "--save-failures"
        raise pytest.UsageError(f"{option} {exc}") from None
    overrides: dict = {"database": database, "derandomize": False}
    if replay:
        overrides["phases"] = [Phase.explicit, Phase.reuse]
    settings.register_profile("mrv2-examples", parent=settings(), **overrides)
    settings.load_profile("mrv2-examples")

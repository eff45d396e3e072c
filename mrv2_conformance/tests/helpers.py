"""Running the suite, or a command a user pastes, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mrv2_conformance.plugin.target import TARGET_ENV_VAR

ROOT = Path(__file__).resolve().parents[1]


def run_suite(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """``python -m pytest -p no:xdist ARGS`` in the clone, without inherited settings."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    full_env.pop(TARGET_ENV_VAR, None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def pasted(command: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``command`` as a user pastes it into a shell: from another directory, the
    environment's ``python`` first on PATH, no PYTHONPATH or suite settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "MRV2_", "HYPOTHESIS_")) and k != "PYTHONPATH"
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )

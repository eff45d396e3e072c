"""A warm pytest runner for the negative controls: one server process pays for the
heavy imports (torch, numpy, Hypothesis, pytest) once, and each conformance run is a
fork of it that calls ``pytest.main``. A run sees exactly what a fresh process sees
(its own pytest session, plugins, target and example budget); only the import time is
shared. Linux and macOS only (``os.fork``); elsewhere ``WarmRunner`` falls back to a
fresh process per run.

Protocol: one JSON request per line on the server's stdin (``args``, ``cwd``,
``output``, ``timeout``), one JSON reply per line on its stdout (``returncode``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# What every conformance run imports first; the rest (pytest's plugins, the suite's
# modules and the target) is imported by each run itself, as in a fresh process.
PRELOAD = ("numpy", "torch", "hypothesis", "hypothesis.extra.numpy", "pytest")
# A preloaded Hypothesis cannot be assertion-rewritten (it ships a pytest plugin, so
# pytest asks to): say so once here rather than as a warning in every run.
QUIET = (
    "-W",
    "ignore:Module already imported so cannot be rewritten:pytest.PytestAssertRewriteWarning",
)


class WarmRunner:
    """Runs ``pytest ARGS`` in forks of one warm server (started lazily)."""

    def __init__(self, env: dict[str, str], fork: bool = hasattr(os, "fork")) -> None:
        self.env = env
        self.fork = fork  # False: a fresh interpreter per run
        self._proc: subprocess.Popen[str] | None = None

    def run(self, args: list[str], cwd: Path, output: Path, timeout: float) -> int:
        """Exit status of ``python -m pytest ARGS`` run in ``cwd``; its stdout and
        stderr go to ``output``."""
        if not self.fork:
            with open(output, "w") as out:
                return subprocess.run(
                    [sys.executable, "-m", "pytest", *args],
                    cwd=cwd,
                    env=self.env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                ).returncode
        proc = self._server()
        assert proc.stdin and proc.stdout
        proc.stdin.write(
            json.dumps(
                {
                    "args": [*QUIET, *args],
                    "cwd": str(cwd),
                    "output": str(output),
                    "timeout": timeout,
                }
            )
            + "\n"
        )
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(
                f"the warm pytest server exited ({proc.wait()}) "
                f"while running pytest {' '.join(args)}"
            )
        return int(json.loads(line)["returncode"])

    def _server(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "mrv2_conformance.tests.warm"],
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        return self._proc

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        self._proc = None


def _child(request: dict[str, Any]) -> None:
    """In the fork: become a fresh ``python -m pytest`` (never returns)."""
    code = 70  # EX_SOFTWARE: pytest itself did not finish
    try:
        os.chdir(request["cwd"])
        fd = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.argv = [sys.executable, "-m", "pytest", *request["args"]]
        if request["cwd"] not in sys.path:  # as `python -m` puts the cwd first
            sys.path.insert(0, request["cwd"])
        import pytest

        code = int(pytest.main(request["args"]))
    except BaseException as exc:  # report anything, then leave without cleanup
        print(f"warm runner: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(pid: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 124  # timeout(1)'s status
        time.sleep(0.01)


def serve() -> None:
    for name in PRELOAD:
        __import__(name)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        sys.stdout.write(json.dumps({"returncode": _wait(pid, request["timeout"])}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()

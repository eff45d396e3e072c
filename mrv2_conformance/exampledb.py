"""Where Hypothesis keeps falsifying examples (--save-failures, --replay, campaigns): a
directory on this machine, or a Redis server that every machine of a team shares
(``redis://host:port/db``, ``rediss://`` with TLS, ``unix:///path/to/socket``), through
Hypothesis' own ``hypothesis.extra.redis.RedisExampleDatabase``. Redis keeps each
test's examples in a set, and SADD/SREM are atomic, so any number of processes may
write at once. A server that is down or unreachable is one clear error, raised within
``CONNECT_TIMEOUT_S``, never a hang."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mrv2_conformance.frames import exception_chain

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
CONNECT_TIMEOUT_S = 5.0
# A reply that takes longer than this means the server is stuck: an error, not a hang.
REPLY_TIMEOUT_S = 30.0
# Hypothesis' own prefix (RedisExampleDatabase's default), so that plain Hypothesis
# runs pointed at the same server share the examples.
KEY_PREFIX = b"hypothesis-example:"
INSTALL_HINT = "pip install 'mrv2-conformance[redis]' (the redis client)"


# One database object per URL and process (its forks included): two Redis databases
# compare equal only if they share a client, and HypoFuzz leaves out a property whose
# database differs from the default one (a test module imported before a fork keeps the
# object it was decorated with). redis-py makes a fork's connections anew.
_OPENED: dict[str, ExampleDatabase] = {}


class DatabaseError(Exception):
    """The example database cannot be used: the message is the one line to print."""


def is_url(location: str | Path) -> bool:
    return str(location).startswith(REDIS_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, fit to print in a header or a command."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def _client(url: str, reply_timeout: float = REPLY_TIMEOUT_S) -> Any:
    try:
        import redis
    except ImportError:
        raise DatabaseError(
            f"{redact(url)}: a Redis example database needs {INSTALL_HINT}"
        ) from None
    try:
        return redis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=reply_timeout,
            # A dropped connection is retried by a new connect (bounded by the connect
            # timeout), not by waiting on the old socket.
            retry_on_timeout=False,
        )
    except ValueError as exc:  # redis-py's word for a malformed URL
        raise DatabaseError(f"{redact(url)}: not a Redis URL: {exc}") from None


def _one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` of a Redis error."""
    text = str(exc)
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else 'no reply'}"


def _reach(url: str) -> None:
    """One PING on its own connection, bounded by the connect timeout both ways: a
    listener that never answers is as unreachable as a closed port."""
    client = _client(url, reply_timeout=CONNECT_TIMEOUT_S)  # first: it says if redis is missing
    import redis

    try:
        client.ping()
    except redis.RedisError as exc:
        raise DatabaseError(
            f"{redact(url)}: the example database is unreachable: {_one_line(exc)}"
        ) from None
    finally:
        client.close()


def open_database(location: str | Path) -> ExampleDatabase:
    """The database at ``location``, checked to answer now (a Redis server)."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    if not is_url(location):
        return DirectoryBasedExampleDatabase(str(location))
    url = str(location)
    _reach(url)  # first: without the redis client it names what to install
    from hypothesis.extra.redis import RedisExampleDatabase

    if url not in _OPENED:
        _OPENED[url] = RedisExampleDatabase(_client(url), key_prefix=KEY_PREFIX)
    return _OPENED[url]


def holds_examples(location: str | Path) -> bool:
    """Whether anything was ever saved there (a replay of nothing is an error)."""
    if not is_url(location):
        path = Path(location)
        return path.is_dir() and any(p.is_file() for p in path.rglob("*"))
    url = str(location)
    _reach(url)
    client = _client(url)
    return next(iter(client.scan_iter(match=KEY_PREFIX + b"*", count=1000)), None) is not None


def outage(exc: BaseException) -> str:
    """The Redis error in ``exc`` (its cause, context or group included) that means the
    server went away during the run, as ``Type: message``; "" if there is none."""
    import sys

    redis = sys.modules.get("redis")
    if redis is None:
        return ""
    lost = (redis.ConnectionError, redis.TimeoutError)
    for e in exception_chain(exc):
        if isinstance(e, lost):
            return _one_line(e)
    return ""

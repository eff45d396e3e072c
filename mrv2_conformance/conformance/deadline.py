"""A deadline on every call of a target function (``--target-timeout``, per call).

One watchdog thread per process watches the call in progress; past its deadline it
sends the main thread ``SIGUSR2`` (pytest-timeout's timer, the backstop per property,
uses ``SIGALRM``), whose handler raises ``TargetTimeout`` there: a call blocked in
Python or in a sleep ends at once. A function that hung is not called again in this
process: every later call fails at once, naming the earlier hang, so a hanging target
costs one deadline per function (per xdist worker), not one per property. A call that
kills its process (under xdist: the worker) is remembered in a file, and the other
processes of the run fail that function at once too.

The slowest call of each function is kept, so a report can say how close a target came.
"""

from __future__ import annotations

import contextlib
import functools
import mmap
import os
import signal
import threading
import time
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import IO, Any

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: no first-call gate (_first_call)
    fcntl = None  # type: ignore[assignment]

SIGNAL = signal.SIGUSR2


def is_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is pytest-timeout's failure: raised from its signal handler (its
    message differs between releases: 'Timeout >2.0s', 'Timeout (>2.0s) from ...')."""
    if not isinstance(exc, pytest.fail.Exception):
        return False
    tb = exc.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).name == "pytest_timeout.py":
            return True
        tb = tb.tb_next
    return False


class TargetTimeout(BaseException):
    """A target call that did not return in time. A BaseException, so Hypothesis does
    not catch it and run the hung call again while shrinking."""


class _Watch:
    """The watchdog. A call in progress is one assignment (``current``), with no lock
    and no wake-up: the thread polls a few times per deadline, so a call costs the main
    thread nothing that would hand the GIL to another thread (a notify per call did,
    and cost a fifth of a serial run). Only firing takes the lock, and re-checks under
    it that the same call is still in progress."""

    def __init__(self) -> None:
        self.seconds = 0.0  # 0: no deadline
        self.lock = threading.RLock()
        self.current: tuple[str, float] | None = None  # (call, deadline) in progress
        self.fired: str | None = None
        self.hung: dict[str, str] = {}  # function -> what happened
        self.slowest: dict[str, float] = {}
        # Functions with a call in this run that returned (or raised) instead of ending
        # its process: their later calls pass no gate (_first_call).
        self.survived: set[str] = set()
        self.thread: threading.Thread | None = None
        # What a hang raises: TargetTimeout, a BaseException, so that Hypothesis does not
        # retry the call; a campaign asks for an Exception (plugin/campaign.py).
        self.hang_exception: type[BaseException] = TargetTimeout

    def start(self) -> None:
        if self.thread is None:
            signal.signal(SIGNAL, self._on_signal)
            self.thread = threading.Thread(target=self._run, name="mrv2-deadline", daemon=True)
            self.thread.start()

    def _on_signal(self, signum: int, frame: Any) -> None:
        # No lock here: the handler may run inside end()'s block on this same thread.
        message, self.fired = self.fired, None
        if message is not None:
            if frame is not None:  # where the call was when it was stopped
                code = frame.f_code
                message += f" (stopped in {code.co_name}, {code.co_filename}:{frame.f_lineno})"
            raise TargetTimeout(message)

    def poll_interval(self) -> float:
        """How often the thread looks: a twentieth of the deadline, within 10 ms - 1 s."""
        return min(1.0, max(0.01, self.seconds / 20))

    def _run(self) -> None:
        while True:
            time.sleep(self.poll_interval())
            current = self.current
            if current is None or current[1] > time.monotonic():
                continue
            with self.lock:
                if self.current is current:  # not returned meanwhile
                    self.fired = current[0]
                    self.current = None
                    signal.pthread_kill(threading.main_thread().ident or 0, SIGNAL)

    def begin(self, message: str) -> None:
        self.current = (message, time.monotonic() + self.seconds)

    def end(self) -> None:
        with self.lock:  # uncontended but for a firing: no thread wakes up
            self.current = None
            self.fired = None

    def after_fork(self) -> None:
        """In a forked child (HypoFuzz's workers are): the watchdog thread did not come
        along, and its lock may have been held; a new one starts at the next call."""
        self.lock = threading.RLock()
        self.current = self.fired = None
        self.thread = None


WATCH = _Watch()
os.register_at_fork(after_in_child=WATCH.after_fork)

# A folder where each process keeps the call it is in (one small file per process, its
# pid): a call that kills its process leaves its name behind, and the processes that go
# on (xdist's other workers, its replacement) fail that function at once.
CALLS_DIR_ENV = "MRV2_CALLS_DIR"
_SLOT = 512  # bytes of "target|function" kept per process


class _Ledger:
    """This process's file in the folder, mapped into memory: a write is a copy into
    the page the kernel shares with every reader (and keeps when the process dies),
    not a system call (two per target call cost a fourteenth of a serial run)."""

    def __init__(self) -> None:
        self.map: mmap.mmap | None = None
        self.pid = 0

    def _open(self) -> mmap.mmap | None:
        folder = os.environ.get(CALLS_DIR_ENV)
        if not folder:
            return None
        if self.map is None or self.pid != os.getpid():
            self.pid = os.getpid()
            fd = os.open(Path(folder) / str(self.pid), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                os.ftruncate(fd, _SLOT)
                self.map = mmap.mmap(fd, _SLOT)
            finally:
                os.close(fd)  # the mapping keeps the file
        return self.map

    def write(self, text: str) -> None:
        slot = self._open()
        if slot is not None:
            slot[:] = text.encode()[:_SLOT].ljust(_SLOT)


LEDGER = _Ledger()


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a zombie (not yet reaped by its parent) is dead too
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


def adopt_dead_calls() -> None:
    """Functions whose call killed another process of this run fail at once here too."""
    folder = os.environ.get(CALLS_DIR_ENV)
    if not folder:
        return
    for file in Path(folder).iterdir():
        if not file.name.isdigit() or int(file.name) == os.getpid():
            continue
        left = file.read_bytes().decode(errors="replace").strip()
        if left and "|" in left and _dead(int(file.name)):
            target, name = left.split("|", 1)
            WATCH.hung.setdefault(
                name,
                f"an earlier call killed its process: target {target}'s {name}() ended "
                f"process {file.name} without returning",
            )


@contextlib.contextmanager
def _first_call(name: str) -> Iterator[None]:
    """A function's first call in the run, one process at a time. Under xdist every
    worker starts on the same functions within moments: a call that kills its process
    would end both workers at once, and xdist's controller, still handing the first
    one's tests to the second, stops with an INTERNALERROR instead of a verdict. The
    others wait on a lock the kernel releases when its holder dies, then find its
    death in the ledger and fail the function at once. A call that kills its process
    only on some later input is not gated."""
    folder = os.environ.get(CALLS_DIR_ENV)
    if not folder:
        yield
        return
    survived = Path(folder) / f"{name}.survived"
    if survived.exists():
        WATCH.survived.add(name)
        yield
        return
    lock = _open_gate(Path(folder) / f"{name}.first")
    if lock is None:  # no gate: not POSIX, or the folder is gone
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        adopt_dead_calls()
        try:
            yield
        finally:  # still alive: the call returned, raised, or hung and was stopped
            WATCH.survived.add(name)
            with contextlib.suppress(OSError):
                survived.touch()


def _open_gate(path: Path) -> IO[str] | None:
    """The gate's lock file, or None where there can be none: no fcntl (not POSIX), or
    the run's folder is gone (a campaign's forked worker can outlive it). Opened here,
    not in _first_call's handlers: an exception of the call must not carry this one."""
    if fcntl is None:
        return None
    try:
        return open(path, "a")  # the caller closes it
    except OSError:
        return None


def configure(seconds: float) -> None:
    """The per-call deadline in seconds (0: none)."""
    WATCH.seconds = max(0.0, float(seconds))


def raise_hangs_as(cls: type[BaseException]) -> None:
    WATCH.hang_exception = cls


def take_slowest() -> tuple[str, float] | None:
    """The slowest call since the last take (function, seconds); the record restarts."""
    if not WATCH.slowest:
        return None
    name = max(WATCH.slowest, key=WATCH.slowest.__getitem__)
    took = round(WATCH.slowest[name], 3)
    WATCH.slowest.clear()
    return name, took


def guarded(
    target: str, name: str, fn: Callable[..., Any], gate: bool = True
) -> Callable[..., Any]:
    """``fn`` (the target's ``name``) under the deadline, in the main thread only; its
    first call in the run one process at a time (``gate``, _first_call)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if gate and name not in WATCH.survived:
            with _first_call(name):
                return _call(*args, **kwargs)
        return _call(*args, **kwargs)

    def _call(*args: Any, **kwargs: Any) -> Any:
        earlier = WATCH.hung.get(name)
        if earlier is not None:
            raise WATCH.hang_exception(f"{earlier}; not called again in this process")
        on_main = threading.current_thread() is threading.main_thread()
        if not WATCH.seconds or not on_main:
            return _ledgered(target, name, fn, args, kwargs)
        WATCH.start()
        message = f"target {target} did not return within {WATCH.seconds:g} s from {name}()"
        WATCH.begin(message)
        try:
            return _ledgered(target, name, fn, args, kwargs)
        except TargetTimeout as exc:
            WATCH.hung[name] = f"an earlier call hung: {exc}"
            if WATCH.hang_exception is not TargetTimeout:
                raise WATCH.hang_exception(str(exc)) from None
            raise
        finally:
            WATCH.end()

    return call


def call_once_within(
    seconds: float, target: str, name: str, fn: Callable[..., Any], *args: Any
) -> Any:
    """``fn(*args)`` under a deadline of its own (the target's import), leaving no
    trace: the per-call deadline is restored, and neither a hang nor the time taken is
    kept against ``name``."""
    saved = WATCH.seconds
    configure(seconds)
    try:
        return guarded(target, name, fn, gate=False)(*args)
    finally:
        configure(saved)
        WATCH.hung.pop(name, None)
        WATCH.slowest.pop(name, None)


def _ledgered(target: str, name: str, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    LEDGER.write(f"{target}|{name}")
    try:
        return _timed(name, fn, args, kwargs)
    finally:
        LEDGER.write("")


def _timed(name: str, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    start = time.monotonic()
    try:
        return fn(*args, **kwargs)
    finally:
        took = time.monotonic() - start
        if took > WATCH.slowest.get(name, 0.0):
            WATCH.slowest[name] = took


__all__ = [
    "CALLS_DIR_ENV",
    "SIGNAL",
    "adopt_dead_calls",
    "call_once_within",
    "configure",
    "guarded",
    "take_slowest",
]

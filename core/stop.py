"""Stopping a run early without losing a file: signals and the time budget.

A run may be stopped from outside (SIGTERM from ``docker stop`` or a scheduler,
SIGINT from Ctrl-C, SIGHUP when the terminal goes) or by its own ``--time-budget``.
Either way every present task must still write its file, so stopping is cooperative:

- ``handle_signals()`` (a context manager, main thread only) replaces the handlers of
  SIGTERM, SIGINT and SIGHUP. The first signal records why the run stops; a second one
  ends the process at once (``os._exit(128 + signum)``), after removing the temporary
  files of writes in progress (``track_temporary``), so nothing half-written is left.
- ``set_deadline(t)`` arms a timer (``SIGALRM``) for the time budget.
- Work that may be abandoned (a task's setup, a batch, the trunk build) runs inside
  ``interruptible()``: a signal or the deadline arriving there raises ``Stop`` at once,
  whatever the code is doing, instead of waiting for the batch to end. Outside it (while
  files are written, while inputs are listed) they are only recorded; the runner reads
  ``signalled()`` and ``budget_spent()`` at its next step.

``Stop`` derives from ``BaseException`` (like ``KeyboardInterrupt``), so a task's own
``except Exception`` never swallows it. Where signals cannot be handled (a thread other
than the main one, a platform without them), nothing is installed and the runner's checks
between batches remain.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))


class Stop(BaseException):  # noqa: N818 - like KeyboardInterrupt, a control-flow exception
    """Raised inside ``interruptible()`` when the run must stop (a signal, or the time budget spent)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _State:
    def __init__(self) -> None:
        self.signal_name: str | None = None  # the first stopping signal received
        self.signum = 0
        self.deadline: float | None = None  # time.monotonic() value
        self.armed = 0  # depth of interruptible() sections
        self.installed = False
        self.temporary: set[str] = set()  # files being written; removed on a hard exit
        self.hurried: str | None = None  # the last reason hurry() gave; kept after handle_signals()


_state = _State()


def signalled() -> str | None:
    """The name of the signal that asked the run to stop (``"SIGTERM"``...), else None."""
    return _state.signal_name


def exit_code() -> int:
    """The conventional exit status for the signal received (143 for SIGTERM, 130 for SIGINT); 0 if none."""
    return 128 + _state.signum if _state.signal_name else 0


def budget_spent(now: float | None = None) -> bool:
    """Whether the deadline set by ``set_deadline`` has passed."""
    return _state.deadline is not None and (time.monotonic() if now is None else now) >= _state.deadline


def hurry() -> str | None:
    """Why no more real work should start ("SIGTERM", "time budget"), or None."""
    reason = _state.signal_name or ("time budget" if budget_spent() else None)
    if reason:
        _state.hurried = reason
    return reason


def hurried() -> str | None:
    """Why the last run in this process ended early (a signal, the time budget), else None."""
    return _state.hurried


def _raise_if_armed(reason: str) -> None:
    if _state.armed:
        raise Stop(reason)


def _on_signal(signum: int, frame: object) -> None:
    if _state.signal_name is not None:  # the second signal: end now
        _remove_temporary()
        _say(f"run: second signal ({signal.Signals(signum).name}); ending at once\n")
        os._exit(128 + signum)
    _state.signal_name = signal.Signals(signum).name
    _state.signum = signum
    _raise_if_armed(_state.signal_name)


def _on_alarm(signum: int, frame: object) -> None:
    if budget_spent():
        _raise_if_armed("time budget")
    elif _state.deadline is not None:  # woke early (timer granularity): wait for the rest
        _arm_timer(_state.deadline - time.monotonic())


def _say(text: str) -> None:
    """Write to fd 2 without Python's I/O stack (safe inside a signal handler); never raises."""
    with contextlib.suppress(OSError):
        os.write(2, text.encode("utf-8", "replace"))


def _arm_timer(seconds: float) -> None:
    if _state.installed and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))


def set_deadline(deadline: float | None) -> None:
    """Stop work at ``deadline`` (a ``time.monotonic()`` value; None: no deadline)."""
    _state.deadline = deadline
    if deadline is not None:
        _arm_timer(deadline - time.monotonic())
    elif _state.installed and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def deadline_at(deadline: float | None) -> Iterator[None]:
    """``set_deadline(deadline)`` for the block (None: keep the one already set), then the previous one."""
    if deadline is None:
        yield
        return
    previous = _state.deadline
    set_deadline(deadline if previous is None else min(previous, deadline))
    try:
        yield
    finally:
        set_deadline(previous)


@contextlib.contextmanager
def handle_signals() -> Iterator[None]:
    """Install the stopping handlers for the block (main thread only), then restore the old ones.

    Re-entrant: an inner call while installed does nothing. The state (signal received,
    deadline) is reset on leaving the outermost block.
    """
    if _state.installed or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    try:
        for signum in SIGNALS:
            previous[signum] = signal.signal(signum, _on_signal)
        if hasattr(signal, "SIGALRM"):
            previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, _on_alarm)
    except (ValueError, OSError):  # not allowed here: leave everything as it was
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        yield
        return
    _state.installed = True
    try:
        yield
    finally:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        _state.installed = False
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _state.signal_name, _state.signum, _state.deadline, _state.armed = None, 0, None, 0


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """A section that a signal or the deadline may abandon by raising ``Stop``.

    Raises ``Stop`` at once when the run is already stopping.
    """
    reason = hurry()
    if reason:
        raise Stop(reason)
    if threading.current_thread() is not threading.main_thread():  # handlers run in the main thread only
        yield
        return
    _state.armed += 1
    try:
        yield
    finally:
        _state.armed -= 1


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A section a first signal must not interrupt (e.g. writing the files): ``Stop`` is held back."""
    armed, _state.armed = _state.armed, 0
    try:
        yield
    finally:
        _state.armed = armed


@contextlib.contextmanager
def track_temporary(path: Path | str) -> Iterator[None]:
    """Remember ``path`` (a temporary file being written, or a scratch folder) for the block;
    a hard exit (the second signal) removes it."""
    key = os.fspath(path)
    _state.temporary.add(key)
    try:
        yield
    finally:
        _state.temporary.discard(key)


def _remove_temporary() -> None:
    import shutil

    for path in list(_state.temporary):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)

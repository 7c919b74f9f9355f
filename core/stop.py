"""Stopping a run early without losing a file: signals and the time budget.

A run may be stopped from outside (SIGTERM from ``docker stop`` or a scheduler,
SIGINT from Ctrl-C, SIGHUP when the terminal goes) or by its own ``--time-budget``.
Either way every present task must still write its file, so stopping is cooperative.

The state belongs to the run: one ``RunControl`` per run (the signal received, the
deadline, the temporary files being written), created by the run's orchestrator
(``core.orchestrator``) and handed to the runner and the engines. This module holds
the mechanism only:

- ``handle_signals(control)`` (a context manager, main thread only) points SIGTERM,
  SIGINT and SIGHUP at ``control``. The first signal records why the run stops; a second
  one ends the process at once (``os._exit(128 + signum)``), after removing the temporary
  files of writes in progress (``track_temporary``), so nothing half-written is left. A
  timer (``SIGALRM``) marks the control's deadline.
- Work that may be abandoned (a task's setup, a batch, the trunk build) runs inside
  ``control.interruptible()``: a signal or the deadline arriving there raises ``Stop``
  instead of waiting for the batch to end. ``Stop`` is delivered at a safe point: not
  while an import is under way nor while a library (torch, PIL, the standard library...)
  is executing Python code, but as soon as control is back in the project's own code, and
  at the latest ``SAFE_POINT_GRACE_S`` later, so the budget holds whatever one item costs.
  Outside such a section (while files are written, while inputs are listed) a signal is
  only recorded; the runner reads ``control.hurry()`` at its next step.

``Stop`` derives from ``BaseException`` (like ``KeyboardInterrupt``), so a task's own
``except Exception`` never swallows it. A control that no handler points at (a thread
other than the main one, a platform without signals, a Ray worker) still keeps its
deadline: the runner's checks between batches remain.

Code far below the runner (the atomic writer in ``core.io``) reaches the control of the
run it works for through ``current()``, set by ``handle_signals`` for the run's context.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import sysconfig
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))
SAFE_POINT_GRACE_S = 1.0  # the longest a Stop waits for a safe point before it is raised anyway
SAFE_POINT_RETRY_S = 0.02  # how often a Stop waiting for a safe point looks again

# Python code of these folders is a library's: a Stop raised there could leave its state half-changed.
_LIBRARY_ROOTS = tuple(
    {
        os.path.realpath(path) + os.sep
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        if (path := sysconfig.get_path(key))
    }
)

_current: contextvars.ContextVar[RunControl | None] = contextvars.ContextVar("fusionbrain_run_control", default=None)


class Stop(BaseException):  # noqa: N818 - like KeyboardInterrupt, a control-flow exception
    """Raised inside ``interruptible()`` when the run must stop (a signal, or the time budget spent)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RunControl:
    """One run's stopping state: the signal received, the deadline, the temporary files in flight.

    :param deadline: a ``time.monotonic()`` value after which no more real work starts (None: none).
    """

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self.signal_name: str | None = None  # the first stopping signal received
        self.signum = 0
        self.hurried: str | None = None  # the last reason hurry() gave: the run ended early
        self.temporary: set[str] = set()  # files being written; removed on a hard exit
        self.installed = False  # whether signal handlers point at this control
        self._armed = 0  # depth of interruptible() sections
        self._pending_since: float | None = None  # a Stop waiting for a safe point, since when

    @classmethod
    def with_budget(cls, seconds: float | None) -> RunControl:
        """A control whose deadline is ``seconds`` from now (None or 0: no deadline)."""
        return cls(time.monotonic() + seconds if seconds else None)

    def signalled(self) -> str | None:
        """The name of the signal that asked the run to stop (``"SIGTERM"``...), else None."""
        return self.signal_name

    def exit_code(self) -> int:
        """The conventional exit status for the signal received (143 for SIGTERM, 130 for SIGINT); 0 if none."""
        return 128 + self.signum if self.signal_name else 0

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def budget_spent(self, now: float | None = None) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and (time.monotonic() if now is None else now) >= self.deadline

    def hurry(self) -> str | None:
        """Why no more real work should start ("SIGTERM", "time budget"), or None."""
        reason = self.signal_name or ("time budget" if self.budget_spent() else None)
        if reason:
            self.hurried = reason
        return reason

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """A section that a signal or the deadline may abandon by raising ``Stop`` (at a safe point).

        Raises ``Stop`` at once when the run is already stopping.
        """
        reason = self.hurry()
        if reason:
            raise Stop(reason)
        if not self.installed or threading.current_thread() is not threading.main_thread():
            yield  # nothing will interrupt it: the runner checks between batches
            return
        self._armed += 1
        try:
            yield
        finally:
            self._armed -= 1
            if not self._armed:
                self._pending_since = None

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """A section a first signal must not interrupt (e.g. writing the files): ``Stop`` is held back."""
        armed, self._armed = self._armed, 0
        try:
            yield
        finally:
            self._armed = armed

    @contextlib.contextmanager
    def track_temporary(self, path: Path | str) -> Iterator[None]:
        """Remember ``path`` (a temporary file being written, or a scratch folder) for the block;
        a hard exit (the second signal) removes it."""
        key = os.fspath(path)
        self.temporary.add(key)
        try:
            yield
        finally:
            self.temporary.discard(key)

    def remove_temporary(self) -> None:
        import shutil

        for path in list(self.temporary):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)

    # -- signal handlers (installed by handle_signals) -------------------------------------------

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.signal_name is not None:  # the second signal: end now
            self.remove_temporary()
            _say(f"run: second signal ({signal.Signals(signum).name}); ending at once\n")
            os._exit(128 + signum)
        self.signal_name = signal.Signals(signum).name
        self.signum = signum
        self._deliver(self.signal_name, frame)

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        reason = self.signal_name or ("time budget" if self.budget_spent() else None)
        if reason:
            self._deliver(reason, frame)
        elif self.deadline is not None:  # woke early (timer granularity): wait for the rest
            self._arm_timer(self.deadline - time.monotonic())

    def _deliver(self, reason: str, frame: FrameType | None) -> None:
        """Raise ``Stop`` now if an interruptible section runs at a safe point, else look again shortly."""
        if not self._armed:
            return
        now = time.monotonic()
        if self._pending_since is None:
            self._pending_since = now
        if now - self._pending_since >= SAFE_POINT_GRACE_S or _safe_point(frame):
            self._pending_since = None
            self.hurried = reason
            raise Stop(reason)
        self._arm_timer(SAFE_POINT_RETRY_S)

    def _arm_timer(self, seconds: float) -> None:
        if self.installed and hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))


def _safe_point(frame: FrameType | None) -> bool:
    """Whether raising at ``frame`` leaves no library half-way: the innermost Python frame is the
    project's (not the standard library's nor an installed package's) and no import is under way."""
    if frame is None:
        return True
    if os.path.realpath(frame.f_code.co_filename).startswith(_LIBRARY_ROOTS):
        return False
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return True


def _say(text: str) -> None:
    """Write to fd 2 without Python's I/O stack (safe inside a signal handler); never raises."""
    with contextlib.suppress(OSError):
        os.write(2, text.encode("utf-8", "replace"))


def _installed_control() -> RunControl | None:
    handler = signal.getsignal(SIGNALS[0]) if SIGNALS else None
    owner = getattr(handler, "__self__", None)
    return owner if isinstance(owner, RunControl) else None


@contextlib.contextmanager
def handle_signals(control: RunControl) -> Iterator[RunControl]:
    """Point the stopping signals and the deadline's timer at ``control`` for the block (main thread
    only), make it the ``current()`` control, then restore the old handlers.

    Where handlers cannot be installed (another thread, no signals, a run already handling them)
    nothing is installed: ``control`` keeps its deadline, checked between batches.
    """
    token = _current.set(control)
    try:
        if threading.current_thread() is not threading.main_thread() or _installed_control() is not None:
            yield control
            return
        previous = {}
        try:
            for signum in SIGNALS:
                previous[signum] = signal.signal(signum, control._on_signal)
            if hasattr(signal, "SIGALRM"):
                previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, control._on_alarm)
        except (ValueError, OSError):  # not allowed here: leave everything as it was
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            yield control
            return
        control.installed = True
        if control.deadline is not None:
            control._arm_timer(control.deadline - time.monotonic())
        try:
            yield control
        finally:
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, 0)
            control.installed = False
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    finally:
        _current.reset(token)


def current() -> RunControl | None:
    """The control of the run this code works for (set by ``handle_signals``), else None."""
    return _current.get()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """``current().deferred()``: hold a first signal back for the block (nothing when no run is current)."""
    control = _current.get()
    if control is None:
        yield
        return
    with control.deferred():
        yield


@contextlib.contextmanager
def track_temporary(path: Path | str) -> Iterator[None]:
    """``current().track_temporary(path)``: a hard exit of the current run removes ``path``."""
    control = _current.get()
    if control is None:
        yield
        return
    with control.track_temporary(path):
        yield

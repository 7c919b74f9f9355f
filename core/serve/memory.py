"""What bounds ``serve.py``'s memory: a budget that requests hold their estimated cost against, and the
C allocator told to give freed memory back.

- ``MemoryBudget``: a bytes-weighted semaphore. Each request holds its estimate (``request_cost``: the
  image's ``core.io.ImageInfo.cost`` plus what the task makes of the loaded image, and its request text)
  from before its image is decoded until it is answered, so decoded pixels are accounted across
  concurrent requests, not per image alone. Requests are let in first come, first served; one that
  does not fit waits (without holding anything) until enough is given back.
- ``tune_allocator``: glibc's malloc keeps what Python, Pillow, numpy and torch free in its heaps and
  per-thread arenas, and raises its mmap threshold after each large free, so the memory of a burst
  stays with the process. Fixing the mmap threshold (large blocks are mapped and unmapped whole),
  capping the arenas and ``trim`` (``malloc_trim``) when the server goes idle give it back. Elsewhere
  than glibc these are no-ops.
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import ctypes.util
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

log = logging.getLogger(__name__)

MiB = 2**20
# Allocator settings (glibc ``mallopt``): blocks of this size and above are mmap-ed, so freeing them
# returns them to the system (a fixed value also stops glibc raising the threshold to 32 MiB after
# large frees); at most this many arenas (one per thread by default, up to 8 per core).
MMAP_THRESHOLD = 256 * 1024
ARENA_MAX = 2
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


DEFAULT_BUDGET = 640 * MiB
DEFAULT_REQUESTS = 16
DEFAULT_UPLOADS = 32


@dataclass(frozen=True, slots=True)
class MemoryLimits:
    """How much the requests in progress may hold at once.

    :param budget: bytes the requests in progress may hold together (their ``request_cost``); it must
        admit the largest image ``core.io`` loads.
    :param requests: requests answered at once, from when their whole body has arrived to their answer;
        later ones wait, holding their received fields (at most ``uploads`` of them).
    :param uploads: bodies being received at once, or received and waiting for a place among
        ``requests``; later ones wait before their body is read (nothing of it is held meanwhile). A slow
        body holds one of these, never a place among ``requests``.
    """

    budget: int = DEFAULT_BUDGET
    requests: int = DEFAULT_REQUESTS
    uploads: int = DEFAULT_UPLOADS


class MemoryBudget:
    """A bytes-weighted, first-come-first-served semaphore (``hold``) on the event loop."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.held = 0
        self.peak = 0
        self._waiting: collections.deque[tuple[int, asyncio.Future[None]]] = collections.deque()

    @asynccontextmanager
    async def hold(self, amount: int) -> AsyncIterator[None]:
        """Hold ``amount`` bytes (at most ``total``) for the body of the ``async with``."""
        amount = min(max(0, amount), self.total)
        if self._waiting or self.held + amount > self.total:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append((amount, waiter))
            try:
                await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._release(amount)  # granted just as it was cancelled
                else:
                    self._waiting.remove((amount, waiter))
                    self._grant()
                raise
        else:
            self.held += amount
        self.peak = max(self.peak, self.held)
        try:
            yield
        finally:
            self._release(amount)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _release(self, amount: int) -> None:
        self.held -= amount
        self._grant()

    def _grant(self) -> None:
        while self._waiting and self.held + self._waiting[0][0] <= self.total:
            amount, waiter = self._waiting.popleft()
            self.held += amount
            waiter.set_result(None)


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc only
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()


def tune_allocator() -> bool:
    """Large blocks mmap-ed at a fixed threshold, at most ``ARENA_MAX`` arenas; False where not glibc."""
    if _LIBC is None:
        log.debug("not glibc: the allocator keeps its defaults")
        return False
    ok = _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and _LIBC.mallopt(_M_ARENA_MAX, ARENA_MAX) == 1
    if not ok:
        log.warning("mallopt refused the server's allocator settings; memory freed after a burst may stay held")
    return ok


def trim() -> None:
    """Give the allocator's free memory back to the system (``malloc_trim(0)``; no-op elsewhere)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)

"""Sharing ``--time-budget`` among the tasks of a run, so that no task is left at zero.

The challenge's score is a sum over tasks, and a task's first answers are worth as much as its
last. A budget spent first-come (each task runs until it is done or the deadline passes) lets
the first big task take it all: under 60 s, a mix of 6,000 C2C programs and 3,800 other items
once answered nothing but C2C (issue 47). Here each task gets a share of what is left when it
starts, in proportion to what it needs:

    share(task) = seconds left x need(task) / (need(task) + needs of the tasks not yet started)
    need(task)  = setup_seconds + items x seconds_per_item      (``TaskInfo``, measured)

so each task answers about the same fraction of its items, and what a task leaves unused (it
finished early, its trunk was missing) goes to the tasks after it. ``core.orchestrator`` makes
the shares (``TimeShares.for_run``), ``core.runner`` gives each task its deadline from them. A
share is soft: the task's batches stop at its end (a batch in progress finishes, and a task
whose share ran out during its setup still solves its first batch); only the run's own deadline
abandons work in progress (``core.stop``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.runner import Planned
    from core.task import TaskInfo

log = logging.getLogger(__name__)

# For a task that declares no cost (a third-party one): about the middle of the built-in tasks'.
DEFAULT_SECONDS_PER_ITEM = 0.02
DEFAULT_SETUP_SECONDS = 2.0


def need(info: TaskInfo, items: int) -> float:
    """Seconds ``info``'s task is expected to take for ``items`` items (0 when it has none)."""
    if items <= 0:
        return 0.0
    per_item = info.seconds_per_item if info.seconds_per_item is not None else DEFAULT_SECONDS_PER_ITEM
    setup = info.setup_seconds if info.setup_seconds is not None else DEFAULT_SETUP_SECONDS
    return setup + items * per_item


class TimeShares:
    """The tasks' expected needs, and each one's share of the time left when it starts."""

    def __init__(self, needs: Mapping[str, float]) -> None:
        self.needs = dict(needs)
        self.waiting = list(self.needs)  # tasks not started yet

    @classmethod
    def for_run(cls, planned: Sequence[Planned], *, trunk_built: bool = True) -> TimeShares:
        """The needs of ``planned``: each task's ``need``; nothing for a task that needs the trunk
        when it could not be built (its samples get fallbacks at once)."""
        return cls(
            {
                item.task.info.name: 0.0
                if not trunk_built and item.task.info.needs_trunk
                else need(item.task.info, len(item.samples))
                for item in planned
            }
        )

    def share(self, name: str, remaining: float | None) -> float | None:
        """Seconds of ``remaining`` that task ``name``, starting now, may take; None: no limit
        (no deadline). Marks the task started."""
        if name in self.waiting:
            ahead = sum(self.needs[n] for n in self.waiting)
            self.waiting.remove(name)
        else:
            ahead = self.needs.get(name, 0.0)
        if remaining is None:
            return None
        if ahead <= 0:
            return max(0.0, remaining)
        return max(0.0, remaining) * self.needs.get(name, 0.0) / ahead

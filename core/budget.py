"""Sharing ``--time-budget`` among the tasks of a run, so that no task is left at zero.

The challenge's score is a sum over tasks, and a task's first answers are worth as much as its
last. A budget spent first-come (each task runs until it is done or the deadline passes) lets
the first big task take it all: under 60 s, a mix of 6,000 C2C programs and 3,800 other items
once answered nothing but C2C (issue 47). Here every task is first set up (a setup left for
last may find no time: VQA's is the costliest), then each gets a share of what is left when its
batches start, in proportion to what its items need:

    share(task) = seconds left x need(task) / (need(task) + needs of the tasks not yet started)
    need(task)  = items x seconds_per_item      (``TaskInfo``, measured on 2 cores)

so each task answers about the same fraction of its items, and what a task leaves unused (it
finished early, its trunk was missing) goes to the tasks after it. No share is below the task's
floor (a first batch, scaled by how much slower than declared this machine ran the tasks
before), and none takes the floors of the tasks after it. ``core.orchestrator`` makes the shares
(``TimeShares.for_run``), ``core.runner`` sets the tasks up and gives each its deadline. A share
is soft: past its end a task starts no batch (those running finish, and its first batch always
runs); only the run's own deadline abandons work in progress (``core.stop``). Without setups
ahead (``setups_done`` not called) a task's need and floor include its ``setup_seconds``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.task import TaskInfo

log = logging.getLogger(__name__)

# For a task that declares no cost (a third-party one): about the middle of the built-in tasks'.
DEFAULT_SECONDS_PER_ITEM = 0.02
DEFAULT_SETUP_SECONDS = 2.0


@dataclasses.dataclass(frozen=True, slots=True)
class Cost:
    """What one task of a run is expected to take, in the reference machine's seconds."""

    setup: float = 0.0
    per_item: float = 0.0
    items: int = 0
    batch: int = 1  # items in its first batch

    @property
    def need(self) -> float:
        """Its setup and every item (0 when it has none)."""
        return self.setup + self.items * self.per_item if self.items else 0.0

    @property
    def floor(self) -> float:
        """Its setup and its first batch: the least that answers anything (0 when it has no item)."""
        return self.setup + min(self.items, self.batch) * self.per_item if self.items else 0.0


def cost(info: TaskInfo, items: int) -> Cost:
    """``info``'s declared costs (``core.budget``'s defaults where it declares none) for ``items`` items."""
    per_item = info.seconds_per_item if info.seconds_per_item is not None else DEFAULT_SECONDS_PER_ITEM
    setup = info.setup_seconds if info.setup_seconds is not None else DEFAULT_SETUP_SECONDS
    return Cost(setup, per_item, items, max(1, info.batch_size))


def need(info: TaskInfo, items: int) -> float:
    """Seconds ``info``'s task is expected to take for ``items`` items (0 when it has none)."""
    return cost(info, items).need


class TimeShares:
    """The tasks' expected costs, and each one's share of the time left when it starts.

    A share is the task's need over the needs of it and the tasks not started, of the time
    left; but at least its ``floor`` (setup and a first batch), and never so much that the tasks
    after it lose theirs. Floors are scaled by how much slower than declared the tasks already
    run were (``finished``): on a loaded machine a setup takes longer than it does on the
    reference one, and a task whose setup cannot finish answers nothing.
    """

    def __init__(self, costs: Mapping[str, Cost]) -> None:
        self.costs = dict(costs)
        self.waiting = list(self.costs)  # tasks not started yet
        self.spent = 0.0  # seconds the finished tasks took
        self.declared = 0.0  # what they were expected to take for what they did

    @classmethod
    def for_run(cls, planned: Sequence[tuple[TaskInfo, int]], *, trunk_built: bool = True) -> TimeShares:
        """The costs of the planned tasks (each task's info and its number of items); nothing for a
        task that needs the trunk when it could not be built (its samples get fallbacks at once)."""
        return cls(
            {
                info.name: Cost() if not trunk_built and info.needs_trunk else cost(info, items)
                for info, items in planned
            }
        )

    def setups_done(self) -> None:
        """Every task was set up ahead of its batches (``core.runner`` does so under a budget): the
        shares are of the time left for items."""
        self.costs = {name: dataclasses.replace(c, setup=0.0) for name, c in self.costs.items()}

    @property
    def slowdown(self) -> float:
        """How much slower than declared this run's finished tasks were (at least 1)."""
        return max(1.0, self.spent / self.declared) if self.declared > 0 else 1.0

    def share(self, name: str, remaining: float | None) -> float | None:
        """Seconds of ``remaining`` that task ``name``, starting now, may take; None: no limit
        (no deadline). Marks the task started."""
        mine = self.costs.get(name, Cost())
        if name in self.waiting:
            self.waiting.remove(name)
        if remaining is None:
            return None
        left = max(0.0, remaining)
        after = [self.costs[n] for n in self.waiting]
        ahead = mine.need + sum(c.need for c in after)
        if ahead <= 0:
            return left
        k = self.slowdown
        floors = k * (mine.floor + sum(c.floor for c in after))
        if left <= floors:  # not even every setup and first batch fits: share by those
            return left * k * mine.floor / floors if floors > 0 else 0.0
        proportional = left * mine.need / ahead
        return min(max(proportional, k * mine.floor), left - k * sum(c.floor for c in after))

    def finished(self, name: str, seconds: float, answered: int) -> None:
        """Task ``name`` took ``seconds`` and answered ``answered`` items: what the slowdown is
        measured from (a task that answered nothing tells nothing)."""
        mine = self.costs.get(name)
        if mine is None or answered <= 0:
            return
        self.spent += seconds
        self.declared += mine.setup + answered * mine.per_item

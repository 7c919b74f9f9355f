"""Engines that run planned tasks and write their files.

* ``local`` (the default): ``core.runner.run`` in this process, one trunk.
* ``ray``: ``core.engines.ray.run``, each task's samples sharded across Ray actors
  that each build the trunk once; imported only when asked for (``run.py --engine ray``),
  so the local engine and ``run.py --help`` never import Ray.

Both solve batches through ``core.runner.solve_batches``, so the error policy, the
time budget and strict mode live in one place; ``core.orchestrator`` picks one per run.
"""

from __future__ import annotations

from dataclasses import dataclass

ENGINES = ("local", "ray")


@dataclass(frozen=True, slots=True)
class RayOptions:
    """How to use Ray (``run.py --engine ray`` flags).

    :param address: a running cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``);
        ``None`` starts a local Ray on this machine (unless one is already initialised).
    :param workers: actors; 0 = as many as the cluster's CPUs (and GPUs) hold.
    :param threads: torch CPU threads (and Ray CPUs) per actor; 0 = this machine's cores
        divided among the workers for a local Ray, else 1.
    :param gpus_per_worker: GPUs each actor reserves (fractions share a GPU).
    :param shard_batches: consecutive batches per shard (the unit of work and of retry).
    :param max_attempts: tries per shard before it gets fallbacks.
    """

    address: str | None = None
    workers: int = 0
    threads: int = 0
    gpus_per_worker: float = 0.0
    shard_batches: int = 1
    max_attempts: int = 3

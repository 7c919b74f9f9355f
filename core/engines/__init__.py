"""Engines that run planned tasks and write their files.

* ``local`` (the default): ``core.runner.run`` in this process, one trunk.
* ``ray``: ``core.engines.ray.run``, each task's samples sharded across Ray actors
  that each build the trunk once; imported only when asked for (``run.py --engine ray``),
  so the local engine and ``run.py --help`` never import Ray.

Both solve batches through ``core.runner.solve_batches``, so the error policy, the
time budget and strict mode live in one place; ``core.orchestrator`` picks one per run.
Their names (``ENGINES``) and the Ray flags (``RayOptions``) are part of the request
(``core.request``).
"""

"""``serve.py``'s serving path over the fake trunk, for ``tests/serve/test_memory.py`` and ``bench.serve_slow``.

``python -m tests.serve._memory_server PORT``: the built-in image tasks set up on ``core.testing``'s fake trunk
(seconds to start, instead of the real trunk's minute), then ``core.serve.cli.serve`` on 127.0.0.1:PORT
with ``serve.py``'s defaults (upload limit, memory budget, requests in progress, deadlines, hosts) and its
allocator settings, logging at INFO as ``serve.py`` does.
"""

from __future__ import annotations

import logging
import sys

TASKS = ("zsod", "vqa", "htr")  # the tasks that take images


def main(port: int) -> int:
    from core.serve.memory import tune_allocator

    tune_allocator()  # as serve.py does first
    from core.serve.cli import ServeRequest, serve
    from core.serve.service import Service
    from core.testing import make_fake_trunk
    from registry import collect, get_plugin_manager

    logging.basicConfig(level=logging.INFO)
    request = ServeRequest(host="127.0.0.1", port=port)
    tasks = collect(get_plugin_manager(load_entrypoints=False)).tasks
    service = Service(  # as core.serve.cli.build_service builds it
        {name: tasks[name] for name in TASKS},
        make_fake_trunk(seed=0),
        limits=request.limits,
        body_timeout=request.body_timeout,
    )
    return serve(service, request)


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1])))

"""Try the tasks on your own input: ``python serve.py [--port 8000] [--trunk ...]``, then open http://127.0.0.1:8000/.

The same trunk, heads, device, plugin and thread options as ``run.py``; the trunk is built and every task
set up once, then the JSON API (``/v1/tasks``) and the page (``/``) answer until Ctrl-C (``core.serve``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import registry
from core import cli
from core.errors import ProjectError
from core.serve import cli as serve_cli


def main(argv: Sequence[str] | None = None) -> int:
    from core.serve.memory import tune_allocator

    tune_allocator()  # before the trunk's threads and the first large blocks: freed memory goes back
    try:
        pm, request = serve_cli.parse(argv, registry)
        tasks = cli.select_tasks(request.registry.tasks, request.tasks)
        service = serve_cli.build_service(tasks, request)
    except ProjectError as exc:
        logging.getLogger("serve").error("%s", exc)
        return 2
    return serve_cli.serve(service, request)


if __name__ == "__main__":
    raise SystemExit(main())

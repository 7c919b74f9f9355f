"""``serve.py``'s serving path over ``core.testing``'s fake trunk: the server to load-test.

Its connections, upload limit, memory budget, requests in progress, deadlines, allowed hosts and
allocator settings are ``serve.py``'s defaults, and the tasks are real ones (their image loading
and preprocessing); only the model is small, so it starts in seconds instead of the real trunk's
minute. ``tests/serve/test_memory.py`` and ``bench.serve_slow`` run it through ``start``, with the
tasks they discovered (``image_tasks``): the task objects travel to the server's process pickled,
as they travel to Ray actors (cheap, nothing loaded before ``setup``), so core discovers no plugin.

``python -m core.serve.fake PORT TASKS``: the tasks pickled in the file ``TASKS``, set up on the
fake trunk and served on 127.0.0.1:PORT, logging at INFO as ``serve.py`` does.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.task import Task

REPO = Path(__file__).resolve().parents[2]
MODULE = "core.serve.fake"


def image_tasks(tasks: Mapping[str, Task]) -> list[Task]:
    """The tasks that take an image (their ``RequestForm`` names an images folder)."""
    return [task for task in tasks.values() if task.info.form is not None and task.info.form.images]


def start(
    tasks: Sequence[Task],
    log_path: Path,
    *,
    repo: Path = REPO,
    env: Mapping[str, str] | None = None,
    timeout: float = 180.0,
    module: str = MODULE,
) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m module PORT TASKS`` in ``repo`` (default: this checkout) on a free loopback port,
    ``tasks`` pickled beside ``log_path`` (``TASKS``; none for a ``module`` that takes only the
    port), its output in ``log_path``; returns the process and the port once ``/health`` answers.

    The process gets one torch thread, ``repo`` on its path and ``env`` over this environment.
    ``RuntimeError`` (with the log's end) when it exits first or does not answer within
    ``timeout`` seconds (it is then killed). The caller ends it (``terminate``).
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    command = [sys.executable, "-m", module, str(port)]
    if tasks:
        pickled = log_path.with_name(log_path.name + ".tasks.pickle")
        pickled.write_bytes(pickle.dumps(list(tasks)))
        command.append(str(pickled))
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(repo), **(env or {})}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=repo,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    started = time.monotonic()
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}:\n{_tail(log_path)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5):
                return process, port
        except OSError:
            time.sleep(0.3)
        if time.monotonic() - started > timeout:
            process.kill()
            process.wait()
            raise RuntimeError(f"the server did not answer in {timeout:.0f} s:\n{_tail(log_path)}")


def _tail(log_path: Path, chars: int = 3000) -> str:
    return log_path.read_text("utf-8", "replace")[-chars:]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m core.serve.fake PORT TASKS``."""
    from core.serve.memory import tune_allocator

    tune_allocator()  # as serve.py does first
    from core.serve.cli import ServeRequest, serve
    from core.serve.service import Service
    from core.testing import make_fake_trunk

    port, pickled = sys.argv[1:] if argv is None else argv
    tasks: list[Task] = pickle.loads(Path(pickled).read_bytes())  # written by start(), in this checkout
    logging.basicConfig(level=logging.INFO)
    request = ServeRequest(host="127.0.0.1", port=int(port))
    service = Service(  # as core.serve.cli.build_service builds it
        {task.info.name: task for task in tasks},
        make_fake_trunk(seed=0),
        limits=request.limits,
        body_timeout=request.body_timeout,
    )
    return serve(service, request)


if __name__ == "__main__":
    raise SystemExit(main())

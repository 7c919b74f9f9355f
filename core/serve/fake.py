"""``serve.py``'s serving path over ``core.testing``'s fake trunk: the server to load-test.

Its connections, upload limit, memory budget, requests in progress, deadlines, allowed hosts and
allocator settings are ``serve.py``'s defaults, and the tasks are the real ones (their image
loading and preprocessing); only the model is small, so it starts in seconds instead of the real
trunk's minute. ``tests/serve/test_memory.py`` and ``bench.serve_slow`` run it through ``start``.

``python -m core.serve.fake PORT``: every built-in task that takes an image (its ``RequestForm``
names an images folder) set up on the fake trunk, served on 127.0.0.1:PORT, logging at INFO as
``serve.py`` does.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODULE = "core.serve.fake"


def start(
    log_path: Path,
    *,
    repo: Path = REPO,
    env: Mapping[str, str] | None = None,
    timeout: float = 180.0,
    module: str = MODULE,
) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m module PORT`` in ``repo`` (default: this checkout) on a free loopback port, its
    output in ``log_path``; returns the process and the port once ``/health`` answers.

    The process gets one torch thread, ``repo`` on its path and ``env`` over this environment.
    ``RuntimeError`` (with the log's end) when it exits first or does not answer within
    ``timeout`` seconds (it is then killed). The caller ends it (``terminate``).
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(repo), **(env or {})}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", module, str(port)],
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
    """``python -m core.serve.fake PORT``."""
    from core.serve.memory import tune_allocator

    tune_allocator()  # as serve.py does first
    import registry  # this process's entry point, as serve.py is: it discovers the built-in plugins
    from core.serve.cli import ServeRequest, serve
    from core.serve.service import Service
    from core.testing import make_fake_trunk

    [port] = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO)
    request = ServeRequest(host="127.0.0.1", port=int(port))
    tasks = registry.collect(registry.get_plugin_manager(load_entrypoints=False)).tasks
    service = Service(  # as core.serve.cli.build_service builds it
        {name: task for name, task in tasks.items() if task.info.form is not None and task.info.form.images},
        make_fake_trunk(seed=0),
        limits=request.limits,
        body_timeout=request.body_timeout,
    )
    return serve(service, request)


if __name__ == "__main__":
    raise SystemExit(main())

"""The command line of ``serve.py``: the trunk and task options of ``run.py``, plus where to listen."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core import cli

if TYPE_CHECKING:
    from core.serve.service import Service
    from core.task import Task

log = logging.getLogger("serve")


def build_parser() -> argparse.ArgumentParser:
    """``serve.py``'s parser, before plugins add their options."""
    parser = argparse.ArgumentParser(
        prog="serve.py",
        description="Serve the Fusion Brain tasks: a JSON API (/v1/tasks) and a web page (/) over one trunk.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--tasks", default="", help="comma-separated task names to serve (default: all registered)")
    cli.add_trunk_options(parser)
    parser.add_argument(
        "--batch-window-ms",
        type=float,
        default=5.0,
        metavar="MS",
        help="how long a request waits for others to share its batch (default: 5 ms)",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="a request that waited this long for its batch gets the task's fallback answer (default: 120)",
    )
    parser.add_argument(
        "--max-upload-mb",
        type=float,
        default=16.0,
        metavar="MB",
        help="largest request body accepted, image included (default: 16 MiB)",
    )
    parser.add_argument("--strict", action="store_true", help="a broken third-party plugin stops the server")
    parser.add_argument("--no-plugins", action="store_true", help="do not load third-party entry-point plugins")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser


def build_service(tasks: Sequence[Task], args: argparse.Namespace) -> Service:
    """Build the trunk ``args`` names and set every task up once: the service to serve."""
    from core.detector import SharedDetector
    from core.serve.service import Service
    from core.trunk import TrunkConfig, load_trunk

    config = TrunkConfig.parse(args.trunk, ablation=args.ablate_trunk, device=args.device, precision=args.precision)
    cli.set_threads(args.threads)
    trunk = load_trunk(config)
    return Service(
        {t.info.name: t for t in tasks},
        trunk,
        window=args.batch_window_ms / 1000,
        timeout=args.request_timeout if args.request_timeout > 0 else None,
        detector=SharedDetector(cli.detector_config(args)),
    )


def serve(service: Service, args: argparse.Namespace) -> int:
    """Serve ``service`` with uvicorn on ``--host``/``--port`` until stopped (Ctrl-C)."""
    import uvicorn

    from core.serve.app import create_app

    app = create_app(service, max_upload=int(args.max_upload_mb * 2**20))
    log.info("serving %s on http://%s:%d/", ", ".join(service.servers), args.host, args.port)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="debug" if args.verbose else "info")
    finally:
        service.close()
    return 0

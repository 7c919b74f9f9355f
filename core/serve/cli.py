"""The command line of ``serve.py``: the trunk and task options of ``run.py``, plus where to listen,
parsed into a typed ``ServeRequest`` (nothing past ``parse`` sees the argparse Namespace)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from core import cli
from core.detector import DetectorConfig
from core.factories import Registry
from core.io.images import MAX_IMAGE_BYTES
from core.request import PluginOptions
from core.serve.hosts import LOCAL_HOSTS, allowed_hosts
from core.serve.memory import DEFAULT_BUDGET, DEFAULT_REQUESTS, DEFAULT_UPLOADS, MemoryLimits
from core.trunk_types import TrunkConfig

if TYPE_CHECKING:
    import uvicorn

    from core.serve.service import Service
    from core.task import Task

log = logging.getLogger("serve")

DEFAULT_BODY_TIMEOUT = 60.0
DEFAULT_IDLE_TIMEOUT = 10.0


def build_parser() -> argparse.ArgumentParser:
    """``serve.py``'s parser, before plugins add their options."""
    parser = argparse.ArgumentParser(
        prog="serve.py",
        description="Serve the Fusion Brain tasks: a JSON API (/v1/tasks) and a web page (/) over one trunk.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests whose Host header names NAME (repeatable; '*': any). Only 127.0.0.1, "
        "localhost, [::1] and the --host address (unless 0.0.0.0 or ::) are answered otherwise: another "
        "Host gets 400, so a web page elsewhere cannot reach the server through DNS rebinding",
    )
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
    parser.add_argument(
        "--memory-budget-mb",
        type=float,
        default=DEFAULT_BUDGET / 2**20,
        metavar="MB",
        help="memory the requests in progress may hold together, images decoded included; a request that "
        f"does not fit waits (default: {DEFAULT_BUDGET / 2**20:.0f} MiB; at least "
        f"{MAX_IMAGE_BYTES / 2**20:.0f}, what one image may take)",
    )
    parser.add_argument(
        "--max-requests",
        type=int,
        default=DEFAULT_REQUESTS,
        metavar="N",
        help="requests answered at once, each once its whole body has arrived; later ones wait "
        f"(default: {DEFAULT_REQUESTS})",
    )
    parser.add_argument(
        "--max-uploads",
        type=int,
        default=DEFAULT_UPLOADS,
        metavar="N",
        help="request bodies received at once (or received and waiting to be answered); later ones wait "
        f"before their body is read (default: {DEFAULT_UPLOADS})",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="SECONDS",
        help="a request body that has not arrived in full this long after its reading began is refused "
        f"with 408 and its connection closed (default: {DEFAULT_BODY_TIMEOUT:g}; 0: no limit)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help="a connection that has not sent a whole request head this long after it opened or after its "
        f"last answer is closed (default: {DEFAULT_IDLE_TIMEOUT:g})",
    )
    parser.add_argument("--strict", action="store_true", help="a broken third-party plugin stops the server")
    parser.add_argument("--no-plugins", action="store_true", help="do not load third-party entry-point plugins")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser


@dataclass(frozen=True, slots=True)
class ServeRequest:
    """What ``serve.py`` is asked to serve, and where.

    :param tasks: task names to serve, lowercase (empty: every registered task).
    :param batch_window: seconds a request waits for others to share its batch.
    :param request_timeout: seconds after which a waiting request gets the fallback (None: never).
    :param max_upload: the largest request body accepted, in bytes.
    :param limits: bodies received and requests answered at once, and the memory budget they share.
    :param body_timeout: seconds a request's body may take to arrive (None: no limit).
    :param idle_timeout: seconds a connection may wait to send a whole request head.
    :param allowed_hosts: the names a request's Host header may give (``allowed_hosts``).
    :param registry: what the plugins registered (``registry.collect``): the tasks, trunk backends and detectors.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    tasks: tuple[str, ...] = ()
    trunk: TrunkConfig = field(default_factory=TrunkConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    threads: int = 0
    batch_window: float = 0.005
    request_timeout: float | None = 120.0
    max_upload: int = 16 * 2**20
    limits: MemoryLimits = field(default_factory=MemoryLimits)
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    strict: bool = False
    verbose: bool = False
    plugins: PluginOptions = field(default_factory=PluginOptions)
    registry: Registry = field(default_factory=Registry)


class ParsedServe(NamedTuple):
    pm: Any
    request: ServeRequest


def parse(argv: Sequence[str] | None, discovery: cli.Discovery) -> ParsedServe:
    """``serve.py``'s command line, with the plugins' flags: the plugin manager and the typed request."""
    parser = build_parser()
    pm, args, owners = cli.parse_plugin_options(argv, parser, discovery)
    budget = int(args.memory_budget_mb * 2**20)
    if budget < MAX_IMAGE_BYTES:
        parser.error(f"--memory-budget-mb must be at least {MAX_IMAGE_BYTES / 2**20:.0f}: one image may take that much")
    if args.max_requests < 1 or args.max_uploads < 1:
        parser.error("--max-requests and --max-uploads must be at least 1")
    if args.idle_timeout <= 0:
        parser.error("--idle-timeout must be more than 0 seconds")
    options = cli.plugin_options(args, owners)
    return ParsedServe(
        pm,
        ServeRequest(
            host=args.host,
            port=args.port,
            tasks=tuple(n.strip().lower() for n in args.tasks.split(",") if n.strip()),
            trunk=cli.trunk_config(args),
            detector=cli.detector_config(args),
            threads=args.threads,
            batch_window=args.batch_window_ms / 1000,
            request_timeout=args.request_timeout if args.request_timeout > 0 else None,
            max_upload=int(args.max_upload_mb * 2**20),
            limits=MemoryLimits(budget=budget, requests=args.max_requests, uploads=args.max_uploads),
            body_timeout=args.body_timeout if args.body_timeout > 0 else None,
            idle_timeout=args.idle_timeout,
            allowed_hosts=allowed_hosts(args.host, args.allowed_host),
            strict=args.strict,
            verbose=args.verbose,
            plugins=options,
            registry=cli.collect_registry(pm, discovery, args, options),
        ),
    )


def build_service(tasks: Sequence[Task], request: ServeRequest) -> Service:
    """Build the trunk ``request`` names and set every task up once: the service to serve."""
    from core.detector.loader import Detectors
    from core.runtime import set_threads
    from core.serve.service import Service
    from core.trunk import load_trunk

    set_threads(request.threads)
    trunk = load_trunk(request.trunk, request.registry)
    return Service(
        {t.info.name: t for t in tasks},
        trunk,
        window=request.batch_window,
        timeout=request.request_timeout,
        detector=Detectors(request.detector, request.registry),
        limits=request.limits,
        body_timeout=request.body_timeout,
    )


def server_config(service: Service, request: ServeRequest, *, configure_logging: bool = True) -> uvicorn.Config:
    """uvicorn's configuration of ``service``'s app as ``request`` asks: where to listen, the hosts
    answered, and the idle deadline on each connection (``core.serve.connection``).
    ``configure_logging=False`` leaves the logging as it is (tests)."""
    import math

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from core.serve.app import create_app
    from core.serve.connection import head_deadline_protocol

    app = create_app(service, max_upload=request.max_upload, allowed_hosts=request.allowed_hosts)
    return uvicorn.Config(
        app,
        host=request.host,
        port=request.port,
        log_level="debug" if request.verbose else "info",
        http=head_deadline_protocol(request.idle_timeout),
        timeout_keep_alive=max(1, math.ceil(request.idle_timeout)),  # whole seconds; the head deadline is exact
        log_config=LOGGING_CONFIG if configure_logging else None,  # None: the caller's logging stays as it is
    )


def serve(service: Service, request: ServeRequest) -> int:
    """Serve ``service`` with uvicorn on ``request.host``/``request.port`` until stopped (Ctrl-C)."""
    import uvicorn

    config = server_config(service, request)
    log.info("serving %s on http://%s:%d/", ", ".join(service.servers), request.host, request.port)
    server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        service.close()
    return 0 if server.started else 3  # 3: it never listened (the port taken, say), as uvicorn.run exits

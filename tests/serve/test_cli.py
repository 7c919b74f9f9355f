"""serve.py's command line: run.py's trunk options, --help without heavy imports, a clear error for a bad task."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_the_shared_options_without_importing_torch_or_the_server() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "serve.py", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    for option in (
        *("--host", "--port", "--trunk", "--heads", "--device", "--precision", "--threads", "--tasks"),
        *("--allowed-host", "--max-uploads", "--body-timeout", "--idle-timeout"),
    ):
        assert option in done.stdout
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert not imported & {"torch", "fastapi", "uvicorn", "starlette", "numpy", "PIL"}


def test_an_unknown_task_is_an_error_before_the_trunk_is_built() -> None:
    done = subprocess.run(
        [sys.executable, "serve.py", "--tasks", "nosuch", "--no-plugins"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown task(s) nosuch" in done.stderr


def test_the_command_line_becomes_a_typed_request() -> None:
    import registry
    from core.serve import cli as serve_cli

    argv = ["--tasks", "zsod", "--port", "8080", "--request-timeout", "0", "--max-upload-mb", "1", "--no-plugins"]
    _, request = serve_cli.parse([*argv, "--zsod-visualize", "drawn", "--batch-window-ms", "10"], registry)
    assert request.tasks == ("zsod",) and request.port == 8080 and request.request_timeout is None
    assert request.max_upload == 2**20 and request.batch_window == 0.01 and request.trunk.backend == "default"
    from plugins.zsod.task import ZsodOptions

    assert request.plugins.config("plugins.zsod").typed(ZsodOptions, prefix="zsod").visualize == Path("drawn")


def test_the_hosts_answered_are_the_loopback_the_address_listened_on_and_the_allowed_ones() -> None:
    import registry
    from core.serve import cli as serve_cli

    def hosts(*argv: str) -> tuple[str, ...]:
        return serve_cli.parse([*argv, "--no-plugins"], registry).request.allowed_hosts

    loopback = ("127.0.0.1", "localhost", "[::1]")
    assert hosts() == loopback
    assert hosts("--host", "0.0.0.0") == hosts("--host", "::") == loopback  # every address names no host
    assert hosts("--host", "192.168.1.5") == (*loopback, "192.168.1.5")
    assert hosts("--host", "0.0.0.0", "--allowed-host", "box.lan", "--allowed-host", "10.0.0.2") == (
        *loopback,
        "box.lan",
        "10.0.0.2",
    )


def test_the_connection_limits_and_deadlines_are_typed() -> None:
    import registry
    from core.serve import cli as serve_cli

    argv = ["--max-requests", "2", "--max-uploads", "5", "--body-timeout", "0", "--idle-timeout", "0.5", "--no-plugins"]
    request = serve_cli.parse(argv, registry).request
    assert (request.limits.requests, request.limits.uploads) == (2, 5)
    assert request.body_timeout is None and request.idle_timeout == 0.5
    defaults = serve_cli.parse(["--no-plugins"], registry).request
    assert (defaults.limits.uploads, defaults.body_timeout, defaults.idle_timeout) == (32, 60.0, 10.0)

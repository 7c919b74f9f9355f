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
    for option in ("--host", "--port", "--trunk", "--heads", "--device", "--precision", "--threads", "--tasks"):
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

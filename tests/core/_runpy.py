"""What the tests that run ``run.py`` as a whole process share: the repository, the demo input,
a trunk that cannot be built, the subprocess calls, and a machine with no writable temporary
folder (seen from Python)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
NO_TRUNK = ["--trunk", "openclip:ViT-B-32:/nonexistent/checkpoint.pt"]  # fails at once when built


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def run_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", **extra}


def run_py(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        **kwargs,
    )


def wait_for(proc: subprocess.Popen[str], marker: str, timeout: float = 240) -> str:
    """stderr up to the first line holding ``marker``."""
    assert proc.stderr is not None
    seen = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    proc.kill()
    raise AssertionError(f"{marker!r} never logged:\n{''.join(seen)[-3000:]}")


def long_input(root: Path) -> Path:
    """The demo input with 3,000 VQA questions and 2,000 C2C programs: a run of a minute or more."""
    shutil.copytree(DEMO, root)
    questions = list(load_json(root / "VQA" / "questions.json").values())
    (root / "VQA" / "questions.json").write_text(
        json.dumps({str(i): questions[i % len(questions)] for i in range(3000)}), encoding="utf-8"
    )
    programs = list(load_json(root / "C2C" / "requests.json").values())
    (root / "C2C" / "requests.json").write_text(
        json.dumps({str(i): programs[i % len(programs)] for i in range(2000)}), encoding="utf-8"
    )
    return root


# Runs run.py (argv: OUT, then its options) with every write outside OUT's parent refused and
# no usable temporary folder: a read-only root with no tmpfs, as Python sees it.
READ_ONLY = r"""
import os, sys, tempfile
out = os.path.abspath(sys.argv[1])
tempfile._candidate_tempdir_list = lambda: [os.environ["TMPDIR"]]  # as on a read-only root with no tmpfs
def refuse_writes(event, args):
    path = None
    if event == "open" and args[0] is not None and not isinstance(args[0], int):
        mode, flags = args[1] or "", args[2] or 0
        if any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            path = args[0]
    elif event in ("os.remove", "os.rmdir") and args[1] is not None:
        return  # relative to a folder fd: shutil.rmtree inside a folder it was allowed to open
    elif event in ("os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "shutil.rmtree"):
        path = args[0]
    if path is None:
        return
    path = os.path.abspath(os.fsdecode(path))
    if not (path == out or path.startswith(os.path.dirname(out) + os.sep)):
        raise PermissionError(30, "Read-only file system (simulated)", path)
sys.addaudithook(refuse_writes)
sys.argv = ["run.py", *sys.argv[2:], "--output", out]
import runpy
runpy.run_path("run.py", run_name="__main__")
"""

"""``python params.py``: M/N into a closed pipe.

The trunk is a tiny seeded open_clip ViT saved to a temporary folder (``tests/core/_openclip.py``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("open_clip")

from tests.core._openclip import CLIP_TEXT, VIT, build_checkpoint, offline  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny_trunk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``openclip:<config>.json:<checkpoint>`` of a seeded tiny ViT, loadable in a fresh process too."""
    with offline():
        root = tmp_path_factory.mktemp("params-trunk")
        config, checkpoint, _ = build_checkpoint(
            root, "fbtest-params-vit", {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": CLIP_TEXT}, seed=3
        )
        yield f"openclip:{config}:{checkpoint}"


def test_params_py_into_a_closed_pipe_ends_quietly(tiny_trunk: str) -> None:
    """``python params.py | head -0``: the reader is gone before anything is printed; as run.py, no
    traceback and exit status 0."""
    proc = subprocess.Popen(
        [sys.executable, "params.py", "--trunk", tiny_trunk],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=300) == 0, err[-3000:]
    assert "Traceback" not in err and "BrokenPipeError" not in err

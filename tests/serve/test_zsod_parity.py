"""On the embedded trunk, a zsOD request with an fb_sample image and its phrases answers what run.py writes.

The same phrases and boxes; run.py batches several images where the server takes one, so a
coordinate may round to the neighbouring tenth (float sums differ in their last bits).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._close import BOX_ROUNDING, assert_same_answers


@pytest.fixture(scope="module")
def run_py_output(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``run.py --tasks zsod`` on fb_sample's input, one thread (the server below runs on the same setting)."""
    import run

    out = tmp_path_factory.mktemp("run_py")
    code = run.main(
        ["--input", str(shared_data / "fb_sample" / "input"), "--output", str(out), "--tasks", "zsod", "--threads", "1"]
    )
    assert code == 0
    return json.loads((out / "prediction_zsOD.json").read_text("utf-8"))


def test_zsod_answer_equals_run_py(shared_data: Path, run_py_output: dict[str, Any], default_trunk) -> None:  # type: ignore[no-untyped-def]
    import torch
    from fastapi.testclient import TestClient

    import registry
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors
    from core.serve.app import create_app
    from core.serve.service import Service
    from registry import collect, get_plugin_manager

    folder = shared_data / "fb_sample" / "input" / "zsOD"
    requests = json.loads((folder / "requests.json").read_text("utf-8"))
    torch.set_num_threads(1)
    tasks = collect(get_plugin_manager(load_entrypoints=False)).tasks
    service = Service(
        {"zsod": tasks["zsod"]},
        default_trunk,
        detector=Detectors(DetectorConfig(), registry.load(load_entrypoints=False)),
    )  # as serve.py builds it
    keys = list(requests)[:3]
    with TestClient(create_app(service), base_url="http://127.0.0.1:8000") as client:
        for key in keys:
            answer = client.post(
                "/v1/tasks/zsod",
                files={
                    "request": (None, json.dumps(requests[key], ensure_ascii=False)),
                    "image": (key, (folder / "images" / key).read_bytes(), "image/jpeg"),
                },
            )
            assert answer.status_code == 200, answer.text
            assert_same_answers(answer.json()["prediction"], run_py_output[key], abs_tol=BOX_ROUNDING, where=key)
    assert any(boxes for key in keys for boxes in run_py_output[key].values())  # boxes compared, not only []

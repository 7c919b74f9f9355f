"""``core.serve.fake.start``: the fake-trunk server that the memory test and ``bench.serve_slow`` load."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.serve import fake


def test_a_server_that_exits_at_start_is_reported_with_its_log(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"(?s)exited with 1.*No module named core.serve.absent"):
        fake.start([], tmp_path / "serve.log", module="core.serve.absent", timeout=30)


def test_the_server_serves_the_tasks_it_is_given_every_one_that_takes_an_image(tmp_path: Path) -> None:
    import json
    import urllib.request

    from registry import collect, get_plugin_manager

    tasks = fake.image_tasks(collect(get_plugin_manager(load_entrypoints=False)).tasks)
    process, port = fake.start(tasks, tmp_path / "serve.log", timeout=120)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/tasks", timeout=10) as answer:
            listed = json.loads(answer.read())
    finally:
        process.terminate()
        process.wait(timeout=60)
    names = sorted(t["name"] for t in (listed["tasks"] if isinstance(listed, dict) else listed))
    assert names == ["htr", "vqa", "zsod"]

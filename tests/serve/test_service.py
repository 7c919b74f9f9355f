"""core.serve.service without HTTP: micro-batching and the runner's policy (fallbacks, time limit, setup failure)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from core.serve.upload import Part
from tests.serve import _shout


def _answers(service: Any, texts: list[str]) -> list[Any]:
    async def go() -> list[Any]:
        await service.start()
        try:
            return await asyncio.gather(
                *(service.answer("shout", {"request": Part("request", json.dumps(t).encode())}) for t in texts)
            )
        finally:
            await service.stop()

    return asyncio.run(go())


def test_concurrent_requests_share_one_batch_and_each_gets_its_own_answer(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from core.serve.service import Service

    service = Service({"shout": _shout.ShoutTask()}, fake_trunk, window=0.2)
    _shout.BATCHES.clear()
    texts = [f"request {i}" for i in range(6)]
    answers = _answers(service, texts)
    assert [a.prediction for a in answers] == [t.upper() for t in texts]  # every sample is keyed "0": order matters
    assert _shout.BATCHES == [6]
    assert service.health()["tasks"]["shout"] == {
        "ready": True,
        "requests": 6,
        "batches": 1,
        "largest_batch": 6,
        "rejected": 0,
        "fallbacks": 0,
    }
    assert not service.tmp.exists()


def test_a_failing_sample_costs_only_its_own_answer(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from core.serve.service import Service

    service = Service({"shout": _shout.ShoutTask()}, fake_trunk, window=0.2)
    _shout.BATCHES.clear()
    answers = _answers(service, ["a", "boom", "c"])
    assert [a.prediction for a in answers] == ["A", "", "C"]  # the runner retried one by one; boom fell back
    assert _shout.BATCHES == [3, 1, 1, 1]
    assert service.servers["shout"].report.fallbacks == 1


def test_requests_past_the_time_limit_get_the_fallback(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from core.serve.service import Service

    service = Service({"shout": _shout.ShoutTask()}, fake_trunk, window=0.05, timeout=0.0)
    _shout.BATCHES.clear()
    assert [a.prediction for a in _answers(service, ["late", "later"])] == ["", ""]
    assert _shout.BATCHES == [] and service.servers["shout"].report.fallbacks == 2


def test_a_task_whose_setup_failed_stays_listed_and_answers_its_fallback(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from core.serve.service import Service

    service = Service({"shout": _shout.ShoutTask(fail_setup=True)}, fake_trunk)
    assert [t["ready"] for t in service.describe()] == [False]
    assert [a.prediction for a in _answers(service, ["x"])] == [""]
    assert service.servers["shout"].report.errors and service.servers["shout"].report.fallbacks == 1


def test_the_stages_read_nothing_outside_the_request_folders(fake_trunk, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.serve.service import Service

    secret = tmp_path / "secret.txt"
    secret.write_text("do not tell", encoding="utf-8")
    service = Service({"shout": _shout.ShoutTask()}, fake_trunk, window=0.0)
    assert not secret.resolve().is_relative_to(service.tmp.resolve())
    answers = _answers(service, [f"read:{secret}", "fine"])
    assert [a.prediction for a in answers] == ["", "FINE"]  # refused by core.io.confined: the fallback
    assert any("outside" in e or "refused" in e for e in service.servers["shout"].report.errors)

"""Tiny tasks used by the core tests (not a plugin of the product)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.io import find_task_dir, read_json_object
from core.task import Prediction, Sample, TaskBase, TaskInfo


@dataclass(frozen=True, slots=True)
class EchoSample(Sample):
    text: str


class EchoTask(TaskBase[EchoSample, Any, list, bool]):
    """Reads ``ECHO/requests.json`` ({key: text}); answers each text's trunk-embedding argmax."""

    info = TaskInfo(name="echo", version="0", folder="ECHO", output="prediction_ECHO.json", batch_size=2)

    def __init__(self, fail_on: frozenset[str] = frozenset(), fail_setup: bool = False) -> None:
        self.fail_on = fail_on
        self.fail_setup = fail_setup
        self.setup_calls = 0

    def setup(self, ctx: Any) -> bool:
        self.setup_calls += 1
        if self.fail_setup:
            raise RuntimeError("head weights missing")
        return True

    def discover(self, input_dir: Path) -> list[Sample]:
        root = find_task_dir(input_dir, *self.info.folders())
        if root is None:
            return []
        return [EchoSample(k, str(v)) for k, v in read_json_object(root / "requests.json").items()]

    def preprocess(self, samples: Sequence[Sample], trunk: Any, loaded: Any) -> Any:
        texts = [s.text for s in samples if isinstance(s, EchoSample)]
        bad = [t for t in texts if t in self.fail_on]
        if bad:
            raise ValueError(f"cannot handle {bad}")
        return trunk.tokenize(texts)

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        return trunk.encode_texts(batch).argmax(dim=1).tolist()

    def postprocess(self, raw: Any, samples: Sequence[Sample], loaded: Any) -> list[Prediction]:
        return [Prediction(s.key, f"dim{i}") for s, i in zip(samples, raw, strict=True)]

    def fallback(self, sample: Sample) -> Prediction:
        return Prediction(sample.key, "fallback")


class TrunklessEcho(EchoTask):
    """Answers from the text alone when there is no trunk (``needs_trunk=False``)."""

    info = dataclasses.replace(
        EchoTask.info, name="plain", folder="PLAIN", output="prediction_PLAIN.json", needs_trunk=False
    )

    def preprocess(self, samples: Sequence[Sample], trunk: Any, loaded: Any) -> Any:
        return [getattr(s, "text", "") for s in samples]

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        return [t.upper() for t in batch]

    def postprocess(self, raw: Any, samples: Sequence[Sample], loaded: Any) -> list[Prediction]:
        return [Prediction(s.key, r) for s, r in zip(samples, raw, strict=True)]


def write_echo_input(root: Path, requests: dict[str, str]) -> Path:
    import json

    folder = root / "ECHO"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "requests.json").write_text(json.dumps(requests), encoding="utf-8")
    return root


def busy(seconds: float) -> None:
    """Compute in pure Python for ``seconds``, as a long batch would (holding the GIL, unlike a sleep)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(1000))

"""A tiny third-party-style task plugin for the server tests (not part of the product).

``shout`` reads ``SHOUT/requests.json`` ({key: text}) and answers each text upper-cased; the text
``"boom"`` makes its batch fail (the runner then retries one by one and falls back); ``"read:PATH"``
answers the text of that file, read through ``core.io`` as a task would read its inputs. ``Tagless``
declares no ``RequestForm``: the server lists it but does not serve it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import hookimpl
from core.io import find_task_dir, read_request
from core.task import Prediction, RequestForm, Sample, TaskBase, TaskInfo

BATCHES: list[int] = []  # the size of every batch ``shout`` predicted (the tests read it)


@dataclass(frozen=True, slots=True)
class ShoutSample(Sample):
    text: str


class ShoutTask(TaskBase[ShoutSample, list, list, bool]):
    info = TaskInfo(
        name="shout",
        version="0",
        folder="SHOUT",
        output="prediction_SHOUT.json",
        batch_size=16,
        form=RequestForm(ask="text"),
    )

    def __init__(self, *, fail_setup: bool = False) -> None:
        self.fail_setup = fail_setup

    def setup(self, ctx: Any) -> bool:
        if self.fail_setup:
            raise RuntimeError("no head for this trunk")
        return True

    def discover(self, input_dir: Path) -> list[ShoutSample]:
        root = find_task_dir(input_dir, self.info.folder)
        if root is None:
            return []
        return [ShoutSample(k, v if isinstance(v, str) else "") for k, v in read_request(root, "requests.json").items()]

    def preprocess(self, samples: Sequence[ShoutSample], trunk: Any, loaded: Any) -> list[str]:
        from core.io import open_input_file

        texts = []
        for s in samples:  # "read:PATH" answers the file's text: only files the runner lets the stages read
            if s.text.startswith("read:"):
                with open_input_file(s.text.removeprefix("read:")) as fh:
                    texts.append(fh.read().decode("utf-8"))
            else:
                texts.append(s.text)
        return texts

    def predict(self, batch: list[str], trunk: Any, loaded: Any) -> list[str]:
        assert loaded is True, "the runner hands every stage what setup returned"
        BATCHES.append(len(batch))
        if "boom" in batch:
            raise ValueError("boom")
        return [t.upper() for t in batch]

    def postprocess(self, raw: list[str], samples: Sequence[ShoutSample], loaded: Any) -> list[Prediction]:
        return [Prediction(s.key, r) for s, r in zip(samples, raw, strict=True)]

    def fallback(self, sample: ShoutSample) -> Prediction:
        return Prediction(sample.key, "")


class TaglessTask(ShoutTask):
    info = TaskInfo(name="tagless", version="0", folder="TAGLESS", output="prediction_TAGLESS.json")


class Plugin:
    """What a third-party distribution's entry point would register."""

    @hookimpl
    def register_tasks(self, register: Any) -> None:
        register(ShoutTask())
        register(TaglessTask())

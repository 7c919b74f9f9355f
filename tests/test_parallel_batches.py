"""Which shipped tasks solve several batches at once (``TaskInfo.parallel_batches``), and the one
thing zsOD guards itself for it: the ``--zsod-proposals`` detector."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from core.testing import FakeDetector


def test_the_shipped_tasks_that_declare_parallel_batches() -> None:
    """The tasks whose stages were checked for shared state (module docs of ``TaskInfo``)."""
    from plugins.c2c.task import C2cTask
    from plugins.htr.task import HtrTask
    from plugins.vqa.task import VqaTask
    from plugins.zsod.task import ZsodTask

    declared = {t.info.name: t.info.parallel_batches for t in (C2cTask, HtrTask, VqaTask, ZsodTask)}
    # C2C is pure Python under the GIL (threads would add nothing) and shares one tree-sitter parser.
    assert declared == {"c2c": False, "htr": True, "vqa": True, "zsod": True}


def test_a_shared_detector_is_one_call_at_a_time_unless_thread_safe() -> None:
    """What ``ctx.detector(name)`` hands a task (zsOD's extra proposals among them) may be used by
    several batches at once: core serialises a detector that does not declare ``thread_safe``."""
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors

    class Proposer(FakeDetector):
        thread_safe = False

        def __init__(self) -> None:
            super().__init__()
            self.inside = 0
            self.most = 0

        def detect(self, images: Sequence[Any], *, input_size: int | None = None) -> list[Any]:
            self.inside += 1
            self.most = max(self.most, self.inside)
            time.sleep(0.005)
            try:
                return super().detect(images, input_size=input_size)
            finally:
                self.inside -= 1

    import numpy as np

    detectors = Detectors(DetectorConfig(), factory=lambda config: Proposer())
    proposer = detectors.get()
    shared = detectors.shared()
    image = np.zeros((32, 32, 3), np.uint8)
    threads = [threading.Thread(target=lambda: [shared.detect([image]) for _ in range(3)]) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert proposer.most == 1

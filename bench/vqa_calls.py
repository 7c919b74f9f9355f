"""Follow one question through ``VqaTask.predict`` and count the hand-offs between the plugin's modules.

    python -m bench.vqa_calls IMAGE "What room is this?" ["Сколько собак на фото?" ...] [--threads 1]

Each question is run alone (a one-question input folder, ``core.runner.run`` as ``run.py`` runs it, the
run's shared detector at the task's size); while ``predict`` runs, a profile hook sees every call and
return of a ``plugins.vqa`` function. It prints, per question:

* **returns**: how many times control returns from a function of one module to a caller in another
  (``task`` <- ``answerer``, ``answerer`` <- ``head``...): the hand-offs between modules;
* **visits**: how many times a call enters a module from another, and which modules are visited.

Calls into ``core`` (the trunk, the detector, ``core.detector.phrases``) are not counted, nor
comprehensions (frames of the caller's own module) and dunder methods (a dataclass's generated
``__init__``: building a record is no hand-off): only named functions of modules under ``plugins.vqa``.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

PACKAGE = "plugins.vqa"


class HandOffs:
    """A profile hook counting cross-module calls and returns inside ``VqaTask.predict``."""

    def __init__(self) -> None:
        self.active = False
        self.returns: collections.Counter[tuple[str, str]] = collections.Counter()
        self.visits: collections.Counter[str] = collections.Counter()

    @staticmethod
    def _module(frame: Any) -> str:
        name = frame.f_globals.get("__name__", "") if frame is not None else ""
        return name if name.startswith(PACKAGE) else ""

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        code = frame.f_code
        here = self._module(frame)
        if here == f"{PACKAGE}.task" and code.co_name == "predict":
            self.active = event == "call"
            return
        if not self.active or not here or (code.co_name.startswith("__") and code.co_name.endswith("__")):
            return
        caller = self._module(frame.f_back)
        if not caller or caller == here:
            return
        if event == "call":
            self.visits[here.rsplit(".", 1)[-1]] += 1
        else:
            self.returns[(here.rsplit(".", 1)[-1], caller.rsplit(".", 1)[-1])] += 1


def follow(image: Path, question: str, threads: int) -> HandOffs:
    """Run ``question`` about ``image`` through the task, counting hand-offs inside ``predict``."""
    import torch

    torch.set_num_threads(threads)
    import registry
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors
    from core.runner import plan, run
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.evidence import DETECTOR_SIZE
    from plugins.vqa.task import VqaTask

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        images = root / "input" / "VQA" / "images"
        images.mkdir(parents=True)
        shutil.copy(image, images / image.name)
        (root / "input" / "VQA" / "questions.json").write_text(
            json.dumps({"0": {"file_name": image.name, "question": question}}, ensure_ascii=False), encoding="utf-8"
        )
        task = VqaTask()
        planned = plan([task], root / "input")
        hook = HandOffs()
        sys.setprofile(hook)
        threading.setprofile(hook)
        try:
            run(planned, load_trunk(TrunkConfig(), registry.load()), root / "out", progress=False,
                detector=Detectors(DetectorConfig(input_size=DETECTOR_SIZE), registry.load()))  # fmt: skip
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
        answer = json.loads((root / "out" / task.info.output).read_text(encoding="utf-8"))["0"]
    print(f"{question!r} -> {answer!r}")
    return hook


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("image", type=Path)
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    for question in args.questions:
        hook = follow(args.image, question, args.threads)
        returns = sum(hook.returns.values())
        visits = sum(hook.visits.values())
        print(f"  returns between modules: {returns}  {dict(hook.returns)}")
        print(f"  visits (calls into a module from another): {visits}  {dict(hook.visits)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

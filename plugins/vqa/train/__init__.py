"""The VQA trainer (offline; run.py never imports this package).

``train_head(req)`` is the task's trainer (its ``register_trainers`` hook, which ``train.py``
asks); ``python -m plugins.vqa.train`` is
``train.py --tasks vqa``. Modules: ``fit`` (sources, the embedding cache, the fits, the card),
``detect`` (the shared detector's output for the training images, cached) and ``data`` (the
challenge-layout dev sets and their held-out split; ``python -m plugins.vqa.train.data SRC DST``
writes a set's held-out part for ``core.score``).

Task flags (``--vqa-*``): ``--vqa-cache-dir`` (default HEAD/cache), ``--vqa-synthetic-per-image``.
"""

from __future__ import annotations

from core import hookimpl
from training import HeadCard, TrainRequest, request_trainer


@request_trainer
def train_head(req: TrainRequest) -> HeadCard:
    """Fit the VQA head for ``req.trunk`` into ``req.out_dir`` (see ``fit.fit_head``)."""
    from pathlib import Path

    from plugins.vqa.train import fit

    cache_dir = req.option("cache_dir")
    path = fit.fit_head(
        req,
        cache_dir=Path(cache_dir) if cache_dir else None,
        synthetic_per_image=req.option("synthetic_per_image", 4),
    )
    return HeadCard.read("vqa", path, dev_score=_dev(path))


def _dev(path) -> dict[str, float]:  # noqa: ANN001
    """Held-out accuracy of the model per dev set."""
    from core.heads import read_card

    scores = (read_card(path) or {}).get("heldout_accuracy", {})
    return {f"heldout_{name}": s["model"] for name, s in sorted(scores.items()) if "model" in s}


@hookimpl
def register_trainers(register):
    """The vqa task's trainer, for ``train.py``."""
    register("vqa", train_head)

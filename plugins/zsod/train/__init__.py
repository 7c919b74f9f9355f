"""The zsOD trainer (offline; run.py never imports this package).

``train_head(req)`` is the task's trainer (its ``register_trainers`` hook, which ``train.py``
asks); ``python -m plugins.zsod.train`` is
``train.py --tasks zsod``. Modules: ``fit`` (sources, region features, the verifier and
calibration fits, the card), ``weak`` (captioned images and their cached maps), ``phrases``
(phrases mined from captions) and ``weak_fit`` (the grounding head's multiple-instance fit).

Task flags (``--zsod-*``): ``--zsod-epochs``, ``--zsod-max-caption-images``, ``--zsod-cache``,
``--zsod-weak-grounding-only``.
"""

from __future__ import annotations

from core import hookimpl
from training import HeadCard, TrainRequest, request_trainer


@request_trainer
def train_head(req: TrainRequest) -> HeadCard:
    """Train the zsOD heads for ``req.trunk`` into ``req.out_dir`` (see ``fit.train_heads``)."""
    from plugins.zsod.train import fit

    path = fit.train_heads(
        req,
        cache=req.option("cache"),
        epochs=req.option("epochs", fit.WEAK_EPOCHS),
        max_caption_images=req.option("max_caption_images"),
        strong_in_grounding=not req.option("weak_grounding_only", False),
    )
    return HeadCard.read("zsod", path, dev_score=_dev(path))


def _dev(path) -> dict[str, float]:  # noqa: ANN001
    """F1, precision and recall on the held-out half of the challenge sets."""
    from core.heads import read_card

    dev = (read_card(path) or {}).get("dev_scores", {}).get("dev", {})
    return {f"dev_{k}": v for k, v in dev.items() if k in ("f1", "precision", "recall")}


@hookimpl
def register_trainers(register):
    """The zsOD task's trainer, for ``train.py``."""
    register("zsod", train_head)

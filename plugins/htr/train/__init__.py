"""The HTR trainer (offline; run.py never imports this package).

``train_head(req)`` is the task's trainer (its ``register_trainers`` hook, which ``train.py``
asks); ``python -m plugins.htr.train`` is
``train.py --tasks htr``. Modules: ``fit`` (the shards, the CTC fit, the export, and the
steps one at a time: ``python -m plugins.htr.train.fit --stage produce|train|export``),
``render`` (font-rendered words), ``pen`` + ``hershey`` (pen-stroke words),
``fontsource`` (the npm handwriting fonts), ``handfonts`` (fonts made from real hands),
``comnist`` + ``glue`` (words glued from real handwritten letters), ``words`` (what is written), ``heldout``
(the styles training never uses, a leaf) and ``metrics`` (CER for the dev shard).

Task flags (``--htr-*``): ``--htr-shards``, ``--htr-steps``, ``--htr-pen-share``, ``--htr-glue-share``,
``--htr-init``, ``--htr-lr``, ``--htr-batch``.
"""

from __future__ import annotations

from core import hookimpl
from training import HeadCard, TrainRequest, request_trainer


@request_trainer
def train_head(req: TrainRequest) -> HeadCard:
    """Train the HTR head for ``req.trunk`` into ``req.out_dir`` (see ``fit.fit_head``)."""
    from plugins.htr.train import fit

    path = fit.fit_head(
        req,
        shards=req.option("shards", fit.DEFAULT_SHARDS),
        steps=req.option("steps"),
        pen_share=req.option("pen_share", fit.DEFAULT_PEN_SHARE),
        glue_share=req.option("glue_share", 0.0),
        init=req.option("init", "auto"),
        lr=req.option("lr"),
        batch=req.option("batch", 64),
    )
    return HeadCard.read("htr", path, dev_score=_dev(path))


def _dev(path) -> dict[str, float]:  # noqa: ANN001
    """The rendered dev shard's greedy accuracy and CER."""
    from core.heads import read_card

    greedy = (read_card(path) or {}).get("dev", {}).get("greedy", {})
    return {f"dev_{k}": v for k, v in greedy.items() if k in ("accuracy", "cer")}


@hookimpl
def register_trainers(register):
    """The htr task's trainer, for ``train.py``."""
    register("htr", train_head)

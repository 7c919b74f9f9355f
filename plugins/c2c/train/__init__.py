"""The C2C selector's trainer (offline; run.py never imports this package).

``train_head(req)`` is the task's trainer (its ``register_trainers`` hook, which ``train.py``
asks); ``python -m plugins.c2c.train`` is
``train.py --tasks c2c`` (so ``--trunk`` chooses the text tower it learns over). Module:
``fit`` (pairs, candidates, cached text embeddings, the listwise fit, the card).

Task flags (``--c2c-*``): ``--c2c-epochs`` (default 3), ``--c2c-limit`` (the first N pairs),
``--c2c-cache`` (default HEAD/cache).
"""

from __future__ import annotations

from core import hookimpl
from training import HeadCard, TrainRequest, request_trainer


@request_trainer
def train_head(req: TrainRequest) -> HeadCard:
    """Train the style selector for ``req.trunk`` into ``req.out_dir`` (see ``fit.fit_head``)."""
    from plugins.c2c.train import fit

    path = fit.fit_head(
        req,
        epochs=req.option("epochs", 3),
        limit=req.option("limit", 0),
        cache=req.option("cache"),
    )
    return HeadCard.read("c2c", path)  # the card's "dev_score": the held-out sentence-BLEU gain


@hookimpl
def register_trainers(register):
    """The c2c task's trainer, for ``train.py``."""
    register("c2c", train_head)

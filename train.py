"""Train the tasks' heads for one trunk: ``python train.py --trunk SPEC --heads DIR [--data NAME=PATH ...]``.

Each selected task's ``train_head`` (registered by its plugin's ``train`` package through
``register_trainers``: ``Registry.trainers``) writes its head and card to
``DIR/<task>/<trunk version>/``; ``run.py --trunk SPEC --heads DIR`` then uses them.
``python -m plugins.<task>.train ...`` is this command for one task.
"""

from __future__ import annotations

from collections.abc import Sequence

import registry
from training import train_cli


def main(argv: Sequence[str] | None = None, *, task: str | None = None) -> int:
    return train_cli(task, argv, discovery=registry)


if __name__ == "__main__":
    raise SystemExit(main())

"""The held-out splits of the project's real data, in one place.

Every split orders names by the SHA-1 of the name and holds out the first ones, so it
is stable, needs no stored list and never depends on file order. The trunk's joint
projection (``training.trunk``), the task trainers and the benchmarks all use these,
so nothing held out by one is trained on by another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HELD_OUT_FLICKR = 1000  # trunk_pairs/flickr8k images never trained on
HELD_OUT_COCO = 250  # trunk_pairs/coco_val images never trained on


def hash_order(names: Iterable[str]) -> list[str]:
    """``names`` sorted by the SHA-1 of each name."""
    return sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest())


def split(names: Iterable[str], n_held_out: int) -> tuple[list[str], list[str]]:
    """(train, held_out): the held-out part is the first ``n_held_out`` names by hash."""
    order = hash_order(names)
    return sorted(order[n_held_out:]), sorted(order[:n_held_out])


def halves(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(train, held_out) halves; the held-out half takes the odd one."""
    names = list(names)
    return split(names, len(names) // 2 + len(names) % 2)


def zsod_split(data: Path = DATA, set_name: str = "zsod_coco_dev") -> tuple[list[str], list[str]]:
    """(train, held_out) images of a zsOD set in the challenge layout: ``halves`` of its gold keys."""
    gold = json.loads((Path(data) / set_name / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    return halves(gold)

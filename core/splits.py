"""The held-out split rules of the project's data, in one place.

Every rule is a pure function of a name (an image's file name, a set's key), so a split is
stable, needs no stored list and never depends on file order; the trunk's trainer
(``training.trunk``), the task trainers and the benchmarks all use these, so nothing held
out by one is trained on by another.

* ``hash_order`` / ``split`` / ``halves``: names sorted by the SHA-1 of each, the first ones
  held out (the trunk's caption pairs: ``HELD_OUT_FLICKR``, ``HELD_OUT_COCO``; a challenge
  set's gold keys: ``challenge_halves``);
* ``in_bucket``: ``sha1(name) mod m < below`` (VQA's held-out images: 3 of 10);
* ``within_share``: the first ``share`` of the SHA-1 range (``--scale`` subsets: a smaller
  share is a subset of a larger one);
* ``fold_of``: a cross-validation fold by MD5 (folds grouped by image).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

#: Where the project's data sets are, in the challenge layout: ``../shared/data`` beside the repository.
#: Trainers default their sources to sets under it; ``params.py --ablation SET`` looks sets up there.
DEFAULT_DATA_ROOT = Path(__file__).resolve().parents[2] / "shared" / "data"

HELD_OUT_FLICKR = 1000  # trunk_pairs/flickr8k images never trained on
HELD_OUT_COCO = 250  # trunk_pairs/coco_val images never trained on


def _sha1(name: str) -> str:
    return hashlib.sha1(name.encode("utf-8")).hexdigest()


def hash_order(names: Iterable[str]) -> list[str]:
    """``names`` sorted by the SHA-1 of each name."""
    return sorted(names, key=_sha1)


def split(names: Iterable[str], n_held_out: int) -> tuple[list[str], list[str]]:
    """(train, held_out): the held-out part is the first ``n_held_out`` names by hash."""
    order = hash_order(names)
    return sorted(order[n_held_out:]), sorted(order[:n_held_out])


def halves(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(train, held_out) halves; the held-out half takes the odd one."""
    names = list(names)
    return split(names, len(names) // 2 + len(names) % 2)


def challenge_halves(set_dir: Path, folder: str) -> tuple[list[str], list[str]]:
    """(train, held_out) keys of a challenge-layout set: ``halves`` of ``true/<folder>/true_<folder>.json``'s keys."""
    gold = json.loads((Path(set_dir) / "true" / folder / f"true_{folder}.json").read_text(encoding="utf-8"))
    return halves(gold)


def in_bucket(name: str, below: int, mod: int) -> bool:
    """``sha1(name) mod mod < below``: a fixed ``below / mod`` share of all names."""
    return int(_sha1(name), 16) % mod < below


def within_share(name: str, share: float) -> bool:
    """Whether ``name`` falls in the first ``share`` of the SHA-1 range (all names for ``share >= 1``)."""
    return share >= 1.0 or int(_sha1(name)[:8], 16) < share * 0x1_0000_0000


def fold_of(name: str, k: int) -> int:
    """The cross-validation fold (of ``k``) of a group name."""
    return int(hashlib.md5(name.encode()).hexdigest(), 16) % k

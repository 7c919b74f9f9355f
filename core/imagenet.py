"""The ImageNet-1k class descriptions (WordNet lemmas, timm's order) without importing timm.

The default trunk's class-name bridge (``core.backends._bridge``) and VQA's answer candidates
name ImageNet classes. The table ships as data files inside the installed ``timm`` package
(what ``timm.data.ImageNetInfo`` reads); importing ``timm`` to read them would import
torchvision and ``torch._dynamo`` (about 2 s of CPU at start), so they are read from the
package folder directly. ``tests/core/test_imagenet.py`` checks them against ``ImageNetInfo``.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
from pathlib import Path

_SYNSETS = "imagenet_synsets.txt"  # the 1000 WordNet ids in class order
_LEMMAS = "imagenet_synset_to_lemma.txt"  # id <tab> "name, synonym, ..."


@functools.cache
def class_descriptions() -> tuple[str, ...]:
    """The 1000 class descriptions (``"tench, Tinca tinca"``), as ``ImageNetInfo().index_to_description``;
    ``()`` when timm is not installed."""
    spec = importlib.util.find_spec("timm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return ()
    folder = Path(spec.submodule_search_locations[0]) / "data" / "_info"
    synsets = (folder / _SYNSETS).read_text(encoding="utf-8").splitlines()
    lemmas = dict(csv.reader((folder / _LEMMAS).read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    return tuple(lemmas[s] for s in synsets)

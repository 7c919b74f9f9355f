"""The small VQA head on frozen trunk features: a yes/no classifier and an answer scorer.

Both work on the trunk's joint space only (L2-normalised image and text
embeddings), so the head is a few kilobytes:

* yes/no: logistic regression over how well the question's subject phrase fits
  the image (raw, centred by the mean image, and ranked against the answer
  vocabulary), the question embedding (the language prior) and the
  image-subject product;
* open answers: a linear score per candidate answer mixing image-answer
  affinity, question-answer affinity and the answer's prior, fitted with a
  softmax over the vocabulary.

Feature functions are shared by ``train.py`` and ``task.py`` so training and
inference can never disagree.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
WEIGHTS_FILE = WEIGHTS_DIR / "vqa_head.safetensors"
CARD_FILE = WEIGHTS_DIR / "vqa_head.json"
# The head reads pooled image and text embeddings, i.e. all three components.
DEPENDS_ON = ("image", "text", "joint")

N_SCALAR = 6
N_OPEN = 7


def region_pool(coarse: torch.Tensor) -> torch.Tensor:
    """``[B, C, H, W]`` coarsest feature map -> ``[B, 6, C]`` pooled regions.

    Row 0 is the whole image (exactly what ``encode_images`` projects), then the
    four overlapping quadrants (each 2/3 of the side) and the centre: a small
    object or a detail a question asks about dominates some region more than the
    whole picture.
    """
    import torch

    _, _, h, w = coarse.shape
    hs, ws = max(1, round(h * 2 / 3)), max(1, round(w * 2 / 3))
    h0, w0 = (h - hs) // 2, (w - ws) // 2
    boxes = [
        (0, 0, h, w),
        (0, 0, hs, ws),
        (0, w - ws, hs, w),
        (h - hs, 0, h, ws),
        (h - hs, w - ws, h, w),
        (h0, w0, h0 + hs, w0 + ws),
    ]
    return torch.stack([coarse[:, :, y0:y1, x0:x1].mean(dim=(2, 3)) for y0, x0, y1, x1 in boxes], 1)


def yesno_features(
    img: torch.Tensor, question: torch.Tensor, subject: torch.Tensor, mean_image: torch.Tensor, reference: torch.Tensor
) -> torch.Tensor:
    """``[B, 6 + 2D]`` features of yes/no questions.

    :param img: ``[B, R, D]`` region embeddings (row 0: whole image); ``question``/``subject``:
        ``[B, D]`` text embeddings of the question and of the phrase it asks about;
        ``mean_image``: ``[D]``; ``reference``: ``[V, D]`` embeddings of the answer vocabulary
        (to rank the subject against).
    """
    import torch

    whole = img[:, 0]
    centred = whole - mean_image
    fit = (img * subject.unsqueeze(1)).sum(-1)  # [B, R]
    ref = img @ reference.T  # [B, R, V]
    z = (fit - ref.mean(-1)) / ref.std(-1).clamp(min=1e-6)
    rank = (ref[:, 0] < fit[:, :1]).float().mean(-1)
    region_fit = ((img - mean_image) * subject.unsqueeze(1)).sum(-1).amax(-1)
    scalars = torch.stack(
        [
            (centred * subject).sum(-1) * 10,
            (centred * question).sum(-1) * 10,
            z[:, 0],
            rank,
            region_fit * 10,
            z.amax(-1),
        ],
        -1,
    )
    return torch.cat([scalars, question, centred * subject * 10], -1)


def open_features(
    img: torch.Tensor,
    question: torch.Tensor,
    answers: torch.Tensor,
    mean_image: torch.Tensor,
    log_prior: torch.Tensor,
    in_question: torch.Tensor,
) -> torch.Tensor:
    """``[B, N, 7]`` features of every candidate answer for every question.

    :param img: ``[B, R, D]`` region embeddings; ``answers``: ``[N, D]`` candidate embeddings;
        ``log_prior``: ``[N]``; ``in_question``: ``[B, N]`` 1.0 where the answer's words occur
        in the question.
    """
    import torch

    centred = img - mean_image  # [B, R, D]
    img_fit = centred[:, 0] @ answers.T  # [B, N]
    region_fit = (centred @ answers.T).amax(1)
    raw_fit = img[:, 0] @ answers.T
    z_img = (raw_fit - raw_fit.mean(-1, keepdim=True)) / raw_fit.std(-1, keepdim=True).clamp(min=1e-6)
    q_fit = question @ answers.T
    z_q = (q_fit - q_fit.mean(-1, keepdim=True)) / q_fit.std(-1, keepdim=True).clamp(min=1e-6)
    prior = log_prior.unsqueeze(0).expand_as(img_fit)
    return torch.stack([img_fit * 10, z_img, q_fit * 10, z_q, prior, in_question, region_fit * 10], -1)


@dataclass(slots=True)
class VqaHead:
    """Weights of the head plus what its card records."""

    mean_image: torch.Tensor  # [D]
    yesno_w: torch.Tensor  # [6 + 2D]
    yesno_b: torch.Tensor  # [1]
    open_w: torch.Tensor  # [7]
    answer_counts: dict[str, int] = field(default_factory=dict)  # English answers seen in training, with counts
    card: dict[str, Any] = field(default_factory=dict)

    def yesno_logit(self, feats: torch.Tensor) -> torch.Tensor:
        """``[B]`` logits of "yes"."""
        return feats @ self.yesno_w + self.yesno_b

    def open_scores(self, feats: torch.Tensor) -> torch.Tensor:
        """``[B, N]`` scores of candidate answers."""
        return feats @ self.open_w

    def save(self, weights: Path = WEIGHTS_FILE, card_path: Path = CARD_FILE) -> None:
        """Write the safetensors weights and the JSON card."""
        from safetensors.torch import save_file

        weights.parent.mkdir(parents=True, exist_ok=True)
        tensors = {
            "mean_image": self.mean_image,
            "yesno_w": self.yesno_w,
            "yesno_b": self.yesno_b,
            "open_w": self.open_w,
        }
        save_file({k: v.detach().contiguous().float() for k, v in tensors.items()}, str(weights))
        weights.chmod(0o644)  # safetensors writes 0600; the file ships in the repo
        card = dict(self.card, answer_counts=self.answer_counts)
        card_path.write_text(json.dumps(card, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def untrained_head(dim: int) -> VqaHead:
    """Hand-set weights used when no trained head fits the trunk: subject fit decides yes/no,
    image and question affinity plus the prior rank open answers."""
    import torch

    yesno_w = torch.zeros(N_SCALAR + 2 * dim)
    yesno_w[2] = 1.0  # z-score of the subject against the vocabulary
    open_w = torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0])
    return VqaHead(torch.zeros(dim), yesno_w, torch.tensor([-1.0]), open_w)


def load_head(trunk: Trunk, weights: Path = WEIGHTS_FILE, card_path: Path = CARD_FILE) -> VqaHead:
    """Load the shipped head, refusing one trained on another trunk (``TrunkError``).

    Falls back to ``untrained_head`` (logged) when no weights ship.
    """
    if not weights.exists() or not card_path.exists():
        log.warning("no trained VQA head at %s; using hand-set weights", weights)
        return untrained_head(trunk.embed_dim)
    from safetensors.torch import load_file

    card = json.loads(card_path.read_text(encoding="utf-8"))
    versions: Mapping[str, str] = card.get("trunk_versions", {})
    trunk.check_compatible(versions, what="VQA head")
    t = load_file(str(weights))
    if t["mean_image"].shape[0] != trunk.embed_dim:
        from core.errors import TrunkError

        raise TrunkError(f"VQA head expects {t['mean_image'].shape[0]}-d features, trunk has {trunk.embed_dim}")
    counts = {str(k): int(v) for k, v in card.get("answer_counts", {}).items()}
    return VqaHead(t["mean_image"], t["yesno_w"], t["yesno_b"], t["open_w"], counts, card)

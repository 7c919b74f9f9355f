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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from plugins.vqa.evidence import N_EVIDENCE, OPEN_EVIDENCE

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


def yesno_width(dim: int) -> int:
    """Length of a yes/no feature row (``yesno_features``) for ``dim``-d embeddings."""
    return N_SCALAR + 4 * dim + N_EVIDENCE


def yesno_features(
    img: torch.Tensor,
    question: torch.Tensor,
    subject: torch.Tensor,
    mean_image: torch.Tensor,
    reference: torch.Tensor,
    evidence: torch.Tensor | None = None,
) -> torch.Tensor:
    """``[B, yesno_width(D)]`` features of yes/no questions: 6 image-evidence scalars, the question
    embedding (the language prior), the image-subject product, the image-question product, then
    the detector's evidence (``evidence.yesno_evidence``: ``N_EVIDENCE`` scalars and the
    subject-objects product; zeros when ``evidence`` is None).

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
    if evidence is None:
        evidence = torch.zeros(img.shape[0], N_EVIDENCE + img.shape[-1])
    return torch.cat([scalars, question, centred * subject * 10, centred * question * 10, evidence], -1)


def bilinear(subject: torch.Tensor, centred: torch.Tensor, bil_s: torch.Tensor, bil_i: torch.Tensor) -> torch.Tensor:
    """``[B]`` low-rank bilinear score of subjects ``[B, D]`` against centred images ``[B, D]``."""
    return ((subject @ bil_s) * ((centred * 10) @ bil_i)).sum(-1)


# Open-answer features (``open_features``); the image-reading ones are zeroed by the prior-only model.
OPEN_FEATURES = (
    "image fit",
    "image z",
    "question fit",
    "question z",
    "log prior",
    "in question",
    "region fit",
    "language model",
    "answer type",
    *OPEN_EVIDENCE,
)
OPEN_IMAGE = (0, 1, 6, *range(9, 9 + len(OPEN_EVIDENCE)))
N_OPEN = len(OPEN_FEATURES)
ANSWER_TYPES = ("yesno", "count", "color", "sport", "place", "other")


def open_features(
    img: torch.Tensor,
    question: torch.Tensor,
    answers: torch.Tensor,
    mean_image: torch.Tensor,
    log_prior: torch.Tensor,
    in_question: torch.Tensor,
    lm: torch.Tensor | None = None,
    type_fit: torch.Tensor | None = None,
    evidence: torch.Tensor | None = None,
) -> torch.Tensor:
    """``[B, N, N_OPEN]`` features of every candidate answer for every question (``OPEN_FEATURES``).

    :param img: ``[B, R, D]`` region embeddings; ``answers``: ``[N, D]`` candidate embeddings;
        ``log_prior``: ``[N]``; ``in_question``: ``[B, N]`` 1.0 where the answer's words occur
        in the question; ``lm``: ``[B, N]`` log-probabilities of the answers given the question
        (``VqaHead.language_model``); ``type_fit``: ``[B, N]`` log-probability of each answer's
        type given the question (``VqaHead.type_log_probs``); ``evidence``: ``[B, N, 4]`` the
        detector's (``evidence.open_evidence``). Missing ones are zeros.
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
    zero = torch.zeros_like(img_fit)
    lm = zero if lm is None else lm
    type_fit = zero if type_fit is None else type_fit
    base = torch.stack([img_fit * 10, z_img, q_fit * 10, z_q, prior, in_question, region_fit * 10, lm, type_fit], -1)
    if evidence is None:
        evidence = torch.zeros(*img_fit.shape, len(OPEN_EVIDENCE))
    return torch.cat([base, evidence], -1)


def open_image_mask() -> torch.Tensor:
    """``[N_OPEN]`` 1.0 at the open features that read the image."""
    import torch

    mask = torch.zeros(N_OPEN)
    mask[list(OPEN_IMAGE)] = 1.0
    return mask


class OpenScored(NamedTuple):
    """``VqaHead.score_candidates``' output."""

    feats: torch.Tensor  # [B, N, N_OPEN] (``open_features``)
    type_lp: torch.Tensor  # [B, N] log-probability of each candidate's answer type
    scores: torch.Tensor  # [B, N] the head's score of each candidate


# Tensors of a head file. The prior-only model (``prior_*``: the same model fitted without any
# image feature) ships beside the model, for the benchmark's "prior alone" and as the fallback.
TENSORS = (
    "mean_image", "yesno_w", "yesno_b", "open_w", "prior_yesno_w", "prior_yesno_b", "prior_open_w",
    "type_w", "type_b", "lm_q", "lm_a", "bil_s", "bil_i", "evidence_mean",
)  # fmt: skip
HALF = ("lm_q", "lm_a", "type_w", "bil_s", "bil_i")  # stored as float16 (their precision does not matter)


@dataclass(slots=True)
class VqaHead:
    """Weights of the head plus what its card records.

    ``lm_q``/``lm_a`` (``[D, r]`` each) are the learned language model: the log-probability of
    answer ``a`` for question ``q`` is a softmax over the candidates of ``(q @ lm_q) . (e_a @ lm_a)``
    plus the answer's log prior (``e_a``: the answer's text embedding, so it reaches answers and
    Russian forms never seen in training). ``type_w``/``type_b`` (``[T, D]``, ``[T]``) classify the
    question's answer type (``ANSWER_TYPES``) from its embedding.
    """

    mean_image: torch.Tensor  # [D]
    yesno_w: torch.Tensor  # [yesno_width(D)]
    yesno_b: torch.Tensor  # [1]
    open_w: torch.Tensor  # [N_OPEN]
    answer_counts: dict[str, int] = field(default_factory=dict)  # English answers seen in training, with counts
    card: dict[str, Any] = field(default_factory=dict)
    prior_yesno_w: torch.Tensor | None = None
    prior_yesno_b: torch.Tensor | None = None
    prior_open_w: torch.Tensor | None = None
    type_w: torch.Tensor | None = None
    type_b: torch.Tensor | None = None
    lm_q: torch.Tensor | None = None
    lm_a: torch.Tensor | None = None
    bil_s: torch.Tensor | None = None  # [D, r]: optional low-rank subject x image term of the yes/no logit
    bil_i: torch.Tensor | None = None  # [D, r]
    # [N_EVIDENCE + D]: the training questions' mean detector evidence, what a yes/no question
    # gets when the run has no detector (so its absence reads as "unknown", not "nothing there")
    evidence_mean: torch.Tensor | None = None

    @property
    def has_prior(self) -> bool:
        """True when the head carries its prior-only model."""
        return self.prior_yesno_w is not None and self.prior_open_w is not None

    def prior_only(self) -> VqaHead:
        """The same head with the prior-only weights in place of the model's."""
        if not self.has_prior:
            raise ValueError("this head has no prior-only model")
        assert self.prior_yesno_w is not None and self.prior_yesno_b is not None and self.prior_open_w is not None
        return replace(
            self,
            yesno_w=self.prior_yesno_w,
            yesno_b=self.prior_yesno_b,
            open_w=self.prior_open_w,
            bil_s=None,
            bil_i=None,
        )

    def num_parameters(self) -> int:
        """Every weight of the head."""
        return sum(int(t.numel()) for name in TENSORS if (t := getattr(self, name)) is not None)

    def yesno_logit(
        self, feats: torch.Tensor, subject: torch.Tensor | None = None, image: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``[B]`` logits of "yes": the logistic part plus, when fitted, the low-rank bilinear term
        ``(subject @ bil_s) . (10 (image - mean_image) @ bil_i)`` (``subject``, ``image``: ``[B, D]``,
        the whole-image embedding), which learns which subjects go with which pictures beyond
        the trunk's own joint space."""
        out = feats @ self.yesno_w + self.yesno_b
        if self.bil_s is not None and self.bil_i is not None and subject is not None and image is not None:
            out = out + bilinear(subject, image - self.mean_image, self.bil_s.float(), self.bil_i.float())
        return out

    def open_scores(self, feats: torch.Tensor) -> torch.Tensor:
        """``[B, N]`` scores of candidate answers."""
        return feats @ self.open_w

    def yes_logits(
        self,
        img: torch.Tensor,
        question: torch.Tensor,
        subject: torch.Tensor,
        reference: torch.Tensor,
        evidence: torch.Tensor | None,
    ) -> torch.Tensor:
        """``[B]`` logits of "yes" from ``yesno_features``' inputs (``yesno_logit`` of those features)."""
        feats = yesno_features(img, question, subject, self.mean_image, reference, evidence)
        return self.yesno_logit(feats, subject, img[:, 0])

    def score_candidates(
        self,
        img: torch.Tensor,
        question: torch.Tensor,
        answers: torch.Tensor,
        log_prior: torch.Tensor,
        in_question: torch.Tensor,
        answer_types: torch.Tensor,
        evidence: torch.Tensor | None,
    ) -> OpenScored:
        """Every candidate's ``open_features`` (with this head's language model and answer-type fit),
        the answer-type log-probabilities and the scores (``open_features``' parameters;
        ``answer_types``: ``[N]`` each candidate's index into ``ANSWER_TYPES``)."""
        lm = self.language_model(question, answers, log_prior)
        type_lp = self.type_log_probs(question)[:, answer_types]  # [B, N]
        feats = open_features(img, question, answers, self.mean_image, log_prior, in_question, lm, type_lp, evidence)
        return OpenScored(feats, type_lp, self.open_scores(feats))

    def language_model(self, question: torch.Tensor, answers: torch.Tensor, log_prior: torch.Tensor) -> torch.Tensor:
        """``[B, N]`` log-probabilities of the answers given the questions (zeros without a model)."""
        import torch

        if self.lm_q is None or self.lm_a is None:
            return torch.zeros(question.shape[0], answers.shape[0])
        logits = (question @ self.lm_q.float()) @ (answers @ self.lm_a.float()).T + log_prior
        return torch.log_softmax(logits, -1)

    def type_log_probs(self, question: torch.Tensor) -> torch.Tensor:
        """``[B, T]`` log-probabilities of the answer types (uniform without a classifier)."""
        import math

        import torch

        if self.type_w is None or self.type_b is None:
            return torch.full((question.shape[0], len(ANSWER_TYPES)), -math.log(len(ANSWER_TYPES)))
        return torch.log_softmax(question @ self.type_w.float().T + self.type_b, -1)

    def save(self, weights: Path = WEIGHTS_FILE, card_path: Path = CARD_FILE) -> None:
        """Write the safetensors weights and the JSON card."""
        import torch
        from safetensors.torch import save_file

        weights.parent.mkdir(parents=True, exist_ok=True)
        tensors = {}
        for name in TENSORS:
            t = getattr(self, name)
            if t is not None:
                dtype = torch.float16 if name in HALF else torch.float32
                tensors[name] = t.detach().to(dtype).contiguous().clone()
        save_file(tensors, str(weights))
        weights.chmod(0o644)  # safetensors writes 0600; the file ships in the repo
        from core.weights import file_record

        card = dict(self.card, answer_counts=self.answer_counts, files={weights.name: file_record(weights)})
        card_path.write_text(json.dumps(card, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        card_path.chmod(0o644)


NO_HEAD_PROMPT = {"en": "a photo of {}.", "ru": "фотография: {}."}


def untrained_head(dim: int, prompt: Mapping[str, str] | None = NO_HEAD_PROMPT) -> VqaHead:
    """The no-head mode's weights (no training, any trunk): the subject's fit to the image against the
    vocabulary decides yes/no; image and question affinity of the answers (embedded in the prompt
    template, ``answerer.candidate_texts``) plus the hand prior rank open answers."""
    import torch

    yesno_w = torch.zeros(yesno_width(dim))
    yesno_w[2] = 1.0  # z-score of the subject against the vocabulary
    open_w = torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 0.0, 0.0] + [0.0] * len(OPEN_EVIDENCE))
    card: dict[str, Any] = {"mode": "no head"}
    if prompt:
        card["prompt"] = dict(prompt)
    return VqaHead(torch.zeros(dim), yesno_w, torch.tensor([-1.0]), open_w, card=card)


def load_head(trunk: Trunk, weights: Path = WEIGHTS_FILE, card_path: Path = CARD_FILE) -> VqaHead:
    """Load a head, refusing one trained on another trunk (``TrunkError``).

    Falls back to ``untrained_head`` (logged: the no-head mode) when the files are missing (an
    error when the card is there without its weights). The weights are checked against the card
    (``core.weights``): ``WeightsError`` naming the file when they are damaged or do not fit it.
    Heads written before the image-question features and the learned priors (``6 + 2D`` yes/no
    and 7 open weights) load with zeros for the missing weights.
    """
    if not weights.exists() or not card_path.exists():
        if card_path.exists():
            log.error("VQA: weight file %s: missing (its card %s is there); no-head mode", weights, card_path.name)
        else:
            log.warning("no trained VQA head at %s; no-head mode (answer retrieval and question rules)", weights)
        return untrained_head(trunk.embed_dim)
    import torch

    from core import weights as checked
    from core.heads import load_head_files

    card, tensors = load_head_files(trunk, weights, card_path, what="VQA head", components=DEPENDS_ON)
    t = {k: v.float() for k, v in tensors.items()}
    lacking = [name for name in ("mean_image", "yesno_w", "yesno_b", "open_w") if name not in t]
    if lacking:
        raise checked.WeightsError(weights, f"does not fit its card {card_path.name}: no tensor {', '.join(lacking)}")
    dim = t["mean_image"].shape[0]
    if dim != trunk.embed_dim:
        from core.errors import TrunkError

        raise TrunkError(f"VQA head expects {dim}-d features, trunk has {trunk.embed_dim}")
    width = yesno_width(dim)
    for name in ("yesno_w", "prior_yesno_w"):
        if name in t and t[name].shape[0] < width:
            t[name] = torch.cat([t[name], torch.zeros(width - t[name].shape[0])])
    for name in ("open_w", "prior_open_w"):
        if name in t and t[name].shape[0] < N_OPEN:
            t[name] = torch.cat([t[name], torch.zeros(N_OPEN - t[name].shape[0])])
    counts = {str(k): int(v) for k, v in card.get("answer_counts", {}).items()}
    extra = {name: t.get(name) for name in TENSORS if name not in ("mean_image", "yesno_w", "yesno_b", "open_w")}
    return VqaHead(t["mean_image"], t["yesno_w"], t["yesno_b"], t["open_w"], counts, card, **extra)

"""The learned region-phrase scorer (the zsOD "grounding head") over the frozen trunk.

A region is the mean of the trunk's stride-32 map inside its box (``roi_align``,
as ``pipeline.pool_boxes`` pools it); a phrase is its unit text embedding. Both are mapped
to ``k``-d codes and scored by a bilinear term plus a small MLP on
``[u, v, u * v]``::

    u = W_f (f - mean) / std          v = W_t t
    logit(u, v) = s * <u, v> / sqrt(k) + w . gelu(A_u u + A_v v + A_p (u * v) + c) + b

``u`` is affine in ``f``, so the code of a box is the mean of its cells' codes:
training (``plugins.zsod.train.weak_fit``) pools cells of cached maps cheaply, and
inference pools the same map with ``roi_align``. The image-level score of a phrase
is a soft maximum over the regions (``image_logit``), which is what multiple-instance
learning from captions trains. Weights: ``grounding.safetensors`` (fp16) + ``grounding.json``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

CODE = 128
HIDDEN = 64


def build_grounding_head(feature_dim: int, text_dim: int, code: int = CODE, hidden: int = HIDDEN) -> torch.nn.Module:
    import torch
    from torch import nn

    class GroundingHead(nn.Module):
        mean: torch.Tensor  # buffers (register_buffer), typed for the checker
        std: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.zeros(feature_dim))
            self.register_buffer("std", torch.ones(feature_dim))
            self.wf = nn.Linear(feature_dim, code)
            self.wt = nn.Linear(text_dim, code)
            self.au = nn.Linear(code, hidden)
            self.av = nn.Linear(code, hidden, bias=False)
            self.ap = nn.Linear(code, hidden, bias=False)
            self.out = nn.Linear(hidden, 1)
            self.scale = nn.Parameter(torch.tensor(4.0))
            self.code = code

        def region_codes(self, pooled: torch.Tensor) -> torch.Tensor:
            """``[..., C]`` mean-pooled stride-32 features -> ``[..., k]`` codes."""
            return self.wf((pooled - self.mean) / self.std)

        def text_codes(self, texts: torch.Tensor) -> torch.Tensor:
            return self.wt(texts)

        def logits(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
            """All pairs: ``u [..., N, k]``, ``v [..., P, k]`` -> ``[..., N, P]``."""
            dot = u @ v.transpose(-1, -2) * (self.scale / math.sqrt(self.code))
            h = self.au(u).unsqueeze(-2) + self.av(v).unsqueeze(-3) + self.ap(u.unsqueeze(-2) * v.unsqueeze(-3))
            return dot + self.out(torch.nn.functional.gelu(h)).squeeze(-1)

        def forward(self, pooled: torch.Tensor, texts: torch.Tensor) -> torch.Tensor:
            return self.logits(self.region_codes(pooled), self.text_codes(texts))

    return GroundingHead()


def image_logit(region_logits: torch.Tensor, dim: int = -2) -> torch.Tensor:
    """Soft maximum over regions: ``logsumexp - log(count)`` (a mean-normalised MIL pool)."""
    import torch

    n = region_logits.shape[dim]
    return torch.logsumexp(region_logits, dim=dim) - math.log(max(n, 1))

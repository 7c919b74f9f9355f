"""The learned joint projection: pooled image-tower feature -> USE text space.

Trained by ``python -m training.trunk`` with both towers locked (LiT). The
projection reads the tower's pooled 1280-d feature, standardised, and adds the
class-name bridge's output (``_bridge.py``) scaled by a learned gate, so the
ImageNet classifier's knowledge is kept and the learned part adds what paired
captions and region crops taught:

    joint(x) = gate * bridge(x) + head((x - mean) / std)

``x`` is the spatial mean of the tower's stride-32 head map, or mean and max
concatenated (``pool="meanmax"``: the max keeps small objects visible).
``head`` is a linear map (``kind="linear"``) or a one-hidden-layer GELU MLP
(``kind="mlp"``). The file is safetensors (fp16 weights) with metadata
``{"version", "kind", "hidden", "pool", "tower", "bridge_temperature"}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn

from core.backends._bridge import BridgeJoint
from core.errors import TrunkError


class ProjectionJoint(nn.Module):
    """``gate * bridge(x) + head(standardised x)``; see the module doc."""

    mean: torch.Tensor  # [feature_dim] buffers: the pooled features' standardisation
    std: torch.Tensor
    head: nn.Module  # a Linear ("linear") or a small MLP ("mlp")

    def __init__(
        self,
        feature_dim: int,
        embed_dim: int,
        *,
        kind: str,
        hidden: int,
        bridge: BridgeJoint,
        version: str,
        pool: str = "mean",
    ) -> None:
        super().__init__()
        self.kind = kind
        self.pool = pool  # "mean": spatial mean of the head map; "meanmax": mean | max
        self.version = version
        self.bridge = bridge
        self.register_buffer("mean", torch.zeros(feature_dim))
        self.register_buffer("std", torch.ones(feature_dim))
        self.gate = nn.Parameter(torch.ones(()))
        if kind == "linear":
            self.head = nn.Linear(feature_dim, embed_dim)
        elif kind == "mlp":
            self.head = nn.Sequential(nn.Linear(feature_dim, hidden), nn.GELU(), nn.Linear(hidden, embed_dim))
        else:
            raise TrunkError(f"unknown joint projection kind {kind!r}")

    def forward(self, pooled: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        return self.gate * self.bridge(pooled, logits) + self.head((pooled - self.mean) / self.std)

    def learned_state(self) -> dict[str, torch.Tensor]:
        """What the projection file stores (the bridge's class matrix ships separately)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith("bridge.")}


def load_projection(path: Path, *, tower, bridge: BridgeJoint) -> ProjectionJoint:
    """Load a projection file made for ``tower`` (``TrunkError`` if it was made for another).

    Checked against its card beside it (``<name>.json``, when there is one; ``core.weights``):
    ``WeightsError`` naming the file when it is missing, damaged or does not fit."""
    from core import weights

    card_path = Path(path).with_suffix(".json")
    card = weights.read_card(card_path, weights=path) if card_path.exists() else None
    tensors, meta = weights.load_safetensors(path, card, card_path=card_path)
    state = {k: v.float() for k, v in tensors.items()}
    if "mean" not in state or not {"kind", "version"} <= meta.keys():
        raise weights.WeightsError(
            path, "does not fit a joint projection: no 'mean' tensor or no kind/version metadata"
        )
    if meta.get("tower") != tower.version:
        raise TrunkError(
            f"joint projection {path.name} was trained for image tower {meta.get('tower')!r}, not {tower.version!r}"
        )
    bridge.temperature = float(meta.get("bridge_temperature", bridge.temperature))
    hidden = int(json.loads(meta.get("hidden", "0")))
    joint = ProjectionJoint(
        state["mean"].numel(),
        bridge.class_text.shape[1],
        kind=meta["kind"],
        hidden=hidden,
        bridge=bridge,
        version=meta["version"],
        pool=meta.get("pool", "mean"),
    )
    try:
        missing, unexpected = joint.load_state_dict(state, strict=False)
    except RuntimeError as exc:  # a shape that is not the card's
        raise weights.WeightsError(
            path, f"does not fit a {meta['kind']} projection: {str(exc).strip()[:300]}"
        ) from None
    if unexpected or [k for k in missing if not k.startswith("bridge.")]:
        raise weights.WeightsError(path, f"does not fit a joint projection: missing {missing}, unexpected {unexpected}")
    return joint

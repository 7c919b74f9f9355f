"""The input folder's layout: whether ``--input`` is a folder of task folders, and what a task
folder lacks of the layout its task declares (its request file, its images folder).

core knows no task by name: a task's layout comes here as a ``FolderLayout`` (``core.runner``
makes it from the task's ``TaskInfo``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError
from core.io.requests import find_request_file, folder_key

log = logging.getLogger(__name__)

MAX_LISTED = 8  # entries of a task folder named when its layout is not the expected one


@dataclass(frozen=True, slots=True)
class FolderLayout:
    """What one task's folder holds in its challenge layout."""

    folders: tuple[str, ...]  # the folder's names, the canonical one first, then its aliases
    request_file: str = "requests.json"  # its request file (looked for only when ``asks``)
    asks: bool = False  # whether the task reads a request file
    images: str | None = None  # the sub-folder of its images; None: it takes no image


def check_input_folder(input_dir: Path) -> None:
    """``InputError`` when ``input_dir`` is not a folder (missing, or a file)."""
    if not input_dir.is_dir():
        why = "it is not a folder" if input_dir.exists() else "no such folder"
        raise InputError(f"cannot read the input: {why}", input_dir)


def layout_hint(layout: FolderLayout, found: Path, folder: str) -> str:
    """``"; expected ..."`` naming what ``found`` (the task's folder, spelled ``folder``) lacks of
    ``layout`` (its request file, its images folder) and what it holds instead; "" when nothing
    is missing or the layout declares neither.

    An images folder counts as missing only when the task folder holds no file besides its
    request file either (HTR and zsOD also read images put directly in their folder).
    """
    if not layout.asks and not layout.images:
        return ""
    entries = _entries(found)
    missing = []
    if layout.asks and find_request_file(found, layout.request_file) is None:
        missing.append(layout.request_file)
    if layout.images and not (found / layout.images).is_dir():
        files = [e for e in entries if not e.endswith("/") and folder_key(e) != folder_key(layout.request_file)]
        if not files:
            missing.append(f"{layout.images}/")
    if not missing:
        return ""
    renames = {folder_key(m): m for m in missing}  # an entry that differs only in case
    named = [
        f"{e} (rename it {renames[folder_key(e)]})" if folder_key(e) in renames else e for e in entries[:MAX_LISTED]
    ]
    more = f" and {len(entries) - MAX_LISTED} more" if len(entries) > MAX_LISTED else ""
    held = f"it holds {', '.join(named)}{more}" if entries else "it is empty"
    return f"; expected {' and '.join(f'{folder}/{m}' for m in missing)} in {found} ({held})"


def explain_empty_input(input_dir: Path, layouts: Sequence[FolderLayout]) -> None:
    """Why no task folder of ``layouts`` was found under ``input_dir``: raises ``InputError`` when
    it is a mistake the user must fix (no such folder; ``--input`` at a task folder, by its name
    or by its request file or images folder: its parent was meant), else logs which folders were
    looked for.
    """
    check_input_folder(input_dir)
    folders = {folder_key(name): name for layout in layouts for name in layout.folders}
    inner = {
        folder_key(name): name
        for layout in layouts
        for name in (layout.request_file if layout.asks else None, layout.images)
        if name
    }
    held = [e for e in _entries(input_dir) if folder_key(e.rstrip("/")) in inner]
    named = folders.get(folder_key(input_dir.resolve().name))
    if named or held:
        why = f"it is the {named}/ task folder" if named else f"it holds {', '.join(held)}, as a task folder does"
        raise InputError(
            f"{why}; --input takes the folder that holds the task folders: pass its parent "
            f"({input_dir.resolve().parent}){'' if named else ', with this folder named after its task'}",
            input_dir,
        )
    expected = ", ".join(f"{layout.folders[0]}/" for layout in layouts)
    log.warning("no task folder found under %s (looked for %s); nothing to do", input_dir, expected)


def _entries(folder: Path) -> list[str]:
    """The names in ``folder``, a sub-folder's with a trailing ``/``, sorted; [] when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return sorted(e.name + ("/" if e.is_dir() else "") for e in it)
    except OSError:
        return []

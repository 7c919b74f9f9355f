"""Trained heads per trunk: where a task finds the head made for the trunk it runs on.

A head is trained on one trunk's features and is useless on another, so heads are
kept per trunk. A heads folder holds one sub-folder per task and trunk::

    HEADS/<task>/<trunk.base_version>/   the plugin's usual weight files + its JSON card

``trunk.version`` is a hash of the trunk's component versions (image tower, text
tower, joint space). The card records those versions under ``"trunk"``. A task asks
``find_head`` for its head: the user's heads folders are searched first (``run.py
--heads DIR``; default ``~/.cache/fusionbrain/heads`` or ``$FUSIONBRAIN_HEADS``),
then the folder the plugin ships. The first folder whose card matches the trunk
wins; with none, the task runs its no-head mode (and says so). ``train.py`` writes
new heads to ``head_dir_for(HEADS, task, trunk)``. Every task loads its head's files through
``load_head_files`` and runs its modules ``frozen``.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    import torch

    from core.request import PluginConfig
    from core.trunk import Trunk

M = TypeVar("M", bound="torch.nn.Module")

log = logging.getLogger(__name__)

HEADS_ENV = "FUSIONBRAIN_HEADS"


def default_heads_dir() -> Path:
    """``$FUSIONBRAIN_HEADS``, else ``~/.cache/fusionbrain/heads``."""
    return Path(os.environ.get(HEADS_ENV) or Path.home() / ".cache" / "fusionbrain" / "heads").expanduser()


def search_dirs(config: PluginConfig | None = None) -> tuple[Path, ...]:
    """The heads folders a run searches: ``--heads`` (``config.heads``) when given, else the default folder."""
    chosen = config.heads if config is not None else None
    if chosen:
        return (Path(chosen).expanduser(),)
    try:
        return (default_heads_dir(),)
    except RuntimeError:  # no $HOME and no user entry: no default folder, the shipped heads remain
        return ()


def head_dir_for(heads_root: Path, task: str, trunk: Trunk) -> Path:
    """Where ``train.py`` puts ``task``'s head for ``trunk`` under ``heads_root``.

    An ablated trunk looks in the folder of the trunk it ablates (``Trunk.base_version``).
    """
    return Path(heads_root) / task / trunk.base_version


def read_card(path: Path) -> dict[str, Any] | None:
    """A head card's JSON object, or None when it is missing or unreadable (logged)."""
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("head card %s is unreadable (%s); ignored", path, exc)
        return None
    return card if isinstance(card, dict) else None


def card_matches(card: Mapping[str, Any], trunk: Trunk) -> bool:
    """True when every trunk component the card records is the trunk's own.

    An ablated trunk matches the heads of the trunk it ablates (its component versions
    without the ablation mark): the control run feeds those very heads noise instead of
    features. A head made for another trunk never matches (it may not even fit the widths).
    """
    recorded = card.get("trunk")
    if not isinstance(recorded, Mapping) or not recorded:
        return False
    return not mismatches(recorded, trunk)


def mismatches(recorded: Mapping[str, str], trunk: Trunk) -> dict[str, tuple[str, str | None]]:
    """``{component: (recorded, the trunk's)}`` for every component a head's card records that is not
    the trunk's own (ablation marks aside): ``Trunk.mismatches``, the one check, which lives on the
    trunk so that ``core.trunk`` needs nothing from this module."""
    return trunk.mismatches(recorded)


def require_fit(recorded: Mapping[str, str], trunk: Trunk, *, what: str) -> None:
    """Raise ``TrunkError`` naming each component of ``recorded`` that is not ``trunk``'s (``Trunk.require_fit``)."""
    trunk.require_fit(recorded, what=what)


def find_head(
    task: str, trunk: Trunk, card_name: str, *, shipped: Path | None, search: Sequence[Path] = ()
) -> Path | None:
    """The folder holding ``task``'s head for ``trunk``, or None when no folder has one.

    Searched in order: ``head_dir_for(dir, task, trunk)`` for each of ``search``, then
    ``shipped``. A folder counts when its ``card_name`` exists and matches the trunk
    (``card_matches``). Logs the folder used, or that none matched and where it looked.
    """
    candidates = [head_dir_for(d, task, trunk) for d in search]
    if shipped is not None:
        candidates.append(Path(shipped))
    for folder in candidates:
        card = read_card(folder / card_name)
        if card is not None and card_matches(card, trunk):
            log.info("%s: using the head in %s", task, folder)
            return folder
    looked = ", ".join(str(c) for c in candidates) or "nowhere"
    log.warning("%s: no trained head for trunk %s (looked in %s)", task, trunk.version, looked)
    return None


class HeadFiles(NamedTuple):
    """A head's card and its tensors, as ``load_head_files`` read and checked them."""

    card: dict[str, Any]
    tensors: dict[str, torch.Tensor]


def load_head_files(
    trunk: Trunk,
    weights_path: Path,
    card_path: Path,
    *,
    what: str,
    components: Collection[str] | None = None,
) -> HeadFiles:
    """The one head loader of every task: the card and the weights it describes, checked.

    The card (``core.weights.read_card``) records the weight file's sha256 and size; the
    tensors load from safetensors only after they match (``core.weights.load_safetensors``):
    ``WeightsError`` naming the file otherwise. One trunk-compatibility rule, the head lookup's
    (``find_head``): every trunk component the card records (``"trunk"``; older cards
    ``"trunk_versions"``), or only ``components`` of them for a head that reads some towers, is
    the trunk's own, ablation marks aside (``Trunk.require_fit``): ``TrunkError`` naming each
    one that is not. The plugin builds its modules from ``tensors`` (``core.weights.fit_state``)
    and hands each to ``frozen``.
    """
    from core import weights

    card = weights.read_card(card_path, weights=weights_path)
    recorded: Mapping[str, str] = card.get("trunk") or card.get("trunk_versions") or {}
    if components is not None:
        recorded = {k: v for k, v in recorded.items() if k in components}
    trunk.require_fit(recorded, what=what)
    tensors, _ = weights.load_safetensors(weights_path, card, card_path=card_path)
    return HeadFiles(card, tensors)


def frozen(module: M) -> M:
    """``module`` in eval mode with gradients off: how every head runs (no dropout, no autograd)."""
    module.eval()
    module.requires_grad_(False)
    return module


def save_head(weights: Path, tensors: Mapping[str, Any], card_path: Path, card: Mapping[str, Any]) -> Path:
    """The one save of a trained head: its tensors (safetensors, as given: contiguous, dtype kept)
    and its card (``write_card``, recording the file's sha256 and size). Returns the card's path."""
    from safetensors.torch import save_file

    weights.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(weights))
    return write_card(card_path, card, weights=(weights,))


def write_card(path: Path, card: Mapping[str, Any], *, weights: Sequence[Path] = ()) -> Path:
    """Write a head card as readable, key-sorted JSON (atomically). It must record ``"trunk"``.

    ``weights``: the files the card describes, already written; their sha256 and size go under
    ``"files"``, which every load checks (``core.weights``)."""
    from core.io import write_json_atomic
    from core.weights import file_record

    if not isinstance(card.get("trunk"), Mapping) or not card["trunk"]:
        raise ValueError("a head card must record the trunk's component versions under 'trunk'")
    if weights:
        card = {**card, "files": {Path(w).name: file_record(Path(w)) for w in weights}}
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_json_atomic(path, json.loads(json.dumps(card, sort_keys=True)))

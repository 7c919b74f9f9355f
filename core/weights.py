"""Weight files are checked against their card before they load.

Every shipped weight file (a plugin's head, the trunk's learned projection and class-name
bridge, the detector, the HTR lexicon) has a JSON card that records its sha256 and size::

    "files": {"<file name>": {"sha256": "<64 hex digits>", "bytes": <size>}}

(the detector's card says the same as ``"weights": {"file", "sha256", "bytes"}``). Loaders call
``check`` (or ``load_safetensors``, which checks and then reads) before they read a file, and
``fit_state`` when they put its tensors into a module. Whatever is wrong raises one
``WeightsError`` naming the file and the problem: missing, short or long (its size), altered
(its sha256), unreadable, or not fitting its card (the tensors' names or shapes). The caller
then falls back as it would without the file; the runner logs the error on one line.

The check hashes the file in 1 MiB chunks (14 MB of shipped files: 60 to 150 ms a run on a
shared, loaded 2-core machine; ``python -m bench.weights_verify`` times it) and remembers each file's digest by
(path, size, mtime) within one process only. ``run.py --no-verify-weights`` /
``serve.py --no-verify-weights``, or ``FUSIONBRAIN_NO_VERIFY_WEIGHTS=1`` in the environment,
skip the comparison with the card (for a user who knows the files were changed on purpose);
a file that is missing, unreadable or does not fit its module still names itself.

``file_record(path)`` is what card writers store: trainers and importers call it after
writing a file, so every card they write records its files.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import ProjectError

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

SKIP_ENV = "FUSIONBRAIN_NO_VERIFY_WEIGHTS"
CHUNK = 1 << 20

_digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256, this process only
_unrecorded_said: set[str] = set()
_skip_said: list[bool] = [False]  # the switch is said once per process, however it was set


class WeightsError(ProjectError, ValueError):
    """A weight file that is missing, damaged or does not fit its card: ``path`` and ``problem``."""

    def __init__(self, path: Path | str, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"weight file {self.path}: {problem}")


class Expected(NamedTuple):
    """What a card records of one file."""

    sha256: str
    size: int | None


def verification_enabled() -> bool:
    """False when ``FUSIONBRAIN_NO_VERIFY_WEIGHTS`` is set to anything but ``""``/``0``/``false``/``no``."""
    return os.environ.get(SKIP_ENV, "").strip().lower() in ("", "0", "false", "no")


def skip_verification() -> None:
    """``--no-verify-weights``: set the environment switch, so that worker processes skip too (logged)."""
    os.environ[SKIP_ENV] = "1"
    _say_skipped()


def _say_skipped() -> None:
    if not _skip_said[0]:
        _skip_said[0] = True
        log.warning("weight files are not checked against their cards (--no-verify-weights / %s=1)", SKIP_ENV)


def sha256_of(path: Path) -> str:
    """The file's sha256, hashed in chunks; remembered by (path, size, mtime) for this process."""
    st = os.stat(path)
    key = (str(Path(path).absolute()), st.st_size, st.st_mtime_ns)
    digest = _digests.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                h.update(chunk)
        digest = _digests[key] = h.hexdigest()
    return digest


def file_record(path: Path) -> dict[str, Any]:
    """``{"sha256", "bytes"}`` of a file just written: what a card records under ``"files"``."""
    return {"sha256": sha256_of(path), "bytes": os.stat(path).st_size}


def expected_of(card: Mapping[str, Any] | None, name: str) -> Expected | None:
    """What ``card`` records of the file called ``name`` (None: nothing)."""
    if not isinstance(card, Mapping):
        return None
    files = card.get("files")
    entry = files.get(name) if isinstance(files, Mapping) else None
    weights = card.get("weights")
    if entry is None and isinstance(weights, Mapping) and weights.get("file") == name:
        entry = weights
    if not isinstance(entry, Mapping) or not isinstance(entry.get("sha256"), str):
        return None
    size = entry.get("bytes")
    return Expected(entry["sha256"].lower(), int(size) if isinstance(size, int) else None)


def verify(path: Path, expected_sha256: str | None, expected_size: int | None = None) -> None:
    """Raise ``WeightsError`` when ``path`` is missing, not ``expected_size`` bytes, or not ``expected_sha256``.

    With the switch off (``verification_enabled()`` False) only the file's presence is checked.
    """
    path = Path(path)
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        raise WeightsError(path, "missing") from None
    except OSError as exc:
        raise WeightsError(path, f"unreadable ({exc.strerror or exc})") from None
    if not path.is_file():
        raise WeightsError(path, "not a regular file")
    if not verification_enabled():
        _say_skipped()
        return
    if expected_size is not None and size != expected_size:
        what = "short" if size < expected_size else "long"
        raise WeightsError(path, f"{what}: {size:,} bytes, its card says {expected_size:,} (damaged or replaced)")
    if expected_sha256 is None:
        return
    try:
        digest = sha256_of(path)
    except OSError as exc:
        raise WeightsError(path, f"unreadable ({exc.strerror or exc})") from None
    if digest != expected_sha256.lower():
        raise WeightsError(path, f"altered: sha256 {digest[:16]}..., its card says {expected_sha256[:16]}...")


def read_card(card_path: Path, *, weights: Path | None = None) -> dict[str, Any]:
    """A card's JSON object; ``WeightsError`` naming the card (or ``weights``, when given) when it is unusable."""
    import json

    try:
        card = json.loads(Path(card_path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WeightsError(weights or card_path, f"its card {card_path} is missing") from None
    except (OSError, ValueError) as exc:
        raise WeightsError(card_path, f"the card is unreadable ({exc})") from None
    if not isinstance(card, dict):
        raise WeightsError(card_path, "the card is not a JSON object")
    return card


def check(path: Path, card: Mapping[str, Any] | None, *, card_path: Path | None = None) -> None:
    """``verify`` ``path`` against what ``card`` records of it.

    A card that records nothing of the file (a head trained before cards recorded their files)
    is said once per file (a warning) and only the file's presence is checked.
    """
    path = Path(path)
    expected = expected_of(card, path.name)
    if expected is None:
        if str(path) not in _unrecorded_said:
            _unrecorded_said.add(str(path))
            where = f"its card {card_path}" if card_path is not None else "no card"
            log.warning("weight file %s: %s records no sha256 for it; not verified", path, where)
        verify(path, None)
        return
    verify(path, expected.sha256, expected.size)


def load_safetensors(
    path: Path, card: Mapping[str, Any] | None, *, card_path: Path | None = None
) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """``check`` the file, then read it: ``(tensors, metadata)``; ``WeightsError`` naming the file when
    it cannot be read (a file cut short reads as "incomplete metadata" to safetensors)."""
    from safetensors import safe_open

    check(path, card, card_path=card_path)
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = dict(f.metadata() or {})
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - safe_open has no items()
    except Exception as exc:  # safetensors raises its own SafetensorError, OSError, or ValueError
        raise WeightsError(path, f"unreadable as safetensors ({exc})") from None
    return tensors, metadata


def fit_state(module: torch.nn.Module, state: Mapping[str, torch.Tensor], path: Path, card_path: Path | None) -> None:
    """``module.load_state_dict(state)``; ``WeightsError`` naming the file when the tensors do not fit
    the module its card describes (missing or unexpected names, other shapes)."""
    try:
        module.load_state_dict(dict(state))
    except (RuntimeError, KeyError, ValueError) as exc:
        first = str(exc).strip().splitlines()
        detail = " ".join(line.strip() for line in first[:3])
        where = f"its card {card_path.name}" if card_path is not None else "the model"
        raise WeightsError(path, f"does not fit {where}: {detail}") from None

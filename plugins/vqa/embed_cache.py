"""The answer vocabulary's embeddings, cached per trunk version so that a run does not embed them again.

``setup`` embeds about 3,000 texts (the candidate answers in both languages, the detector's class names
and their prompts): about a second on one core. ``cached_embeddings`` keeps them in a safetensors file
holding the exact fp32 tensor, so that a warm run answers byte-identically to a cold one.

Where: ``$FUSIONBRAIN_VQA_CACHE`` when set (a folder; ``off`` turns the cache off), else
``.cache/`` beside the shipped head weights when that folder is writable (its mode, not only
``os.access``: root ignores modes, and the submission check makes the install read-only), else
``vqa/`` in the user's cache folder (``core.cache``: ``$FUSIONBRAIN_CACHE``,
``$XDG_CACHE_HOME/fusionbrain`` or ``$HOME/.cache/fusionbrain``). With none of them (a
read-only install, ``HOME`` unset) the run just embeds, and writes nothing.

A file is used only when its metadata name the trunk's version and components, the device and
precision it ran with, torch's version and the texts' sha256 (the texts carry the prompt), and when
a probe text embedded now equals the one stored (a trunk whose weights changed under the same
version). A damaged or mismatching file is rebuilt with a warning, never trusted. Files are written
to a temporary name and renamed, so a parallel run never reads half a file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

CACHE_ENV = "FUSIONBRAIN_VQA_CACHE"
OFF = "off"
WEIGHTS_DIR = Path(__file__).parent / "weights"
PROBE = "a photo of a cat."


def cache_dirs(weights_dir: Path = WEIGHTS_DIR) -> list[Path]:
    """The folders searched, first the one written: see the module's docstring."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return [] if chosen.strip().lower() == OFF else [Path(chosen).expanduser()]
    dirs = [weights_dir / ".cache"] if _writable(weights_dir) else []
    from core.cache import user_cache_dir

    user = user_cache_dir()
    if user is not None:
        dirs.append(user / "vqa")
    return dirs


def _writable(folder: Path) -> bool:
    try:
        return folder.is_dir() and bool(folder.stat().st_mode & stat.S_IWUSR) and os.access(folder, os.W_OK)
    except OSError:
        return False


def cache_key(trunk: Trunk, texts: Sequence[str]) -> dict[str, str]:
    """What a cached file must match: the trunk, where and how it ran, and the texts' hash."""
    import torch

    return {
        "trunk": trunk.version,
        "components": json.dumps(dict(trunk.component_versions), sort_keys=True),
        "device": str(getattr(trunk, "device", "cpu")),
        "precision": str(getattr(trunk, "autocast_dtype", None)),
        "torch": torch.__version__,
        # CPU kernels split their sums by thread: the last bits depend on the count (a cache written
        # with --threads 1 failed the probe of a 2-thread run and was rebuilt, back and forth)
        "threads": str(torch.get_num_threads()),
        "texts": hashlib.sha256(json.dumps(list(texts), ensure_ascii=False).encode()).hexdigest(),
    }


def cache_name(key: dict[str, str]) -> str:
    """The file of a trunk version, one per device, precision and thread count (runs alternating
    between them would otherwise rebuild each other's file): ``answers-<trunk>[-<variant>]``."""
    variant = (key["device"], key["precision"], key["threads"])
    if variant == ("cpu", "None", str(os.cpu_count() or 1)):  # the default run (every core) keeps its name
        return f"answers-{key['trunk']}.safetensors"
    return f"answers-{key['trunk']}-{hashlib.sha1('|'.join(variant).encode()).hexdigest()[:8]}.safetensors"


def cached_embeddings(
    trunk: Trunk,
    texts: Sequence[str],
    embed: Callable[[Sequence[str]], torch.Tensor],
    *,
    dirs: Sequence[Path] | None = None,
) -> torch.Tensor:
    """``embed(texts)``, read from the first folder of ``dirs`` (default ``cache_dirs()``) holding a
    matching file, else computed and written to the first folder that takes it."""
    dirs = cache_dirs() if dirs is None else list(dirs)
    if not dirs:
        return embed(texts)
    key = cache_key(trunk, texts)
    name = cache_name(key)
    probe = embed([PROBE])
    for folder in dirs:
        found = _read(folder / name, key, probe)
        if found is not None:
            return found
    emb = embed(texts)
    for folder in dirs:
        if _write(folder / name, key, emb, probe):
            break
    return emb


def _read(path: Path, key: dict[str, str], probe: torch.Tensor) -> torch.Tensor | None:
    if not path.is_file():
        return None
    import torch
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            stale = sorted(k for k, v in key.items() if meta.get(k) != v)
            if stale:
                log.warning(
                    "VQA: the answer embedding cache %s is for another %s; rebuilding it", path, ", ".join(stale)
                )
                return None
            emb, stored = f.get_tensor("embeddings"), f.get_tensor("probe")
    except Exception as exc:  # noqa: BLE001 -- a damaged file of any kind is rebuilt, never trusted
        log.warning("VQA: the answer embedding cache %s is damaged (%s); rebuilding it", path, exc)
        return None
    if emb.dtype != probe.dtype or stored.shape != probe.shape or not torch.equal(stored, probe):
        log.warning("VQA: the answer embedding cache %s does not fit this trunk's weights; rebuilding it", path)
        return None
    log.info("VQA: answer embeddings read from %s", path)
    return emb


def _write(path: Path, key: dict[str, str], emb: torch.Tensor, probe: torch.Tensor) -> bool:
    """Write ``path`` atomically (a temporary file, then a rename); False when the folder refuses."""
    from safetensors.torch import save_file

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        os.close(fd)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide a shared install's cache from other users
        save_file({"embeddings": emb.contiguous(), "probe": probe.contiguous()}, tmp, metadata=key)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("VQA: the answer embeddings are not cached in %s (%s)", path.parent, exc)
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        return False
    log.info("VQA: answer embeddings cached in %s", path)
    return True

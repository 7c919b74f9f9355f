"""HTR's CTC search loops compiled: ``ctc_native.c`` through ctypes, with the Python versions as fallback.

The prefix beam search (``ctc.prefix_beam_search``) and the exact forward pass of the lexicon
decoder (``lexdecode._forward``) were Python and numpy loops over frames: about 1.7 CPU-s per 400
words on one thread, under the GIL. ``ctc_native.c`` does the same operations in the same order
(the same readings; tests/htr/test_htr_native.py compares both on real head outputs). Why our own
C rather than a library: flashlight-text's decoders (the ones torchaudio uses) cannot score a given
word exactly (its lexicon decoder is a pruned beam over a trie), nor keep each beam prefix in one
alphabet; used as the free beam they read worse on every dev set and decode no faster
(plugins/htr/README.md, "Why our own CTC decoder").

The library is compiled at the task's set-up when it is not built yet (``cc``, once) into the
cache folder (``$FUSIONBRAIN_CACHE``, ``$XDG_CACHE_HOME/fusionbrain`` or ``$HOME/.cache/fusionbrain``;
without any of them, or when it cannot be written, the temporary folder), named by the
source's hash, and reused; ``make run`` builds it at install (``python -m plugins.htr.native``).
Without a compiler, or when the build or the load fails, a warning says so once and the Python
versions decode (same answers, slower). ``FB_HTR_NATIVE=0`` asks for the Python versions.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from core.cache import TEMPORARY, user_cache_dir, writable

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("ctc_native.c")
ENV = "FB_HTR_NATIVE"
# -ffp-contract=off: no fused multiply-adds, which round differently from numpy's separate steps.
# -nostdinc: no system header is read, not even the implicit stdc-predef.h (see ctc_native.c).
CFLAGS = ("-O3", "-fPIC", "-shared", "-std=c99", "-nostdinc", "-ffp-contract=off", "-fno-fast-math")

_i32, _i64, _f64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_double
_P = ctypes.c_void_p


def library_path() -> Path:
    """Where the compiled library lives: named by the source's and the flags' hash, so a stale build is never loaded."""
    # Without a home (the organisers' container may run as a user with none): the temporary folder.
    root = user_cache_dir() or Path(tempfile.gettempdir()) / TEMPORARY
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:16]
    return Path(root) / f"htr-ctc-{digest}.so"


def build(target: Path | None = None) -> Path:
    """Compile ``ctc_native.c`` into ``target`` (atomically; nothing when it is there). Raises ``RuntimeError``."""
    target = target or library_path()
    if target.exists():
        return target
    try:
        target = writable(target)
    except OSError as exc:
        raise RuntimeError(f"no writable folder for the compiled CTC search ({exc})") from None
    if target.exists():
        return target
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise RuntimeError("no C compiler (cc) found to build the compiled CTC search")
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".so.tmp")
    os.close(fd)
    try:
        cmd = [cc, *CFLAGS, str(SOURCE), "-o", tmp, "-lm"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"building the compiled CTC search failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


@functools.cache
def library() -> Any:
    """The loaded library, or None (``FB_HTR_NATIVE=0``, or it could not be built or loaded: warned once).

    A built file that does not load (damaged, or not this library) is never trusted: it is removed
    and built again, with a warning."""
    if os.environ.get(ENV, "1") == "0":
        return None
    try:
        path = build()
        try:
            return _load(path)
        except (OSError, AttributeError) as exc:
            log.warning("htr: the compiled CTC search %s does not load (%s); building it again", path, exc)
            path.unlink(missing_ok=True)
            return _load(build(path))
    except (OSError, RuntimeError, AttributeError) as exc:
        log.warning("htr: the compiled CTC search is unavailable, decoding in Python (same answers, slower): %s", exc)
        return None


def _load(path: Path) -> Any:
    lib = ctypes.CDLL(str(path))
    lib.htr_prefix_beam.restype = _i32
    lib.htr_prefix_beam.argtypes = [_P, _i32, _i32, _P, _P, _i32, _P, _i32, _i32, _P, _P, _P]
    lib.htr_ctc_forward.restype = _i32
    lib.htr_ctc_forward.argtypes = [_P, _i32, _i64, _i64, _i64, _P, _P, _P, _i64, _i32, _i32, _P]
    return lib


def _ptr(a: np.ndarray) -> int:
    return int(a.ctypes.data)


def prefix_beam(
    lp: np.ndarray, top: np.ndarray, keep: np.ndarray, scripts: np.ndarray, blank: int, beam_width: int
) -> list[tuple[tuple[int, ...], float]] | None:
    """``ctc.prefix_beam_search``'s loop over frames in C: ``lp`` ``[T, C]`` float64, ``top`` ``[T, K]`` the
    labels each frame visits in order, ``keep`` ``[T, K]`` whether each is extended, ``scripts`` ``[C]``.
    None without the library."""
    lib = library()
    if lib is None:
        return None
    lp = np.ascontiguousarray(lp, dtype=np.float64)
    top = np.ascontiguousarray(top, dtype=np.int64)
    keep = np.ascontiguousarray(keep, dtype=np.uint8)
    scripts = np.ascontiguousarray(scripts, dtype=np.int32)
    n_frames, n_classes = lp.shape
    out_len = np.zeros(beam_width, dtype=np.int32)
    out_ids = np.zeros((beam_width, n_frames), dtype=np.int32)
    out_score = np.zeros(beam_width, dtype=np.float64)
    n = lib.htr_prefix_beam(
        _ptr(lp), n_frames, n_classes, _ptr(top), _ptr(keep), top.shape[1], _ptr(scripts), blank, beam_width,
        _ptr(out_len), _ptr(out_ids), _ptr(out_score),
    )  # fmt: skip
    if n < 0:
        raise MemoryError("the compiled CTC prefix beam search ran out of memory")
    ids, lengths = out_ids.tolist(), out_len.tolist()
    return [(tuple(ids[i][: lengths[i]]), float(out_score[i])) for i in range(n)]


def forward(
    probs: np.ndarray, rows: np.ndarray, labels: np.ndarray, lengths: np.ndarray, blank: int
) -> np.ndarray | None:
    """``lexdecode._forward`` in C (``probs`` ``[T, R, C]`` probabilities); None without the library."""
    lib = library()
    if lib is None:
        return None
    if probs.dtype != np.float64 or probs.ndim != 3 or any(s % 8 for s in probs.strides):
        probs = np.ascontiguousarray(probs, dtype=np.float64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    out = np.empty(len(labels), dtype=np.float64)
    st, sr, sc = (s // 8 for s in probs.strides)  # in elements: a transposed view is read in place
    status = lib.htr_ctc_forward(
        _ptr(probs), probs.shape[0], st, sr, sc, _ptr(rows), _ptr(labels), _ptr(lengths), len(labels),
        labels.shape[1], blank, _ptr(out),
    )  # fmt: skip
    if status != 0:
        raise MemoryError("the compiled CTC forward pass ran out of memory")
    return out


def main() -> int:
    """Build the library now (``make run`` calls this), print where it is."""
    try:
        print(build())
    except RuntimeError as exc:
        print(f"htr: compiled CTC search not built, the Python versions will decode: {exc}", file=sys.stderr)
    return 0  # never fails the install: the Python versions give the same answers


if __name__ == "__main__":
    raise SystemExit(main())

"""Readers and writers at the input/output boundary.

Everything that touches user files goes through here, so the error policy is
in one place: bad data raises ``InputError`` carrying the path and the reason,
and images come out as RGB with EXIF rotation applied.

Hostile inputs (issue 19) are handled here, so that every task, a third-party
one too, gets the same protection by calling these functions:

- Only regular files are opened, and (given the input folder as ``root``, or
  inside ``confined(input_dir)``, which the runner sets around discovery and
  every stage) only ones inside it: ``check_input_file``,
  ``resolve_input_file``, ``list_input_files`` / ``scan_input_folder`` refuse
  pipes, sockets, devices, folders, ``..`` and absolute names, and links that
  leave the folder. The check is made when the file is opened: the path is
  walked down from the input folder one component at a time (``os.open`` with
  ``dir_fd`` and ``O_NOFOLLOW``), each link resolved by hand and followed only
  while it stays inside, so a folder (``images/``) or a file replaced by a link
  after listing is refused. Files open non-blocking and the descriptor is
  re-checked, so a FIFO swapped in after the check cannot hang the run.
- File names are bytes on disk: listed names are decoded as UTF-8 (bytes that
  are not UTF-8 as surrogate escapes) and names are encoded back the same way,
  whatever the locale (``LC_ALL=C`` without UTF-8 mode included).
- Images are decoded within a memory bound whatever their header claims:
  ``MAX_IMAGE_PIXELS`` and ``MAX_DECODE_BYTES``; large JPEGs are decoded at
  reduced size (libjpeg DCT scaling), multi-frame files give their first
  frame, and the format is taken from the content, not the suffix.
- Request files may be UTF-8 (BOM or not), UTF-16 or UTF-32 (``decode_json_text``).
- Any string JSON can carry, lone surrogates included, is written back exactly
  (``dumps_json``); ``model_safe_text`` makes such a string safe for a tokenizer.
- Prediction files get the mode the umask gives a new file (``new_file_mode``)
  and are replaced atomically, so concurrent runs never leave half a file.
"""

from __future__ import annotations

import codecs
import contextlib
import contextvars
import errno
import json
import logging
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from core.errors import InputError

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# Largest side we keep in memory; bigger photos are downscaled on load. The
# trunk sees at most a few hundred pixels, so nothing of value is lost.
MAX_IMAGE_SIDE = 4096
# Largest image (stored pixels of the first frame, as the header states) that is
# decoded at all: 12,000 x 12,000 = 144 MP, above any camera in common use. A
# bigger claim is refused before a single pixel is decoded. (Pillow itself only
# warns below twice its own ``MAX_IMAGE_PIXELS``, so this check is our own.)
MAX_IMAGE_PIXELS = 12_000 * 12_000
# Upper bound on the memory one decode may allocate, estimated from the header:
# the decoded frame (after JPEG draft reduction) in Pillow's storage, plus the
# decoder's own full-frame buffer (WebP, AVIF, TIFF strips) and a progressive
# JPEG's coefficient buffer (libjpeg keeps all of it, whatever the output scale).
# 256 MiB allows an 8,000 x 8,000 RGB PNG and any baseline JPEG up to the pixel
# limit, and keeps a run's peak well under 2 GB.
MAX_DECODE_BYTES = 256 * 1024 * 1024

# Formats decoded at all; everything else (EPS runs Ghostscript, PDF, FITS,
# exotic or write-only formats) is refused as "not a supported image format".
# JPEG 2000 is left out: OpenJPEG's working memory is several times the image.
# (MPO, a JPEG with more frames, is opened by the JPEG entry.)
IMAGE_FORMATS = ("JPEG", "PNG", "GIF", "BMP", "DIB", "TIFF", "WEBP", "AVIF", "PPM", "ICO", "TGA", "QOI")

_EXIF_ORIENTATION = 0x0112
_SURROGATE = re.compile("[\ud800-\udfff]")


# -- files inside the input folder -------------------------------------------------------------


def _kind(mode: int) -> str:
    """What a non-regular ``st_mode`` is, in words (for the refusal message)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _is_inside(real: str, real_root: str) -> bool:
    return real == real_root or os.path.commonpath([real_root, real]) == real_root


_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | _O_CLOEXEC
_MAX_LINKS = 40  # as the kernel's own limit on links in one lookup
_CAN_WALK = os.open in os.supports_dir_fd and os.readlink in os.supports_dir_fd and bool(_O_NOFOLLOW)
_CONFINED: contextvars.ContextVar[str | None] = contextvars.ContextVar("fusionbrain_input_root", default=None)


@contextlib.contextmanager
def confined(root: Path | str | None) -> Iterator[None]:
    """Within the block, every read through this module stays inside ``root`` (None: no change).

    The runner sets it to the input folder around discovery and the stages, so a task
    that opens a file without passing ``root`` (a third-party one too) still never reads
    outside the input. An explicit ``root`` narrower than it is honoured as well.
    """
    if root is None:
        yield
        return
    token = _CONFINED.set(os.fspath(root))
    try:
        yield
    finally:
        _CONFINED.reset(token)


def file_name(raw: bytes | str) -> str:
    """A file name as text, whatever the locale: UTF-8, with bytes that are not UTF-8 kept as
    surrogate escapes (so ``name_bytes`` gives back the same bytes)."""
    data = raw if isinstance(raw, bytes) else os.fsencode(raw)
    return data.decode("utf-8", "surrogateescape")


def name_bytes(name: str | bytes) -> list[bytes]:
    """The byte spellings a name may have on disk, most likely first: UTF-8 (lone surrogates as the
    bytes they escape), then the locale's file system encoding when that differs."""
    if isinstance(name, bytes):
        return [name]
    out: list[bytes] = []
    for encode in (lambda n: n.encode("utf-8", "surrogateescape"), os.fsencode):
        try:
            data = encode(name)
        except UnicodeError:
            continue
        if data not in out:
            out.append(data)
    return out


def _os_path(path: Path | str) -> bytes | str:
    """``path`` for an ``os`` call: as the locale encodes it, else as UTF-8 (``LC_ALL=C``)."""
    text = os.fspath(path)
    try:
        os.fsencode(text)
        return text
    except UnicodeError:
        spellings = name_bytes(text)
        if not spellings:
            raise
        return spellings[0]


def _lexists(path: Path | str) -> bool:
    try:
        os.lstat(_os_path(path))
    except (OSError, UnicodeError, ValueError):
        return False
    return True


def _is_dir(path: Path | str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(_os_path(path)).st_mode)
    except (OSError, UnicodeError, ValueError):
        return False


def _relative_parts(path: Path | str, root: str) -> list[str] | None:
    """``path``'s components below ``root`` (lexically, or below root's real path); None: not below it."""
    target = os.path.abspath(os.fspath(path))
    for base in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        rel = os.path.relpath(target, base)
        parts = [] if rel == os.curdir else rel.split(os.sep)
        if not parts or parts[0] != os.pardir:
            return parts
    return None


def _refuse_outside(root: str, path: Path | str, where: str = "") -> InputError:
    return InputError(f"refused: it leads outside the input folder {root}{where}", path)


def _open_component(parent: int, name: str | bytes, flags: int) -> tuple[int, bytes]:
    """Open one component under ``parent`` (never following a last link); the fd and the spelling found."""
    spellings = name_bytes(name)
    if not spellings:
        raise InputError("refused: not a usable file name")
    first: OSError | None = None
    for data in spellings:
        try:
            return os.open(data, flags, dir_fd=parent), data
        except FileNotFoundError as exc:
            first = first or exc
        except OSError as exc:
            exc.filename = data
            raise
    assert first is not None
    raise first


def _link_target(parent: int, spellings: Sequence[bytes]) -> bytes | None:
    for data in spellings:
        try:
            return os.readlink(data, dir_fd=parent)
        except OSError:
            continue
    return None


def _open_beneath(root: str, path: Path | str, *, want: str) -> tuple[int, tuple[bytes, ...]]:
    """An fd of ``path`` (a regular file when ``want="file"``, a folder when ``want="dir"``),
    reached from ``root`` one component at a time without ever leaving it; and the
    components it resolved to below ``root``. Raises ``InputError`` saying why not.

    Each component is opened with ``O_NOFOLLOW`` relative to its parent's fd; a link is
    read (``readlink``) and its target walked the same way, allowed only while it stays
    inside ``root`` (an absolute target must lie under ``root``'s real path; ``..`` may
    not climb above ``root``). So what is read is what the walk saw, not what a name
    pointed to earlier.
    """
    relative = _relative_parts(path, root)
    if relative is None:
        raise _refuse_outside(root, path)
    parts: list[str | bytes] = list(relative)
    real_root = os.fsencode(os.path.realpath(root)) if isinstance(root, str) else root
    try:
        root_fd = os.open(_os_path(root), os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"cannot read the input folder {root}: {exc.strerror or exc}", path) from exc
    except (UnicodeError, ValueError) as exc:
        raise InputError(f"refused: not a usable file name ({exc})", path) from exc
    stack, names, hops = [root_fd], [], 0
    try:
        while parts:
            comp = parts.pop(0)
            if comp in ("", ".", b"", b"."):
                continue
            if comp in ("..", b".."):
                if not names:
                    raise _refuse_outside(root, path, " ('..' climbs above it)")
                os.close(stack.pop())
                names.pop()
                continue
            last = not parts
            flags = _O_NOFOLLOW | (_FILE_FLAGS if last and want == "file" else os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
            try:
                fd, data = _open_component(stack[-1], comp, flags)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                target = _link_target(stack[-1], name_bytes(comp))
                if target is None:
                    raise
                hops += 1
                if hops > _MAX_LINKS:
                    raise InputError("cannot read: too many levels of links", path) from exc
                if target.startswith(b"/"):
                    if target != real_root and not target.startswith(real_root.rstrip(b"/") + b"/"):
                        shown = os.fsdecode(target)
                        raise _refuse_outside(root, path, f" (to {shown})") from exc
                    while len(stack) > 1:
                        os.close(stack.pop())
                    names.clear()
                    target = target[len(real_root) :]
                parts[:0] = [p for p in target.split(b"/") if p]
                if not parts and want == "file":
                    raise InputError("refused: it is a folder, not a regular file", path) from exc
                continue
            stack.append(fd)
            names.append(data)
        fd = stack.pop() if len(stack) > 1 else os.dup(root_fd)
        mode = os.fstat(fd).st_mode
        ok = stat.S_ISREG(mode) if want == "file" else stat.S_ISDIR(mode)
        if not ok:
            os.close(fd)
            kind = "not a folder" if want == "dir" else f"{_kind(mode)}, not a regular file"
            raise InputError(f"refused: it is {kind}", path)
        return fd, tuple(names)
    except InputError:
        raise
    except FileNotFoundError as exc:
        raise InputError("not found", path) from exc
    except NotADirectoryError as exc:
        raise InputError("not found (a part of its path is not a folder)", path) from exc
    except (UnicodeError, ValueError) as exc:  # NUL byte, or a name no encoding can spell
        raise InputError(f"refused: not a usable file name ({exc})", path) from exc
    except OSError as exc:  # permission denied, a name too long
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from exc
    finally:
        for held in stack:
            os.close(held)


def _scopes(root: Path | str | None) -> tuple[str | None, str | None]:
    """(the folder walks start from, an explicit root inside it to check too)."""
    ambient = _CONFINED.get()
    explicit = os.fspath(root) if root is not None else None
    if ambient is None:
        return explicit, None
    if explicit is None or os.path.abspath(explicit) == os.path.abspath(ambient):
        return ambient, None
    return ambient, explicit


def _open_scoped(path: Path | str, root: Path | str | None, *, want: str) -> int | None:
    """An fd of ``path`` reached inside the scope in force (``root`` and/or ``confined``); None
    when there is no scope or the platform cannot walk (then the caller checks by real path)."""
    outer, inner = _scopes(root)
    if outer is None or not _CAN_WALK:
        return None
    fd, names = _open_beneath(outer, path, want=want)
    if inner is not None:
        try:
            inner_fd, inner_names = _open_beneath(outer, inner, want="dir")
            os.close(inner_fd)
            if names[: len(inner_names)] != inner_names:
                raise _refuse_outside(inner, path)
        except BaseException:
            os.close(fd)
            raise
    return fd


def check_input_file(path: Path | str, *, root: Path | str | None = None) -> Path:
    """``path`` if it is a regular file (after links) whose real path stays inside ``root``.

    Refused with ``InputError`` stating the reason: a missing file ("not
    found"), a folder, a named pipe, a socket, a device, a name the file system
    cannot hold (NUL, an unencodable surrogate), and, when ``root`` is given, a
    file whose real path (every symlink resolved) leaves the real path of
    ``root``. Links that stay inside ``root`` are allowed. Returns ``path``
    unchanged (not its real path), so keys taken from its name stay as named.
    This is a check, not a lock: ``open_input_file`` checks again when it opens.
    """
    fd = _open_scoped(path, root, want="file")
    if fd is not None:
        os.close(fd)
    else:
        _checked_real_path(Path(path), root)
    return Path(path)


def _checked_real_path(path: Path, root: Path | str | None) -> str:
    """``check_input_file``'s checks; returns the real path that was checked."""
    try:
        real = os.path.realpath(_os_path(path))
        real_root = os.path.realpath(_os_path(root)) if root is not None else None
        st = os.stat(real)
    except FileNotFoundError as exc:
        raise InputError("not found", path) from exc
    except (UnicodeError, ValueError) as exc:  # NUL byte, or a surrogate the file system cannot encode
        raise InputError(f"refused: not a usable file name ({exc})", path) from exc
    except OSError as exc:  # permission denied, a link loop, a name too long
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from exc
    if real_root is not None and not _is_inside(os.fsdecode(real), os.fsdecode(real_root)):
        raise InputError(f"refused: it leads outside the input folder {root} (to {os.fsdecode(real)})", path)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"refused: it is {_kind(st.st_mode)}, not a regular file", path)
    return os.fsdecode(real)


def resolve_input_file(root: Path | str, name: str | os.PathLike[str], *, within: Path | str | None = None) -> Path:
    """``root / name`` if ``name`` names a regular file inside ``root``; else ``InputError``.

    For names that come from a request (``file_name``, a zsOD key): besides
    the checks of ``check_input_file``, an empty name, an absolute name and
    any ``..`` component are refused outright, so a request can never point
    outside the input folder (sub-folders such as ``train/x.jpg`` are fine).
    ``within``: the input folder ``root`` lies in (e.g. ``root`` is its
    ``zsOD/images``); the path is then walked from there, so ``root`` itself
    being a link that leaves the input folder is refused too.
    """
    if not isinstance(name, str | os.PathLike):
        raise InputError(f"refused: a file name must be a string, not {type(name).__name__}", root)
    text = os.fspath(name)
    if not isinstance(text, str):
        raise InputError("refused: a file name must be text, not bytes", root)
    if text.strip() == "":
        raise InputError("refused: empty file name", root)
    if "\x00" in text:
        raise InputError(f"refused: the file name {text!r} holds a NUL character", root)
    if os.path.isabs(text) or text.startswith(("/", "\\")):
        raise InputError(f"refused: {text!r} is an absolute name, not one inside the input folder", root)
    if ".." in re.split(r"[/\\]", text):
        raise InputError(f"refused: {text!r} climbs out of the input folder with '..'", root)
    path = Path(root) / text
    if within is not None:
        with confined(within):
            return check_input_file(path, root=root)
    return check_input_file(path, root=root)


def open_input_file(path: Path | str, *, root: Path | str | None = None) -> IO[bytes]:
    """Open a regular input file for binary reading; never blocks.

    With a scope (``root``, or ``confined``) the file is reached by walking down from
    it (``_open_beneath``): links are followed only while they stay inside, whatever
    the path was when it was listed. Without one, ``check_input_file``'s checks and
    then its real path is opened with ``O_NOFOLLOW`` (a link swapped in after the
    check fails instead). Either way the file opens with ``O_NONBLOCK`` (a FIFO
    swapped in opens at once instead of waiting for a writer) and ``fstat`` of the
    descriptor must confirm a regular file, else ``InputError``. Close the returned
    file (use ``with``).
    """
    path = Path(path)
    fd = _open_scoped(path, root, want="file")
    if fd is None:
        real = _checked_real_path(path, root)
        try:
            fd = os.open(_os_path(real), _FILE_FLAGS | _O_NOFOLLOW)
        except FileNotFoundError as exc:
            raise InputError("not found", path) from exc
        except (UnicodeError, ValueError) as exc:
            raise InputError(f"refused: not a usable file name ({exc})", path) from exc
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path) from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"refused: it is {_kind(mode)}, not a regular file", path)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@dataclass(frozen=True, slots=True)
class InputEntry:
    """One entry of an input folder: ``problem`` is None for a usable regular file, else why it is refused."""

    path: Path
    problem: str | None = None
    size: int | None = None  # bytes, for a usable file

    @property
    def ok(self) -> bool:
        return self.problem is None


def _matches(name: str, suffixes: tuple[str, ...] | None) -> bool:
    return suffixes is None or name.lower().endswith(suffixes)


def scan_input_folder(
    folder: Path | str, *, suffixes: Iterable[str] | None = None, root: Path | str | None = None
) -> list[InputEntry]:
    """Every entry of ``folder`` (not recursive) whose name ends in one of ``suffixes``, sorted by name.

    Each comes with ``problem`` None (a regular file inside ``root``, default
    ``folder``) or the reason it must not be opened (pipe, socket, device,
    folder, link leaving ``root``, broken link). Sub-folders are listed only
    when their name matches ``suffixes`` (a folder named like an image);
    with ``suffixes=None`` every non-folder entry is listed. For a task that
    answers every named input, refused ones with its fallback. Names are
    decoded as UTF-8 whatever the locale (``file_name``; bytes that are not
    UTF-8 as surrogate escapes). The folder itself is reached inside the scope
    (``root``, ``confined``): a folder that is a link leaving it is not listed.
    Raises ``InputError`` when ``folder`` cannot be listed.
    """
    folder = Path(folder)
    wanted = None if suffixes is None else tuple(s.lower() for s in suffixes)
    scope = folder if root is None else root
    try:
        fd = _open_scoped(folder, scope, want="dir")
        if fd is None:
            with os.scandir(_os_path(folder)) as it:
                names = sorted(file_name(entry.name) for entry in it)
        else:
            try:
                with os.scandir(fd) as it:
                    names = sorted(file_name(entry.name) for entry in it)
            finally:
                os.close(fd)
    except InputError as exc:
        raise InputError(f"cannot list the folder ({exc})", folder) from exc
    except OSError as exc:
        raise InputError(f"cannot list the folder: {exc.strerror or exc}", folder) from exc
    entries: list[InputEntry] = []
    for name in names:
        path = folder / name
        if not _matches(name, wanted):
            continue
        try:
            size = _regular_file_size(path, scope)
        except InputError as exc:
            if wanted is None and _is_dir(path):
                continue  # a sub-folder is not an entry of an unfiltered listing
            entries.append(InputEntry(path, str(exc)))
        else:
            entries.append(InputEntry(path, size=size))
    return entries


def _regular_file_size(path: Path, root: Path | str) -> int:
    """``check_input_file(path, root=root)``, giving the file's size."""
    fd = _open_scoped(path, root, want="file")
    if fd is None:
        return os.stat(_checked_real_path(path, root)).st_size
    try:
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def list_input_files(
    folder: Path | str, *, suffixes: Iterable[str] | None = None, root: Path | str | None = None
) -> list[Path]:
    """The regular files of ``folder`` inside ``root`` (default ``folder``) matching ``suffixes``, by name.

    ``scan_input_folder`` without the refused entries; each refused one is
    logged as a warning with its reason. For HTR-style folders of images.
    """
    files = []
    for entry in scan_input_folder(folder, suffixes=suffixes, root=root):
        if entry.ok:
            files.append(entry.path)
        else:
            log.warning("skipped: %s", entry.problem)
    return files


# -- JSON --------------------------------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)


def _sniff_encoding(data: bytes) -> tuple[str, str, bytes]:
    """(codec, label for messages, the bytes after any BOM)."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            return codec, label, data[len(bom) :]
    codec = json.detect_encoding(data)  # no BOM here: "utf-8", or "utf-16-le" etc. by the zero bytes
    return codec, codec.upper().replace("-LE", " LE").replace("-BE", " BE"), data


def decode_json_text(data: bytes, path: Path | str | None = None) -> str:
    """The text of a JSON file's bytes: UTF-8 (BOM or not), UTF-16 or UTF-32 (LE/BE, by BOM).

    The BOM is sniffed and dropped (UTF-32 LE is tested before UTF-16 LE,
    whose BOM it starts with). Without a BOM the encoding is UTF-8, unless the
    zero bytes of the first characters show UTF-16/32 (RFC 4627's rule, as
    ``json.loads`` applies it to bytes). Anything that does not decode raises
    ``InputError`` naming the encoding tried.
    """
    codec, label, body = _sniff_encoding(data)
    try:
        return body.decode(codec)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read: not valid {label} text (byte {exc.start}: {exc.reason}); "
            "request files must be UTF-8, or UTF-16/UTF-32 with a BOM",
            path,
        ) from exc


def read_json(path: Path, *, root: Path | str | None = None) -> Any:
    """Parse a JSON file or raise ``InputError``.

    The file must be a regular file (inside ``root`` when given), opened
    without blocking (``open_input_file``); its text may be UTF-8 with or
    without BOM, UTF-16 or UTF-32 (``decode_json_text``). Strings may hold lone
    surrogates (``"\\udc80"`` escapes); they are kept as they are.
    """
    with open_input_file(path, root=root) as fh:
        try:
            data = fh.read()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path) from exc
    text = decode_json_text(data, path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", path) from exc
    except RecursionError as exc:
        raise InputError("invalid JSON: nested too deeply", path) from exc


def read_json_object(path: Path, *, root: Path | str | None = None) -> dict[str, Any]:
    """``read_json`` narrowed to a top-level object with string keys."""
    data = read_json(path, root=root)
    if not isinstance(data, Mapping):
        raise InputError(f"expected a JSON object at the top level, got {type(data).__name__}", path)
    return {str(k): v for k, v in data.items()}


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps_json(data: Any, **kwargs: Any) -> str:
    """``json.dumps(data, ensure_ascii=False)``, with lone surrogates written as ``\\uXXXX`` escapes.

    Text stays readable (Cyrillic as Cyrillic), and the result always encodes
    to UTF-8: a key or value holding a lone surrogate (a ``"\\udc80"`` escape
    in a request, a non-UTF-8 file name as ``os.listdir`` gives it) is written
    as the escape, so ``json.loads`` of the file gives back the same Python
    string. (A Python string holding a high and a low surrogate side by side
    reads back as the one character they encode: JSON cannot tell them apart.)
    ``kwargs`` go to ``json.dumps``.
    """
    kwargs.setdefault("ensure_ascii", False)
    text = json.dumps(data, **kwargs)
    # Outside string literals JSON text is ASCII, so every surrogate sits inside a string literal.
    return _SURROGATE.sub(_escape_surrogate, text)


def model_safe_text(text: str) -> str:
    """``text`` made safe for tokenizers and models: lone surrogates become U+FFFD.

    A well-formed surrogate pair held as two code points becomes the one
    character it encodes. Use it on request text before tokenizing, so that
    one bad phrase costs only its own answer, not its batch.
    """
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # No /proc (not Linux): os.umask is the only reader; set it back at once.
    current = os.umask(0o022)
    os.umask(current)
    return current


def new_file_mode() -> int:
    """The mode a new file gets from the process umask (``0o666 & ~umask``; 0o644 for umask 022).

    Read from ``/proc/self/status`` where there is one, so no thread ever
    sees a changed umask; elsewhere ``os.umask`` is set and restored at once.
    """
    return 0o666 & ~_umask()


def write_json_atomic(path: Path, data: Any) -> Path:
    """Write ``data`` as UTF-8 JSON via a temporary file and rename: readers never see half a file.

    The text is ``dumps_json(data)`` (lone surrogates escaped, other text as
    UTF-8). The temporary file has a unique name in the target folder, so runs
    writing the same file at once each replace it whole (the last one wins);
    the file gets ``new_file_mode()``, not ``mkstemp``'s 0600.
    """
    from core import stop

    payload = dumps_json(data).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    with stop.deferred():  # a first signal waits for the rename; a second one removes the temporary file
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with stop.track_temporary(tmp):
            try:
                with os.fdopen(fd, "wb") as fh:
                    if hasattr(os, "fchmod"):
                        os.fchmod(fh.fileno(), new_file_mode())
                    fh.write(payload)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    return path


# -- images ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What ``load_image_and_info`` knew of the file besides the pixels.

    ``size``: the stored size of the (first) frame, before EXIF rotation and
    any reduction; ``orientation``: its EXIF orientation (1 to 8; 1 when
    absent or broken); ``format``: Pillow's name of the format found in the
    content; ``decoded_size``: the size actually decoded (smaller than
    ``size`` when a JPEG was decoded at reduced scale).
    """

    size: tuple[int, int]
    orientation: int
    format: str
    decoded_size: tuple[int, int]


def _bytes_per_pixel(mode: str) -> int:
    """Bytes Pillow stores per pixel of ``mode`` (1 for "1"/"L"/"P", 2 for "I;16", 4 otherwise)."""
    if mode in ("1", "L", "P"):
        return 1
    if mode.startswith("I;16"):
        return 2
    return 4


def _coefficient_bytes(img: Image.Image, size: tuple[int, int]) -> int:
    """libjpeg's whole-image coefficient buffer for a progressive JPEG of stored ``size`` (2 bytes each)."""
    width, height = size
    layers = getattr(img, "layer", None) or [("", 1, 1, 0)] * len(img.getbands())
    hmax = max(layer[1] for layer in layers) or 1
    vmax = max(layer[2] for layer in layers) or 1
    total = 0
    for _, h, v, _ in layers:
        total += math.ceil(math.ceil(width * h / hmax) / 8) * math.ceil(math.ceil(height * v / vmax) / 8) * 64 * 2
    return total


def _decode_cost(img: Image.Image, stored: tuple[int, int], progressive_jpeg: bool) -> int:
    """Estimated bytes one decode of ``img`` (at its current, possibly drafted, size) allocates."""
    cost = img.size[0] * img.size[1] * _bytes_per_pixel(img.mode)
    if img.format in ("WEBP", "AVIF", "TIFF"):
        cost *= 2  # the decoder's own full-frame (or whole-strip) buffer, copied into Pillow's
    if progressive_jpeg:
        cost += _coefficient_bytes(img, stored)  # whatever the output scale
    return cost


def _orientation(img: Image.Image) -> int:
    try:
        value = int(img.getexif().get(_EXIF_ORIENTATION, 1) or 1)
    except Exception:  # broken EXIF must not cost the image: it is only metadata
        log.debug("unreadable EXIF orientation ignored", exc_info=True)
        return 1
    return value if 1 <= value <= 8 else 1


def _transpose(img: Image.Image, orientation: int) -> Image.Image:
    from PIL import Image

    method = {
        2: Image.Transpose.FLIP_LEFT_RIGHT,
        3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_90,
    }.get(orientation)
    return img.transpose(method) if method is not None else img


def _mp() -> str:
    return f"{MAX_IMAGE_PIXELS / 1e6:.0f} MP"


def load_image_and_info(
    path: Path | str, *, mode: str = "RGB", root: Path | str | None = None
) -> tuple[Image.Image, ImageInfo]:
    """``load_image``, also returning the file's stored size, EXIF orientation and format.

    The order of work keeps memory bounded whatever the header says: the file
    is opened safely (``open_input_file``), the header read lazily, a first
    frame above ``MAX_IMAGE_PIXELS`` refused; a JPEG larger than
    ``MAX_IMAGE_SIDE`` is set to decode at 1/2, 1/4 or 1/8 scale (draft
    mode); the estimated decode memory must stay within ``MAX_DECODE_BYTES``
    (else refused); only then is the first frame decoded, shrunk to
    ``MAX_IMAGE_SIDE``, EXIF-rotated and converted to ``mode``.
    """
    from PIL import Image, UnidentifiedImageError

    # Pillow's own guard warns above this and refuses above twice it; ours refuses above it.
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    path = Path(path)
    with open_input_file(path, root=root) as fh:
        try:
            with Image.open(fh, formats=IMAGE_FORMATS) as img:
                stored = img.size
                fmt = img.format or "?"
                if stored[0] * stored[1] > MAX_IMAGE_PIXELS:
                    raise InputError(
                        f"refused: the image claims {stored[0]} x {stored[1]} px, above the limit of {_mp()}",
                        path,
                    )
                orientation = _orientation(img)
                progressive = fmt in ("JPEG", "MPO") and bool(img.info.get("progressive"))
                if max(stored) > MAX_IMAGE_SIDE:
                    scale = MAX_IMAGE_SIDE / max(stored)
                    target = (max(1, int(stored[0] * scale)), max(1, int(stored[1] * scale)))
                    img.draft("L" if mode == "L" else None, target)  # JPEG: DCT scaling; others: no-op
                cost = _decode_cost(img, stored, progressive)
                if cost > MAX_DECODE_BYTES:
                    raise InputError(
                        f"refused: decoding this {fmt} image of {stored[0]} x {stored[1]} px would take about "
                        f"{cost / 2**20:.0f} MiB, above the bound of {MAX_DECODE_BYTES / 2**20:.0f} MiB",
                        path,
                    )
                decoded = img.size
                img.load()  # the first frame only: multi-frame files are not read further
                if max(img.size) > MAX_IMAGE_SIDE:
                    img.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
                out = to_mode(_transpose(img, orientation), mode)
        except InputError:
            raise
        except Image.DecompressionBombError as exc:  # Pillow's guard: above twice MAX_IMAGE_PIXELS
            raise InputError(
                f"refused: the image claims more pixels than twice the limit of {_mp()} ({exc})", path
            ) from exc
        except UnidentifiedImageError as exc:
            raise InputError(
                f"unreadable image: not a supported image format ({', '.join(IMAGE_FORMATS)})", path
            ) from exc
        except Exception as exc:  # whatever a decoder raises on bad data (OSError, SyntaxError, struct.error...)
            raise InputError(f"unreadable image: {type(exc).__name__}: {exc}", path) from exc
    return out, ImageInfo(stored, orientation, fmt, decoded)


def load_image(path: Path, *, mode: str = "RGB", root: Path | str | None = None) -> Image.Image:
    """Open an image robustly: EXIF rotation applied, converted to ``mode``.

    Handles palette/RGBA (composited on white), CMYK, 16-bit and float
    grayscale, multi-frame files (the first frame), a suffix that lies (the
    content decides), and large images (downscaled to ``MAX_IMAGE_SIDE``, JPEGs
    decoded at reduced size). Only a regular file is opened, inside ``root``
    when given (``open_input_file``). Raises ``InputError`` for missing,
    empty, truncated, undecodable, non-regular or outside files, and for
    images above ``MAX_IMAGE_PIXELS`` or ``MAX_DECODE_BYTES``
    (see ``load_image_and_info``).
    """
    return load_image_and_info(path, mode=mode, root=root)[0]


def to_mode(img: Image.Image, mode: str = "RGB") -> Image.Image:
    """Convert any PIL mode to ``mode`` ("RGB" or "L") without surprises."""
    from PIL import Image

    if img.size[0] == 0 or img.size[1] == 0:
        raise ValueError("image has no pixels")
    if img.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        import numpy as np

        arr = np.asarray(img, dtype=np.float32)
        lo, hi = float(arr.min()), float(arr.max())
        scaled = (arr - lo) / (hi - lo) * 255.0 if hi > lo else np.zeros_like(arr)
        img = Image.fromarray(scaled.astype(np.uint8), mode="L")
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    return img.convert(mode) if img.mode != mode else img.copy()


# -- task folders and request files ------------------------------------------------------------


def find_task_dir(input_dir: Path, *names: str) -> Path | None:
    """The first existing ``input_dir/<name>`` (also under a ``fusion_brain/`` level), else None.

    Accepts the older forms of the rules: a top-level ``fusion_brain/`` folder
    and alternative spellings of a task folder (``OD`` for ``zsOD``). A folder
    that is a link is found here; reading through it is refused later if it
    leaves the input folder.
    """
    roots = [input_dir, input_dir / "fusion_brain"]
    for root in roots:
        for name in names:
            for variant in dict.fromkeys((name, name.replace("C", "\u0421"))):
                candidate = root / variant
                if _is_dir(candidate):
                    return candidate
    return None


def _request_variants(task_dir: Path, names: tuple[str, ...]) -> list[Path]:
    return [task_dir / v for name in names for v in dict.fromkeys((name, name.replace("C", "\u0421")))]


def find_request_file(task_dir: Path, *names: str) -> Path | None:
    """The first request file among ``names`` (Cyrillic 'С' spellings included) that is present
    (as any kind of entry: ``read_request`` then says why it cannot be read)."""
    for candidate in _request_variants(task_dir, names):
        if _lexists(candidate):
            return candidate
    return None


def read_request(task_dir: Path, *names: str, root: Path | str | None = None) -> dict[str, Any]:
    """The JSON object of ``task_dir``'s request file (the first of ``names`` present).

    An empty folder has no requests: ``{}``. A folder with files but no request
    file, a request file that is not a regular file inside ``root`` (default
    ``task_dir``; pass the run's input folder to allow a link to a file beside
    it), or one that is not one JSON object raises ``InputError`` saying why
    (the runner then writes the task's file empty and logs the reason). Inside
    ``confined(input_dir)`` the file is reached from the input folder, so a
    task folder that is a link leaving it is refused too.
    """
    scope = task_dir if root is None else root
    request = find_request_file(task_dir, *names)
    if request is not None:
        return read_json_object(request, root=scope)
    try:
        fd = _open_scoped(task_dir, scope, want="dir")
        if fd is None:
            with os.scandir(_os_path(task_dir)) as it:
                has_entries = any(True for _ in it)
        else:
            try:
                with os.scandir(fd) as it:
                    has_entries = any(True for _ in it)
            finally:
                os.close(fd)
    except InputError as exc:
        raise InputError(f"cannot list the folder ({exc})", task_dir) from exc
    except OSError as exc:
        raise InputError(f"cannot list the folder: {exc.strerror or exc}", task_dir) from exc
    if has_entries:
        raise InputError(f"{task_dir.name} folder has no {' or '.join(names)}", task_dir)
    return {}

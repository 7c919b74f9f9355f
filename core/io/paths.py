"""Confinement: only regular files inside the input folder are opened.

Given the input folder as ``root``, or inside ``confined(input_dir)`` (which the runner sets
around discovery and every stage), ``check_input_file``, ``resolve_input_file``,
``open_input_file`` and ``list_input_files`` / ``scan_input_folder`` refuse pipes, sockets,
devices, folders, ``..`` and absolute names, and links that leave the folder. The check is
made when the file is opened: the path is walked down from the input folder one component at
a time (``os.open`` with ``dir_fd`` and ``O_NOFOLLOW``), each link resolved by hand and
followed only while it stays inside, so a folder (``images/``) or a file replaced by a link
after listing is refused. Files open non-blocking and the descriptor is re-checked, so a FIFO
swapped in after the check cannot hang the run.

File names are bytes on disk: listed names are decoded as UTF-8 (bytes that are not UTF-8 as
surrogate escapes) and names are encoded back the same way, whatever the locale (``LC_ALL=C``
without UTF-8 mode included).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import logging
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from core.errors import InputError

log = logging.getLogger(__name__)


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
    stack, names, hops = [root_fd], list[bytes](), 0
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

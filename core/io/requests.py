"""Request files: the task folders of an input, their request files and the encodings those come in.

A task folder is found under its name or an older spelling (``find_task_dir``: a
``fusion_brain/`` level, Cyrillic 'С' for 'C'), in any case (``htr/``); ``find_task_dirs`` gives
every folder that spells one task, so that two of them are refused rather than one dropped. A
request file may be UTF-8 (BOM or not), UTF-16 or UTF-32 (``decode_json_text``); it is opened
like every input file, inside the input folder only (``core.io.paths``). Its strings may hold
lone surrogates (``"\\udc80"`` escapes), kept as they are: keys go back into prediction files
exactly (``core.io.writing.dumps_json``), and ``model_safe_text`` makes such a string safe for a
tokenizer.

Every JSON a user hands the product (request files, questions, a served form's ``request`` field)
is parsed by ``parse_json``: a key given twice in one object is named on a WARNING with the file,
and its last value is the one used, as ``json.load`` (and so the organisers' scorer, which reads
the gold files that way) and ``JSON.parse`` read it.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.io.paths import _is_dir, _lexists, _open_scoped, _os_path, open_input_file

log = logging.getLogger(__name__)

SHOWN_DUPLICATES = 10  # duplicated keys named on the warning line; the rest are counted

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
        return parse_json(text, path)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", path) from exc
    except RecursionError as exc:
        raise InputError("invalid JSON: nested too deeply", path) from exc


def parse_json(text: str, source: Path | str, **options: Any) -> Any:
    """``json.loads(text, **options)``, saying which keys a user gave twice in one object.

    A duplicated key keeps its last value (what ``json.load``, and so the organisers' scorer
    reading the gold files, and ``JSON.parse`` keep); one WARNING line names ``source`` (the
    file, or a form's field) and the keys, so nothing is dropped without a word. Raises what
    ``json.loads`` raises (``JSONDecodeError``, ``RecursionError``, an option's ``ValueError``).
    """
    duplicated: dict[str, int] = {}

    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicated[key] = duplicated.get(key, 1) + 1
                seen.add(key)
        return obj

    value = json.loads(text, object_pairs_hook=pairs_to_dict, **options)
    if duplicated:
        shown = ", ".join(
            f"{key!r}" + (f" ({times} times)" if times > 2 else "")
            for key, times in list(duplicated.items())[:SHOWN_DUPLICATES]
        )
        more = len(duplicated) - SHOWN_DUPLICATES
        log.warning(
            "%s: %s given twice in one object: %s%s; the last value of each is used",
            source,
            "a key is" if len(duplicated) == 1 else f"{len(duplicated)} keys are",
            shown,
            f" and {more} more" if more > 0 else "",
        )
    return value


def read_json_object(path: Path, *, root: Path | str | None = None) -> dict[str, Any]:
    """``read_json`` narrowed to a top-level object with string keys."""
    data = read_json(path, root=root)
    if not isinstance(data, Mapping):
        raise InputError(f"expected a JSON object at the top level, got {type(data).__name__}", path)
    return {str(k): v for k, v in data.items()}


def model_safe_text(text: str) -> str:
    """``text`` made safe for tokenizers and models: lone surrogates become U+FFFD.

    A well-formed surrogate pair held as two code points becomes the one
    character it encodes. Use it on request text before tokenizing, so that
    one bad phrase costs only its own answer, not its batch.
    """
    try:
        text.encode("utf-8")  # fails exactly when a surrogate code point is present
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def folder_key(name: str) -> str:
    """How a folder name is compared with a task's spellings: case-insensitively, with the
    Cyrillic 'С'/'с' the older rules used taken for the Latin letter (``С2С`` is ``C2C``)."""
    return name.replace("\u0421", "C").replace("\u0441", "c").casefold()


def find_task_dirs(input_dir: Path, *names: str) -> list[Path]:
    """Every folder under ``input_dir`` (or its ``fusion_brain/`` level) that spells one of ``names``.

    A name matches case-insensitively, and Cyrillic 'С' counts as 'C' (``folder_key``): ``htr/``
    and ``С2С/`` are found. The folders come in the order of ``names`` (the task's own folder,
    then its aliases), an exact spelling before one that differs in case, ``input_dir`` before
    ``fusion_brain/``. More than one means the input spells one task twice (``OD/`` and
    ``zsOD/``): the runner refuses that rather than drop either. A folder that is a link is
    found here; reading through it is refused later if it leaves the input folder.
    """
    wanted = {folder_key(name): i for i, name in reversed(list(enumerate(names)))}
    found: list[tuple[int, int, bool, str, Path]] = []
    for depth, root in enumerate(_levels(input_dir)):
        for entry in _entry_names(root):
            rank = wanted.get(folder_key(entry))
            if rank is not None and _is_dir(root / entry):
                exact = entry in names or entry.replace("\u0421", "C") in names
                found.append((depth, rank, not exact, entry, root / entry))
    return [path for *_, path in sorted(found, key=lambda f: (f[1], f[2], f[0], f[3]))]


def find_task_dir(input_dir: Path, *names: str) -> Path | None:
    """The first of ``find_task_dirs(input_dir, *names)``, else None.

    Accepts the older forms of the rules: a top-level ``fusion_brain/`` folder and
    alternative spellings of a task folder (``OD`` for ``zsOD``, Cyrillic 'С' for 'C'),
    and a folder named in another case (``htr/`` for ``HTR/``).
    """
    found = find_task_dirs(input_dir, *names)
    return found[0] if found else None


def task_folder_name(folder: Path, names: tuple[str, ...]) -> str:
    """The spelling among ``names`` that ``folder`` (one ``find_task_dirs`` found) stands for:
    ``OD`` for ``od/``, ``C2C`` for ``С2С/``; ``names[0]`` when none matches."""
    key = folder_key(folder.name)
    return next((name for name in names if folder_key(name) == key), names[0])


def _levels(input_dir: Path) -> list[Path]:
    """``input_dir`` and its ``fusion_brain/`` level (any case), where task folders are looked for."""
    levels = [input_dir]
    levels += [
        input_dir / e for e in _entry_names(input_dir) if folder_key(e) == "fusion_brain" and _is_dir(input_dir / e)
    ]
    return levels


def _entry_names(folder: Path) -> list[str]:
    """The names in ``folder`` (UTF-8 whatever the locale), sorted; [] when it cannot be listed."""
    from core.io.paths import file_name

    try:
        with os.scandir(_os_path(folder)) as it:
            return sorted(file_name(entry.name) for entry in it)
    except (OSError, UnicodeError, ValueError):
        return []


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

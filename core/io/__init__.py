"""Readers and writers at the input/output boundary.

Everything that touches user files goes through here, so the error policy is in one place:
bad data raises ``InputError`` carrying the path and the reason. Hostile inputs (issues 19
and 25) are handled here, so that every task, a third-party one too, gets the same
protection by calling these functions. One module per concern:

- ``core.io.paths``: confinement. Only regular files inside the input folder are opened,
  checked when each is opened (``confined``, ``check_input_file``, ``resolve_input_file``,
  ``open_input_file``, ``scan_input_folder``, ``list_input_files``); file names are UTF-8
  whatever the locale (``file_name``, ``name_bytes``).
- ``core.io.requests``: task folders and request files in UTF-8/16/32 (``find_task_dir``,
  ``find_task_dirs``, ``task_folder_name``, ``folder_key``, ``find_request_file``, ``read_request``,
  ``read_json``, ``read_json_object``, ``decode_json_text``; ``parse_json``, which names a key
  given twice); ``model_safe_text`` for text a tokenizer reads.
- ``core.io.layout``: the input folder's layout (``check_input_folder``; ``explain_empty_input``
  when no task folder is found; ``layout_hint``, what a task folder lacks of its ``FolderLayout``).
- ``core.io.images``: images decoded within a memory bound (``load_image``,
  ``load_image_and_info``, ``read_image_info``, ``check_image``, ``to_mode``, ``MAX_IMAGE_PIXELS``,
  ``MAX_IMAGE_BYTES``).
- ``core.io.writing``: prediction files written exactly and atomically, with the user's
  umask (``write_json_atomic``, ``dumps_json``, ``new_file_mode``); the output folder checked
  before the work (``check_output_folder``).

Import the names from ``core.io``. To replace one in a test, patch the module that defines
it (``core.io.paths._checked_real_path``): the functions call each other there.
"""

from __future__ import annotations

from core.io.images import (
    IMAGE_FORMATS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_IMAGE_SIDE,
    ImageInfo,
    check_image,
    load_image,
    load_image_and_info,
    read_image_info,
    to_mode,
)
from core.io.layout import FolderLayout, check_input_folder, explain_empty_input, layout_hint
from core.io.paths import (
    InputEntry,
    check_input_file,
    confined,
    file_name,
    list_input_files,
    name_bytes,
    open_input_file,
    resolve_input_file,
    scan_input_folder,
)
from core.io.requests import (
    decode_json_text,
    find_request_file,
    find_task_dir,
    find_task_dirs,
    folder_key,
    model_safe_text,
    parse_json,
    read_json,
    read_json_object,
    read_request,
    task_folder_name,
)
from core.io.writing import check_output_folder, dumps_json, new_file_mode, write_json_atomic

__all__ = [
    "IMAGE_FORMATS",
    "FolderLayout",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "ImageInfo",
    "InputEntry",
    "check_image",
    "check_input_file",
    "check_input_folder",
    "check_output_folder",
    "confined",
    "decode_json_text",
    "dumps_json",
    "explain_empty_input",
    "file_name",
    "find_request_file",
    "find_task_dir",
    "find_task_dirs",
    "folder_key",
    "layout_hint",
    "list_input_files",
    "load_image",
    "load_image_and_info",
    "model_safe_text",
    "name_bytes",
    "new_file_mode",
    "open_input_file",
    "parse_json",
    "read_image_info",
    "read_json",
    "read_json_object",
    "read_request",
    "resolve_input_file",
    "scan_input_folder",
    "task_folder_name",
    "to_mode",
    "write_json_atomic",
]

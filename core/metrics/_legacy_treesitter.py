"""The organizers' tree-sitter, rebuilt: 2020 core + tree-sitter-python 0.16.1, through ctypes.

The official C2C scorer pins ``tree_sitter==0.2.0`` (whose C core reads grammars
of ABI <= 12) and a tree-sitter-python grammar of that era. Its syntax and
data-flow matches run on strings that still hold ``NEW_LINE``/``INDENT`` tokens,
so almost every parse is error recovery, and error recovery differs between
grammar releases: with today's tree-sitter-python (0.25) the reference files
give a data-flow match of 0.84 where the organizers' script gives 0.0. The
grammar that reproduces the reference values is tree-sitter-python 0.16.1
(see ``core/metrics/README.md``); it cannot be loaded by tree-sitter 0.26
(ABI >= 13), so we compile it together with the core of py-tree-sitter 0.2.0
into one small shared library and talk to it with ctypes.

The sources (both MIT) ship in ``legacy_treesitter/sources.tar.gz``; the
library is compiled once, on first use, into a cache folder (``cc``/``c++``
needed, about 5 s) and reused afterwards. No network is involved.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

SOURCES = Path(__file__).with_name("legacy_treesitter") / "sources.tar.gz"
GRAMMAR_VERSION = "tree-sitter-python 0.16.1 (npm tarball), core of py-tree-sitter 0.2.0 (PyPI sdist)"


class _Point(ctypes.Structure):
    _fields_ = [("row", ctypes.c_uint32), ("column", ctypes.c_uint32)]


class _TSNode(ctypes.Structure):
    _fields_ = [("context", ctypes.c_uint32 * 4), ("id", ctypes.c_void_p), ("tree", ctypes.c_void_p)]


def cache_dir() -> Path:
    """Where the compiled library goes: the user's cache folder (``core.cache``), else the temporary folder."""
    from core.cache import TEMPORARY, user_cache_dir

    return user_cache_dir() or Path(tempfile.gettempdir()) / TEMPORARY


def library_path() -> Path:
    """The compiled library's path; its name carries the sources' hash, so stale builds are never used."""
    digest = hashlib.sha256(SOURCES.read_bytes()).hexdigest()[:16]
    return cache_dir() / f"ts-python-legacy-{digest}.so"


def build_library(target: Path | None = None) -> Path:
    """Compile core + grammar into ``target`` (atomically); returns the path. Raises on failure."""
    target = target or library_path()
    if target.exists():
        return target
    from core.cache import writable

    target = writable(target)  # a read-only home must not cost us the official grammar: /tmp then
    if target.exists():
        return target
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cc or not cxx:
        raise RuntimeError("no C/C++ compiler (cc, c++) found to build the legacy tree-sitter parser")
    with tempfile.TemporaryDirectory(prefix="ts-legacy-") as tmp:
        work = Path(tmp)
        with tarfile.open(SOURCES) as tar:
            tar.extractall(work, filter="data")
        core, grammar = work / "tree-sitter-core", work / "tree-sitter-python"
        objs = [work / "lib.o", work / "parser.o", work / "scanner.o"]
        steps = [
            [
                cc,
                "-O2",
                "-fPIC",
                "-std=gnu99",
                "-w",
                f"-I{core / 'include'}",
                f"-I{core / 'src'}",
                "-c",
                str(core / "src" / "lib.c"),
                "-o",
                str(objs[0]),
            ],
            [cc, "-O2", "-fPIC", "-w", f"-I{grammar}", "-c", str(grammar / "parser.c"), "-o", str(objs[1])],
            [cxx, "-O2", "-fPIC", "-w", f"-I{grammar}", "-c", str(grammar / "scanner.cc"), "-o", str(objs[2])],
            [cxx, "-shared", *map(str, objs), "-o", str(work / "out.so")],
        ]
        for cmd in steps:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"building the legacy tree-sitter parser failed: {' '.join(cmd)}\n{done.stderr}")
        fd, tmp_target = tempfile.mkstemp(dir=target.parent, suffix=".so.tmp")
        os.close(fd)
        shutil.copyfile(work / "out.so", tmp_target)
        os.chmod(tmp_target, 0o755)
        os.replace(tmp_target, target)
    log.info("built the legacy tree-sitter Python parser: %s", target)
    return target


class _Lib:
    """ctypes signatures of the few C functions we call."""

    # Set in ``__init__`` from ``sig``: what each returns once ctypes has converted it (a pointer: an int).
    tree_sitter_python: Callable[[], int]
    ts_parser_new: Callable[[], int]
    ts_parser_set_language: Callable[[int, int], bool]
    ts_parser_parse_string: Callable[[int, None, bytes, int], int | None]
    ts_tree_root_node: Callable[[int], _TSNode]
    ts_tree_delete: Callable[[int], None]
    ts_node_type: Callable[[_TSNode], bytes]
    ts_node_string: Callable[[_TSNode], int]
    ts_node_child_count: Callable[[_TSNode], int]
    ts_node_child: Callable[[_TSNode, int], _TSNode]
    ts_node_start_point: Callable[[_TSNode], _Point]
    ts_node_end_point: Callable[[_TSNode], _Point]
    ts_node_child_by_field_name: Callable[[_TSNode, bytes, int], _TSNode]
    ts_node_is_null: Callable[[_TSNode], bool]

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        self.libc = ctypes.CDLL(None)
        self.libc.free.argtypes = [ctypes.c_void_p]
        node, p = _TSNode, ctypes.c_void_p
        sig = {
            "tree_sitter_python": (p, []),
            "ts_parser_new": (p, []),
            "ts_parser_set_language": (ctypes.c_bool, [p, p]),
            "ts_parser_parse_string": (p, [p, p, ctypes.c_char_p, ctypes.c_uint32]),
            "ts_tree_root_node": (node, [p]),
            "ts_tree_delete": (None, [p]),
            "ts_node_type": (ctypes.c_char_p, [node]),
            "ts_node_string": (p, [node]),
            "ts_node_child_count": (ctypes.c_uint32, [node]),
            "ts_node_child": (node, [node, ctypes.c_uint32]),
            "ts_node_start_point": (_Point, [node]),
            "ts_node_end_point": (_Point, [node]),
            "ts_node_child_by_field_name": (node, [node, ctypes.c_char_p, ctypes.c_uint32]),
            "ts_node_is_null": (ctypes.c_bool, [node]),
        }
        for name, (restype, argtypes) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        self._lib = lib


class LegacyNode:
    """The subset of ``tree_sitter.Node`` the CodeBLEU code uses, read-only.

    The whole tree is copied into Python objects right after parsing (see
    ``LegacyTree``): the data-flow walk reads each node's type, span and
    children many times, and plain attributes are far cheaper than C calls.
    """

    __slots__ = ("_lib", "_node", "_tree", "type", "span", "children", "child_count")

    _lib: _Lib
    _node: _TSNode
    _tree: LegacyTree
    type: str
    span: tuple[tuple[int, int], tuple[int, int]]  # (start_point, end_point), each (row, byte column)
    children: list[LegacyNode]
    child_count: int

    @property
    def start_point(self) -> tuple[int, int]:
        return self.span[0]

    @property
    def end_point(self) -> tuple[int, int]:
        return self.span[1]

    def child_by_field_name(self, name: str) -> LegacyNode | None:
        raw = name.encode("utf8")
        child = self._lib.ts_node_child_by_field_name(self._node, raw, len(raw))
        if self._lib.ts_node_is_null(child):
            return None
        start = self._lib.ts_node_start_point(child)
        # Field children are among ``children``; find the same node by its span and type.
        kind = self._lib.ts_node_type(child).decode("utf8")
        end = self._lib.ts_node_end_point(child)
        span = ((start.row, start.column), (end.row, end.column))
        for candidate in self.children:
            if candidate.span == span and candidate.type == kind:
                return candidate
        return _copy_tree(self._lib, child, self._tree)

    def __str__(self) -> str:
        ptr = self._lib.ts_node_string(self._node)
        try:
            return ctypes.string_at(ptr).decode("utf8")
        finally:
            self._lib.libc.free(ptr)


def _copy_node(lib: _Lib, raw: _TSNode, tree: LegacyTree) -> LegacyNode:
    node = LegacyNode.__new__(LegacyNode)
    node._lib, node._node, node._tree = lib, raw, tree
    node.type = lib.ts_node_type(raw).decode("utf8")
    a, b = lib.ts_node_start_point(raw), lib.ts_node_end_point(raw)
    node.span = ((a.row, a.column), (b.row, b.column))
    node.child_count = lib.ts_node_child_count(raw)
    node.children = []
    return node


def _copy_tree(lib: _Lib, raw: _TSNode, tree: LegacyTree) -> LegacyNode:
    """Copy the subtree at ``raw`` into ``LegacyNode`` objects, iteratively (trees can be deep)."""
    root = _copy_node(lib, raw, tree)
    stack = [root]
    while stack:
        node = stack.pop()
        for i in range(node.child_count):
            child = _copy_node(lib, lib.ts_node_child(node._node, i), tree)
            node.children.append(child)
            stack.append(child)
    return root


class LegacyTree:
    """A parsed tree; owns the C tree and frees it when collected."""

    def __init__(self, lib: _Lib, tree: int) -> None:
        self._lib, self._tree = lib, tree
        self._root: LegacyNode | None = None

    @property
    def root_node(self) -> LegacyNode:
        if self._root is None:
            self._root = _copy_tree(self._lib, self._lib.ts_tree_root_node(self._tree), self)
        return self._root

    def __del__(self) -> None:
        tree, self._tree = self._tree, 0
        # At interpreter shutdown ctypes may already be torn down; leaking then is harmless.
        if tree:
            with contextlib.suppress(AttributeError, TypeError):
                self._lib.ts_tree_delete(tree)


class LegacyParser:
    """``parse(bytes) -> tree`` with the organizers' grammar and core."""

    def __init__(self, lib: _Lib) -> None:
        self._lib = lib
        self._parser = lib.ts_parser_new()
        if not lib.ts_parser_set_language(self._parser, lib.tree_sitter_python()):
            raise RuntimeError("the legacy core refused the legacy Python grammar")

    def parse(self, source: bytes) -> LegacyTree:
        tree = self._lib.ts_parser_parse_string(self._parser, None, source, len(source))
        if not tree:
            raise RuntimeError("tree-sitter returned no tree")
        return LegacyTree(self._lib, tree)


@lru_cache(maxsize=1)
def legacy_parser() -> LegacyParser:
    """The process-wide legacy parser; builds the library on first use."""
    return LegacyParser(_Lib(build_library()))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    print(build_library())

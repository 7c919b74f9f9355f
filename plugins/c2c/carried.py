"""Python that a translated program carries, held as real files (``runtime/``) and read as text when needed.

The modules of ``runtime/`` are ordinary Python (``ruff`` lints them, ``tests/c2c/test_runtime.py``
imports and runs them): Java's library classes under their Java names (``regex``: ``Pattern`` /
``Matcher``; ``java_time``; ``containers``: ``SimpleEntry``, ``hash_keys``, ``JavaIterator``,
Collectors' ``group_by`` / ``to_map``, ``TreeMap`` / ``TreeSet`` and their navigation; ``strings``:
``java_compare``, ``string_hash``, ``java_split``, ``half_up``; ``enums``: ``JavaEnum``), a whole
program's stdin (``stdin``) and the helpers a GeeksforGeeks function calls undefined (``helpers``).
The translator never imports them
(``runtime/`` is a plain folder, shipped with the plugin as data): ``load`` reads one as text and
cuts it into named units, each a list of AVATAR token lines ``(level, tokens)`` that the
translator writes into a program:

- a unit is a top-level ``def``, ``class`` or ``NAME = value``, with the top-level statements after
  it up to the next unit (``DayOfWeek``'s constants, ``ChronoUnit.DAYS = ...``);
- ``ALIAS = f`` (``f`` a function of the file) is ``f``'s definition under the name ``ALIAS``;
- a class whose base is private (``LocalDate(_TimeOrder)``) gets that base's methods written after
  its own and no base, so a program holds one class;
- a unit needs the units whose names it reads (``Pattern`` needs ``Matcher``, ``hash_keys``
  ``java_hash``, ``next_token`` ``_stdin`` / ``_pos`` / ``_TOKEN``);
- ``__all__`` names the units a program may ask for by name; top-level imports, docstrings and
  comments are the linter's and the tests' (a program imports the modules itself);
- a string literal is one token with ``▁`` for a space (``'▁'``), or, where it holds a backslash,
  its words between its quotes (``" \\n "``, ``r" \\S+ "``), as AVATAR writes an escape.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from plugins.c2c.detok import SPACE_MARK, literal_tokens

HERE = Path(__file__).resolve().parent / "runtime"

Line = tuple[int, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Unit:
    """One definition a program can carry: its token lines, the units it reads, a class's methods."""

    name: str
    lines: tuple[Line, ...]
    needs: tuple[str, ...] = ()  # units of the same file it reads, sorted
    methods: frozenset[str] = frozenset()  # a class's methods (its own and its private base's)


@dataclass(frozen=True, slots=True)
class Runtime:
    """One runtime file's units, in file order, and the names a program may ask for (``__all__``)."""

    units: Mapping[str, Unit]
    public: tuple[str, ...]


def _literal(text: str) -> list[str]:
    if "\\" in text:
        return literal_tokens(text)
    return [text.replace(" ", SPACE_MARK)]


def _logical_lines(source: str) -> dict[int, tuple[int, tuple[str, ...]]]:
    """Each logical line of ``source`` by its first row: (indentation level, AVATAR tokens); comments dropped."""
    lines: dict[int, tuple[int, tuple[str, ...]]] = {}
    level, row = 0, 0
    current: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.INDENT:
            level += 1
        elif tok.type == tokenize.DEDENT:
            level -= 1
        elif tok.type == tokenize.NEWLINE:
            if current:
                lines[row] = (level, tuple(current))
            current = []
        elif tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            if not current:
                row = tok.start[0]
            current.extend(_literal(tok.string) if tok.type == tokenize.STRING else [tok.string])
    return lines


def _docstring_rows(tree: ast.Module) -> set[int]:
    rows = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and ast.get_docstring(node) is not None:
            rows.add(node.body[0].lineno)
    return rows


def _defines(node: ast.stmt) -> list[str]:
    """The unit names a top-level statement starts ([] for one that belongs to the unit before it)."""
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def _private_base(node: ast.stmt) -> str:
    if isinstance(node, ast.ClassDef) and len(node.bases) == 1 and isinstance(node.bases[0], ast.Name):
        base = node.bases[0].id
        return base if base.startswith("_") else ""
    return ""


@cache
def load(module: str) -> Runtime:
    """The units of ``runtime/<module>.py`` (read as text, never imported)."""
    source = (HERE / f"{module}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    logical = _logical_lines(source)
    skipped = _docstring_rows(tree)
    public: tuple[str, ...] = ()
    groups: list[tuple[list[str], list[ast.stmt]]] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        names = _defines(node)
        if names == ["__all__"]:
            assert isinstance(node, ast.Assign)
            public = tuple(ast.literal_eval(node.value))
        elif names:
            groups.append((names, [node]))
        elif groups and node.lineno not in skipped:
            groups[-1][1].append(node)
        elif node.lineno not in skipped:
            raise ValueError(f"runtime/{module}.py:{node.lineno}: a statement before any definition")
    nodes = {names[0]: stmts[0] for names, stmts in groups}

    def rows(node: ast.stmt, body_only: bool = False) -> list[Line]:
        decorators = node.decorator_list if isinstance(node, ast.FunctionDef | ast.ClassDef) else []
        first = node.lineno + 1 if body_only else min([node.lineno, *(d.lineno for d in decorators)])
        end = node.end_lineno or node.lineno
        return [logical[r] for r in range(first, end + 1) if r in logical and r not in skipped]

    units: dict[str, Unit] = {}
    for names, stmts in groups:
        head = stmts[0]
        if isinstance(head, ast.Assign) and isinstance(head.value, ast.Name) and head.value.id in units:
            original = units[head.value.id]  # `findMin = getMin`: getMin's definition named findMin
            for name in names:
                (level, header), *rest = original.lines
                renamed = (level, (header[0], name, *header[2:]))
                units[name] = Unit(name, (renamed, *rest), original.needs, original.methods)
            continue
        lines = rows(head)
        mixin = _private_base(head)
        if mixin:  # `class LocalDate ( _TimeOrder ) :` -> `class LocalDate :` + _TimeOrder's methods
            level, header = lines[0]
            lines[0] = (level, (*header[:2], *header[5:]))
            lines += rows(nodes[mixin], body_only=True)
        for extra in stmts[1:]:
            lines += rows(extra)
        reads = {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name)}
        if mixin:
            reads |= {n.id for n in ast.walk(nodes[mixin]) if isinstance(n, ast.Name)}
        methods = frozenset(
            m.name
            for cls in (head, nodes.get(mixin))
            if isinstance(cls, ast.ClassDef)
            for m in cls.body
            if isinstance(m, ast.FunctionDef)
        )
        needs = tuple(sorted(r for r in reads & nodes.keys() if r not in names and r != mixin))
        for name in names:
            units[name] = Unit(name, tuple(lines), needs, methods)
    return Runtime(units, public)


def lines_by_name(units: Mapping[str, Unit], names: Iterable[str]) -> list[tuple[int, list[str]]]:
    """The units named (in name order) and those they need, each after what it needs, as fresh lines."""
    order: list[str] = []

    def add(name: str) -> None:
        if name in order:
            return
        for dep in units[name].needs:
            add(dep)
        order.append(name)

    for name in sorted(names):
        add(name)
    return [(level, list(toks)) for name in order for level, toks in units[name].lines]


def lines_in_file_order(runtime: Runtime, names: Iterable[str]) -> list[tuple[int, list[str]]]:
    """The units named and those they need, in the order the file defines them, as fresh lines."""
    wanted: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo += runtime.units[name].needs
    return [(level, list(toks)) for name, unit in runtime.units.items() if name in wanted for level, toks in unit.lines]

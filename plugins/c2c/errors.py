"""The translator's own bugs, told apart from bad input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import PluginError

if TYPE_CHECKING:
    from tree_sitter import Node

# what a bug in the translator's own code raises (a missing child, a table without the key, ...);
# RecursionError (input nested deeper than Python's stack) and MemoryError are not its bugs
BUG_ERRORS = (AttributeError, KeyError, TypeError, IndexError, ValueError, AssertionError, NameError)


class TranslationBug(PluginError):
    """The translator failed on a Java construct: a bug to fix in the translator, not a problem of the input.

    It carries the construct (tree-sitter node type, its Java text, where it starts in the request)
    and chains the original exception (``__cause__``).
    """

    def __init__(self, node_type: str, java: str, line: int, column: int, cause: BaseException) -> None:
        self.node_type = node_type
        self.java = java
        self.line = line  # 1-based line of the request
        self.column = column  # 0-based byte column in that line of the request
        super().__init__(
            f"{type(cause).__name__} ({cause}) translating {node_type} {java!r} at line {line}, column {column}"
        )

    @classmethod
    def at(cls, node: Node, src: bytes, offset: int, cause: BaseException) -> TranslationBug:
        """The bug raised by ``cause`` while translating ``node`` of ``src`` (``offset``: wrapper bytes before it)."""
        start = max(node.start_byte, offset)
        text = src[start : node.end_byte].decode("utf-8", errors="replace")
        row, col = node.start_point
        request_start = offset + 1 if offset else 0  # the wrapper and the space after it
        column = node.start_byte - request_start if row == 0 else col
        return cls(node.type, " ".join(text.split()[:24]), row + 1, max(column, 0), cause)

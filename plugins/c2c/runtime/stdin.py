"""A whole program's stdin: read once into one buffer; Java's reads are positions in it.

``Scanner.nextInt`` and ``StreamTokenizer`` are ``next_token``, ``hasNext`` is ``has_next``,
``readLine`` is ``input`` (None at the end, as Java's null), ``System.in.read`` is ``read_char``.
"""

import re
import sys

__all__ = ["next_token", "has_next", "has_line", "input", "read_char"]

_stdin = sys.stdin.read()
_pos = 0
_TOKEN = re.compile(r"\S+")


def next_token():
    global _pos
    m = _TOKEN.search(_stdin, _pos)
    _pos = m.end()
    return m.group()


def has_next():
    return _TOKEN.search(_stdin, _pos) is not None


def has_line():
    return _pos < len(_stdin)


def input():
    global _pos
    if _pos >= len(_stdin):
        return None
    end = _stdin.find("\n", _pos)
    if end < 0:
        end = len(_stdin)
    line = _stdin[_pos:end]
    _pos = end + 1
    return line.rstrip("\r")


def read_char():
    global _pos
    if _pos >= len(_stdin):
        return -1
    _pos += 1
    return ord(_stdin[_pos - 1])

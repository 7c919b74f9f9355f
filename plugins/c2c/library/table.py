"""The library table: every Java package's rows in one tuple, ``RULES``, and the lookups the resolver
and the static types make in it (``ask``, ``own_members``, ``emit_constant``, ``returns``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from plugins.c2c.library import classes, collections, lang, math, stream, text, util
from plugins.c2c.library.rows import (
    ANYWHERE,
    EXPRESSION,
    FIELD,
    INSTANCE,
    NEW,
    STATEMENT,
    STATIC,
    STREAM,
    Call,
    Emitting,
    Rule,
    class_of,
)
from plugins.c2c.state import Policy
from plugins.c2c.syntax import Tokens

if TYPE_CHECKING:
    from tree_sitter import Node


# The Java library's calls, one row each (see ``Rule``). For one call the rows of its receiver and member
# are asked in the order written, the receiver's own rows before ``"*"``'s (``Math . *``: its rows after
# ``Math . member``'s), a policy's own rows before the shared ones. Where two packages have rows for one
# call, the package first here is asked first (a StringJoiner's ``add`` before a BigInteger's before a heap's).
RULES: tuple[Rule, ...] = (
    *lang.RULES,
    *text.RULES,
    *util.RULES,
    *math.RULES,
    *collections.RULES,
    *stream.RULES,
    *classes.RULES,
)


def _index(rules: Sequence[Rule]) -> dict[tuple[str, str, str], tuple[Rule, ...]]:
    """(kind, receiver, member) -> its rows, in the order written."""
    table: dict[tuple[str, str, str], list[Rule]] = {}
    for rule in rules:
        for cls in rule.receiver:
            for member in rule.member:
                table.setdefault((rule.kind, cls, member), []).append(rule)
    return {key: tuple(rows) for key, rows in table.items()}


_ROWS = _index(RULES)

_RETURNS = {(cls, member): r.returns for r in RULES if r.returns for cls in r.receiver for member in r.member}

_TYPED = frozenset(member for _, member in _RETURNS)  # ask type_of only for these

_OWN = {  # (policy, kind) -> the members that have rows of that policy's own
    (policy, kind): frozenset(m for r in RULES if r.policy is policy and r.kind == kind and r.emit for m in r.member)
    for policy in {r.policy for r in RULES if r.policy is not None}
    for kind in (STATIC, INSTANCE, NEW, STREAM)
}


def ask(tr: Emitting, call: Call, kind: str, keys: Sequence[tuple[str, str]], policy: Policy | None) -> Tokens | None:
    """The first row of ``kind`` and ``policy`` (None: the rows both policies share) that takes ``call``,
    asking the rows of each (receiver, member) of ``keys`` in turn, those of the call's context (``ANYWHERE``:
    an expression's or a statement's); None when none does."""
    wheres = (call.context, ANYWHERE) if call.context in (EXPRESSION, STATEMENT) else (call.context,)
    for cls, member in keys:
        for rule in _ROWS.get((kind, cls, member), ()):
            if rule.emit is not None and rule.policy is policy and rule.where in wheres:
                out = rule.emit(tr, call)
                if out is not None:
                    return out
    return None


def own_members(policy: Policy, kind: str) -> frozenset[str]:
    """The members that have rows of ``kind`` which are ``policy``'s own (``policy=PROGRAM``)."""
    return _OWN.get((policy, kind), frozenset())


def emit_constant(policy: Policy, receiver: str, member: str) -> Tokens | None:
    """A library class's static field (``BigDecimal . ONE``) under ``policy``, or None."""
    rows = [r for r in _ROWS.get((FIELD, receiver, member), ()) if r.policy is None or r.policy is policy]
    return list(rows[0].constant) if rows else None


def returns(tr: Emitting, obj: Node | None, member: str) -> str:
    """The Java type the table gives ``obj . member ( ... )`` ("" when it says nothing)."""
    if obj is None or member not in _TYPED:
        return ""
    return _RETURNS.get((tr.text(obj), member)) or _RETURNS.get((class_of(tr.type_of(obj)), member), "")


def two_policy_apis() -> list[tuple[str, str]]:
    """The APIs with a shared row and a program's own row (they differ), static calls and instance methods."""
    policies: dict[tuple[str, str, str], set[bool]] = {}
    for (kind, cls, member), rows in _ROWS.items():
        if kind in (STATIC, INSTANCE):
            policies.setdefault((kind, cls, member), set()).update(r.policy is None for r in rows if r.emit)
    return sorted({(cls, member) for (_, cls, member), found in policies.items() if len(found) == 2})

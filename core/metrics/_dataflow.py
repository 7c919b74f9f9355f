"""CodeXGLUE's Python data-flow graph (DFG), as CodeBLEU's data-flow match uses it.

This follows the reference extractor (CodeXGLUE ``parser/DFG.py``, MIT) step for
step, quirks included, because the official C2C score depends on them: tokens
are the tree's leaves (a whole ``string`` counts as one), a leaf whose text
equals its node type is a keyword/punctuation and carries no flow, loops are
walked twice, and any exception while building the graph yields an empty one.

One deliberate difference: where the reference merges parent-name lists
through a Python ``set`` (so that their order, and with it the variable
numbering of the normalized flow, depends on the interpreter's hash seed), we
de-duplicate keeping first appearance. The result is deterministic and lies
within the reference's seed-to-seed spread (see ``core/metrics/README.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# (start_point, end_point) of a token, as tree-sitter reports it: ((row, col), (row, col)).
Span = tuple[tuple[int, int], tuple[int, int]]
# One DFG edge set: (name, token index, relation, parent names, parent token indices).
Edge = tuple[str, int, str, list[str], list[int]]
States = dict[str, list[int]]
IndexToCode = dict[Span, tuple[int, str]]

_LEAF_LIKE = ("string_literal", "string", "character_literal")
_ASSIGNMENT = ("assignment", "augmented_assignment", "for_in_clause")
_DO_FIRST = ("for_in_clause",)


def _span(node: Node) -> Span:
    span = getattr(node, "span", None)  # the legacy parser's nodes carry it precomputed
    if span is not None:
        return span
    (start_row, start_col), (end_row, end_col) = node.start_point, node.end_point
    return ((start_row, start_col), (end_row, end_col))


def _field(node: Node, name: str) -> Node:
    """``node``'s child ``name``, typed present. It may be None, as in the reference: the
    AttributeError that None raises further on empties the whole DFG (``get_data_flow_from_tree``)."""
    return cast("Node", node.child_by_field_name(name))


def _is_token(node: Node) -> bool:
    return (node.child_count == 0 or node.type in _LEAF_LIKE) and node.type != "comment"


def _dedupe(items: Sequence[str]) -> list[str]:
    # Stand-in for the reference's ``list(set(...))``: same members, stable order.
    return list(dict.fromkeys(items))


def tree_to_token_index(node: Node) -> list[Span]:
    """Spans of the token leaves under ``node``, left to right."""
    if _is_token(node):
        return [_span(node)]
    spans: list[Span] = []
    for child in node.children:
        spans += tree_to_token_index(child)
    return spans


def tree_to_variable_index(node: Node, index_to_code: IndexToCode) -> list[Span]:
    """Spans of the tokens under ``node`` whose text differs from their node type."""
    if _is_token(node):
        span = _span(node)
        _, code = index_to_code[span]
        return [span] if node.type != code else []
    spans: list[Span] = []
    for child in node.children:
        spans += tree_to_variable_index(child, index_to_code)
    return spans


def index_to_code_token(span: Span, lines: Sequence[str]) -> str:
    """The source text of ``span``; multi-line tokens lose their inner newlines, as in the reference."""
    (row0, col0), (row1, col1) = span
    if row0 == row1:
        return lines[row0][col0:col1]
    text = lines[row0][col0:]
    for row in range(row0 + 1, row1):
        text += lines[row]
    return text + lines[row1][:col1]


def _by_index(edges: list[Edge]) -> list[Edge]:
    return sorted(edges, key=lambda e: e[1])


def _merge_loop_edges(edges: list[Edge]) -> list[Edge]:
    """Fold the two passes of a loop: one edge per (name, index, relation)."""
    merged: dict[tuple[str, int, str], list[Any]] = {}
    for name, idx, rel, par_names, par_idx in edges:
        key = (name, idx, rel)
        if key not in merged:
            merged[key] = [par_names, par_idx]
        else:
            merged[key][0] = _dedupe(merged[key][0] + par_names)
            merged[key][1] = sorted(set(merged[key][1] + par_idx))
    return [(k[0], k[1], k[2], v[0], v[1]) for k, v in sorted(merged.items(), key=lambda t: t[0][1])]


def _assign_pairs(node: Node) -> tuple[list[Node], list[Node]]:
    """Left/right node lists of an assignment-like node, element-wise when the arities agree."""
    left, right = _field(node, "left"), _field(node, "right")
    # ``left``/``right`` may be None here; the AttributeError then empties the whole DFG,
    # exactly as in the reference.
    left_nodes = [x for x in left.children if x.type != ","]
    right_nodes = [x for x in right.children if x.type != ","]
    if len(right_nodes) != len(left_nodes):
        left_nodes, right_nodes = [left], [right]
    if not left_nodes:
        left_nodes = [left]
    if not right_nodes:
        right_nodes = [right]
    return left_nodes, right_nodes


def _computed_from(
    left_nodes: Sequence[Node], right_nodes: Sequence[Node], index_to_code: IndexToCode, states: States
) -> list[Edge]:
    edges: list[Edge] = []
    for left_node, right_node in zip(left_nodes, right_nodes, strict=False):  # truncating, as the reference
        left_spans = tree_to_variable_index(left_node, index_to_code)
        right_spans = tree_to_variable_index(right_node, index_to_code)
        for span in left_spans:
            idx, code = index_to_code[span]
            edges.append(
                (
                    code,
                    idx,
                    "computedFrom",
                    [index_to_code[x][1] for x in right_spans],
                    [index_to_code[x][0] for x in right_spans],
                )
            )
            states[code] = [idx]
    return edges


def dfg_python(node: Node, index_to_code: IndexToCode, states: States) -> tuple[list[Edge], States]:
    """Data-flow edges under ``node`` given the incoming variable ``states``."""
    states = states.copy()
    if _is_token(node):
        idx, code = index_to_code[_span(node)]
        if node.type == code:
            return [], states
        if code in states:
            return [(code, idx, "comesFrom", [code], states[code].copy())], states
        if node.type == "identifier":
            states[code] = [idx]
        return [(code, idx, "comesFrom", [], [])], states

    if node.type == "default_parameter":
        name = _field(node, "name")
        value = node.child_by_field_name("value")
        edges: list[Edge] = []
        if value is None:
            for span in tree_to_variable_index(name, index_to_code):
                idx, code = index_to_code[span]
                edges.append((code, idx, "comesFrom", [], []))
                states[code] = [idx]
            return _by_index(edges), states
        name_spans = tree_to_variable_index(name, index_to_code)
        value_spans = tree_to_variable_index(value, index_to_code)
        temp, states = dfg_python(value, index_to_code, states)
        edges += temp
        for span1 in name_spans:
            idx1, code1 = index_to_code[span1]
            for span2 in value_spans:
                idx2, code2 = index_to_code[span2]
                edges.append((code1, idx1, "comesFrom", [code2], [idx2]))
            states[code1] = [idx1]
        return _by_index(edges), states

    if node.type in _ASSIGNMENT:
        if node.type == "for_in_clause":
            right_nodes = [node.children[-1]]
            left_nodes = [_field(node, "left")]
        else:
            if node.child_by_field_name("right") is None:
                return [], states
            left_nodes, right_nodes = _assign_pairs(node)
        edges = []
        for child in right_nodes:
            temp, states = dfg_python(child, index_to_code, states)
            edges += temp
        edges += _computed_from(left_nodes, right_nodes, index_to_code, states)
        return _by_index(edges), states

    if node.type == "if_statement":
        edges = []
        current_states = states.copy()
        other_states: list[States] = []
        has_else = "else" in node.type
        for child in node.children:
            if "else" in child.type:
                has_else = True
            if child.type not in ("elif_clause", "else_clause"):
                temp, current_states = dfg_python(child, index_to_code, current_states)
                edges += temp
            else:
                temp, branch_states = dfg_python(child, index_to_code, states)
                edges += temp
                other_states.append(branch_states)
        other_states.append(current_states)
        if not has_else:
            other_states.append(states)
        new_states: States = {}
        for dic in other_states:
            for key in dic:
                if key not in new_states:
                    new_states[key] = dic[key].copy()
                else:
                    new_states[key] += dic[key]
        for key in new_states:
            new_states[key] = sorted(set(new_states[key]))
        return _by_index(edges), new_states

    if node.type == "for_statement":
        edges = []
        for _ in range(2):
            left_nodes, right_nodes = _assign_pairs(node)
            for child in right_nodes:
                temp, states = dfg_python(child, index_to_code, states)
                edges += temp
            edges += _computed_from(left_nodes, right_nodes, index_to_code, states)
            if node.children[-1].type == "block":
                temp, states = dfg_python(node.children[-1], index_to_code, states)
                edges += temp
        return _by_index(_merge_loop_edges(edges)), states

    if node.type == "while_statement":
        edges = []
        for _ in range(2):
            for child in node.children:
                temp, states = dfg_python(child, index_to_code, states)
                edges += temp
        return _by_index(_merge_loop_edges(edges)), states

    edges = []
    for child in node.children:
        if child.type in _DO_FIRST:
            temp, states = dfg_python(child, index_to_code, states)
            edges += temp
    for child in node.children:
        if child.type not in _DO_FIRST:
            temp, states = dfg_python(child, index_to_code, states)
            edges += temp
    return _by_index(edges), states


def get_data_flow(code: str, parser: Parser) -> list[Edge]:
    """The merged DFG of ``code``: edges of tokens that take part in some flow, one per token."""
    try:
        root = parser.parse(code.encode("utf8")).root_node
    except Exception:  # noqa: BLE001 - the reference treats a failed parse as "no data flow"
        return []
    return get_data_flow_from_tree(code, root)


def get_data_flow_from_tree(code: str, root: Node) -> list[Edge]:
    """``get_data_flow`` on an already parsed ``code``."""
    try:
        spans = tree_to_token_index(root)
        lines = code.split("\n")
        tokens = [index_to_code_token(span, lines) for span in spans]
        index_to_code: IndexToCode = {span: (i, tok) for i, (span, tok) in enumerate(zip(spans, tokens, strict=True))}
        try:
            dfg, _ = dfg_python(root, index_to_code, {})
        except Exception:  # noqa: BLE001 - the reference swallows every failure the same way
            dfg = []
        dfg = _by_index(dfg)
        used: set[int] = set()
        for edge in dfg:
            if edge[-1]:
                used.add(edge[1])
            used.update(edge[-1])
        dfg = [edge for edge in dfg if edge[1] in used]
    except Exception:  # noqa: BLE001
        dfg = []
    merged: dict[int, Edge] = {}
    for edge in dfg:
        if edge[1] not in merged:
            merged[edge[1]] = edge
        else:
            old = merged[edge[1]]
            merged[edge[1]] = (
                edge[0],
                edge[1],
                edge[2],
                _dedupe(old[3] + edge[3]),
                sorted(set(old[4] + edge[4])),
            )
    return list(merged.values())


def normalize_dataflow(dataflow: Sequence[Edge]) -> list[tuple[str, str, list[str]]]:
    """Rename variables ``var_0, var_1, ...`` in order of first appearance (parents before the target)."""
    names: dict[str, str] = {}
    out: list[tuple[str, str, list[str]]] = []
    for name, _, relation, parents, _ in dataflow:
        for parent in parents:
            if parent not in names:
                names[parent] = f"var_{len(names)}"
        if name not in names:
            names[name] = f"var_{len(names)}"
        out.append((names[name], relation, [names[p] for p in parents]))
    return out

"""CodeBLEU for C2C, exactly as the organizers' CodeXGLUE-based script computes it (Python target).

``corpus_codebleu(references, hypotheses)`` returns the score and its four
components. Strings are used as they are: tokens are a plain whitespace split
(``NEW_LINE``/``INDENT``/``DEDENT`` are ordinary tokens) and tree-sitter parses
the raw, unstripped strings. The quirks of the reference that move the number
are kept on purpose and commented where they occur.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.metrics import Metric
from core.metrics._dataflow import get_data_flow_from_tree, normalize_dataflow

if TYPE_CHECKING:
    from tree_sitter import Node

log = logging.getLogger(__name__)

# CodeXGLUE's keywords/python.txt: the 35 keywords of Python 3.7+ (``keyword.kwlist``).
PYTHON_KEYWORDS = frozenset(
    {
        "False",
        "None",
        "True",
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
    }
)
KEYWORD_WEIGHT = 1.0
OTHER_WEIGHT = 0.2
# NLTK SmoothingFunction.method1: add epsilon to the numerator of a zero precision.
SMOOTHING_EPSILON = 0.1
NGRAM_ORDERS = (1, 2, 3, 4)
WEIGHTS = (0.25, 0.25, 0.25, 0.25)

Tokens = Sequence[str]


def _ngram_counts(tokens: Tokens, n: int) -> Counter[tuple[str, ...]]:
    if len(tokens) < n:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _closest_ref_length(ref_lengths: Iterable[int], hyp_len: int) -> int:
    return min(ref_lengths, key=lambda r: (abs(r - hyp_len), r))


def _brevity_penalty(closest_ref_len: int, hyp_len: int) -> float:
    if hyp_len > closest_ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1 - closest_ref_len / hyp_len)


def _combine(numerators: Sequence[float], denominators: Sequence[int | float], bp: float) -> float:
    """NLTK's corpus_bleu tail: 0 without unigram matches, method1 smoothing, geometric mean."""
    if numerators[0] == 0:
        return 0.0
    logs = []
    for w, num, den in zip(WEIGHTS, numerators, denominators, strict=True):
        num = num + SMOOTHING_EPSILON if num == 0 else num
        logs.append(w * math.log(num / den))
    return bp * math.exp(math.fsum(logs))


def corpus_bleu(references: Sequence[Sequence[Tokens]], hypotheses: Sequence[Tokens]) -> float:
    """NLTK ``corpus_bleu`` (1-4-grams, uniform weights, smoothing method1), micro-averaged."""
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references for {len(hypotheses)} hypotheses")
    numerators = [0] * len(NGRAM_ORDERS)
    denominators = [0] * len(NGRAM_ORDERS)
    hyp_total = ref_total = 0
    for refs, hyp in zip(references, hypotheses, strict=True):
        for k, n in enumerate(NGRAM_ORDERS):
            counts = _ngram_counts(hyp, n)
            max_ref: dict[tuple[str, ...], int] = {}
            for ref in refs:
                ref_counts = _ngram_counts(ref, n)
                for ngram in counts:
                    max_ref[ngram] = max(max_ref.get(ngram, 0), ref_counts[ngram])
            numerators[k] += sum(min(c, max_ref[g]) for g, c in counts.items())
            denominators[k] += max(1, sum(counts.values()))
        hyp_total += len(hyp)
        ref_total += _closest_ref_length((len(r) for r in refs), len(hyp))
    return _combine(numerators, denominators, _brevity_penalty(ref_total, hyp_total))


def keyword_weights(tokens: Tokens, keywords: frozenset[str] = PYTHON_KEYWORDS) -> dict[str, float]:
    """Unigram weights of a reference: 1 for a keyword, 0.2 for anything else."""
    return {t: KEYWORD_WEIGHT if t in keywords else OTHER_WEIGHT for t in tokens}


def weighted_ngram_match(references: Sequence[Sequence[Tokens]], hypotheses: Sequence[Tokens]) -> float:
    """CodeXGLUE's weighted n-gram match: a recall over reference n-grams, unigrams keyword-weighted.

    Reference quirk kept: its brevity penalty measures each reference as the
    ``[tokens, weights]`` pair it is stored in, i.e. with length 2, so the
    penalty is 1 unless hypotheses average at most two tokens.
    """
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references for {len(hypotheses)} hypotheses")
    numerators: list[float] = [0] * len(NGRAM_ORDERS)
    denominators: list[float] = [0] * len(NGRAM_ORDERS)
    hyp_total = ref_total = 0
    for refs, hyp in zip(references, hypotheses, strict=True):
        for k, n in enumerate(NGRAM_ORDERS):
            counts = _ngram_counts(hyp, n)
            for ref in refs:
                ref_counts = _ngram_counts(ref, n)
                clipped = {g: min(c, counts[g]) for g, c in ref_counts.items()}
                if n == 1:
                    weights = keyword_weights(ref)
                    numerators[k] += sum(c * weights[g[0]] for g, c in clipped.items())
                    denominators[k] += max(1, sum(c * weights[g[0]] for g, c in ref_counts.items()))
                else:
                    numerators[k] += sum(clipped.values())
                    denominators[k] += max(1, sum(ref_counts.values()))
        hyp_total += len(hyp)
        ref_total += _closest_ref_length((2 for _ in refs), len(hyp))
    return _combine(numerators, denominators, _brevity_penalty(ref_total, hyp_total))


@lru_cache(maxsize=1)
def _parser_and_name() -> tuple[Any, str]:
    from core.metrics import _legacy_treesitter

    try:
        return _legacy_treesitter.legacy_parser(), _legacy_treesitter.GRAMMAR_VERSION
    except Exception as exc:  # noqa: BLE001 - any failure to build/load it means: use the modern grammar
        import tree_sitter
        import tree_sitter_python

        log.warning(
            "C2C: cannot use the organizers' tree-sitter grammar (%s); falling back to tree-sitter-python %s, "
            "whose syntax and data-flow matches differ from the official ones",
            exc,
            tree_sitter_python.__version__ if hasattr(tree_sitter_python, "__version__") else "(modern)",
        )
        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
        return parser, "tree-sitter-python (modern fallback, not the official grammar)"


def python_parser() -> Any:
    """The Python parser of the official scorer (legacy grammar), or the modern one if that cannot be built."""
    return _parser_and_name()[0]


def parser_name() -> str:
    """Which grammar ``python_parser`` uses; scorer output reports it."""
    return _parser_and_name()[1]


def subtree_sexps(root: Node) -> list[str]:
    """S-expressions of ``root`` and of every node below it that has children."""
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(str(node))
        stack.extend(child for child in node.children if child.child_count)
    return out


def _syntax_counts(ref_root: Node, hyp_root: Node) -> tuple[int, int]:
    cand = set(subtree_sexps(hyp_root))
    ref_sexps = subtree_sexps(ref_root)
    return sum(s in cand for s in ref_sexps), len(ref_sexps)


def _dataflow_counts(ref: str, ref_root: Node, hyp: str, hyp_root: Node) -> tuple[int, int]:
    cand = normalize_dataflow(get_data_flow_from_tree(hyp, hyp_root))
    ref_flows = normalize_dataflow(get_data_flow_from_tree(ref, ref_root))
    matched = 0
    for flow in ref_flows:
        if flow in cand:
            matched += 1
            cand.remove(flow)
    return matched, len(ref_flows)


def _structure_matches(references: Sequence[str], hypotheses: Sequence[str]) -> tuple[float, float]:
    """Syntax and data-flow match together, parsing every string once."""
    parser = python_parser()
    syn_matched = syn_total = df_matched = df_total = 0
    for ref, hyp in zip(references, hypotheses, strict=True):
        ref_root = parser.parse(ref.encode("utf8")).root_node
        hyp_root = parser.parse(hyp.encode("utf8")).root_node
        m, t = _syntax_counts(ref_root, hyp_root)
        syn_matched, syn_total = syn_matched + m, syn_total + t
        m, t = _dataflow_counts(ref, ref_root, hyp, hyp_root)
        df_matched, df_total = df_matched + m, df_total + t
    syntax = syn_matched / syn_total if syn_total else 0.0
    if df_total == 0:
        log.warning("no data flow in any reference: the data-flow match degenerates to 0")
    dataflow = df_matched / df_total if df_total else 0.0
    return syntax, dataflow


def syntax_match(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """Share of the references' subtrees that occur among their hypothesis' subtrees (no clipping)."""
    return _structure_matches(references, hypotheses)[0]


def dataflow_match(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """Multiset share of the references' normalized data flows found in the hypotheses'; 0 if none."""
    return _structure_matches(references, hypotheses)[1]


def corpus_codebleu(references: Sequence[str], hypotheses: Sequence[str]) -> dict[str, float]:
    """CodeBLEU of aligned reference/hypothesis strings: 0.25 each of BLEU, weighted, syntax, data-flow.

    Returns ``{"codebleu", "bleu", "weighted_bleu", "syntax", "dataflow"}``, all on a 0..1 scale.
    """
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references for {len(hypotheses)} hypotheses")
    ref_tokens = [[r.split()] for r in references]
    hyp_tokens = [h.split() for h in hypotheses]
    parts = {
        "bleu": corpus_bleu(ref_tokens, hyp_tokens),
        "weighted_bleu": weighted_ngram_match(ref_tokens, hyp_tokens),
    }
    parts["syntax"], parts["dataflow"] = _structure_matches(references, hypotheses)
    score = 0.25 * parts["bleu"] + 0.25 * parts["weighted_bleu"] + 0.25 * parts["syntax"] + 0.25 * parts["dataflow"]
    return {"codebleu": score, **parts}


def score_c2c(gold: Mapping[str, str], pred: Mapping[str, str]) -> dict[str, Any]:
    """The official C2C evaluation: gold keys in order, stopping at the first one without a prediction.

    Returns ``corpus_codebleu``'s dict plus ``n`` (programs scored) and, when it stopped
    early, ``stopped_at`` (the first gold key without a prediction).
    """
    references: list[str] = []
    hypotheses: list[str] = []
    stopped_at = None
    for key, ref in gold.items():
        if key not in pred:
            log.warning("C2C: no prediction for key %r; like the official script, scoring stops here", key)
            stopped_at = key
            break
        references.append(ref)
        hypotheses.append(pred[key])
    result: dict[str, Any] = corpus_codebleu(references, hypotheses)
    result["n"] = len(references)
    if stopped_at is not None:
        result["stopped_at"] = stopped_at
    return result


def _score(gold: Mapping[str, Any], pred: Mapping[str, Any]) -> dict[str, Any]:
    from core.errors import InputError

    bad = [k for k in gold if not isinstance(pred.get(k, ""), str)]
    if bad:
        raise InputError(f"C2C predictions must be strings; not for keys {bad[:5]}")
    parts = score_c2c(gold, pred)
    return {"score": parts.pop("codebleu"), **parts, "parser": parser_name()}


def _describe(r: dict[str, Any]) -> str:
    return (
        f"CodeBLEU = 0.25*(BLEU {r['bleu']:.6f} + weighted {r['weighted_bleu']:.6f} + "
        f"syntax {r['syntax']:.6f} + data-flow {r['dataflow']:.6f}); {r['n']} programs"
        + (f" (stopped at key {r['stopped_at']!r}: no prediction)" if "stopped_at" in r else "")
    )


METRIC = Metric(_score, _describe)

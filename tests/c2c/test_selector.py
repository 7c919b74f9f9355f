"""Style selector: the pieces it encodes, the candidates it compares, the styles it picks."""

from __future__ import annotations

import torch

from plugins.c2c.selector import (
    SWITCHES,
    all_texts,
    choose,
    features,
    java_pieces,
    make_candidates,
    python_lines,
)
from plugins.c2c.translate import Style

JAVA = "static int f ( int a ) { if ( a > 0 ) { a ++ ; } return a / 2 ; }"


def test_java_pieces_split_at_statement_boundaries() -> None:
    java = "static int f ( int a ) { if ( a > 0 ) { return a ; } return - a ; }"
    assert java_pieces(java) == ["static int f ( int a )", "if ( a > 0 )", "return a", "return - a"]
    assert len(java_pieces(" ".join(f"x{i} ;" for i in range(40)), limit=16)) == 16
    assert java_pieces("") == ["empty"]


def test_python_lines_drop_layout_tokens() -> None:
    assert python_lines("def f ( a ) : NEW_LINE INDENT return a NEW_LINE DEDENT") == ["def f ( a ) :", "return a"]


def test_candidates_hold_their_distinctive_lines() -> None:
    c = make_candidates(JAVA)
    assert c.styles[0] == Style() and len(c.styles) == 1 + len(SWITCHES)
    assert c.lines[0] == ("a += 1", "return a // 2")  # rarest first, MAX_DIFF_LINES of them
    by_name = dict(zip(SWITCHES, zip(c.lines[1:], c.texts[1:], strict=True), strict=True))
    assert by_name["cond_parens"][0] == ("if a > 0 :", "a += 1")
    assert by_name["int_cast_div"][0] == ("return int ( a / 2 )", "a += 1")
    assert by_name["semicolons"][0] == ("a += 1 ;", "return a // 2 ;")
    assert by_name["range_zero"] == ((), "")  # no loop: flipping it changes nothing
    texts = all_texts([c])
    assert texts[:2] == ["static int f ( int a )", "if ( a > 0 )"] and len(texts) == len(set(texts))


def test_features_and_choice() -> None:
    c = make_candidates(JAVA)
    table = {t: torch.ones(4) * (i + 1) for i, t in enumerate(all_texts([c]))}
    x, mask = features([c], table, 4)
    assert x.shape == (1, 1 + len(SWITCHES), 12)
    assert mask.tolist() == [[True, True, True, True, False, True, False]]
    scores = torch.tensor([[0.0, 0.2, -1.0, 0.9, 5.0, 0.3, 3.0]])
    # masked candidates never win; another candidate must lead the default by the margin
    assert choose(scores, mask, margin=0.5) == [3]
    assert choose(scores, mask, margin=1.0) == [0]

"""Comparing answers that carry floats computed by torch, numpy or BLAS.

Such floats differ in their last bits between CPUs (the SIMD width changes the order of
additions) and between batch shapes, so tests compare them with a tolerance. Everything else
in an answer (texts, labels, keys and their order, integers, booleans, list lengths) is
compared exactly.
"""

from __future__ import annotations

import math
from typing import Any

#: Boxes are written rounded to 0.1 px: two runs whose coordinates differ in the last bit can
#: round to neighbouring tenths, never further apart.
BOX_ROUNDING = 0.1 + 1e-9


def assert_same_answers(got: Any, want: Any, *, rel: float = 1e-6, abs_tol: float = 0.0, where: str = "") -> None:
    """``got`` equals ``want``, floats within ``rel`` (relative) or ``abs_tol`` (absolute).

    Dict keys must match in the same order; ints and bools are compared exactly.
    """
    at = where or "answer"
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, (int, float)) and isinstance(want, (int, float)), f"{at}: {got!r} != {want!r}"
        assert not isinstance(got, bool) and not isinstance(want, bool), f"{at}: {got!r} != {want!r}"
        close = math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol) or got == want  # == for inf
        assert close, f"{at}: {got!r} != {want!r} (rel {rel}, abs {abs_tol})"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{at}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_answers(got[key], want[key], rel=rel, abs_tol=abs_tol, where=f"{at}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{at}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same_answers(g, w, rel=rel, abs_tol=abs_tol, where=f"{at}[{i}]")
    else:
        assert type(got) is type(want) and got == want, f"{at}: {got!r} != {want!r}"

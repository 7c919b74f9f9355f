"""The failure-kind repros of ``tests/c2c/data/kinds`` (``bench.c2c_kinds``): each ``.out`` is what
the Java prints on its ``.in``, and each repro reads as the challenge's token form."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.c2c_kinds import KINDS, about, java_tokens
from plugins.c2c.translate import is_program, parses_cleanly

NAMES = sorted(p.stem for p in KINDS.glob("*.java"))


def test_every_kind_is_complete() -> None:
    assert NAMES
    for name in NAMES:
        java = (KINDS / f"{name}.java").read_text(encoding="utf-8")
        assert (KINDS / f"{name}.in").is_file() and (KINDS / f"{name}.out").read_text(encoding="utf-8").strip()
        assert about(java), f"{name}.java needs a first // comment saying what it exercises"
        request = java_tokens(java)
        assert is_program(request) and parses_cleanly(request), name
        assert "//" not in request


def test_java_tokens_split_strings_and_drop_comments() -> None:
    java = 'int x = 1; // one\n/* two */ String s = "a b"; x >>>= 2;'
    assert java_tokens(java) == 'int x = 1 ; String s = " a \u2581 b " ; x >>>= 2 ;'


@pytest.mark.usefixtures("jdk")
@pytest.mark.parametrize("name", NAMES)
def test_expected_output_is_what_the_java_prints(name: str, tmp_path: Path) -> None:
    from bench.c2c_programs import run_java_oracle

    java = (KINDS / f"{name}.java").read_text(encoding="utf-8")
    oracle = run_java_oracle(java, (KINDS / f"{name}.in").read_bytes(), tmp_path, 30.0)
    assert oracle["status"] == "ran", oracle
    assert oracle["stdout"] == (KINDS / f"{name}.out").read_text(encoding="utf-8")

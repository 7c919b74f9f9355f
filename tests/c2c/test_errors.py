"""C2C translator bugs: raised as TranslationBug naming the Java construct; caught per request by the task."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from plugins.c2c.errors import TranslationBug
from plugins.c2c.expressions import ExpressionsMixin
from plugins.c2c.task import MINIMAL_PROGRAM, C2cSample, C2cTask, _Selector, clean_request
from plugins.c2c.translate import translate

DATA = Path(__file__).parent / "data"
FUNCTION = "int f ( int a ) { return a + 1 ; }"
OTHER = "int g ( int b ) { return b * 2 ; }"


@pytest.fixture
def buggy_plus(monkeypatch: pytest.MonkeyPatch) -> None:
    """A translator bug: the handler of `a + 1` raises KeyError."""
    original = ExpressionsMixin._ex_binary_expression

    def broken(self, node):  # type: ignore[no-untyped-def]
        if self.text(node) == "a + 1":
            raise KeyError("plus")
        return original(self, node)

    monkeypatch.setattr(ExpressionsMixin, "_ex_binary_expression", broken)


def test_bug_names_the_construct(buggy_plus: None) -> None:
    with pytest.raises(TranslationBug) as info:
        translate(FUNCTION)
    bug = info.value
    assert (bug.node_type, bug.java, bug.line, bug.column) == ("binary_expression", "a + 1", 1, 25)
    assert isinstance(bug.__cause__, KeyError)
    assert "binary_expression 'a + 1'" in str(bug)


def test_bug_in_a_program_names_the_construct(buggy_plus: None) -> None:
    java = (
        "public class Main { public static void main ( String [ ] args ) { "
        "int a = 2 ; System . out . println ( a + 1 ) ; } }"
    )
    with pytest.raises(TranslationBug, match="binary_expression 'a \\+ 1'"):
        translate(java)


def test_task_catches_a_bug_per_request_and_logs_it(buggy_plus: None, caplog: pytest.LogCaptureFixture) -> None:
    task = C2cTask()
    loaded = _Selector(None)
    samples = [C2cSample("bad", FUNCTION), C2cSample("good", OTHER)]
    with caplog.at_level(logging.WARNING, logger="plugins.c2c.task"):
        preds = task.postprocess(task.predict(task.preprocess(samples, None, loaded), None, loaded), samples, loaded)  # type: ignore[arg-type]
    assert preds[0].value == MINIMAL_PROGRAM
    assert preds[1].value == "def g ( b ) : NEW_LINE INDENT return b * 2 NEW_LINE DEDENT"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and all("binary_expression 'a + 1'" in r.getMessage() for r in errors)
    assert "C2C request bad" in errors[0].getMessage()


def test_no_translator_bug_on_the_fixtures() -> None:
    """Every hand-made request translates without a TranslationBug (a bug fails here, not as a fallback)."""
    requests = json.loads((DATA / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    pairs = [json.loads(line) for line in (DATA / "train_pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    sources = [clean_request(k, v) for k, v in requests.items()] + [" ".join(p["java"]) for p in pairs if "java" in p]
    for java in sources:
        if java:
            translate(java)

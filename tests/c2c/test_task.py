# ruff: noqa: E501
"""C2C task: conformance, bad input, selector loading and training on a fake trunk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import InputError, TrunkError
from core.task import RunContext, SetupContext
from core.testing import assert_task_conforms, make_fake_trunk
from plugins.c2c.detok import compiles
from plugins.c2c.task import (
    MAX_CHARS,
    MINIMAL_PROGRAM,
    C2cRaw,
    C2cSample,
    C2cTask,
    _Selector,
    clean_request,
    load_selector,
    program_candidates,
    safe_translate,
)

DATA = Path(__file__).parent / "data"
FACT = (
    "def fact ( n ) : NEW_LINE INDENT r = 1 NEW_LINE for i in range ( 2 , n + 1 ) : NEW_LINE INDENT r *= i NEW_LINE "
    "DEDENT return r NEW_LINE DEDENT"
)


@pytest.fixture(scope="module")
def selector_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A selector head trained by ``plugins.c2c.train`` on the fake trunk and the hand-written pairs."""
    from plugins.c2c.train.fit import fit_head
    from training import Sources, TrainRequest

    out = tmp_path_factory.mktemp("selector")
    data = {"c2c_jsonl": [DATA / "train_pairs.jsonl"]}
    fit_head(TrainRequest(make_fake_trunk(), out, Sources(data), progress=False, data_root=None), epochs=3)
    return out


def test_conforms_with_selector(selector_dir: Path) -> None:
    task = C2cTask(weights_dir=selector_dir)
    preds = {p.key: p.value for p in assert_task_conforms(task, DATA / "input", make_fake_trunk())}
    assert task.setup(SetupContext(make_fake_trunk())).head is not None
    assert set(preds) == {"0", "1", "2", "3", "4", "5", "6"}
    assert all(isinstance(v, str) and compiles(v) for v in preds.values())
    assert preds["2"] == preds["3"] == MINIMAL_PROGRAM
    assert preds["6"].startswith("def twice ( x ) :")


def test_conforms_without_weights_uses_default_style(tmp_path: Path) -> None:
    task = C2cTask(weights_dir=tmp_path)
    preds = {p.key: p.value for p in assert_task_conforms(task, DATA / "input", make_fake_trunk())}
    assert task.setup(SetupContext(make_fake_trunk())).head is None
    assert preds["0"] == FACT
    assert preds["1"] == "def isEven ( n ) : NEW_LINE INDENT return n % 2 == 0 NEW_LINE DEDENT"
    assert preds["5"] == 'def greet ( ) : NEW_LINE INDENT print ( " привет ▁ мир " ) NEW_LINE DEDENT'
    assert preds["6"] == "def twice ( x ) : NEW_LINE INDENT return 2 * x NEW_LINE DEDENT"
    assert compiles(preds["4"])


def test_random_trunk_still_answers_every_request(selector_dir: Path) -> None:
    task = C2cTask(weights_dir=selector_dir)
    preds = assert_task_conforms(task, DATA / "input", make_fake_trunk(ablation="random"))
    assert all(isinstance(p.value, str) and p.value for p in preds)


def test_selector_refuses_another_text_tower(selector_dir: Path, tmp_path: Path) -> None:
    for name in ("selector.safetensors", "selector.json"):
        (tmp_path / name).write_bytes((selector_dir / name).read_bytes())
    card = json.loads((tmp_path / "selector.json").read_text())
    card["trunk"] = {"text": "another-tower"}
    (tmp_path / "selector.json").write_text(json.dumps(card))
    with pytest.raises(TrunkError, match="c2c style selector"):
        load_selector(make_fake_trunk(), tmp_path)


def test_clean_request_handles_bad_values(caplog: pytest.LogCaptureFixture) -> None:
    assert clean_request("a", 42) == ""
    assert clean_request("b", None) == ""
    assert clean_request("c", "   ") == ""
    assert clean_request("d", "int\u00a0x\t=\n1 ;") == "int x = 1 ;"
    huge = "x = 1 ; " * 50_000
    out = clean_request("e", huge)
    assert len(out) <= MAX_CHARS and out.startswith("x = 1 ;")
    assert {"a", "b", "c", "e"} <= {r.args[0] for r in caplog.records if r.args}


def test_huge_request_still_gets_a_compiling_program() -> None:
    body = " ".join(f"s += {i} ;" for i in range(20_000))
    sample = C2cSample("0", clean_request("0", f"static int big ( ) {{ int s = 0 ; {body} return s ; }}"))
    value = safe_translate(sample.java)  # what postprocess answers when the candidates fail
    assert value.startswith("def big ( ) :") and compiles(value)


def test_fallback_never_raises() -> None:
    task = C2cTask()
    assert task.fallback(C2cSample("k", "")).value == MINIMAL_PROGRAM
    assert task.fallback(C2cSample("k", "{ { ( ( ;")).value == MINIMAL_PROGRAM
    deep = "static int f ( ) { return " + "( " * 3000 + "1" + " )" * 3000 + " ; }"
    assert compiles(task.fallback(C2cSample("k", deep)).value)


def test_discover_without_request_file(tmp_path: Path) -> None:
    (tmp_path / "C2C").mkdir()
    assert C2cTask().discover(tmp_path) == []
    (tmp_path / "C2C" / "other.txt").write_text("x")
    with pytest.raises(InputError):
        C2cTask().discover(tmp_path)


def test_import_is_cheap() -> None:
    code = "import sys, plugins.c2c; print(any(m in sys.modules for m in ('torch', 'tree_sitter', 'open_clip')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=DATA.parents[2])
    assert out.stdout.strip() == "False"


def test_discover_logs_unparseable_java(caplog: pytest.LogCaptureFixture) -> None:
    samples = C2cTask().discover(DATA / "input")
    assert [s.key for s in samples] == ["0", "1", "2", "3", "4", "5", "6"]
    warned = {r.args[0] for r in caplog.records if r.args}
    assert {"2", "3", "4"} <= warned and "0" not in warned


def test_write_counts_the_answers_the_guard_repaired(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # `Integer : : sum`: a method reference split in two, copied by the translator; the guard repairs its `if`
    broken = (
        "import java.util.* ; public class Main { static boolean heavy ( List < Integer > q , int w ) { "
        "if ( q . stream ( ) . reduce ( 0 , Integer : : sum ) > w ) { return true ; } return false ; } "
        "public static void main ( String [ ] args ) { System . out . println ( 1 ) ; } }"
    )
    fine = "int twice ( int x ) { return 2 * x ; }"
    task = C2cTask(weights_dir=tmp_path)
    samples = [C2cSample("k", broken), C2cSample("ok", fine)]
    raw = C2cRaw([program_candidates(broken), None], [0, 0])  # the second: translated in postprocess
    preds = task.postprocess(raw, samples, _Selector(None))
    caplog.set_level("INFO", logger="plugins.c2c.task")
    task.write(preds, samples, RunContext(tmp_path))
    assert "c2c: 1 of 2 answers repaired by the guard (k)" in caplog.messages
    assert all(compiles(p.value) for p in preds)

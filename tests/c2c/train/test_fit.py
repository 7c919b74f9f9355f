"""The C2C selector's trainer: pairs from both source kinds, the card, the typed interface."""

from __future__ import annotations

import json
from pathlib import Path

from core.testing import make_fake_trunk
from tests.c2c.test_task import DATA, selector_dir  # noqa: F401 - the module-scoped trained head


def test_training_writes_weights_and_card(selector_dir: Path) -> None:  # noqa: F811 - trained by fit_head
    card = json.loads((selector_dir / "selector.json").read_text())
    assert card["trunk"] == {"text": "fake-text-1"}
    assert card["embed_dim"] == 32
    assert card["data"] == {"c2c_jsonl": {"train_pairs.jsonl": 6}}
    assert card["task"] == "c2c" and card["seed"] == 0 and card["steps"] > 0 and "created" in card
    assert (selector_dir / "selector.safetensors").stat().st_size < 100_000


def test_unnamed_pairs_default_to_the_data_root(tmp_path: Path) -> None:
    from plugins.c2c.train.fit import DEFAULT_PAIRS, collect_pairs

    root = tmp_path / "data"
    (root / DEFAULT_PAIRS).parent.mkdir(parents=True)
    (root / DEFAULT_PAIRS).write_bytes((DATA / "train_pairs.jsonl").read_bytes())
    pairs, used = collect_pairs({}, root)
    assert len(pairs) == 6 and used == {"c2c_jsonl": {DEFAULT_PAIRS.name: 6}}
    assert collect_pairs({}, None) == ([], {})  # no data root: only what is named
    assert collect_pairs({"c2c_jsonl": []}, root) == ([], {})  # a named source replaces the default


def test_train_head_reads_a_challenge_set(tmp_path: Path) -> None:
    from plugins.c2c.train import train_head
    from training import HeadCard, Sources, TrainRequest

    (tmp_path / "set" / "input" / "C2C").mkdir(parents=True)
    (tmp_path / "set" / "true" / "C2C").mkdir(parents=True)
    java = {"a": "static int twice ( int x ) { return 2 * x ; }", "b": "static int one ( ) { return 1 ; }"}
    gold = {
        "a": "def twice ( x ) : NEW_LINE INDENT return 2 * x NEW_LINE DEDENT",
        "b": "def one ( ) : NEW_LINE INDENT return 1 NEW_LINE DEDENT",
    }
    (tmp_path / "set" / "input" / "C2C" / "requests.json").write_text(json.dumps(java))
    (tmp_path / "set" / "true" / "C2C" / "true_C2C.json").write_text(json.dumps(gold))
    data = {"challenge": [tmp_path / "set"], "c2c_jsonl": [DATA / "train_pairs.jsonl"], "htr": [tmp_path]}
    req = TrainRequest(make_fake_trunk(), tmp_path / "out", Sources(data), progress=False, options={"epochs": 1})
    head = train_head(req)
    assert isinstance(head, HeadCard) and set(head.dev_score) == {"heldout_sentence_bleu_gain"}
    card = json.loads(head.path.read_text())
    assert card["data"] == {"c2c_jsonl": {"train_pairs.jsonl": 6}, "challenge": {"set": 2}}
    assert (tmp_path / "out" / "selector.safetensors").is_file()
    assert list((tmp_path / "out" / "cache").glob("*/shard_*.pt"))

"""core.heads: per-trunk head folders and their lookup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.heads import card_matches, find_head, head_dir_for, search_dirs, write_card
from core.testing import make_fake_trunk


@pytest.fixture(scope="module")
def trunk():
    return make_fake_trunk(0)


def _card(trunk, **extra):
    return {"task": "demo", "trunk": dict(trunk.component_versions), **extra}


def test_user_folder_wins_over_shipped(tmp_path: Path, trunk) -> None:
    shipped = tmp_path / "shipped"
    write_card(shipped / "head.json", _card(trunk))
    user = tmp_path / "heads"
    write_card(head_dir_for(user, "demo", trunk) / "head.json", _card(trunk, steps=5))
    found = find_head("demo", trunk, "head.json", shipped=shipped, search=[user])
    assert found == head_dir_for(user, "demo", trunk)


def test_foreign_cards_are_skipped(tmp_path: Path, trunk) -> None:
    shipped = tmp_path / "shipped"
    write_card(shipped / "head.json", {"trunk": {"image": "another-tower"}})
    assert find_head("demo", trunk, "head.json", shipped=shipped, search=[tmp_path / "none"]) is None
    ablated = make_fake_trunk(0, ablation="random")
    assert find_head("demo", ablated, "head.json", shipped=shipped) is None


def test_an_ablated_trunk_uses_the_heads_of_the_trunk_it_ablates(tmp_path: Path, trunk) -> None:
    ablated = make_fake_trunk(0, ablation="random")
    assert ablated.component_versions != trunk.component_versions  # the ablation is marked
    write_card(tmp_path / "head.json", _card(trunk))
    assert find_head("demo", ablated, "head.json", shipped=tmp_path) == tmp_path
    assert card_matches(_card(trunk), ablated)


def test_unreadable_or_trunkless_cards_do_not_match(tmp_path: Path, trunk) -> None:
    (tmp_path / "head.json").write_text("{not json", encoding="utf-8")
    assert find_head("demo", trunk, "head.json", shipped=tmp_path) is None
    assert not card_matches({"task": "demo"}, trunk)
    with pytest.raises(ValueError, match="trunk"):
        write_card(tmp_path / "x.json", {"task": "demo"})


def test_card_is_plain_sorted_json(tmp_path: Path, trunk) -> None:
    path = write_card(tmp_path / "c.json", _card(trunk, b=1, a=2))
    assert list(json.loads(path.read_text(encoding="utf-8"))) == ["a", "b", "task", "trunk"]


def test_search_dirs_follow_option_then_environment(monkeypatch, tmp_path: Path) -> None:
    from core.request import PluginConfig

    assert search_dirs(PluginConfig(tmp_path)) == (tmp_path,)
    monkeypatch.setenv("FUSIONBRAIN_HEADS", str(tmp_path / "env"))
    assert search_dirs(PluginConfig()) == (tmp_path / "env",)
    assert search_dirs(None) == (tmp_path / "env",)


def test_the_trunk_needs_nothing_from_heads() -> None:
    """Heads are per trunk, so core.heads reads core.trunk; core.trunk never imports core.heads, not even
    for typing: the fit check lives on the trunk (no core.heads <-> core.trunk cycle)."""
    from tests.test_imports import Project

    project = Project()
    assert "core.heads" not in project.edges("core.trunk") and "core.trunk" in project.edges("core.heads")


def test_one_fit_check_for_cards_and_loaders(tmp_path: Path, trunk) -> None:
    """card_matches (head lookup) and Trunk.check_compatible (loaders) are one check: Trunk.mismatches."""
    import torch

    from core.errors import TrunkError
    from core.heads import mismatches, require_fit, save_head

    own = dict(trunk.component_versions)
    other = {**own, "text": "another-text-tower"}
    assert mismatches(own, trunk) == {} and mismatches(other, trunk) == {"text": ("another-text-tower", own["text"])}
    assert card_matches({"trunk": own}, trunk) and not card_matches({"trunk": other}, trunk)
    with pytest.raises(TrunkError, match="text: made for 'another-text-tower'"):
        require_fit(other, trunk, what="demo head")
    with pytest.raises(TrunkError, match="demo head was trained on another trunk"):
        trunk.check_compatible(other, what="demo head")
    trunk.check_compatible({"image": own["image"]}, what="demo head")  # a head that reads one tower only
    card = save_head(tmp_path / "h.safetensors", {"w": torch.ones(2, 3).t()}, tmp_path / "h.json", _card(trunk))
    assert json.loads(card.read_text())["trunk"] == own and (tmp_path / "h.safetensors").stat().st_size > 0


def test_the_one_head_loader_checks_the_file_the_trunk_and_freezes(tmp_path: Path, trunk) -> None:  # type: ignore[no-untyped-def]
    import torch

    from core.errors import TrunkError
    from core.heads import frozen, load_head_files, save_head
    from core.weights import WeightsError

    own = dict(trunk.component_versions)
    save_head(tmp_path / "h.safetensors", {"w": torch.ones(3, 2)}, tmp_path / "h.json", _card(trunk))
    card, tensors = load_head_files(trunk, tmp_path / "h.safetensors", tmp_path / "h.json", what="demo head")
    assert card["trunk"] == own and torch.equal(tensors["w"], torch.ones(3, 2))
    other = {**_card(trunk), "trunk": {**own, "text": "another-text-tower"}}
    save_head(tmp_path / "o.safetensors", {"w": torch.ones(3, 2)}, tmp_path / "o.json", other)
    with pytest.raises(TrunkError, match="demo head was trained on another trunk"):
        load_head_files(trunk, tmp_path / "o.safetensors", tmp_path / "o.json", what="demo head")
    # a head that reads the image tower only loads whatever text tower its card names
    load_head_files(trunk, tmp_path / "o.safetensors", tmp_path / "o.json", what="demo head", components=("image",))
    (tmp_path / "h.safetensors").write_bytes(b"0" * 16)
    with pytest.raises(WeightsError):
        load_head_files(trunk, tmp_path / "h.safetensors", tmp_path / "h.json", what="demo head")
    head = frozen(torch.nn.Sequential(torch.nn.Dropout(0.5), torch.nn.Linear(2, 2)))
    assert not head.training and not any(p.requires_grad for p in head.parameters())

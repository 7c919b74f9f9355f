"""The documented held-out split is fixed: by image, sha1(file_name) mod 10 < 3."""

from __future__ import annotations

from plugins.vqa.train.data import is_heldout


def test_heldout_split_exact() -> None:
    assert is_heldout("COCO_val2014_000000262162.jpg")
    assert [i for i in range(12) if is_heldout(f"{i}.jpg")] == [0, 5, 7]
    assert sum(is_heldout(f"{i}.jpg") for i in range(1000)) == 316  # about 30 %

"""HTR's discovery: image names that look like digits or are not ASCII (issue 25)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def test_htr_discovery_survives_names_that_look_like_digits(tmp_path: Path) -> None:
    from plugins.htr.task import HtrTask

    images = tmp_path / "HTR" / "images"
    images.mkdir(parents=True)
    for name in ("².png", "٣.png", "10.png", "2.png", "word.png"):
        Image.new("RGB", (32, 16), "white").save(images / name)
    keys = [s.key for s in HtrTask().discover(tmp_path)]
    assert keys == ["2.png", "10.png", "word.png", "².png", "٣.png"]  # ASCII numbers first, in number order

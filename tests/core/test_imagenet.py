"""``core.imagenet``: timm's ImageNet-1k class table, read without importing timm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.imagenet import class_descriptions

REPO = Path(__file__).resolve().parents[2]


def test_the_descriptions_are_image_net_infos() -> None:
    timm_data = pytest.importorskip("timm.data")
    info = timm_data.ImageNetInfo()
    assert list(class_descriptions()) == [info.index_to_description(i) for i in range(1000)]
    assert class_descriptions()[0] == "tench, Tinca tinca"


def test_reading_them_imports_no_timm() -> None:
    code = (
        "import sys\nfrom core.imagenet import class_descriptions\nclass_descriptions()\nprint('timm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

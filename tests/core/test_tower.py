"""The default image tower, built from its weight file without timm (``core.backends._tower``).

timm's ``tf_efficientnet_lite0`` with the same file loaded is the reference: the folded,
timm-free tower gives its maps and logits (to float tolerance: folding BatchNorm reorders the
sums). Bit-for-bit equality with the tower as built through timm before is a bench check
(``docs/results.md``), not a test (STYLE 13).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from core.backends._tower import LiteTower, build_net, weight_file
from core.errors import TrunkError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tower(default_trunk):  # type: ignore[no-untyped-def]
    return default_trunk._backend.tower  # noqa: SLF001 - the session trunk's tower


def test_the_tower_gives_timm_models_maps_and_logits(tower: LiteTower) -> None:
    timm = pytest.importorskip("timm")
    reference = timm.create_model("tf_efficientnet_lite0", pretrained=False, num_classes=1000).eval()
    source = torch.load(weight_file("efficientnet_lite0"), map_location="cpu", weights_only=True)
    reference.load_state_dict(dict(zip(reference.state_dict().keys(), source.values(), strict=True)))
    taps = {2: "stride 8", 4: "stride 16"}
    for h, w in ((224, 224), (64, 96), (97, 130)):  # odd sides: the "same" padding of every stride-2 step
        x = torch.randn(2, 3, h, w, generator=torch.Generator().manual_seed(h))
        with torch.inference_mode():
            want = []
            y = reference.bn1(reference.conv_stem(x))
            for i, stage in enumerate(reference.blocks):
                y = stage(y)
                if i in taps:
                    want.append(y)
            want.append(reference.bn2(reference.conv_head(y)))
            got = tower(x)
            logits = tower.classify(got[-1].mean(dim=(2, 3)))
            want_logits = reference.classifier(want[-1].mean(dim=(2, 3)))
        assert [g.shape for g in got] == [t.shape for t in want]
        for g, t in zip(got, want, strict=True):
            torch.testing.assert_close(g, t, atol=2e-4, rtol=1e-4)
        torch.testing.assert_close(logits, want_logits, atol=2e-4, rtol=1e-4)
        assert torch.equal(logits.argmax(1), want_logits.argmax(1))


def test_the_tower_keeps_the_weights_count_and_the_stage_layout(tower: LiteTower) -> None:
    assert tower.channels == (40, 112, 1280) and tower.feature_dim == 1280
    assert [len(s) for s in tower.net.blocks] == [1, 2, 2, 3, 3, 4, 1]
    # every weight of the file, BatchNorms folded: convolutions (with their folded biases) and the classifier
    assert sum(t.numel() for t in tower.state_dict().values()) == 4_631_000


def test_a_file_that_is_not_an_efficientnet_lite_is_refused() -> None:
    source = torch.load(weight_file("efficientnet_lite0"), map_location="cpu", weights_only=True)
    with pytest.raises(KeyError):
        build_net({k: v for k, v in source.items() if not k.startswith("_conv_head.")})
    with pytest.raises(ValueError, match="unexpected weights"):
        build_net({**source, "extra.weight": torch.zeros(1)})
    with pytest.raises(ValueError, match="block stages"):
        build_net({k: v for k, v in source.items() if not k.startswith(("_blocks.15.", "_blocks.14."))})
    with pytest.raises(TrunkError, match="unknown image tower"):
        LiteTower("efficientnet_lite9")


def test_building_the_default_trunk_imports_neither_timm_nor_torchvision() -> None:
    code = (
        "import sys\n"
        "from core.backends.default import build_default_backend\n"
        "from core.trunk_types import TrunkConfig\n"
        "build_default_backend(TrunkConfig())\n"
        "print(sorted(m for m in ('timm', 'torchvision', 'torch._dynamo') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"

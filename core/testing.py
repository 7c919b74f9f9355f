"""Test helpers shipped with the package, so third-party task plugins can use them.

* ``FakeBackend`` / ``make_fake_trunk``: a seeded, tiny trunk with the real
  ``Trunk`` interface (a few convolutions and an embedding bag), CPU only.
* ``assert_task_conforms``: the conformance suite every task must pass.
"""

from __future__ import annotations

import json
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.task import Prediction, Sample, Task

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import FeatureMaps, TextTokens, TokenStates, Trunk


def _fake_backend_class() -> type:
    import torch
    from torch import nn

    from core.trunk import FeatureMaps, TextTokens, TokenStates

    class FakeBackend(nn.Module):
        """Seeded tiny towers: 3 strided convs (strides 8/16/32) and a hashed embedding bag."""

        embed_dim = 32
        image_size = 64
        vocab = 4096
        component_versions = {"image": "fake-image-1", "text": "fake-text-1", "joint": "fake-joint-1"}

        def __init__(self, seed: int = 0) -> None:
            super().__init__()
            gen = torch.Generator().manual_seed(seed)
            self.stem = nn.Conv2d(3, 8, kernel_size=8, stride=8)
            self.down16 = nn.Conv2d(8, 16, kernel_size=2, stride=2)
            self.down32 = nn.Conv2d(16, 24, kernel_size=2, stride=2)
            self.image_proj = nn.Linear(24, self.embed_dim)
            self.token_emb = nn.Embedding(self.vocab, 16)
            self.text_proj = nn.Linear(16, self.embed_dim)
            for p in self.parameters():
                with torch.no_grad():
                    p.copy_(torch.randn(p.shape, generator=gen) * 0.3)

        def image_transform(self, image: Image.Image) -> torch.Tensor:
            rgb = image.convert("RGB").resize((self.image_size, self.image_size))
            data = torch.frombuffer(bytearray(rgb.tobytes()), dtype=torch.uint8)
            return data.view(self.image_size, self.image_size, 3).permute(2, 0, 1).float() / 255.0 - 0.5

        def tokenize(self, texts: Sequence[str]) -> TextTokens:
            rows = [[zlib.crc32(w.lower().encode()) % (self.vocab - 1) + 1 for w in t.split()] or [0] for t in texts]
            width = max((len(r) for r in rows), default=1)
            ids = torch.zeros(len(rows), width, dtype=torch.long)
            for i, r in enumerate(rows):
                ids[i, : len(r)] = torch.tensor(r)
            return TextTokens(ids, ids > 0)

        def image_feature_maps(self, pixels: torch.Tensor) -> FeatureMaps:
            s8 = torch.relu(self.stem(pixels))
            s16 = torch.relu(self.down16(s8))
            s32 = torch.relu(self.down32(s16))
            return FeatureMaps((s8, s16, s32), (8, 16, 32))

        def project(self, pooled: torch.Tensor) -> torch.Tensor:
            return self.image_proj(pooled)

        def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
            return self.project(self.image_feature_maps(pixels).maps[-1].mean(dim=(2, 3)))

        def text_token_states(self, tokens: TextTokens) -> TokenStates:
            return TokenStates(self.token_emb(tokens.ids), tokens.mask)

        def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
            states = self.token_emb(tokens.ids) * tokens.mask.unsqueeze(-1)
            return self.text_proj(states.sum(1) / tokens.mask.sum(1, keepdim=True).clamp(min=1))

    return FakeBackend


def make_fake_trunk(seed: int = 0, *, ablation: str = "none") -> Trunk:
    """A frozen ``Trunk`` over ``FakeBackend``: fast, deterministic, no downloads."""
    from core.trunk import Trunk, TrunkConfig

    backend = _fake_backend_class()(seed)
    return Trunk(backend, TrunkConfig(backend="fake", model_name=f"fake-{seed}", ablation=ablation))


def assert_task_conforms(task: Task, sample_dir: Path, trunk: Trunk) -> list[Prediction]:
    """Run ``task`` through every stage on ``sample_dir`` and check the contract.

    Checks: ``discover`` on an empty dir returns ``[]``; discover on
    ``sample_dir`` finds samples; every stage returns its declared type;
    ``postprocess`` gives one prediction per sample with the sample's key and a
    value that survives a JSON round trip; ``fallback`` does too; ``write``
    produces exactly one file, named ``task.output_name``, holding every key.
    Returns the predictions for further, task-specific assertions.
    """
    import torch

    for attr in ("name", "version", "folder", "output_name"):
        assert isinstance(getattr(task, attr, None), str), f"{attr} must be a str class attribute"
    assert isinstance(task.batch_size, int) and task.batch_size > 0, "batch_size must be a positive int"
    with tempfile.TemporaryDirectory() as empty:
        assert task.discover(Path(empty)) == [], "discover() on an empty dir must return []"

    task.setup(trunk)
    samples = task.discover(sample_dir)
    assert samples, f"discover() found nothing in {sample_dir}"
    assert all(isinstance(s, Sample) for s in samples), "discover() must return Sample objects"
    batch = task.preprocess(samples, trunk)
    with torch.inference_mode():
        raw = task.predict(batch, trunk)
    predictions = task.postprocess(raw, samples)
    assert isinstance(predictions, list) and len(predictions) == len(samples), "one prediction per sample"
    for sample, pred in zip(samples, predictions, strict=True):
        assert isinstance(pred, Prediction) and pred.key == sample.key, f"prediction for {sample.key!r} is off"
        assert json.loads(json.dumps(pred.value)) == pred.value, f"value of {pred.key!r} is not JSON"
        fb = task.fallback(sample)
        assert isinstance(fb, Prediction) and fb.key == sample.key, "fallback must keep the sample key"
        assert json.loads(json.dumps(fb.value)) == fb.value, "fallback value must be JSON"

    with tempfile.TemporaryDirectory() as out:
        path = task.write(predictions, Path(out))
        files = sorted(p.name for p in Path(out).iterdir())
        assert files == [task.output_name], f"write() must produce exactly {task.output_name}, got {files}"
        written = json.loads(path.read_text(encoding="utf-8"))
        assert set(written) == {s.key for s in samples}, "the output file must hold every sample key"
    return predictions

"""Training anchored by a frozen teacher (``fit.train(teacher=..., distill=...)``, ``fit.distill_loss``).

The rendered words are distilled from the teacher while the real words (``real_*`` shards) are
learned by CTC alone; tiny random maps stand in for the trunk's, so this runs in seconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from plugins.htr.charset import NUM_CLASSES  # noqa: E402
from plugins.htr.model import HtrHead  # noqa: E402
from plugins.htr.train import fit  # noqa: E402

C8, C16, ROWS, COLS = 6, 5, 8, 16


def test_distill_loss_is_zero_on_the_teacher_and_pulls_towards_it() -> None:
    teacher = torch.log_softmax(torch.randn(2, 7, 11), dim=-1)
    assert float(fit.distill_loss(teacher, teacher)) == pytest.approx(0.0, abs=1e-6)
    student = torch.log_softmax(torch.randn(2, 7, 11), dim=-1).requires_grad_(True)
    loss = fit.distill_loss(student, teacher)
    assert float(loss.detach()) > 0
    loss.backward()
    # a step against the gradient lowers the divergence
    moved = torch.log_softmax(student.detach() - 0.5 * student.grad / student.grad.abs().max(), dim=-1)
    assert float(fit.distill_loss(moved, teacher)) < float(loss.detach())


def write_shard(path: Path, seed: int, texts: list[str]) -> None:
    rng = np.random.default_rng(seed)
    n = len(texts)
    np.savez(
        path,
        s8=rng.normal(size=(n, C8, ROWS, COLS)).astype(np.float16),
        s16=rng.normal(size=(n, C16, ROWS // 2, COLS // 2)).astype(np.float16),
        texts=np.array(texts),
        upright=np.ones(n, dtype=np.int64),
    )


def drift(tmp_path: Path, name: str, distill: float) -> float:
    """How far the trained head's readings of the rendered words moved from the start head's."""
    cache = tmp_path / name
    cache.mkdir()
    write_shard(cache / "dev.npz", 1, ["ab", "cd"])
    write_shard(cache / "train_00000.npz", 2, ["ab", "за", "cd", "мы"] * 4)
    write_shard(cache / "real_00000.npz", 3, ["Strasse", "Weg"] * 8)
    torch.manual_seed(0)
    start = HtrHead(C8, C16, NUM_CLASSES, rows=ROWS, width=8, hidden=8)
    torch.save({"head": start.state_dict(), "config": start.config}, tmp_path / f"{name}_start.pt")
    teacher = tmp_path / f"{name}_start.pt" if distill else None
    fit.train(
        cache, 30, 8, 3e-2, 5, 100, tmp_path / f"{name}_start.pt", progress=False, teacher=teacher, distill=distill
    )
    state = torch.load(cache / "checkpoint.pt", weights_only=False)
    assert state["recipe"].get("distill", 0) == distill
    tuned = HtrHead(**state["config"])
    tuned.load_state_dict(state["head"])
    rendered = np.load(cache / "train_00000.npz")
    maps = torch.from_numpy(rendered["s8"]).float(), torch.from_numpy(rendered["s16"]).float()
    with torch.no_grad():
        return float(fit.distill_loss(tuned.eval()(*maps).log_probs, start.eval()(*maps).log_probs))


def test_the_teacher_holds_the_rendered_readings(tmp_path: Path) -> None:
    free, anchored = drift(tmp_path, "free", 0.0), drift(tmp_path, "anchored", 20.0)
    assert anchored < 0.5 * free, (anchored, free)

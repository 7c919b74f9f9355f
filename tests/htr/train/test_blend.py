"""Weight-space blending of a fine-tuned head with its start (``fit.blend_weights``)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from plugins.htr.train.fit import blend_weights  # noqa: E402


def test_blend_interpolates_float_tensors_and_keeps_integer_buffers() -> None:
    tuned = {"w": torch.tensor([2.0, 4.0]), "bn.num_batches_tracked": torch.tensor(7)}
    start = {"w": torch.tensor([0.0, 8.0]), "bn.num_batches_tracked": torch.tensor(3)}
    half = blend_weights(tuned, start, 0.5)
    assert torch.allclose(half["w"], torch.tensor([1.0, 6.0]))
    assert int(half["bn.num_batches_tracked"]) == 7
    assert torch.allclose(blend_weights(tuned, start, 1.0)["w"], tuned["w"])
    assert torch.allclose(blend_weights(tuned, start, 0.0)["w"], start["w"])
    with pytest.raises(SystemExit):
        blend_weights(tuned, {"w": start["w"]}, 0.5)


def test_export_weights_averages_the_soup_before_the_blend() -> None:
    from plugins.htr.train.fit import export_weights

    tuned, other, start = ({"w": torch.tensor([v])} for v in (4.0, 2.0, 0.0))
    assert torch.allclose(export_weights(tuned)["w"], tuned["w"])
    assert torch.allclose(export_weights(tuned, soup=other)["w"], torch.tensor([3.0]))
    assert torch.allclose(export_weights(tuned, soup=other, blend=(start, 0.6))["w"], torch.tensor([1.8]))
    assert torch.allclose(export_weights(tuned, blend=(start, 0.5))["w"], torch.tensor([2.0]))

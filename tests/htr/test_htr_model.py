"""HtrHead growth: extra context blocks start as the identity, so a grown head reads as the old one."""

from __future__ import annotations

import torch

from plugins.htr.model import HtrHead


def test_grown_head_matches_the_old_one_until_trained() -> None:
    torch.manual_seed(0)
    old = HtrHead(8, 12, 20, rows=2, width=16, hidden=16).eval()
    grown = HtrHead(**{**old.config, "blocks": 3}).eval()
    missing, unexpected = grown.load_state_dict(old.state_dict(), strict=False)
    assert not unexpected and missing and all(k.startswith("more.") for k in missing)
    assert grown.config["blocks"] == 3 and "blocks" not in old.config  # old cards stay loadable as they are
    s8, s16 = torch.randn(2, 8, 2, 10), torch.randn(2, 12, 1, 5)
    assert torch.allclose(old(s8, s16).log_probs, grown(s8, s16).log_probs)
    assert sum(p.numel() for p in grown.parameters()) > sum(p.numel() for p in old.parameters())


def test_a_two_frame_head_reads_twice_the_frames_with_the_one_frame_heads_weights() -> None:
    torch.manual_seed(0)
    old = HtrHead(8, 12, 20, rows=2, width=16, hidden=16).eval()
    wide = HtrHead(**{**old.config, "frames": 2}).eval()
    wide.load_state_dict(old.state_dict())  # strict: no new weights
    assert wide.config["frames"] == 2 and "frames" not in old.config
    s8, s16 = torch.randn(2, 8, 2, 10), torch.randn(2, 12, 1, 5)
    out = wide(s8, s16)
    assert out.log_probs.shape == (2, 20, 20) and old(s8, s16).log_probs.shape == (2, 10, 20)
    assert torch.allclose(out.log_probs.exp().sum(-1), torch.ones(2, 20), atol=1e-5)

"""Trunk encoding speed on this machine: images/s, word feature maps/s, texts/s.

python -m bench.trunk_speed [--threads 2] [--trunk default]
"""

from __future__ import annotations

import argparse
import time

import torch

import registry
from core.trunk import TrunkConfig, load_trunk

CAPTIONS = [
    "a man riding a red bicycle down the street",
    "две собаки играют на траве у озера",
    "a bowl of soup",
    "кошка спит на диване",
] * 32


def _rate(fn, items: int, repeats: int = 3) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return items * repeats / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trunk", default="default")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    trunk = load_trunk(TrunkConfig.parse(args.trunk), registry.load())
    print(f"load {time.perf_counter() - start:.1f} s, {trunk.num_parameters():,} weights, threads {args.threads}")
    images = torch.rand(32, 3, trunk.image_size, trunk.image_size) * 2 - 1
    words = torch.rand(64, 3, 64, 256) * 2 - 1
    tokens = trunk.tokenize(CAPTIONS)
    with torch.inference_mode():
        print(f"encode_images      {_rate(lambda: trunk.encode_images(images), 32):7.1f} images/s (batch 32, 224 px)")
        rate = _rate(lambda: trunk.image_feature_maps(words), 64)
        print(f"image_feature_maps {rate:7.1f} words/s (batch 64, 64x256)")
        print(f"encode_texts       {_rate(lambda: trunk.encode_texts(tokens), len(CAPTIONS)):7.1f} texts/s (batch 128)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

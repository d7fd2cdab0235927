"""Regenerate ``p4.json``: what PyTorch says about a plain convolution and Cohen & Welling's p4
lifting convolution under 90° rotations (``mlsysim.symmetry``; section 6.3, Part F).

* ``image`` / ``kernel``: a seeded 7×7 integer image and 3×3 integer kernel (exact in float64);
* ``rot90_image[k]``: ``torch.rot90(image, k, dims=(0, 1))`` for k = 0..3 (counterclockwise);
* ``p4[k]``: ``F.conv2d`` (cross-correlation, stride 1, no padding) of the turned image with the
  kernel stacked in its four rotations (weight 4×1×3×3), for k = 0..3: four 5×5 maps each;
* ``plain[k]``: the same with the unturned kernel alone (one 5×5 map);
* ``flops``: ``FlopCounterMode`` of the plain conv and of the p4 conv on the 7×7 image, and of
  Part A's 64 -> 64 3×3 layer at 224×224 ('same' padding, no bias) and its p4 version
  (64 -> 256 output maps), on the meta device (1 MAC = 2 FLOPs).

Run with the torch venv::

    /work/venv-gt/bin/python tests/reference/regenerate_p4.py

The normal test run reads the JSON and never needs torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

OUT = Path(__file__).with_name("p4.json")


def _flops(fn) -> int:
    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def main() -> None:
    g = torch.Generator().manual_seed(36)
    image = torch.randint(-3, 4, (7, 7), generator=g).double()
    kernel = torch.randint(-2, 3, (3, 3), generator=g).double()
    weight = torch.stack([torch.rot90(kernel, r, dims=(0, 1)) for r in range(4)]).unsqueeze(1)
    rot, p4, plain = [], [], []
    for k in range(4):
        rx = torch.rot90(image, k, dims=(0, 1))
        rot.append(rx.tolist())
        p4.append(F.conv2d(rx[None, None], weight)[0].tolist())
        plain.append(F.conv2d(rx[None, None], kernel[None, None])[0, 0].tolist())
    x1 = torch.zeros(1, 1, 7, 7)
    xa = torch.zeros(1, 64, 224, 224, device="meta")
    wa = torch.zeros(64, 64, 3, 3, device="meta")
    wa4 = torch.zeros(256, 64, 3, 3, device="meta")
    flops = {
        "plain_7x7": _flops(lambda: F.conv2d(x1, torch.zeros(1, 1, 3, 3))),
        "p4_7x7": _flops(lambda: F.conv2d(x1, torch.zeros(4, 1, 3, 3))),
        "plain_64_224": _flops(lambda: F.conv2d(xa, wa, padding=1)),
        "p4_64_224": _flops(lambda: F.conv2d(xa, wa4, padding=1)),
    }
    data = {
        "torch": torch.__version__,
        "image": image.tolist(),
        "kernel": kernel.tolist(),
        "rot90_image": rot,
        "p4": p4,
        "plain": plain,
        "flops": flops,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Cross-check ``mlsysim.models.resnet`` and ``mobilenet_v2`` against torchvision on random
configurations that are *not* in the fixture: every ResNet depth (and ResNeXt / wide
``groups`` x ``width_per_group`` on the bottleneck depths), MobileNetV2 at random ``width_mult``
in [0.1, 2.0], random rectangular inputs from 32 to 320 pixels, random class counts and batches.

Params and FlopCounterMode FLOPs are measured on the ``meta`` device (shapes only) with
``regenerate.count_flops`` (the fixture's own convention). Needs torch and torchvision:

    /work/venv-gt/bin/python tests/reference/fuzz_torchvision.py [seed] [count]

Exits non-zero on any mismatch. Not part of the normal test run (it needs torch).
"""

from __future__ import annotations

import random
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]
warnings.filterwarnings("ignore")

try:  # regenerate.py imports transformers for its HF entries; torchvision models do not need it
    import transformers  # noqa: F401
except ImportError:
    import types

    sys.modules["transformers"] = types.ModuleType("transformers")

import regenerate as R  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402

from mlsysim import models as M  # noqa: E402

DEPTHS = (18, 34, 50, 101, 152)


def one(rng: random.Random):
    h, w = rng.randint(32, 320), rng.randint(32, 320)
    size = h if rng.random() < 0.3 else (h, w)
    if rng.random() < 0.3:
        h = w = size if isinstance(size, int) else h
    hw = (size, size) if isinstance(size, int) else size
    classes, batch = rng.randint(1, 2000), rng.randint(1, 3)
    if rng.random() < 0.6:
        depth = rng.choice(DEPTHS)
        groups, wpg = 1, 64
        if depth >= 50 and rng.random() < 0.5:
            groups, wpg = rng.choice([1, 2, 4, 8, 32]), rng.choice([4, 8, 16, 32, 64, 96, 128])
        desc = f"resnet{depth} g{groups} w{wpg} {hw} classes={classes} batch={batch}"
        ours = M.resnet(
            depth, input_size=size, num_classes=classes, groups=groups, width_per_group=wpg
        )
        tv = torchvision.models.ResNet(
            torchvision.models.resnet.Bottleneck
            if depth >= 50
            else torchvision.models.resnet.BasicBlock,
            {
                18: [2, 2, 2, 2],
                34: [3, 4, 6, 3],
                50: [3, 4, 6, 3],
                101: [3, 4, 23, 3],
                152: [3, 8, 36, 3],
            }[depth],
            num_classes=classes,
            groups=groups,
            width_per_group=wpg,
        )
    else:
        wm = round(rng.uniform(0.1, 2.0), 3)
        desc = f"mobilenet_v2 width_mult={wm} {hw} classes={classes} batch={batch}"
        ours = M.mobilenet_v2(wm, input_size=size, num_classes=classes)
        with torch.device("meta"):
            tv = torchvision.models.mobilenet_v2(width_mult=wm, num_classes=classes)
    tv = tv.to("meta").eval()
    x = torch.empty(batch, 3, *hw, device="meta")
    flops, _ = R.count_flops(lambda: tv(x))
    return desc, (ours.params, ours.flops(batch)), (R.n_params(tv), flops)


def main() -> int:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rng = random.Random(seed)
    bad = 0
    for _ in range(count):
        desc, got, want = one(rng)
        if got != want:
            bad += 1
            print(f"MISMATCH {desc}: mlsysim {got} torchvision {want}")
    print(f"{count - bad}/{count} torchvision models match (seed {seed})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Cross-check ``mlsysim.models.resnet`` and ``mobilenet_v2`` and every ``mlsysim.vision``
family against torchvision on random configurations that are *not* in the fixture: every ResNet
depth (and ResNeXt / wide ``groups`` x ``width_per_group`` on the bottleneck depths),
MobileNetV2 at random ``width_mult`` in [0.1, 2.0]; AlexNet, VGG-11...19 with and without BN,
ViT (every variant, image sizes that are multiples of its patch), ConvNeXt, EfficientNet B0-B7
and V2, MobileNetV3 (random ``width_mult``), Swin v1/v2, every RegNet, Inception v3 and
GoogLeNet (with and without the auxiliary heads); random rectangular inputs from 32 (63 for AlexNet, 75 for
Inception) to 320 pixels, random class counts and batches.

Params and FlopCounterMode FLOPs are measured on the ``meta`` device (shapes only) with
``regenerate.count_flops`` (the fixture's own convention). Needs torch and torchvision:

    /work/venv-gt/bin/python tests/reference/fuzz_torchvision.py [--vision] [seed] [count]

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
from mlsysim import vision as V  # noqa: E402

DEPTHS = (18, 34, 50, 101, 152)


def _size(rng: random.Random, least: int):
    h, w = rng.randint(least, 320), rng.randint(least, 320)
    return h if rng.random() < 0.4 else (h, w)


def vision_case(rng: random.Random):
    """(description, mlsysim model, torchvision model, input hw) of one random vision family."""
    fam = rng.choice(
        [
            "alexnet",
            "vgg",
            "vit",
            "convnext",
            "effnet",
            "mnv3",
            "swin",
            "regnet",
            "inception",
            "googlenet",
        ]
    )
    classes = rng.randint(1, 2000)
    kw: dict = {"num_classes": classes}
    if fam == "vit":
        variant = rng.choice(list(V._VIT))
        patch = V._VIT[variant][0]
        size = patch * rng.randint(1, 320 // patch)
        ours, arch = V.vit(variant, size, classes), f"vit_{variant}"
        kw["image_size"] = size
    else:
        size = _size(rng, {"alexnet": 63, "inception": 75}.get(fam, 32))
        if fam == "alexnet":
            ours, arch = V.alexnet(size, classes), "alexnet"
        elif fam == "vgg":
            depth, bn = rng.choice([11, 13, 16, 19]), rng.random() < 0.5
            ours, arch = V.vgg(depth, bn, size, classes), f"vgg{depth}{'_bn' if bn else ''}"
        elif fam == "convnext":
            variant = rng.choice(list(V._CONVNEXT))
            ours, arch = V.convnext(variant, size, classes), f"convnext_{variant}"
        elif fam == "effnet":
            variant = rng.choice([*V._EFFNET_MULT, *V._EFFNET_V2])
            ours, arch = V.efficientnet(variant, size, classes), f"efficientnet_{variant}"
        elif fam == "mnv3":
            variant, wm = rng.choice(["large", "small"]), round(rng.uniform(0.1, 2.0), 3)
            ours, arch = V.mobilenet_v3(variant, wm, size, classes), f"mobilenet_v3_{variant}"
            kw["width_mult"] = wm
        elif fam == "swin":
            variant, v2 = rng.choice(list(V._SWIN)), rng.random() < 0.5
            ours, arch = V.swin(variant, v2, size, classes), f"swin_{'v2_' if v2 else ''}{variant}"
        elif fam == "regnet":
            variant = rng.choice(list(V._REGNET))
            ours, arch = V.regnet(variant, size, classes), f"regnet_{variant}"
        elif fam == "googlenet":
            aux = rng.random() < 0.5
            ours, arch = V.googlenet(size, classes, aux), "googlenet"
            kw["aux_logits"] = aux
        else:
            aux = rng.random() < 0.5
            ours, arch = V.inception_v3(size, classes, aux), "inception_v3"
            kw["aux_logits"] = aux
    hw = (size, size) if isinstance(size, int) else size
    desc = f"{arch} {kw} {hw}"
    return desc, ours, R.tv_zoo_model(arch, **kw), hw


def one(rng: random.Random):
    h, w = rng.randint(32, 320), rng.randint(32, 320)
    size = h if rng.random() < 0.3 else (h, w)
    if rng.random() < 0.3:
        h = w = size if isinstance(size, int) else h
    hw = (size, size) if isinstance(size, int) else size
    classes, batch = rng.randint(1, 2000), rng.randint(1, 3)
    if VISION:
        desc, ours, tv, hw = vision_case(rng)
        desc += f" batch={batch}"
    elif rng.random() < 0.6:
        depth = rng.choice(DEPTHS)
        groups, wpg = 1, 64
        if depth >= 50 and rng.random() < 0.5:
            groups, wpg = rng.choice([1, 2, 4, 8, 32]), rng.choice([4, 8, 16, 32, 64, 96, 128])
        desc = f"resnet{depth} g{groups} w{wpg} {hw} classes={classes} batch={batch}"
        ours = M.resnet(
            depth, input_size=size, num_classes=classes, groups=groups, width_per_group=wpg
        )
        with torch.device("meta"):  # shapes only: a wide ResNeXt's real weights take GBs
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


#: set by ``--vision``: draw from the mlsysim.vision families instead of ResNet / MobileNetV2
VISION = False


def main() -> int:
    global VISION
    VISION = "--vision" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--vision"]
    seed = int(args[0]) if args else 0
    count = int(args[1]) if len(args) > 1 else 40
    rng = random.Random(seed)
    bad = 0
    for _ in range(count):
        desc, got, want = one(rng)
        if got != want:
            bad += 1
            print(f"MISMATCH {desc}: mlsysim {got} torchvision {want}")
    what = "torchvision vision-zoo" if VISION else "torchvision ResNet/MobileNetV2"
    print(f"{count - bad}/{count} {what} models match (seed {seed})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Regenerate tests/reference/torchvision_accuracy.json: the ImageNet-1k accuracies, parameter
counts and operation counts that torchvision documents for its pretrained weights.

The figures come from each weights enum's ``meta`` (the same numbers torchvision's model docs
print), read from the installed package; nothing is downloaded. Run with the torch venv:

    /work/venv-torch/bin/python tests/reference/regenerate_accuracy.py

``tests/test_accuracy.py`` asserts every torchvision figure in ``mlsysim/accuracy.py`` against
this file, so the registry and the package cannot drift apart silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import torchvision
from torchvision.models import get_model_weights

OUT = Path(__file__).resolve().parent / "torchvision_accuracy.json"

WEIGHTS = [
    ("alexnet", "IMAGENET1K_V1"),
    ("vgg16", "IMAGENET1K_V1"),
    ("googlenet", "IMAGENET1K_V1"),
    ("inception_v3", "IMAGENET1K_V1"),
    ("resnet18", "IMAGENET1K_V1"),
    ("resnet34", "IMAGENET1K_V1"),
    ("resnet50", "IMAGENET1K_V1"),
    ("resnet50", "IMAGENET1K_V2"),
    ("resnet101", "IMAGENET1K_V1"),
    ("resnet152", "IMAGENET1K_V1"),
    ("mobilenet_v2", "IMAGENET1K_V1"),
    ("mobilenet_v3_large", "IMAGENET1K_V1"),
    ("efficientnet_b0", "IMAGENET1K_V1"),
    ("vit_b_16", "IMAGENET1K_V1"),
    ("vit_b_16", "IMAGENET1K_SWAG_E2E_V1"),
    ("swin_t", "IMAGENET1K_V1"),
    ("convnext_tiny", "IMAGENET1K_V1"),
]


def main() -> None:
    out = {
        "generated_by": "tests/reference/regenerate_accuracy.py",
        "torchvision": torchvision.__version__,
        "note": "meta['_ops'] is documented as GFLOPS but counts multiply-accumulates "
        "(ResNet-50: 4.089 = 4,089,184,256 MACs)",
        "weights": {},
    }
    for model, tag in WEIGHTS:
        w = get_model_weights(model)[tag]
        m = w.meta
        acc = m["_metrics"]["ImageNet-1K"]
        out["weights"][f"{type(w).__name__}.{tag}"] = {
            "model": model,
            "acc@1": acc["acc@1"],
            "acc@5": acc["acc@5"],
            "num_params": m["num_params"],
            "ops_g": m["_ops"],
            "recipe": m["recipe"],
            "crop_size": w.transforms.keywords.get("crop_size"),
        }
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(out['weights'])} weights)")


if __name__ == "__main__":
    main()

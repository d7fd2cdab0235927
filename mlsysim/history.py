"""The hardware of 2012, and what AlexNet's training asked of it (section 6.9, longer edition).

"AlexNet trained its 60-million-parameter network on two GTX 580 GPUs" (Krizhevsky et al. 2012:
"five to six days on two NVIDIA GTX 580 3GB GPUs"). This module holds the two historical chips
as validated ``mlsysim.hardware.Device`` specs with their datasheets, kept apart from the
student catalogue (``Hardware``, ``catalogue``: they are not offered in any device picker), and
the two counts the lesson needs:

- **Training work** of an image classifier on a schedule: forward + backward ≈ 3 × the forward
  FLOPs per image (the backward pass computes a gradient for the inputs and one for the weights,
  each about one forward's work), × images × epochs. Time = work / (rate × efficiency).
- **Training state on one card** (FP32, SGD with momentum): weights, their gradients, one
  momentum buffer each, plus every layer's output stored for the backward pass at the batch
  size (the input included). No workspace (im2col buffers, cuDNN scratch) and no dropout masks:
  a lower bound.

1 MAC = 2 FLOPs; GB = 10⁹ bytes. Rates are datasheet peaks (FP32, no tensor cores in 2012).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from . import _check
from .hardware import _GPU_TAX_NOTE, Compute, Device, Memory, Provenance, _rate
from .published import Published
from .units import bytes_per_value

__all__ = [
    "GTX580",
    "XEON_E5_2690",
    "DEVICES",
    "ALEXNET_SCHEDULE",
    "TrainingState",
    "training_flops",
    "training_seconds",
    "training_state",
    "implied_efficiency",
    "MAX_EPOCHS",
    "MAX_IMAGES",
]

#: the most epochs and images ``training_flops`` prices
MAX_EPOCHS = 10_000
MAX_IMAGES = 10**12
#: forward + backward ≈ 3 × forward (backward: gradients for the inputs and for the weights)
TRAIN_MULTIPLIER = 3

_GPU_TAX = _GPU_TAX_NOTE + " Applied to a 2010 card (CUDA 4 era); not measured on it."

#: NVIDIA GeForce GTX 580 (Fermi GF110, November 2010): 512 CUDA cores at a 1,544 MHz shader
#: clock, one fused multiply-add (2 FLOPs) per core per clock: 512 × 1.544 GHz × 2 = 1,581.1
#: GFLOP/s FP32; GeForce Fermi runs FP64 at 1/8 of FP32. 384-bit GDDR5 at 4,008 MT/s: 192.4
#: GB/s. The reference card has 1.5 GB; AlexNet used the 3 GB variant (the capacity listed).
GTX580 = Device(
    name="NVIDIA GeForce GTX 580 (3 GB)",
    key="GTX580",
    tier="Historical",
    memory=Memory(capacity=(3, "GB"), bandwidth=(192.4, "GB/s"), kind="GDDR5"),
    compute=Compute(
        quoted_precision="fp32",
        precisions={
            "fp32": _rate(1581.1, unit="GFLOP/s", kind="vector"),
            "fp64": _rate(197.6, unit="GFLOP/s", kind="vector"),
        },
    ),
    dispatch_tax=(5, "us"),
    dispatch_note=_GPU_TAX,
    tdp=(244, "W"),
    provenance=Provenance(
        document="NVIDIA GeForce GTX 580 specifications (graphics card specifications page)",
        url="https://www.nvidia.com/en-us/geforce/graphics-cards/geforce-gtx-580/specifications/",
        date=_dt.date(2010, 11, 9),
        notes="512 CUDA cores, 1,544 MHz processor clock, 384-bit GDDR5 at 4,008 MT/s "
        "(192.4 GB/s), 1,536 MB standard (board partners shipped 3 GB), 244 W. FP32 peak = "
        "512 × 1.544 GHz × 2 FLOP (FMA) = 1,581.1 GFLOP/s.",
    ),
)

#: Intel Xeon E5-2690 (Sandy Bridge-EP, Q1 2012): 8 cores at 2.9 GHz base; AVX issues one
#: 8-wide FP32 add and one 8-wide FP32 multiply per cycle (16 FLOP/cycle/core): 8 × 2.9 × 16 =
#: 371.2 GFLOP/s FP32 (185.6 FP64), at base clock. Four DDR3-1600 channels: 51.2 GB/s.
XEON_E5_2690 = Device(
    name="Intel Xeon E5-2690 (8 cores, 2012)",
    key="XeonE5_2690",
    tier="Historical",
    memory=Memory(capacity=(750, "GB"), bandwidth=(51.2, "GB/s"), kind="DDR3-1600, 4 channels"),
    compute=Compute(
        quoted_precision="fp32",
        precisions={
            "fp32": _rate(371.2, unit="GFLOP/s", kind="cpu"),
            "fp64": _rate(185.6, unit="GFLOP/s", kind="cpu"),
        },
    ),
    dispatch_tax=(20, "us"),
    dispatch_note="20 us per operator: a planning assumption for a CPU runtime; not measured.",
    tdp=(135, "W"),
    provenance=Provenance(
        document="Intel ARK, Intel Xeon Processor E5-2690 (20M Cache, 2.90 GHz, 8.00 GT/s QPI)",
        url="https://www.intel.com/content/www/us/en/products/sku/64596/intel-xeon-processor-e52690-20m-cache-2-90-ghz-8-00-gts-intel-qpi/specifications.html",
        date=_dt.date(2012, 3, 6),
        notes="Launched Q1'12: 8 cores, 2.90 GHz base (3.80 GHz turbo), AVX, 4 memory channels, "
        "51.2 GB/s, max memory 750 GB, 135 W TDP. FP32 peak at base clock = 8 cores × 2.9 GHz × "
        "16 FLOP/cycle (one 8-wide AVX add + one 8-wide AVX multiply) = 371.2 GFLOP/s.",
    ),
)

DEVICES: dict[str, Device] = {d.key: d for d in (GTX580, XEON_E5_2690)}

_KSH = (
    "Krizhevsky, Sutskever and Hinton, 'ImageNet Classification with Deep Convolutional Neural "
    "Networks', NeurIPS 2012"
)
_KSH_URL = "https://papers.nips.cc/paper/2012/hash/c399862d3b9d6b76c8436e924a68c45b-Abstract.html"

#: The paper's training schedule and hardware (section 3.2 and 5).
ALEXNET_SCHEDULE = {
    "images": Published(
        1.2e6, "images", "ImageNet training images", _KSH, "section 2", _KSH_URL, 2012
    ),
    "epochs": Published(
        90, "epochs", "passes through the training set", _KSH, "section 5", _KSH_URL, 2012
    ),
    "batch": Published(128, "examples", "batch size", _KSH, "section 5", _KSH_URL, 2012),
    "momentum": Published(0.9, "coefficient", "SGD momentum", _KSH, "section 5", _KSH_URL, 2012),
    "days": Published(
        (5.0, 6.0),
        "days",
        "training time on two NVIDIA GTX 580 3GB GPUs",
        _KSH,
        "section 5",
        _KSH_URL,
        2012,
    ),
    "gpus": Published(
        2,
        "GPUs",
        "GTX 580s the network was spread across ('3GB of memory, which limits the maximum size "
        "of the networks that can be trained on it')",
        _KSH,
        "section 3.2",
        _KSH_URL,
        2012,
    ),
}


def training_flops(model, images: int, epochs: int) -> int:
    """FLOPs to train ``model`` (a ``mlsysim.models.Model``) for ``epochs`` passes over
    ``images``: 3 × its forward FLOPs per image × images × epochs."""
    n = _check.integer("images", images, 1, MAX_IMAGES)
    e = _check.integer("epochs", epochs, 1, MAX_EPOCHS)
    forward = _forward_flops(model)
    return TRAIN_MULTIPLIER * forward * n * e


def _forward_flops(model) -> int:
    from .models import Model

    if not isinstance(model, Model) or model.is_lm:
        raise ValueError(
            f"model must be an image classifier (a mlsysim Model, not a language model); "
            f"got {model!r}"
        )
    return model.flops()


def training_seconds(flops: int, device: Device, efficiency: float = 1.0, count: int = 1) -> float:
    """Seconds to do ``flops`` on ``count`` copies of ``device`` at ``efficiency`` of their FP32
    peak (perfect scaling across the copies: an upper bound on what a split buys)."""
    work = _check.integer("flops", flops, 1, 10**30)
    if not isinstance(device, Device):
        raise ValueError(f"device must be a mlsysim Device; got {device!r}")
    k = _check.integer("count", count, 1, 100_000)
    rate = device.sustained_flops("fp32", efficiency) * k
    return work / rate


def implied_efficiency(flops: int, device: Device, seconds: float, count: int = 1) -> float:
    """The fraction of ``count`` × ``device``'s FP32 peak that does ``flops`` in ``seconds``."""
    s = _check.real("seconds", seconds, 1e-9, 1e12)
    return training_seconds(flops, device, 1.0, count) / s


@dataclass(frozen=True)
class TrainingState:
    """Bytes one training step keeps on the device (FP32, SGD with momentum)."""

    weights: int
    gradients: int
    momentum: int
    activations: int
    batch: int

    @property
    def total(self) -> int:
        return self.weights + self.gradients + self.momentum + self.activations


def training_state(model, batch: int, precision: str = "fp32") -> TrainingState:
    """Weights, gradients, one momentum buffer, and every layer's output (and the input) stored
    for the backward pass at ``batch``: a lower bound (no workspace, no dropout masks)."""
    from .models import Model

    if not isinstance(model, Model) or model.is_lm:
        raise ValueError(
            f"model must be an image classifier (a mlsysim Model, not a language model); "
            f"got {model!r}"
        )
    b = _check.integer("batch", batch, 1, 1_000_000)
    bpv = bytes_per_value(precision)
    rows = model.rows()
    w = int(model.params * bpv)
    per_image = rows[0].layer.input_elements + sum(r.layer.output_elements * r.count for r in rows)
    return TrainingState(w, w, w, int(per_image * b * bpv), b)

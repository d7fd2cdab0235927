"""One optimization of a shared building block, applied to every family that has the block
(§6.9.3, Table 11: "Each block brings its hardware cost with it, so an optimization for residual
additions or normalization kernels can transfer across families").

An optimization is a rewrite of a model's layer rows; the engine (``Engine.solve``) times the
model before and after, so nothing here repeats the roofline. Two rewrites:

``fuse_add``
    Each residual add runs in the epilogue of the kernel that produces its input: no launch of
    its own, and the tensor ``F(x)`` is neither written out nor read back; the add still reads
    its skip input ``x``. This is the engine's own model of a fused residual add
    (``Engine.solve(fused=True)``), applied to the skip connections alone. A model with no
    residual add (DLRM, the KWS DS-CNN) is unchanged.
``int8_gemm``
    Weight-only INT8 in every dense projection and convolution (the GEMM block): their weights
    (biases included) are read at 1 byte instead of FP16's 2; activations, the KV cache,
    embedding tables and norms stay FP16, and so does the arithmetic (weights are dequantized
    on the fly), so no FLOP changes and the FP16 peak still applies.

Both keep every FLOP: they move fewer bytes, and ``fuse_add`` launches fewer kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pydantic import PositiveInt, field_validator

from . import _check
from .engine import Engine, Profile
from .hardware import Device, Hardware
from .layers import Conv2d, Dense, Layer
from .models import LIGHTHOUSES, Model, Models, Row

__all__ = [
    "OPTIMIZATIONS",
    "CASES",
    "AddInEpilogue",
    "Int8Weights",
    "rewritten",
    "optimized",
    "Gain",
    "gain",
]

#: the optimizations, by key: (short name, the block it rewrites)
OPTIMIZATIONS = {
    "fuse_add": ("fused residual add", "skip connections"),
    "int8_gemm": ("INT8 GEMM weights", "dense projections and convolutions"),
}

#: the lighthouses, one pass each (batch 1; GPT-2 XL's prompt and context: 1,024 tokens):
#: key -> (label, model key, phase, seq_len)
CASES = {
    "resnet50": ("ResNet-50", "ResNet50", None, None),
    "mobilenetv2": ("MobileNetV2", "MobileNetV2", None, None),
    "gpt2_prefill": ("GPT-2 XL prefill", "GPT2", "prefill", 1024),
    "gpt2_decode": ("GPT-2 XL decode", "GPT2", "decode", 1024),
    "dlrm": ("DLRM", "DLRM", None, None),
    "kws": ("KWS DS-CNN", "KWS", None, None),
}
assert {c[1] for c in CASES.values()} == set(LIGHTHOUSES)

#: the row types each optimization rewrites
_TARGETS = {"fuse_add": ("ResidualAdd",), "int8_gemm": ("Dense", "Conv2d")}


class AddInEpilogue(Layer):
    """A residual add run in the producing kernel's epilogue: it reads the skip input
    (``elements`` values), writes nothing of its own and launches nothing (the producer writes
    the sum where it would have written ``F(x)``); still 1 FLOP per element."""

    elements: PositiveInt

    @property
    def input_elements(self) -> int:
        return self.elements

    @property
    def kernels(self) -> int:
        return 0

    def _elementwise1(self) -> int:
        return self.elements


class Int8Weights(Layer):
    """``inner`` (a Dense or Conv2d layer) with its weights stored in INT8 and read by an FP16
    kernel: the weight read is counted in FP16 values, ``ceil(weights / 2)``; every other count
    is ``inner``'s."""

    inner: Layer

    @field_validator("inner")
    @classmethod
    def _gemm(cls, v):
        if type(v) not in (Dense, Conv2d):
            raise ValueError(f"inner must be a Dense or Conv2d layer, got {type(v).__name__}")
        return v

    @property
    def params(self) -> int:
        return self.inner.params

    @property
    def weight_elements(self) -> int:
        return -(-self.inner.weight_elements // 2)

    @property
    def input_elements(self) -> int:
        return self.inner.input_elements

    @property
    def output_elements(self) -> int:
        return self.inner.output_elements

    @property
    def extra_elements(self) -> int:
        return self.inner.extra_elements

    @property
    def kernels(self) -> int:
        return self.inner.kernels

    def _macs1(self) -> int:
        return self.inner._macs1()

    def _elementwise1(self) -> int:
        return self.inner._elementwise1()


def _check_optimization(optimization) -> str:
    if not isinstance(optimization, str) or optimization not in OPTIMIZATIONS:
        raise ValueError(
            f"optimization={_check._short(optimization, 80)} is not known; allowed: "
            f"{', '.join(OPTIMIZATIONS)}"
        )
    return optimization


def _rewrite(rows: list[Row], optimization: str) -> list[Row]:
    out = []
    for r in rows:
        lay = r.layer
        kind = type(lay).__name__
        if kind in _TARGETS[optimization]:
            lay = (
                AddInEpilogue(elements=lay.elements)
                if optimization == "fuse_add"
                else Int8Weights(inner=lay)
            )
        out.append(Row(r.name, lay, r.count))
    return out


def rewritten(model: Model, optimization: str) -> int:
    """How many layers (rows x their counts) ``optimization`` rewrites in ``model``: 0 when the
    model lacks the block."""
    _check.instance("model", model, Model)
    opt = _check_optimization(optimization)
    rows = model.rows(1) if model.is_lm else model.rows()
    return sum(r.count for r in rows if type(r.layer).__name__ in _TARGETS[opt])


def optimized(model: Model, optimization: str) -> Model:
    """``model`` with ``optimization`` applied to every row of its block (a new Model; the
    original is unchanged)."""
    _check.instance("model", model, Model)
    return _optimized(model, _check_optimization(optimization))


@lru_cache(maxsize=64)
def _optimized(model: Model, opt: str) -> Model:
    def build(seq_len: int, phase: str) -> list[Row]:
        return _rewrite(model.rows(seq_len, phase) if model.is_lm else model.rows(), opt)

    return Model(
        f"{model.name} ({OPTIMIZATIONS[opt][0]})",
        model.family,
        build,
        is_lm=model.is_lm,
        default_seq_len=model.default_seq_len,
        kv_per_token=model._kv_per_token,
        config=model.config,
        max_seq_len=model.max_seq_len,
    )


@dataclass(frozen=True)
class Gain:
    """One lighthouse's pass before and after an optimization (engine profiles)."""

    case: str
    label: str
    optimization: str
    rewritten: int
    before: Profile
    after: Profile

    @property
    def speedup(self) -> float:
        return self.before.latency_s / self.after.latency_s

    @property
    def saved(self) -> float:
        """The fraction of the pass's time the optimization removes."""
        return 1 - self.after.latency_s / self.before.latency_s


def gain(case: str, optimization: str, device="L4", efficiency: float = 0.5) -> Gain:
    """``optimization`` on one lighthouse pass (``CASES``) on ``device``: FP16, batch 1, one
    kernel per layer (eager), the engine's default efficiency."""
    if not isinstance(case, str) or case not in CASES:
        raise ValueError(
            f"case={_check._short(case, 80)} is not a lighthouse pass; allowed: {', '.join(CASES)}"
        )
    opt = _check_optimization(optimization)
    if isinstance(device, str) and device not in Hardware.names():
        raise ValueError(
            f"device={_check._short(device, 200)} is not a known device; allowed: "
            f"{', '.join(Hardware.names())}"
        )
    _check.instance("device", device, (Device, str), "a Device or a device key")
    dev = _check.device_figures("device", Hardware.get(device))
    efficiency = _check.real("efficiency", efficiency, _check.EFFICIENCY_MIN, 1.0)
    label, key, phase, seq = CASES[case]
    model = Models.get(key)
    kw = {"phase": phase, "seq_len": seq} if model.is_lm else {}
    before = Engine.solve(model, dev, precision="fp16", efficiency=efficiency, **kw)
    after = Engine.solve(optimized(model, opt), dev, precision="fp16", efficiency=efficiency, **kw)
    return Gain(case, label, opt, rewritten(model, opt), before, after)

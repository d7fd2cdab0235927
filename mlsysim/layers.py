"""Layer-level cost models: the one place every count in mlsysim comes from.

Counting contract (the chapter's convention, Table 7):

- ``params``: weights + biases, exactly as ``sum(p.numel() for p in module.parameters())``.
- ``macs(batch)``: multiply-accumulates of the matmul/conv work; ``flops(batch) == 2 * macs(batch)``.
  Bias adds, normalization, activations and softmax are never folded in: they are reported
  by ``elementwise_flops(batch)``.
- ``bytes_moved(batch, precision)``: weights read once per batch + inputs read + outputs written
  once (+ any intermediate a layer must materialize, e.g. an attention score matrix).
- ``activation_bytes(batch, precision)``: the output tensor this layer leaves in memory.
- ``kernels``: kernel launches in an unfused, eager-mode forward pass.

Every layer is a frozen, validated pydantic model; a bad size raises a ``ValueError`` naming
the field and the allowed range.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator, model_validator

from . import _check
from .units import bytes_per_value

__all__ = [
    "Layer",
    "Dense",
    "Conv2d",
    "BatchNorm2d",
    "LayerNorm",
    "RMSNorm",
    "Activation",
    "ResidualAdd",
    "Elementwise",
    "Pool2d",
    "AdaptiveAvgPool2d",
    "Scale",
    "TrainingOnly",
    "OncePerPass",
    "Embedding",
    "RNN",
    "LSTM",
    "GRU",
    "Attention",
    "MultiHeadAttention",
    "TransformerBlock",
    "MoE",
    "Sequential",
    "FeatureInteraction",
    "depthwise_separable",
    "receptive_field",
    "check_batch",
]

Pair = int | tuple[PositiveInt, PositiveInt]


def check_batch(batch, name: str = "batch") -> int:
    """``batch`` as a Python int in [1, 2**31] (numpy ints and integral floats accepted)."""
    return _check.integer(name, batch, 1, _check.MAX_BATCH)


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


class Layer(_check.ValidatedCopy, BaseModel):
    """Base class. Subclasses define the per-example element counts; the byte and FLOP
    arithmetic lives here once."""

    # defer_build: each layer class's validator is built when it is first used, not at import
    # (a notebook's first run imports every layer class and uses none of them)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _check_fields(cls, data):
        # sizes are integers (no bools, strings, fractions; capped), flags are bools
        return _check.layer_fields(cls, data)

    # ---- per-example element counts (override) ----
    @property
    def params(self) -> int:
        return 0

    @property
    def weight_elements(self) -> int:
        """Weight values read once per forward pass (differs from params for tied weights)."""
        return self.params

    @property
    def input_elements(self) -> int:
        return 0

    @property
    def output_elements(self) -> int:
        return 0

    @property
    def extra_elements(self) -> int:
        """Per-example values written and read besides input and output (materialized
        intermediates), counted in bytes_moved."""
        return 0

    @property
    def kernels(self) -> int:
        return 1

    def _macs1(self) -> int:
        return 0

    def _elementwise1(self) -> int:
        return 0

    # ---- the contract ----
    def macs(self, batch: int = 1) -> int:
        return check_batch(batch) * self._macs1()

    def flops(self, batch: int = 1) -> int:
        """FLOPs of the matmul/conv work: exactly 2 x MACs."""
        return 2 * self.macs(batch)

    def elementwise_flops(self, batch: int = 1) -> int:
        """Bias adds, norms, activations, softmax: reported apart from ``flops``."""
        return check_batch(batch) * self._elementwise1()

    def weight_bytes(self, precision: str = "fp16") -> int:
        return math.ceil(self.weight_elements * bytes_per_value(precision))

    def activation_bytes(self, batch: int = 1, precision: str = "fp16") -> int:
        return math.ceil(check_batch(batch) * self.output_elements * bytes_per_value(precision))

    def traffic_elements(self, batch: int = 1) -> int:
        """Values crossing the memory interface: weights once + per-example traffic x batch."""
        per_example = self.input_elements + self.output_elements + self.extra_elements
        return self.weight_elements + check_batch(batch) * per_example

    def bytes_moved(self, batch: int = 1, precision: str = "fp16") -> int:
        return math.ceil(self.traffic_elements(batch) * bytes_per_value(precision))

    def live_elements(self, batch: int = 1) -> int:
        """Activation values alive while this layer runs (input + output + intermediates)."""
        return check_batch(batch) * (
            self.input_elements + self.output_elements + self.extra_elements
        )

    def arithmetic_intensity(self, batch: int = 1, precision: str = "fp16") -> float:
        """Matmul FLOP per byte moved (weights + activations)."""
        moved = self.bytes_moved(batch, precision)
        return self.flops(batch) / moved if moved else 0.0

    def elementwise_intensity(self, batch: int = 1, precision: str = "fp16") -> float:
        """Elementwise FLOP per byte moved: the figure for adds, norms and activations
        (a residual add in FP32: 1 / 12)."""
        moved = self.bytes_moved(batch, precision)
        return self.elementwise_flops(batch) / moved if moved else 0.0

    def rows(self, prefix: str = "") -> list[tuple[str, Layer]]:
        """Leaf layers, for per-layer tables."""
        return [(_check.text("prefix", prefix) or type(self).__name__, self)]


# --------------------------------------------------------------------------------------------
# Dense / convolution
# --------------------------------------------------------------------------------------------


class Dense(Layer):
    """Fully connected layer ``y = x W + b`` applied to ``tokens`` rows per example.

    ``tied=True`` marks a layer whose weight is shared with another layer (e.g. GPT-2's LM head
    and token embedding): its weights are read but its params are counted once, elsewhere. A
    tied layer's own bias (BERT's MLM decoder) is still its parameter.
    """

    in_features: PositiveInt
    out_features: PositiveInt
    bias: bool = True
    tokens: PositiveInt = 1
    tied: bool = False

    @property
    def weight_elements(self) -> int:
        return self.in_features * self.out_features + (self.out_features if self.bias else 0)

    @property
    def params(self) -> int:
        if self.tied:
            return self.out_features if self.bias else 0
        return self.weight_elements

    @property
    def input_elements(self) -> int:
        return self.tokens * self.in_features

    @property
    def output_elements(self) -> int:
        return self.tokens * self.out_features

    def _macs1(self) -> int:
        return self.tokens * self.in_features * self.out_features

    @property
    def operand_reads_per_output(self) -> int:
        """Operands one output neuron reads in the chapter's nested loop (Listing 2): one input and
        one weight per multiply-accumulate, 2 x in_features (logical reads: registers and caches
        may serve repeats, so this is not DRAM traffic)."""
        return 2 * self.in_features

    def forward(self, x, weights, relu: bool = False) -> list[float]:
        """Evaluate y = x W (+ ReLU) on one example in pure Python, ``weights`` given as
        ``in_features`` rows of ``out_features`` values (the chapter's Example 6.2 layout); no
        bias. For worked examples and checks, not a framework."""
        xs = _check.vector("x", list(x) if _is_array(x) else x, _check.MAX_SIZE)
        if len(xs) != self.in_features:
            raise ValueError(f"x must have in_features={self.in_features} values, got {len(xs)}")
        if _is_array(weights) and getattr(weights, "ndim", 0) != 2:
            raise ValueError(
                f"weights must be {self.in_features} rows of {self.out_features} values (a list "
                f"of lists, or a 2-D array), got an array of shape {tuple(weights.shape)}"
            )
        w = _check.matrix(
            "weights",
            [list(r) for r in weights] if _is_array(weights) else weights,
            _check.MAX_SIZE,
        )
        if len(w) != self.in_features or any(len(r) != self.out_features for r in w):
            raise ValueError(
                f"weights must be {self.in_features} rows of {self.out_features} values"
            )
        relu = _check.flag("relu", relu)
        _check.work("forward", self.in_features * self.out_features, "in_features and out_features")
        y = [
            sum(xs[i] * w[i][j] for i in range(self.in_features)) for j in range(self.out_features)
        ]
        _check.finite_result("forward's output", y, "x and weights")
        return [max(0.0, v) for v in y] if relu else y

    def _elementwise1(self) -> int:
        return self.output_elements if self.bias else 0


def _is_array(v) -> bool:
    """A numpy array (taken as a list of its rows): the worked examples pass plain lists."""
    return type(v).__module__ == "numpy" and hasattr(v, "tolist") and getattr(v, "ndim", 0) >= 1


class Conv2d(Layer):
    """2-D convolution (NCHW, torch ``nn.Conv2d`` semantics). Depthwise: ``groups == in_channels``.
    ``input_size`` and every window argument take an int or an (height, width) pair;
    ``dilation`` spreads the kernel taps (effective extent ``dilation * (k - 1) + 1``) without
    changing params or MACs per output position."""

    in_channels: PositiveInt
    out_channels: PositiveInt
    kernel_size: Pair
    input_size: Pair
    stride: Pair = 1
    padding: int | tuple[int, int] = 0
    groups: PositiveInt = 1
    bias: bool = True
    dilation: Pair = 1

    @field_validator("kernel_size", "input_size", "stride", "dilation")
    @classmethod
    def _positive(cls, v, info):
        for x in _pair(v):
            if x < 1:
                raise ValueError(f"{info.field_name} must be >= 1, got {v!r}")
        return v

    @field_validator("padding")
    @classmethod
    def _nonneg(cls, v):
        for x in _pair(v):
            if x < 0:
                raise ValueError(f"padding must be >= 0, got {v!r}")
        return v

    @model_validator(mode="after")
    def _shapes(self):
        if self.in_channels % self.groups or self.out_channels % self.groups:
            raise ValueError(
                f"groups={self.groups} must divide in_channels={self.in_channels} "
                f"and out_channels={self.out_channels}"
            )
        (kh, kw), (h, w), (ph, pw) = self._extent(), _pair(self.input_size), _pair(self.padding)
        if kh > h + 2 * ph or kw > w + 2 * pw:
            raise ValueError(
                f"kernel_size={self.kernel_size!r} (dilation={self.dilation!r}) is larger than the "
                f"padded input ({h + 2 * ph}x{w + 2 * pw}); allowed: "
                "dilation*(kernel_size-1)+1 <= input_size + 2*padding"
            )
        return self

    def _extent(self) -> tuple[int, int]:
        """The dilated kernel's extent: dilation * (k - 1) + 1 per axis."""
        (kh, kw), (dh, dw) = _pair(self.kernel_size), _pair(self.dilation)
        return (dh * (kh - 1) + 1, dw * (kw - 1) + 1)

    @property
    def output_size(self) -> tuple[int, int]:
        (kh, kw), (h, w) = self._extent(), _pair(self.input_size)
        (sh, sw), (ph, pw) = _pair(self.stride), _pair(self.padding)
        return ((h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1)

    @property
    def params(self) -> int:
        kh, kw = _pair(self.kernel_size)
        w = self.out_channels * (self.in_channels // self.groups) * kh * kw
        return w + (self.out_channels if self.bias else 0)

    @property
    def input_elements(self) -> int:
        h, w = _pair(self.input_size)
        return self.in_channels * h * w

    @property
    def output_elements(self) -> int:
        ho, wo = self.output_size
        return self.out_channels * ho * wo

    def _macs1(self) -> int:
        kh, kw = _pair(self.kernel_size)
        ho, wo = self.output_size
        return ho * wo * self.out_channels * (self.in_channels // self.groups) * kh * kw

    def _elementwise1(self) -> int:
        return self.output_elements if self.bias else 0

    @property
    def im2col_elements(self) -> int:
        """Size of the unfolded patch matrix (H_out*W_out) x (K^2 * C_in), per example."""
        kh, kw = _pair(self.kernel_size)
        ho, wo = self.output_size
        return ho * wo * kh * kw * self.in_channels

    @property
    def im2col_expansion(self) -> float:
        """im2col buffer / input tensor: tends to K^2 for large stride-1 inputs."""
        return self.im2col_elements / self.input_elements

    @property
    def weight_reuse(self) -> int:
        """How many times each filter weight is used per example (= output positions)."""
        ho, wo = self.output_size
        return ho * wo


def receptive_field(num_layers: int, kernel_size: int = 3, stride: int = 1) -> int:
    """Receptive-field side after ``num_layers`` stacked convolutions of the same kernel/stride:
    r = 1 + sum_l (K - 1) * prod_{j<l} s_j = 1 + (K - 1) * (s**L - 1) / (s - 1) (L (K-1) for s=1).
    ``num_layers`` is at most ``MAX_LAYERS`` (10,000), ``stride`` at most 64 (the result is an
    exact integer, 10**18,000 at most)."""
    n = _check.integer("num_layers", num_layers, 0, _check.MAX_LAYERS)
    k = _check.integer("kernel_size", kernel_size)
    s = _check.integer("stride", stride, 1, 64)
    if s == 1:
        return 1 + n * (k - 1)
    return 1 + (k - 1) * (s**n - 1) // (s - 1)


# --------------------------------------------------------------------------------------------
# Normalization, activations, elementwise, pooling
# --------------------------------------------------------------------------------------------


class _Elementwise(Layer):
    """Base for layers that touch ``elements`` values per example and own no matmul."""

    elements: PositiveInt

    @property
    def input_elements(self) -> int:
        return self.elements

    @property
    def output_elements(self) -> int:
        return self.elements


class BatchNorm2d(_Elementwise):
    """BatchNorm over ``num_features`` channels of ``elements`` values (C*H*W) per example.
    Params: gamma and beta (2C; none with ``affine=False``, torch's meaning); the running
    mean/var buffers are read but are not params."""

    num_features: PositiveInt
    affine: bool = True

    @property
    def params(self) -> int:
        return 2 * self.num_features if self.affine else 0

    @property
    def weight_elements(self) -> int:
        return 4 * self.num_features

    @property
    def sync_values(self) -> int:
        """Values one training step all-reduces across devices for true mini-batch statistics
        (synchronized BatchNorm): a sum and a sum of squares per channel, 2C."""
        return 2 * self.num_features

    def _elementwise1(self) -> int:
        return 2 * self.elements  # inference: y = x * scale + shift


class LayerNorm(_Elementwise):
    """LayerNorm over the last ``normalized_shape`` features of ``elements`` values per example:
    two reductions (mean, variance), normalize, affine: 8 ops per element. As torch
    ``nn.LayerNorm``: ``elementwise_affine`` gives gamma (and beta unless ``bias=False``)."""

    normalized_shape: PositiveInt
    elementwise_affine: bool = True
    bias: bool = True

    @property
    def params(self) -> int:
        if not self.elementwise_affine:
            return 0
        return self.normalized_shape * (2 if self.bias else 1)

    def _elementwise1(self) -> int:
        return 8 * self.elements


class RMSNorm(_Elementwise):
    """RMSNorm: one sum-of-squares reduction, scale by gamma: 4 ops per element. Like torch
    ``nn.RMSNorm``, ``elementwise_affine=False`` has no gamma (no params)."""

    normalized_shape: PositiveInt
    elementwise_affine: bool = True

    @property
    def params(self) -> int:
        return self.normalized_shape if self.elementwise_affine else 0

    def _elementwise1(self) -> int:
        return 4 * self.elements


_ACT_OPS = {
    "relu": 1,
    "relu6": 2,
    "sigmoid": 4,
    "tanh": 4,
    "gelu": 8,
    "silu": 5,
    "identity": 0,
    # MobileNetV3's piecewise-linear approximations: hardsigmoid = relu6(x + 3) / 6 (4 ops),
    # hardswish = x * hardsigmoid(x) (5 ops)
    "hardsigmoid": 4,
    "hardswish": 5,
}


class Activation(_Elementwise):
    kind: Literal[
        "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "identity", "hardsigmoid", "hardswish"
    ] = "relu"

    def _elementwise1(self) -> int:
        return _ACT_OPS[self.kind] * self.elements


class Elementwise(_Elementwise):
    """A binary elementwise op (add or multiply) of two tensors of ``elements`` values:
    2 reads + 1 write per element, 1 FLOP per element."""

    op: Literal["add", "mul"] = "add"

    @property
    def input_elements(self) -> int:
        return 2 * self.elements

    def _elementwise1(self) -> int:
        return self.elements


class Scale(_Elementwise):
    """A learned per-channel scale ``y = gamma * x`` over ``elements`` values of ``channels``
    channels (ConvNeXt's layer scale, Swin v2's logit scale): ``channels`` params, 1 multiply
    per element, no MACs."""

    channels: PositiveInt

    @property
    def params(self) -> int:
        return self.channels

    def _elementwise1(self) -> int:
        return self.elements


class ResidualAdd(Elementwise):
    """The skip connection's ``y = F(x) + x``: 1 FLOP per 3 values moved (1/12 FLOP/B in FP32)."""

    op: Literal["add"] = "add"


class Pool2d(Layer):
    """Max/average pooling; ``kernel_size=None`` is global average pooling."""

    channels: PositiveInt
    input_size: Pair
    kernel_size: Pair | None = None
    stride: Pair | None = None
    padding: int = Field(default=0, ge=0)
    kind: Literal["max", "avg"] = "max"
    #: torch's ``ceil_mode``: a last, partial window where the stride leaves input uncovered
    #: (GoogLeNet's pools), never one that starts in the right padding
    ceil_mode: bool = False

    @field_validator("input_size", "kernel_size", "stride")
    @classmethod
    def _positive(cls, v, info):
        for x in () if v is None else _pair(v):
            if x < 1:
                raise ValueError(f"{info.field_name} must be >= 1, got {v!r}")
        return v

    @model_validator(mode="after")
    def _fits(self):
        if self.kernel_size is None and (self.stride is not None or self.padding):
            raise ValueError(
                f"kernel_size=None is global pooling, which takes no stride or padding; got "
                f"stride={self.stride!r}, padding={self.padding!r} (give a kernel_size, or leave "
                "them out)"
            )
        if self.kernel_size is not None:
            (kh, kw), (h, w), p = _pair(self.kernel_size), _pair(self.input_size), self.padding
            if 2 * p > min(kh, kw):  # torch's rule: a window must see at least half real input
                raise ValueError(
                    f"padding={p!r} is more than half of kernel_size={self.kernel_size!r}; "
                    f"allowed: 0..{min(kh, kw) // 2}"
                )
            if kh > h + 2 * p or kw > w + 2 * p:
                raise ValueError(
                    f"kernel_size={self.kernel_size!r} is larger than the padded input "
                    f"({h + 2 * p}x{w + 2 * p}); allowed: kernel_size <= input_size + 2*padding"
                )
        return self

    @property
    def output_size(self) -> tuple[int, int]:
        h, w = _pair(self.input_size)
        if self.kernel_size is None:
            return (1, 1)
        (kh, kw) = _pair(self.kernel_size)
        (sh, sw) = _pair(self.stride if self.stride is not None else self.kernel_size)
        p = self.padding
        if not self.ceil_mode:
            return ((h + 2 * p - kh) // sh + 1, (w + 2 * p - kw) // sw + 1)

        def ceil(n: int, k: int, s: int) -> int:
            out = -(-(n + 2 * p - k) // s) + 1
            return out - 1 if (out - 1) * s >= n + p else out

        return (ceil(h, kh, sh), ceil(w, kw, sw))

    @property
    def input_elements(self) -> int:
        h, w = _pair(self.input_size)
        return self.channels * h * w

    @property
    def output_elements(self) -> int:
        ho, wo = self.output_size
        return self.channels * ho * wo

    def _elementwise1(self) -> int:
        if self.kernel_size is None:
            return self.input_elements
        kh, kw = _pair(self.kernel_size)
        return self.output_elements * kh * kw


class TrainingOnly(Layer):
    """A part a model holds but runs only in training (Inception v3's auxiliary classifier): its
    ``params`` count (they are in ``model.parameters()``), nothing else does: no MACs, no weight
    reads, no activations and no kernels in an inference pass."""

    layer: Layer

    @property
    def params(self) -> int:
        return self.layer.params

    @property
    def weight_elements(self) -> int:
        return 0

    @property
    def kernels(self) -> int:
        return 0


class OncePerPass(Layer):
    """A computation that runs once per forward pass whatever the batch, because its input is a
    constant of the model (Swin v2's relative-position MLP over the fixed window coordinates):
    its counts are ``layer``'s at batch 1 for every batch. ``Model.flops(batch)`` is exact (torch's
    count); ``Engine.solve`` models every row's FLOPs as linear in the batch, so at batch B its
    FLOPs and compute time charge this row B times (Swin v2: under 0.4% of the model's FLOPs per
    extra image); its bytes (read once, as weights) are exact."""

    layer: Layer

    @property
    def params(self) -> int:
        return self.layer.params

    @property
    def weight_elements(self) -> int:
        return self.layer.weight_elements

    @property
    def output_elements(self) -> int:
        return self.layer.output_elements

    @property
    def kernels(self) -> int:
        return self.layer.kernels

    def macs(self, batch: int = 1) -> int:
        check_batch(batch)
        return self.layer.macs(1)

    def elementwise_flops(self, batch: int = 1) -> int:
        check_batch(batch)
        return self.layer.elementwise_flops(1)

    def traffic_elements(self, batch: int = 1) -> int:
        check_batch(batch)
        return self.layer.traffic_elements(1)

    def live_elements(self, batch: int = 1) -> int:
        check_batch(batch)
        return self.layer.live_elements(1)

    def activation_bytes(self, batch: int = 1, precision: str = "fp16") -> int:
        check_batch(batch)
        return self.layer.activation_bytes(1, precision)


def _adaptive_windows(n: int, out: int) -> int:
    """Summed window lengths of torch's adaptive pooling of ``n`` values to ``out``: window i
    spans floor(i n / out) .. ceil((i + 1) n / out)."""
    return sum(-(-(i + 1) * n // out) - (i * n // out) for i in range(out))


class AdaptiveAvgPool2d(Layer):
    """torch ``nn.AdaptiveAvgPool2d``: ``channels`` maps of ``input_size`` averaged to a fixed
    ``output_size`` (windows of floor/ceil bounds; an input smaller than the output repeats
    values). No params and no MACs (FlopCounterMode counts none): AlexNet's 6x6 and VGG's 7x7
    pools make the classifier's size independent of the image size."""

    channels: PositiveInt
    input_size: Pair
    output_size: Pair

    @field_validator("input_size", "output_size")
    @classmethod
    def _positive(cls, v, info):
        for x in _pair(v):
            if x < 1:
                raise ValueError(f"{info.field_name} must be >= 1, got {v!r}")
        return v

    @property
    def input_elements(self) -> int:
        h, w = _pair(self.input_size)
        return self.channels * h * w

    @property
    def output_elements(self) -> int:
        oh, ow = _pair(self.output_size)
        return self.channels * oh * ow

    def _elementwise1(self) -> int:
        (h, w), (oh, ow) = _pair(self.input_size), _pair(self.output_size)
        return self.channels * _adaptive_windows(h, oh) * _adaptive_windows(w, ow)


# --------------------------------------------------------------------------------------------
# Embeddings
# --------------------------------------------------------------------------------------------


class Embedding(Layer):
    """Embedding table of ``num_embeddings`` rows of ``embedding_dim`` values.

    A lookup copies one row: zero MACs. Per example, ``lookups`` rows are gathered; with
    ``pooling="sum"`` (an embedding bag) they are summed into one vector. The whole table is
    capacity (``weight_bytes``); only the gathered rows cross the memory interface.
    """

    num_embeddings: PositiveInt
    embedding_dim: PositiveInt
    lookups: PositiveInt = 1
    pooling: Literal["none", "sum"] = "none"

    @property
    def params(self) -> int:
        return self.num_embeddings * self.embedding_dim

    @property
    def output_elements(self) -> int:
        return self.embedding_dim * (1 if self.pooling == "sum" else self.lookups)

    @property
    def extra_elements(self) -> int:
        return self.lookups * self.embedding_dim  # gathered rows

    def traffic_elements(self, batch: int = 1) -> int:
        # gathered rows + written output; the table itself is not streamed
        return check_batch(batch) * (self.extra_elements + self.output_elements)

    def _elementwise1(self) -> int:
        return (self.lookups - 1) * self.embedding_dim if self.pooling == "sum" else 0

    def gather_bytes_per_lookup(self, precision: str = "fp32") -> int:
        return math.ceil(self.embedding_dim * bytes_per_value(precision))

    def live_elements(self, batch: int = 1) -> int:
        return check_batch(batch) * (self.extra_elements + self.output_elements)


# --------------------------------------------------------------------------------------------
# Recurrent layers
# --------------------------------------------------------------------------------------------


class _Recurrent(Layer):
    """Shared counting for RNN / LSTM / GRU (torch layout: W_ih, W_hh, b_ih, b_hh per gate).

    ``weights_resident=False`` (default) means the recurrent matrix W_hh is streamed from memory
    at every step (batch-1 GEMV that does not keep weights on chip); ``True`` reads it once.
    ``proj_size`` (LSTM only, torch's meaning): h is projected to ``proj_size`` values by W_hr
    (proj_size x hidden_size) each step, so W_hh is 4H x proj_size and the output has
    ``proj_size`` features per direction; 0 means no projection.

    ``streaming=False`` (default) is torch's whole-sequence call: one input-projection GEMM over
    all steps, and every step's input and output held at once. ``True`` consumes the sequence a
    step at a time, as a device reading a sensor does: live memory is one step's input, the state
    (h, and c for an LSTM), one layer's gate values and one step's output, whatever ``seq_len``
    is; each step reads all its weights (unless resident) and runs one GEMV and one pointwise
    kernel per layer. Unidirectional only: a backward direction needs the whole sequence first.
    """

    GATES: ClassVar[int] = 1
    input_size: PositiveInt
    hidden_size: PositiveInt
    seq_len: PositiveInt
    num_layers: PositiveInt = 1
    bidirectional: bool = False
    bias: bool = True
    weights_resident: bool = False
    proj_size: int = Field(default=0, ge=0)
    streaming: bool = False

    @model_validator(mode="after")
    def _proj(self):
        if self.streaming and self.bidirectional:
            raise ValueError(
                "streaming=True needs bidirectional=False: a backward direction reads the whole "
                "sequence before its first step"
            )
        if self.proj_size and self.GATES != 4:
            raise ValueError(f"proj_size={self.proj_size} applies to LSTM only (torch's meaning)")
        if self.proj_size >= self.hidden_size:
            raise ValueError(
                f"proj_size={self.proj_size} must be smaller than hidden_size={self.hidden_size}; "
                "allowed: 0 (no projection) .. hidden_size - 1"
            )
        return self

    @property
    def directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def out_size(self) -> int:
        """Features of h per direction: proj_size when projected, else hidden_size."""
        return self.proj_size or self.hidden_size

    def _layer_inputs(self) -> list[int]:
        return [self.input_size] + [self.out_size * self.directions] * (self.num_layers - 1)

    def _step_weights(self, d_in: int) -> int:
        """Weights one layer/direction multiplies per step: W_ih, W_hh (and W_hr)."""
        g, h, r = self.GATES, self.hidden_size, self.out_size
        return g * h * (d_in + r) + (r * h if self.proj_size else 0)

    @property
    def params(self) -> int:
        g, h = self.GATES, self.hidden_size
        total = 0
        for d_in in self._layer_inputs():
            per_dir = self._step_weights(d_in) + (2 * g * h if self.bias else 0)
            total += per_dir * self.directions
        return total

    @property
    def weight_elements(self) -> int:
        if self.weights_resident:
            return self.params
        if self.streaming:  # no whole-sequence GEMM: every step reads W_ih as well as W_hh
            return self.params * self.seq_len
        g, h, r = self.GATES, self.hidden_size, self.out_size
        recurrent = (
            (g * h * r + (r * h if self.proj_size else 0)) * self.num_layers * self.directions
        )
        return self.params + recurrent * (self.seq_len - 1)

    @property
    def input_elements(self) -> int:
        return self.seq_len * self.input_size

    @property
    def output_elements(self) -> int:
        return self.seq_len * self.out_size * self.directions

    def _macs1(self) -> int:
        per_step = sum(self._step_weights(d_in) for d_in in self._layer_inputs()) * self.directions
        return self.seq_len * per_step

    def _elementwise1(self) -> int:
        g, h = self.GATES, self.hidden_size
        return self.seq_len * self.num_layers * self.directions * (g * h * 6)

    @property
    def kernels(self) -> int:
        # one input-projection GEMM per layer/direction (not when streaming), then per step a
        # GEMV + a pointwise kernel
        gemm = 0 if self.streaming else 1
        return self.num_layers * self.directions * (gemm + 2 * self.seq_len)

    def live_elements(self, batch: int = 1) -> int:
        if not self.streaming:
            return super().live_elements(batch)
        widest = max(self._layer_inputs())
        step = widest + self.GATES * self.hidden_size + self.out_size
        return check_batch(batch) * (step + self.state_elements)

    @property
    def serial_steps(self) -> int:
        """Length of the dependency chain no hardware can parallelize."""
        return self.seq_len * self.num_layers

    @property
    def state_elements(self) -> int:
        """Inference state: h (and c for LSTM) per layer/direction: independent of seq_len."""
        c = self.hidden_size if self.GATES == 4 else 0  # LSTM's cell state
        return (self.out_size + c) * self.num_layers * self.directions

    def state_bytes(self, batch: int = 1, precision: str = "fp32") -> int:
        return math.ceil(check_batch(batch) * self.state_elements * bytes_per_value(precision))

    def bptt_bytes(self, batch: int = 1, precision: str = "fp32") -> int:
        """Training (BPTT) keeps every step's state: O(S * d)."""
        return self.seq_len * self.state_bytes(batch, precision)


class RNN(_Recurrent):
    GATES: ClassVar[int] = 1


class LSTM(_Recurrent):
    GATES: ClassVar[int] = 4


class GRU(_Recurrent):
    GATES: ClassVar[int] = 3


# --------------------------------------------------------------------------------------------
# Attention and transformer blocks
# --------------------------------------------------------------------------------------------


def _check_heads(layer):
    """Shared by Attention, MultiHeadAttention and TransformerBlock: fail at construction."""
    if getattr(layer, "head_dim", None) is None and layer.d_model % layer.n_heads:
        raise ValueError(f"n_heads={layer.n_heads} must divide d_model={layer.d_model}")
    if layer.kv_heads is not None and layer.n_heads % layer.kv_heads:
        raise ValueError(f"kv_heads={layer.kv_heads} must divide n_heads={layer.n_heads}")
    return layer


def conv_nd_counts(
    kernel: tuple[int, ...], c_in: int, c_out: int, output: tuple[int, ...]
) -> tuple[int, int]:
    """(weights, MACs) of a convolution in any number of dimensions, no bias, no groups: 1-D
    over audio or a time series, 2-D over images or spectrograms, 3-D over video or volumes.
    weights = Π kernel × C_in × C_out (no input size anywhere); MACs = Π output × weights. For two
    dimensions this is ``Conv2d``'s count (section 6.3: convolution is not vision-only)."""
    import math

    if not isinstance(kernel, tuple) or not isinstance(output, tuple) or len(kernel) != len(output):
        raise ValueError(
            f"kernel and output must be tuples of the same length, got {kernel!r} and {output!r}"
        )
    if not kernel:
        raise ValueError("kernel must have at least one dimension, got ()")
    ks = [_check.integer(f"kernel[{i}]", k) for i, k in enumerate(kernel)]
    outs = [_check.integer(f"output[{i}]", o) for i, o in enumerate(output)]
    weights = math.prod(ks) * _check.integer("c_in", c_in) * _check.integer("c_out", c_out)
    return weights, math.prod(outs) * weights


def attention_interactions(seq_len: int, window: int | None = None) -> int:
    """Query-key pairs a causal attention pattern actually needs over ``seq_len`` tokens: query i
    (1-based) sees min(i, window) keys, S(S+1)/2 for full causal attention. Sparse attention
    (a sliding window) cuts these interactions; tiling (FlashAttention) only cuts what is stored,
    and a dense kernel computes all S² scores before the mask (the ``Attention`` convention)."""
    s = _check.integer("seq_len", seq_len)
    w = s if window is None else _check.integer("window", window)
    if w >= s:
        return s * (s + 1) // 2
    return w * (w + 1) // 2 + (s - w) * w


class Attention(Layer):
    """Scaled dot-product attention core: softmax(Q K^T / sqrt(d_head)) V.

    MACs count the QK^T and PV products over the full score matrix (torch's and the chapter's
    convention, causal masking included): 2 * S * kv_len * d_model. ``flash=True`` (tiled,
    exact attention) changes bytes, not FLOPs: the S x kv_len scores are never materialized.
    Materialized scores are written and read twice (logits, then probabilities).
    ``head_dim`` (default ``d_model // n_heads``) is set apart when a model's heads are wider or
    narrower than d_model / n_heads (Gemma-7B: 16 heads of 256 on d_model = 3072); the core then
    works on ``n_heads * head_dim`` features. ``kv_len`` is the number of keys each query
    attends to (decode: the cached tokens *including* the new one). ``v_head_dim`` (default
    ``d_head``) sets the value heads apart when they are narrower or wider than the query/key
    heads (DeepSeek-V3's multi-head latent attention: 192-wide q/k heads, 128-wide v heads); the
    QK^T product then runs over ``d_head`` and PV over ``v_head_dim``.
    """

    d_model: PositiveInt
    n_heads: PositiveInt
    seq_len: PositiveInt
    kv_len: PositiveInt | None = None
    kv_heads: PositiveInt | None = None
    flash: bool = False
    head_dim: PositiveInt | None = None
    v_head_dim: PositiveInt | None = None

    @model_validator(mode="after")
    def _heads(self):
        return _check_heads(self)

    @property
    def d_head(self) -> int:
        return self.head_dim if self.head_dim is not None else self.d_model // self.n_heads

    @property
    def inner_dim(self) -> int:
        """Features of all query heads: n_heads * d_head (= d_model unless head_dim is set)."""
        return self.n_heads * self.d_head

    @property
    def d_v(self) -> int:
        """Width of one value head (= d_head unless v_head_dim is set)."""
        return self.v_head_dim if self.v_head_dim is not None else self.d_head

    @property
    def kv(self) -> int:
        return self.kv_len if self.kv_len is not None else self.seq_len

    @property
    def n_kv_heads(self) -> int:
        return self.kv_heads if self.kv_heads is not None else self.n_heads

    @property
    def score_elements(self) -> int:
        """S x kv_len scores per head, all heads, one example."""
        return self.n_heads * self.seq_len * self.kv

    def score_bytes(self, batch: int = 1, precision: str = "fp16") -> int:
        """Bytes of ONE copy of the score matrix for one layer (all heads): heads x S x kv_len
        values, the chapter's figure (12 heads x 4,096² x 2 B = 402.7 MB). What a materialized
        layer holds live is ``SCORE_COPIES`` such copies: ``held_score_bytes``."""
        return math.ceil(check_batch(batch) * self.score_elements * bytes_per_value(precision))

    #: Copies of the S x kv_len scores a materialized (unfused) layer holds live at once: the
    #: logits (Q K^T) and the softmax probabilities. One number, used by ``live_elements``, the
    #: engine's feasibility and every notebook that states score memory.
    SCORE_COPIES: ClassVar[int] = 2

    def held_score_bytes(self, batch: int = 1, precision: str = "fp16") -> int:
        """Score bytes this layer holds live: ``SCORE_COPIES`` x ``score_bytes`` (logits and
        probabilities) when materialized, 0 with ``flash`` (tiles live on chip only)."""
        if self.flash:
            check_batch(batch)
            return 0
        return self.SCORE_COPIES * self.score_bytes(batch, precision)

    @property
    def input_elements(self) -> int:
        q = self.seq_len * self.inner_dim
        kv = self.kv * self.n_kv_heads * (self.d_head + self.d_v)
        return q + kv

    @property
    def output_elements(self) -> int:
        return self.seq_len * self.n_heads * self.d_v

    @property
    def extra_elements(self) -> int:
        return 0 if self.flash else 4 * self.score_elements

    @property
    def kernels(self) -> int:
        return 1 if self.flash else 3

    def _macs1(self) -> int:
        return self.seq_len * self.kv * self.n_heads * (self.d_head + self.d_v)

    def _elementwise1(self) -> int:
        return 6 * self.score_elements  # scale, max, subtract, exp, sum, divide

    def tiled_traffic_elements(self, batch: int = 1, q_tile: int | None = None) -> int:
        """Values a tiled (FlashAttention-style) kernel moves through main memory when every block
        of ``q_tile`` query rows streams all of K and V from memory once (FlashAttention-2's outer
        loop over query blocks; Dao 2023, Algorithm 1): Q and the output once, K and V
        ceil(S / q_tile) times. ``q_tile=None`` (or >= S) gives the lower bound Q + K + V + O, the
        engine's ``flash=True`` count, reached only when K and V stay on chip across tiles."""
        q_tile = _check.optional_integer("q_tile", q_tile)  # query rows per tile
        passes = 1 if q_tile is None else math.ceil(self.seq_len / q_tile)
        q_and_out = 2 * self.seq_len * self.d_model
        k_and_v = self.kv * self.n_kv_heads * (self.d_head + self.d_v)
        return check_batch(batch) * (q_and_out + passes * k_and_v)

    def tiled_bytes(
        self, batch: int = 1, precision: str = "fp16", q_tile: int | None = None
    ) -> int:
        """``tiled_traffic_elements`` in bytes."""
        return math.ceil(self.tiled_traffic_elements(batch, q_tile) * bytes_per_value(precision))

    def live_elements(self, batch: int = 1) -> int:
        live = self.input_elements + self.output_elements
        if self.kv_len is not None:  # decode: cached K/V are counted once, as the KV cache
            live -= self.kv * self.n_kv_heads * (self.d_head + self.d_v)
        if not self.flash:
            live += self.SCORE_COPIES * self.score_elements
        return check_batch(batch) * live


#: Deepest nesting of Sequentials in one another (each level is a Python call when counted).
MAX_NESTING = 100
#: Most leaf layers a Sequential holds in all, nested ones included.
MAX_LEAVES = 1_000_000
#: A Sequential with more leaf layers than this is shown by its size, not layer by layer.
_REPR_LEAVES = 1_000


class Sequential(Layer):
    """A composite: counts are sums of its children (run one after another, unfused)."""

    name: str = "sequential"
    layers: tuple[Layer, ...]

    @field_validator("layers", mode="before")
    @classmethod
    def _sized(cls, v):
        # pydantic would read any iterable to its end: itertools.count() never ends
        if not isinstance(v, list | tuple):
            raise ValueError(
                f"layers must be a list or tuple of layers, got {_check._short(v, 200)}"
            )
        return v

    @field_validator("layers")
    @classmethod
    def _nonempty(cls, v):
        if not v:
            raise ValueError("layers must not be empty")
        depth, leaves = 1, 0
        for child in v:
            if isinstance(child, Sequential):
                d, n = child._shape
                depth, leaves = max(depth, d + 1), leaves + n
            else:
                leaves += 1
        if depth > MAX_NESTING:
            raise ValueError(f"layers nest Sequentials {depth} deep; at most {MAX_NESTING} levels")
        if leaves > MAX_LEAVES:
            raise ValueError(
                f"layers hold {leaves:,} layers in all (nested Sequentials); at most {MAX_LEAVES:,}"
            )
        return v

    @cached_property
    def _shape(self) -> tuple[int, int]:
        """(nesting depth, number of leaf layers): each child's is known when it is built, so
        this takes one step per child, never a walk of the whole tree."""
        depth, leaves = 1, 0
        for child in self.layers:
            if isinstance(child, Sequential):
                d, n = child._shape
                depth, leaves = max(depth, d + 1), leaves + n
            else:
                leaves += 1
        return depth, leaves

    def __repr__(self) -> str:
        # a wide tree is summarized: its full repr (one per leaf) would take minutes, and
        # pydantic writes it into the error that refuses a Sequential past MAX_LEAVES
        depth, leaves = self._shape
        if leaves <= _REPR_LEAVES:
            return super().__repr__()
        return (
            f"Sequential(name={self.name!r}, layers=<{len(self.layers)} layers, {leaves:,} leaf "
            f"layers in all, nested {depth} deep>)"
        )

    def children(self) -> list[tuple[str, Layer]]:
        return [(f"{i}", layer) for i, layer in enumerate(self.layers)]

    @cached_property
    def _leaves(self) -> list[tuple[str, Layer]]:
        out = []
        for name, child in self.children():
            out.extend(child.rows(name))
        return out

    def rows(self, prefix: str = "") -> list[tuple[str, Layer]]:
        prefix = _check.text("prefix", prefix)
        return [(f"{prefix}.{n}" if prefix else n, layer) for n, layer in self._leaves]

    def _sum(self, attr: str) -> int:
        return sum(getattr(layer, attr) for _, layer in self._leaves)

    @property
    def params(self) -> int:
        return self._sum("params")

    @property
    def weight_elements(self) -> int:
        return self._sum("weight_elements")

    @property
    def input_elements(self) -> int:
        return self._leaves[0][1].input_elements

    @property
    def output_elements(self) -> int:
        return self._leaves[-1][1].output_elements

    @property
    def kernels(self) -> int:
        return self._sum("kernels")

    def _macs1(self) -> int:
        return sum(layer._macs1() for _, layer in self._leaves)

    def _elementwise1(self) -> int:
        return sum(layer._elementwise1() for _, layer in self._leaves)

    def traffic_elements(self, batch: int = 1) -> int:
        return sum(layer.traffic_elements(batch) for _, layer in self._leaves)

    def live_elements(self, batch: int = 1) -> int:
        return max(layer.live_elements(batch) for _, layer in self._leaves)


def _built_by_class(v, cls_name: str):
    """A composite that builds its own layers from its sizes takes no ``layers`` (only the
    empty default, which ``model_dump()`` writes)."""
    if v:
        raise ValueError(
            f"layers is built by {cls_name} from its sizes and cannot be passed; got "
            f"{len(v)} layer(s): set d_model, n_heads, ... instead, or use Sequential(layers=...)"
        )
    return v


class MultiHeadAttention(Sequential):
    """Q/K/V/O projections around the attention core (torch ``nn.MultiheadAttention`` counts:
    4 d^2 + 4 d params with bias). ``kv_heads < n_heads`` is grouped-query attention: K and V
    projections (and the KV cache) shrink by n_heads / kv_heads.

    Two different "other lengths", never to be confused:

    - ``kv_len``: tokens already in the KV cache (decode: ``seq_len=1``, ``kv_len`` = context
      *including* the new token). Only the ``seq_len`` new tokens are projected to K and V.
    - ``src_len``: cross-attention (torch ``mha(query, key, value)`` with a key/value sequence of
      another length, an encoder-decoder's decoder): K and V are projected from ``src_len``
      source tokens, and each of the ``seq_len`` queries attends to all of them.

    ``kdim`` / ``vdim`` (torch's meaning): feature sizes of the key and value inputs
    (default ``d_model``); ``head_dim`` as in :class:`Attention`.
    """

    name: str = "attn"
    layers: tuple[Layer, ...] = ()
    d_model: PositiveInt
    n_heads: PositiveInt
    seq_len: PositiveInt
    kv_heads: PositiveInt | None = None
    kv_len: PositiveInt | None = None
    bias: bool = True
    flash: bool = False
    kdim: PositiveInt | None = None
    vdim: PositiveInt | None = None
    src_len: PositiveInt | None = None
    head_dim: PositiveInt | None = None

    @field_validator("layers")
    @classmethod
    def _nonempty(cls, v):
        return _built_by_class(v, "MultiHeadAttention")

    @model_validator(mode="after")
    def _heads(self):
        if self.head_dim is not None:
            _check.product(
                {"n_heads": self.n_heads, "head_dim": self.head_dim},
                "the query projection's width: its out_features",
            )
        if self.kv_len is not None and self.src_len is not None:
            raise ValueError(
                "kv_len (cached tokens, self-attention decode) and src_len (cross-attention "
                "source length) cannot both be set"
            )
        return _check_heads(self)

    @cached_property
    def core(self) -> Attention:
        return Attention(
            d_model=self.d_model,
            n_heads=self.n_heads,
            seq_len=self.seq_len,
            kv_len=self.src_len if self.src_len is not None else self.kv_len,
            kv_heads=self.kv_heads,
            flash=self.flash,
            head_dim=self.head_dim,
        )

    def children(self) -> list[tuple[str, Layer]]:
        core = self.core
        kv_dim = core.n_kv_heads * core.d_head
        d, s, b, inner = self.d_model, self.seq_len, self.bias, core.inner_dim
        src = self.src_len if self.src_len is not None else s
        kd, vd = self.kdim or d, self.vdim or d
        return [
            ("q_proj", Dense(in_features=d, out_features=inner, bias=b, tokens=s)),
            ("k_proj", Dense(in_features=kd, out_features=kv_dim, bias=b, tokens=src)),
            ("v_proj", Dense(in_features=vd, out_features=kv_dim, bias=b, tokens=src)),
            ("sdpa", core),
            ("o_proj", Dense(in_features=inner, out_features=d, bias=b, tokens=s)),
        ]

    def kv_cache_bytes_per_token(self, precision: str = "fp16") -> int:
        return math.ceil(2 * self.core.n_kv_heads * self.core.d_head * bytes_per_value(precision))


class TransformerBlock(Sequential):
    """One transformer layer over ``seq_len`` tokens.

    ``variant="encoder"``: torch ``TransformerEncoderLayer`` / GPT-2 / BERT layout (MHA with
    bias, 2 LayerNorms, FFN d -> d_ff -> d with bias, GELU, 2 residual adds):
    4 d^2 + 2 d d_ff weights + 9 d + d_ff biases/norm params.
    ``variant="llama"``: RMSNorm, bias-free attention, SwiGLU FFN (gate, up, down).
    ``bias=False`` means what it means in torch's ``nn.TransformerEncoderLayer(bias=False)``:
    no bias in any Linear *and* none in the LayerNorms (gamma only).
    ``kv_len`` (decode) counts the cached tokens including the new one.
    ``head_dim`` (as in :class:`MultiHeadAttention`) sets the heads' width apart from
    d_model / n_heads: a block whose heads were pruned keeps its 64-wide heads, fewer of them
    (HF ``prune_heads``: Q/K/V lose the pruned heads' output columns, O their input rows).
    """

    name: str = "block"
    layers: tuple[Layer, ...] = ()
    d_model: PositiveInt
    n_heads: PositiveInt
    d_ff: PositiveInt
    seq_len: PositiveInt
    kv_heads: PositiveInt | None = None
    kv_len: PositiveInt | None = None
    variant: Literal["encoder", "llama"] = "encoder"
    bias: bool | None = None
    flash: bool = False
    activation: Literal["gelu", "relu", "silu"] | None = None
    head_dim: PositiveInt | None = None

    @field_validator("layers")
    @classmethod
    def _nonempty(cls, v):
        return _built_by_class(v, "TransformerBlock")

    @model_validator(mode="after")
    def _heads(self):
        if self.head_dim is not None:
            _check.product(
                {"n_heads": self.n_heads, "head_dim": self.head_dim},
                "the query projection's width: its out_features",
            )
        _check.product(
            {"seq_len": self.seq_len, "d_model": self.d_model},
            "the elements of the block's residual adds and norms",
        )
        _check.product(
            {"seq_len": self.seq_len, "d_ff": self.d_ff},
            "the elements of the block's feed-forward activation",
        )
        return _check_heads(self)

    @cached_property
    def attn(self) -> MultiHeadAttention:
        bias = self.bias if self.bias is not None else self.variant == "encoder"
        return MultiHeadAttention(
            d_model=self.d_model,
            n_heads=self.n_heads,
            seq_len=self.seq_len,
            kv_heads=self.kv_heads,
            kv_len=self.kv_len,
            bias=bias,
            flash=self.flash,
            head_dim=self.head_dim,
        )

    def children(self) -> list[tuple[str, Layer]]:
        d, s, f = self.d_model, self.seq_len, self.d_ff
        n = s * d
        if self.variant == "encoder":
            b = self.bias if self.bias is not None else True
            act = self.activation or "gelu"
            return [
                ("attn", self.attn),
                ("attn_residual", ResidualAdd(elements=n)),
                ("norm1", LayerNorm(normalized_shape=d, elements=n, bias=b)),
                ("ffn_up", Dense(in_features=d, out_features=f, bias=b, tokens=s)),
                ("ffn_act", Activation(kind=act, elements=s * f)),
                ("ffn_down", Dense(in_features=f, out_features=d, bias=b, tokens=s)),
                ("ffn_residual", ResidualAdd(elements=n)),
                ("norm2", LayerNorm(normalized_shape=d, elements=n, bias=b)),
            ]
        b = bool(self.bias)
        return [
            ("attn_norm", RMSNorm(normalized_shape=d, elements=n)),
            ("attn", self.attn),
            ("attn_residual", ResidualAdd(elements=n)),
            ("ffn_norm", RMSNorm(normalized_shape=d, elements=n)),
            ("ffn_gate", Dense(in_features=d, out_features=f, bias=b, tokens=s)),
            ("ffn_up", Dense(in_features=d, out_features=f, bias=b, tokens=s)),
            ("ffn_act", Activation(kind=self.activation or "silu", elements=s * f)),
            ("ffn_mul", Elementwise(op="mul", elements=s * f)),
            ("ffn_down", Dense(in_features=f, out_features=d, bias=b, tokens=s)),
            ("ffn_residual", ResidualAdd(elements=n)),
        ]

    def kv_cache_bytes_per_token(self, precision: str = "fp16") -> int:
        return self.attn.kv_cache_bytes_per_token(precision)


class MoE(Layer):
    """Mixture-of-experts FFN (Mixtral / Switch layout) over ``tokens`` rows per example.

    A router ``Dense(d_model -> num_experts)`` scores every token; each token runs through
    ``top_k`` of the ``num_experts`` experts. An expert is a SwiGLU FFN (``gated=True``: gate,
    up, down; Mixtral's w1, w3, w2) or a plain up/down FFN.

    - ``params``: the router and **all** experts (what must be stored).
    - ``macs``: the router plus **top_k** experts per token (what each token runs), the count
      torch ``FlopCounterMode`` reports for HF ``MixtralSparseMoeBlock``.
    - weights read per forward pass: the router plus the experts the tokens can reach,
      ``min(num_experts, tokens * top_k)`` of them (one decoded token reads ``top_k`` experts;
      a long prompt reads all). A batch of decoding sequences may reach more experts than one
      sequence; this count, like every weight read here, is per forward pass of one example.
    """

    d_model: PositiveInt
    d_ff: PositiveInt
    num_experts: PositiveInt
    top_k: PositiveInt
    tokens: PositiveInt = 1
    gated: bool = True
    bias: bool = False
    router_bias: bool = False
    activation: Literal["relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "identity"] = "silu"

    @model_validator(mode="after")
    def _k(self):
        if self.top_k > self.num_experts:
            raise ValueError(
                f"top_k={self.top_k} must not exceed num_experts={self.num_experts}; "
                f"allowed: 1..{self.num_experts}"
            )
        return self

    @property
    def _mats(self) -> int:
        return 3 if self.gated else 2

    @property
    def expert_params(self) -> int:
        """One expert's weights (+ biases)."""
        d, f = self.d_model, self.d_ff
        b = ((2 * f if self.gated else f) + d) if self.bias else 0
        return self._mats * d * f + b

    @property
    def router_params(self) -> int:
        return self.d_model * self.num_experts + (self.num_experts if self.router_bias else 0)

    @property
    def params(self) -> int:
        return self.router_params + self.num_experts * self.expert_params

    @property
    def active_params(self) -> int:
        """Parameters one token runs through: router + top_k experts."""
        return self.router_params + self.top_k * self.expert_params

    @property
    def experts_read(self) -> int:
        return min(self.num_experts, self.tokens * self.top_k)

    @property
    def weight_elements(self) -> int:
        return self.router_params + self.experts_read * self.expert_params

    @property
    def input_elements(self) -> int:
        return self.tokens * self.d_model

    @property
    def output_elements(self) -> int:
        return self.tokens * self.d_model

    @property
    def extra_elements(self) -> int:
        # each routed copy's hidden activations (gate and up) are written and read back
        return self.tokens * self.top_k * self.d_ff * (2 if self.gated else 1)

    @property
    def kernels(self) -> int:
        # router GEMM + top-k/softmax, then per reached expert its GEMMs, activation and scatter
        return 2 + self.experts_read * (self._mats + 2)

    def _macs1(self) -> int:
        per_token = (
            self.d_model * self.num_experts + self.top_k * self._mats * self.d_model * self.d_ff
        )
        return self.tokens * per_token

    def _elementwise1(self) -> int:
        f = self.d_ff
        act = _ACT_OPS[self.activation] * f + (f if self.gated else 0)  # activation (x up)
        combine = 2 * self.d_model  # scale by the routing weight, accumulate
        softmax = 6 * self.num_experts
        return self.tokens * (softmax + self.top_k * (act + combine))


def depthwise_separable(
    in_channels: int,
    out_channels: int,
    kernel_size: int,
    input_size: Pair,
    stride: int = 1,
    padding: int | None = None,
    bias: bool = False,
) -> Sequential:
    """Depthwise KxK conv (groups = C_in) followed by a pointwise 1x1 conv.
    Params K^2 C_in + C_in C_out; cost ratio to a standard conv = 1/C_out + 1/K^2."""
    pad = kernel_size // 2 if padding is None else padding
    dw = Conv2d(
        in_channels=in_channels,
        out_channels=in_channels,
        kernel_size=kernel_size,
        input_size=input_size,
        stride=stride,
        padding=pad,
        groups=in_channels,
        bias=bias,
    )
    pw = Conv2d(
        in_channels=in_channels,
        out_channels=out_channels,
        kernel_size=1,
        input_size=dw.output_size,
        bias=bias,
    )
    return Sequential(name="dw_separable", layers=(dw, pw))


class FeatureInteraction(Layer):
    """DLRM's pairwise dot-product interaction of ``num_vectors`` vectors of ``dim`` values.

    It runs as one batched matmul Z Z^T (num_vectors^2 * dim MACs, what torch executes and
    FlopCounterMode counts); the num_vectors*(num_vectors-1)/2 distinct dot products are kept.
    """

    num_vectors: int = Field(ge=2)
    dim: PositiveInt

    @property
    def pairs(self) -> int:
        return self.num_vectors * (self.num_vectors - 1) // 2

    @property
    def input_elements(self) -> int:
        return self.num_vectors * self.dim

    @property
    def output_elements(self) -> int:
        return self.pairs

    def _macs1(self) -> int:
        return self.num_vectors * self.num_vectors * self.dim


# builder functions check their own arguments by name (mlsysim._check)
_check.check_module(globals(), ["depthwise_separable"])

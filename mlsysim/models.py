"""Model zoo: configurable builders that assemble models from ``mlsysim.layers``.

A model is a list of rows ``(name, layer, count)``; every total is the sum over rows (``count``
is how many identical copies of a layer the model holds, e.g. 48 transformer blocks). Language
models rebuild their rows for a sequence length and a phase:

- ``phase="prefill"`` (or ``None``): one forward pass over ``seq_len`` tokens;
- ``phase="decode"``: one new token attending to a KV cache of ``seq_len`` tokens; ``seq_len``
  *includes* the new token (after the step the cache holds ``seq_len`` tokens, transformers'
  ``cache.get_seq_length()``).

Hugging Face ``config.json`` files become models with :func:`from_hf_config` (``mlsysim.hf``).

Presets live on ``Models`` (built on first access, so ``import mlsysim`` stays fast).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from . import _check
from ._lazy import lazy
from .units import bytes_per_value

L = lazy("mlsysim.layers")

__all__ = [
    "Row",
    "Model",
    "Models",
    "mlp",
    "mnist_mlp",
    "mnist_cnn",
    "resnet",
    "mobilenet_v2",
    "mobilenet_v1",
    "kws_dscnn",
    "gpt2",
    "bert",
    "llama",
    "dlrm",
    "from_hf_config",
    "from_shipped",
    "shipped_configs",
]

Phase = Literal["prefill", "decode"]


class Row(NamedTuple):
    name: str
    layer: L.Layer
    count: int = 1


class Model:
    """A named list of layer rows. Language models rebuild rows per (seq_len, phase)."""

    def __init__(
        self,
        name: str,
        family: str,
        build: Callable[[int, str], list[Row]],
        *,
        is_lm: bool = False,
        default_seq_len: int = 1,
        description: str = "",
        kv_per_token: Callable[[str], int] | None = None,
        config: dict | None = None,
        kv_elements: Callable[[int], int] | None = None,
        max_seq_len: int | None = None,
    ):
        self.name = _check.text("name", name)
        self.family = _check.text("family", family)
        self.is_lm = _check.flag("is_lm", is_lm)
        self.default_seq_len = _check.integer("default_seq_len", default_seq_len)
        self.description = _check.text("description", description)
        if not callable(build):
            raise ValueError(f"build must be a function (seq_len, phase) -> rows, got {build!r}")
        if kv_per_token is not None and not callable(kv_per_token):
            raise ValueError(
                f"kv_per_token must be None or a function of precision, got {kv_per_token!r}"
            )
        if config is not None and not isinstance(config, dict):
            raise ValueError(f"config must be None or a dict, got {config!r}")
        self.config = dict(config or {})
        self._build = build
        self._kv_per_token = kv_per_token
        if kv_elements is not None and not callable(kv_elements):
            raise ValueError(
                f"kv_elements must be a function of seq_len or None, got {kv_elements!r}"
            )
        self._kv_elements = kv_elements
        #: the most tokens the model can hold (its learned position embeddings), or None when it
        #: has no limit of its own (rotary position models, CNNs)
        self.max_seq_len = (
            None if max_seq_len is None else _check.integer("max_seq_len", max_seq_len)
        )
        self._cache: dict[tuple[int, str], list[Row]] = {}

    def __repr__(self) -> str:
        return f"Model({self.name})"

    # ---- rows ----
    def _key(self, seq_len: int | None, phase: str | None) -> tuple[int, str]:
        if not self.is_lm:
            if phase is not None:
                raise ValueError(
                    f"phase={phase!r} applies to language models; {self.name} is not one"
                )
            if seq_len is not None:
                raise ValueError(
                    f"seq_len={seq_len!r} applies to language models; {self.name} is not one"
                )
            return (1, "prefill")
        if phase is not None and (not isinstance(phase, str) or phase not in ("prefill", "decode")):
            raise ValueError(
                f"phase={_check._short(phase, 200)} is not valid; allowed: 'prefill', 'decode'"
            )
        s = self.default_seq_len if seq_len is None else _check.integer("seq_len", seq_len)
        return (s, phase or "prefill")

    def rows(self, seq_len: int | None = None, phase: str | None = None) -> list[Row]:
        key = self._key(seq_len, phase)
        rows = self._cache.get(key)
        if rows is None:
            rows = _checked_rows(self._built(*key), self.name)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = rows
        return rows

    def _built(self, seq_len: int, phase: str):
        """``build(seq_len, phase)``; a language model's layer refused only because ``seq_len``
        makes it too large (a layer's size past 2**40) is reported as an error of ``seq_len``,
        with the longest ``seq_len`` this model takes in this phase."""
        try:
            return self._build(seq_len, phase)
        except _check._validation_error() as exc:
            if not self.is_lm or not self._builds(1, phase):
                raise
            lo, hi = 1, seq_len  # builds at lo, not at hi
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if self._builds(mid, phase) else (lo, mid)
            inner = "; ".join(
                str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors()
            )
            raise ValueError(
                f"seq_len={seq_len} is too long for {self.name} (phase={phase!r}): allowed "
                f"1..{lo} (at {seq_len} tokens a {exc.title} layer passes the size cap: {inner})"
            ) from None

    def _builds(self, seq_len: int, phase: str) -> bool:
        try:
            self._build(seq_len, phase)
        except ValueError:
            return False
        return True

    # ---- totals ----
    @property
    def params(self) -> int:
        return sum(r.layer.params * r.count for r in self.rows(1 if self.is_lm else None))

    def macs(self, batch: int = 1, seq_len: int | None = None, phase: str | None = None) -> int:
        return sum(r.layer.macs(batch) * r.count for r in self.rows(seq_len, phase))

    def flops(self, batch: int = 1, seq_len: int | None = None, phase: str | None = None) -> int:
        """Matmul/conv FLOPs of one forward pass (= 2 x MACs). LMs: over ``seq_len`` tokens
        (default: the model's context length), LM head included; ``phase="decode"``: one new
        token attending to ``seq_len`` keys, the new token's own included (after the step the
        cache holds ``seq_len`` tokens)."""
        return 2 * self.macs(batch, seq_len, phase)

    def weight_bytes(self, precision: str = "fp16") -> int:
        return math.ceil(self.params * bytes_per_value(precision))

    def kv_cache_bytes(self, seq_len: int, batch: int = 1, precision: str = "fp16") -> int:
        """Keys and values of every layer for ``seq_len`` tokens x ``batch`` sequences: the
        bytes of transformers' cache tensors once ``seq_len`` tokens (prompt + generated, the
        decode convention: the newest token included) have been processed. A sliding-window
        layer keeps only its last ``sliding_window - 1`` tokens, as transformers' cache does."""
        batch = L.check_batch(batch)
        seq_len = _check.integer("seq_len", seq_len, 0)
        if self.max_seq_len is not None and seq_len > self.max_seq_len:
            raise ValueError(
                f"seq_len={seq_len} exceeds {self.name}'s {self.max_seq_len} learned positions; "
                f"allowed: 0..{self.max_seq_len} (shape_beyond_positions() extrapolates the shape)"
            )
        if self._kv_per_token is None and self._kv_elements is None:
            return 0
        if self._kv_elements is not None:
            n = _callback_count("kv_elements", self._kv_elements(seq_len), f"seq_len={seq_len}")
            return math.ceil(batch * n * bytes_per_value(precision))
        per_token = _callback_count(
            "kv_per_token", self._kv_per_token(precision), f"precision={precision!r}"
        )
        return batch * seq_len * per_token

    def shape_beyond_positions(self) -> Model:
        """The same model with no position limit, named "<name> shape": its weights and KV cache
        extrapolated past its learned positions (as the chapter's Figure 14 draws GPT-2 XL's
        cache to 256K tokens). Its rows still stop at the limit: the position table is part of
        the weights, and a longer one would be a different model."""
        other = copy.copy(self)
        other.name = f"{self.name} shape"
        other.max_seq_len = None
        return other

    def kv_cache_bytes_per_token(self, precision: str = "fp16") -> int:
        return self.kv_cache_bytes(1, 1, precision)

    def table(
        self,
        batch: int = 1,
        precision: str = "fp16",
        seq_len: int | None = None,
        phase: str | None = None,
    ):
        """Per-layer records (a pandas DataFrame when pandas is installed, else a list of dicts)."""
        recs = [
            {
                "layer": r.name,
                "type": type(r.layer).__name__,
                "count": r.count,
                "params": r.layer.params * r.count,
                "macs": r.layer.macs(batch) * r.count,
                "flops": r.layer.flops(batch) * r.count,
                "elementwise_flops": r.layer.elementwise_flops(batch) * r.count,
                "bytes_moved": r.layer.bytes_moved(batch, precision) * r.count,
                "activation_bytes": r.layer.activation_bytes(batch, precision),
                "kernels": r.layer.kernels * r.count,
            }
            for r in self.rows(seq_len, phase)
        ]
        return to_frame(recs)


def _callback_count(name: str, v, arg: str) -> int:
    """What a model's ``kv_elements`` / ``kv_per_token`` returned, as a count: a non-negative
    integer (an integral float too), else a ValueError naming the callable."""
    i = _check._as_int(v)
    if i is None or i < 0:
        raise ValueError(
            f"{name} must return a non-negative integer, got {_check._short(v)} for {arg}"
        )
    return i


def _checked_rows(rows, model_name: str) -> list[Row]:
    """A build function's rows, checked once per build: layers, and copy counts in [1, 2**40]."""
    if isinstance(rows, str | bytes | dict) or not isinstance(rows, Iterable):
        raise ValueError(
            f"{model_name}: build must return a list of Row(name, layer, count), got "
            f"{_check._short(rows)}"
        )
    rows = list(rows)
    for r in rows:
        if not isinstance(r, Row) or not isinstance(r.layer, L.Layer):
            raise ValueError(
                f"{model_name}: build must return Row(name, layer, count) items, got {r!r}"
            )
        _check.integer(f"Row {r.name!r} count", r.count)
    return rows


def batchnorm_sync(model: Model) -> tuple[int, int]:
    """(all-reduces, values all-reduced) per forward pass when BatchNorm's mini-batch statistics
    are synchronized across devices: one collective per BatchNorm layer, of 2C values each
    (section 6.4: "computing true mini-batch statistics requires an all-reduce ... adding
    communication latency to every normalized layer")."""
    from .layers import BatchNorm2d

    _check.instance("model", model, Model)
    rows = [r for r in model.rows() if isinstance(r.layer, BatchNorm2d)]
    return sum(r.count for r in rows), sum(r.count * r.layer.sync_values for r in rows)


def conv_macs_by_kernel(model: Model) -> dict[str, int]:
    """MACs per forward pass (batch 1) by convolution kernel class, ``{"1×1": ..., "3×3": ...}``,
    plus ``"other"`` for every row that is not a convolution (the classifier, pooling, norms).
    The values sum to ``model.macs()``. Table 2's "3×3 convolutions ≈48% of MACs" is ResNet v1;
    torchvision's ResNet-50 v1.5 (stride on the 3×3) gives 45.2%, its 1×1 convolutions 51.8%."""
    from .layers import Conv2d, _pair

    _check.instance("model", model, Model)
    out: dict[str, int] = {}
    for r in model.rows():
        if isinstance(r.layer, Conv2d):
            kh, kw = _pair(r.layer.kernel_size)
            key = f"{kh}×{kw}"
        else:
            key = "other"
        out[key] = out.get(key, 0) + r.count * r.layer.macs()
    return out


def rows_share(model: Model, *parts: str, seq_len: int | None = None) -> tuple[float, float]:
    """(share of parameters, share of MACs per forward pass) of the rows whose name contains any
    of ``parts`` (``"mlp."``: a GPT-2 block's FFN MLP; ``"bottom."``, ``"top."``: DLRM's MLP
    towers). Section 6.2: MLPs are not too simple; every transformer block holds one."""
    _check.instance("model", model, Model)
    if not parts or not all(isinstance(p, str) and p for p in parts):
        raise ValueError(f"parts must be one or more non-empty strings, got {parts!r}")
    rows = model.rows(seq_len)
    chosen = [r for r in rows if any(p in r.name for p in parts)]
    if not chosen:
        raise ValueError(f"no row of {model.name} has a name containing any of {list(parts)}")
    params = sum(r.count * r.layer.params for r in chosen)
    macs = sum(r.count * r.layer.macs() for r in chosen)
    return params / model.params, macs / model.macs(seq_len=seq_len)


def _harmonic(n: int, s: float) -> float:
    """Generalized harmonic number H(n, s) = Σ_{k=1..n} k^-s: exact to 10,000 terms, then the
    Euler-Maclaurin tail (integral, end-point and first-derivative terms; error below 1e-12
    relative at these sizes)."""
    import math

    m = min(n, 10_000)
    head = math.fsum(k**-s for k in range(1, m + 1))
    if n == m:
        return head
    integral = math.log(n / m) if s == 1 else (n ** (1 - s) - m ** (1 - s)) / (1 - s)
    ends = (n**-s - m**-s) / 2
    slope = (-s * n ** (-s - 1) + s * m ** (-s - 1)) / 12
    return head + integral + ends + slope


def zipf_hot_share(rows: int, hot: int, exponent: float = 1.0) -> float:
    """The share of embedding lookups that land on the ``hot`` most popular of ``rows`` rows when
    row popularity follows a Zipf law with ``exponent`` (the k-th most popular row is looked up
    in proportion to k^-exponent): H(hot, s) / H(rows, s). Section 6.8: popular rows cache well
    while the long tail defeats prefetching. The exponent is an assumption, not a measurement:
    the engine's own lookups are uniform (share = hot / rows)."""
    n = _check.integer("rows", rows, 1, 10**12)
    k = _check.integer("hot", hot, 0, n)
    s = _check.real("exponent", exponent, 0.0, 3.0)
    if k == 0:
        return 0.0
    return min(1.0, _harmonic(k, s) / _harmonic(n, s))


def to_frame(records: list[dict]):
    """A DataFrame where pandas is installed (desktop), the plain records where it is not."""
    try:
        import pandas as pd
    except ImportError:
        return records
    frame = pd.DataFrame.from_records(records)
    for col in frame.columns:  # counts stay exact Python ints: int64 sums wrap past 2**63
        if frame[col].dtype.kind in "iu":
            frame[col] = frame[col].astype(object)
    return frame


def _fixed(rows: list[Row]) -> Callable[[int, str], list[Row]]:
    return lambda _s, _p: rows


def _leaf_rows(prefix: str, layer: L.Layer, count: int = 1) -> list[Row]:
    return [Row(name, leaf, count) for name, leaf in layer.rows(prefix)]


# --------------------------------------------------------------------------------------------
# MLPs
# --------------------------------------------------------------------------------------------


def mlp(
    widths: Sequence[int],
    bias: bool = True,
    activation: str = "relu",
    name: str | None = None,
) -> Model:
    """Dense layers ``widths[0] -> widths[1] -> ... -> widths[-1]`` with an activation between."""
    widths = list(widths)
    if len(widths) < 2:
        raise ValueError(f"widths must list at least an input and an output width, got {widths!r}")
    rows: list[Row] = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
        rows.append(Row(f"fc{i + 1}", L.Dense(in_features=a, out_features=b, bias=bias)))
        if i < len(widths) - 2:
            rows.append(Row(f"act{i + 1}", L.Activation(kind=activation, elements=b)))
    label = name or "MLP " + "-".join(str(w) for w in widths)
    return Model(label, "mlp", _fixed(rows), config={"widths": widths, "bias": bias})


def mnist_mlp(bias: bool = True) -> Model:
    """The chapter's MNIST MLP 784-128-64-10 (109,184 weights; 109,386 with biases)."""
    return mlp([784, 128, 64, 10], bias=bias, name="MNIST MLP 784-128-64-10")


def mnist_cnn(bias: bool = False) -> Model:
    """The chapter's 2-conv MNIST CNN: 3x3 1->32, pool, 3x3 32->64, pool, FC 3136->128->10
    (421,408 weights without biases)."""
    c1 = L.Conv2d(
        in_channels=1, out_channels=32, kernel_size=3, input_size=28, padding=1, bias=bias
    )
    c2 = L.Conv2d(
        in_channels=32, out_channels=64, kernel_size=3, input_size=14, padding=1, bias=bias
    )
    rows = [
        Row("conv1", c1),
        Row("relu1", L.Activation(elements=c1.output_elements)),
        Row("pool1", L.Pool2d(channels=32, input_size=28, kernel_size=2)),
        Row("conv2", c2),
        Row("relu2", L.Activation(elements=c2.output_elements)),
        Row("pool2", L.Pool2d(channels=64, input_size=14, kernel_size=2)),
        Row("fc1", L.Dense(in_features=7 * 7 * 64, out_features=128, bias=bias)),
        Row("relu3", L.Activation(elements=128)),
        Row("fc2", L.Dense(in_features=128, out_features=10, bias=bias)),
    ]
    return Model("MNIST CNN (2 conv)", "cnn", _fixed(rows), config={"bias": bias})


# --------------------------------------------------------------------------------------------
# CNNs: ResNet, MobileNetV2, KWS DS-CNN
# --------------------------------------------------------------------------------------------


class _CNN:
    """Tracks channels and spatial size while appending conv/bn/act rows."""

    def __init__(self, channels: int, size: int | tuple[int, int]):
        self.c = channels
        self.hw = (size, size) if isinstance(size, int) else tuple(size)
        self.rows: list[Row] = []

    def conv_bn(self, name, out, k, stride=1, groups=1, act="relu", padding=None, bn=True):
        pad = (k // 2) if padding is None else padding
        conv = L.Conv2d(
            in_channels=self.c,
            out_channels=out,
            kernel_size=k,
            input_size=self.hw,
            stride=stride,
            padding=pad,
            groups=groups,
            bias=not bn,
        )
        self.rows.append(Row(f"{name}.conv", conv))
        n = conv.output_elements
        if bn:
            self.rows.append(Row(f"{name}.bn", L.BatchNorm2d(num_features=out, elements=n)))
        if act:
            self.rows.append(Row(f"{name}.{act}", L.Activation(kind=act, elements=n)))
        self.c, self.hw = out, conv.output_size
        return conv

    def add(self, name, act=None):
        n = self.c * self.hw[0] * self.hw[1]
        self.rows.append(Row(f"{name}.add", L.ResidualAdd(elements=n)))
        if act:
            self.rows.append(Row(f"{name}.{act}", L.Activation(kind=act, elements=n)))

    def pool(self, name, k=None, stride=None, padding=0, kind="max"):
        p = L.Pool2d(
            channels=self.c,
            input_size=self.hw,
            kernel_size=k,
            stride=stride,
            padding=padding,
            kind=kind,
        )
        self.rows.append(Row(name, p))
        self.hw = p.output_size

    def fc(self, name, out, bias=True):
        d = self.c * self.hw[0] * self.hw[1]
        self.rows.append(Row(name, L.Dense(in_features=d, out_features=out, bias=bias)))
        self.c, self.hw = out, (1, 1)


_RESNET = {
    18: ("basic", [2, 2, 2, 2]),
    34: ("basic", [3, 4, 6, 3]),
    50: ("bottleneck", [3, 4, 6, 3]),
    101: ("bottleneck", [3, 4, 23, 3]),
    152: ("bottleneck", [3, 8, 36, 3]),
}


def _image_size(input_size) -> tuple[int, int]:
    """An int (square) or an (height, width) pair, each an integer >= 32."""
    hw = (input_size, input_size) if not isinstance(input_size, tuple | list) else tuple(input_size)
    if len(hw) != 2 or any(isinstance(v, bool) or not isinstance(v, int) or v < 32 for v in hw):
        raise ValueError(
            f"input_size must be an integer >= 32 or a (height, width) pair of them, got {input_size!r}"
        )
    return hw


def _size_label(hw: tuple[int, int]) -> str:
    return f"{hw[0]}x{hw[1]}"


def resnet(
    depth: int = 50,
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
    groups: int = 1,
    width_per_group: int = 64,
) -> Model:
    """torchvision ResNet (v1.5: stride on the 3x3 conv of a bottleneck), eager layout:
    every conv, BN, ReLU, add and pool is its own kernel.

    ``groups`` and ``width_per_group`` mean what they mean in torchvision: a bottleneck's 3x3
    conv has ``int(planes * width_per_group / 64) * groups`` channels in ``groups`` groups.
    ResNeXt-50 32x4d is ``resnet(50, groups=32, width_per_group=4)``; Wide ResNet-50-2 is
    ``resnet(50, width_per_group=128)``. ``input_size`` is an int or (height, width)."""
    if depth not in _RESNET:
        raise ValueError(f"depth={depth!r} is not a ResNet depth; allowed: {sorted(_RESNET)}")
    hw = _image_size(input_size)
    kind, blocks = _RESNET[depth]
    for field, v in (("groups", groups), ("width_per_group", width_per_group)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{field} must be an integer >= 1, got {v!r}")
    if kind == "basic" and (groups != 1 or width_per_group != 64):
        raise ValueError(
            f"groups={groups}, width_per_group={width_per_group}: ResNet-{depth}'s basic blocks "
            "support only groups=1 and width_per_group=64 (as torchvision)"
        )
    net = _CNN(3, hw)
    net.conv_bn("stem", 64, 7, stride=2, padding=3)
    net.pool("stem.maxpool", k=3, stride=2, padding=1)
    expansion = 4 if kind == "bottleneck" else 1
    for stage, (n, width) in enumerate(zip(blocks, [64, 128, 256, 512], strict=True), start=1):
        for i in range(n):
            stride = 2 if (i == 0 and stage > 1) else 1
            name = f"layer{stage}.{i}"
            c_in, hw_in = net.c, net.hw
            out = width * expansion
            if kind == "bottleneck":
                inner = int(width * (width_per_group / 64.0)) * groups
                net.conv_bn(f"{name}.conv1", inner, 1)
                net.conv_bn(f"{name}.conv2", inner, 3, stride=stride, groups=groups)
                net.conv_bn(f"{name}.conv3", out, 1, act=None)
            else:
                net.conv_bn(f"{name}.conv1", width, 3, stride=stride)
                net.conv_bn(f"{name}.conv2", width, 3, act=None)
            if stride != 1 or c_in != out:
                main_c, main_hw = net.c, net.hw
                net.c, net.hw = c_in, hw_in
                net.conv_bn(f"{name}.downsample", out, 1, stride=stride, act=None, padding=0)
                assert (net.c, net.hw) == (main_c, main_hw)
            net.add(name, act="relu")
    net.pool("avgpool", kind="avg")
    net.fc("fc", num_classes)
    if groups == 1 and width_per_group == 64:
        label = f"ResNet-{depth}"
    elif groups == 1:
        label = (
            f"Wide ResNet-{depth}-{width_per_group // 64}"
            if width_per_group % 64 == 0
            else (f"ResNet-{depth} (width {width_per_group})")
        )
    else:
        label = f"ResNeXt-{depth} {groups}x{width_per_group}d"
    return Model(
        label,
        "cnn",
        _fixed(net.rows),
        description=f"torchvision {label}, {_size_label(hw)} input",
        config={
            "depth": depth,
            "input_size": input_size,
            "num_classes": num_classes,
            "groups": groups,
            "width_per_group": width_per_group,
        },
    )


def _make_divisible(v: float, divisor: int = 8) -> int:
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def mobilenet_v2(
    width_mult: float = 1.0, input_size: int | tuple[int, int] = 224, num_classes: int = 1000
) -> Model:
    """torchvision MobileNetV2 (inverted residuals, linear bottlenecks, ReLU6), channels
    rounded with ``make_divisible(c * width_mult, 8)`` as the reference implementations do.
    ``input_size`` is an int or (height, width)."""
    if not (0.1 <= width_mult <= 2.0):
        raise ValueError(f"width_mult must be in [0.1, 2.0], got {width_mult!r}")
    hw = _image_size(input_size)
    settings = [
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ]
    net = _CNN(3, hw)
    net.conv_bn("features.0", _make_divisible(32 * width_mult), 3, stride=2, act="relu6")
    idx = 1
    for t, c, n, s in settings:
        out = _make_divisible(c * width_mult)
        for i in range(n):
            stride = s if i == 0 else 1
            name = f"features.{idx}"
            c_in = net.c
            hidden = int(round(c_in * t))
            if t != 1:
                net.conv_bn(f"{name}.expand", hidden, 1, act="relu6")
            net.conv_bn(f"{name}.dw", hidden, 3, stride=stride, groups=hidden, act="relu6")
            net.conv_bn(f"{name}.project", out, 1, act=None)
            if stride == 1 and c_in == out:
                net.add(name)
            idx += 1
    last = _make_divisible(1280 * max(1.0, width_mult))
    net.conv_bn(f"features.{idx}", last, 1, act="relu6")
    net.pool("avgpool", kind="avg")
    net.fc("classifier", num_classes)
    return Model(
        "MobileNetV2" + ("" if width_mult == 1.0 else f"-{width_mult:g}"),
        "cnn",
        _fixed(net.rows),
        description=f"torchvision mobilenet_v2(width_mult={width_mult}), {_size_label(hw)}",
        config={"width_mult": width_mult, "input_size": input_size, "num_classes": num_classes},
    )


def mobilenet_v1(
    width_mult: float = 1.0, input_size: int | tuple[int, int] = 224, num_classes: int = 1000
) -> Model:
    """MobileNetV1 (Howard et al. 2017, Table 1): a 3×3 stride-2 stem of 32 channels, 13
    depthwise-separable blocks (3×3 depthwise, then 1×1 pointwise, each with BatchNorm and ReLU),
    global average pooling and a 1,024 → ``num_classes`` classifier. Channels are ``int(c ×
    width_mult)`` as in the paper. At width 1.0 and 224²: 4,231,976 parameters (BatchNorm scale
    and shift included; the paper's Table 8 says 4.2 million) and 568.7 M MACs (the paper's 569
    million mult-adds; the chapter's 1,138 MFLOP is twice that). torchvision ships no MobileNetV1,
    so the check is the paper's table."""
    if not (0.1 <= width_mult <= 2.0):
        raise ValueError(f"width_mult must be in [0.1, 2.0], got {width_mult!r}")
    hw = _image_size(input_size)
    _check.integer("num_classes", num_classes)
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
    blocks += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    net = _CNN(3, hw)
    net.conv_bn("stem", int(32 * width_mult), 3, stride=2)
    for i, (c, stride) in enumerate(blocks, start=1):
        net.conv_bn(f"block{i}.dw", net.c, 3, stride=stride, groups=net.c)
        net.conv_bn(f"block{i}.pw", int(c * width_mult), 1)
    net.pool("avgpool", k=net.hw, stride=net.hw, kind="avg")
    net.fc("fc", num_classes)
    label = "MobileNetV1" if width_mult == 1.0 else f"MobileNetV1-{width_mult:g}"
    return Model(
        label,
        "cnn",
        _fixed(net.rows),
        description=f"MobileNetV1 (Howard et al. 2017), {_size_label(hw)} input",
        config={"width_mult": width_mult, "input_size": input_size, "num_classes": num_classes},
    )


def kws_dscnn(
    channels: int = 216,
    ds_layers: int = 4,
    input_size: tuple[int, int] = (49, 10),
    num_classes: int = 12,
) -> Model:
    """Keyword-spotting DS-CNN (Zhang et al., 'Hello Edge', 2017 family): a 10x4 stride-2 conv on
    a 49x10 MFCC map, ``ds_layers`` depthwise-separable blocks (the first with stride 2),
    global average pool, FC. The default lands on the chapter's lighthouse (~200K params,
    ~20 MFLOP); see tests for the exact figures."""
    net = _CNN(1, input_size)
    net.rows.append(
        Row(
            "conv1",
            L.Conv2d(
                in_channels=1,
                out_channels=channels,
                kernel_size=(10, 4),
                input_size=input_size,
                stride=2,
                padding=(5, 1),
            ),
        )
    )
    first = net.rows[-1].layer
    net.c, net.hw = channels, first.output_size
    net.rows.append(Row("conv1.relu", L.Activation(elements=first.output_elements)))
    for i in range(ds_layers):
        stride = 2 if i == 0 else 1
        net.conv_bn(f"ds{i + 1}.dw", channels, 3, stride=stride, groups=channels, bn=False)
        net.conv_bn(f"ds{i + 1}.pw", channels, 1, bn=False)
    net.pool("avgpool", kind="avg")
    net.fc("fc", num_classes)
    return Model(
        "KWS DS-CNN",
        "cnn",
        _fixed(net.rows),
        description=f"DS-CNN keyword spotter, {input_size[0]}x{input_size[1]} MFCC input",
        config={"channels": channels, "ds_layers": ds_layers, "input_size": input_size},
    )


# --------------------------------------------------------------------------------------------
# Transformers
# --------------------------------------------------------------------------------------------


def _check_sizes(**sizes) -> None:
    """Each size an integer >= 1 (named in the error), and n_heads dividing d_model."""
    for field, v in sizes.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{field} must be an integer >= 1, got {v!r}")
    if sizes["d_model"] % sizes["n_heads"]:
        raise ValueError(f"n_heads={sizes['n_heads']} must divide d_model={sizes['d_model']}")


def _lm(
    name: str,
    *,
    d_model: int,
    n_layers: int,
    n_heads: int,
    d_ff: int,
    vocab_size: int,
    kv_heads: int | None = None,
    variant: str = "encoder",
    positions: int | None = None,
    type_vocab: int = 0,
    embed_norm: bool = False,
    final_norm: str | None = "layernorm",
    lm_head: str = "tied",
    pooler: bool = False,
    default_seq_len: int = 1024,
    family: str = "transformer",
    flash: bool = False,
    config: dict | None = None,
) -> Model:
    _check_sizes(
        d_model=d_model, n_layers=n_layers, n_heads=n_heads, d_ff=d_ff, vocab_size=vocab_size
    )
    if kv_heads is not None and n_heads % kv_heads:
        raise ValueError(f"kv_heads={kv_heads} must divide n_heads={n_heads}")

    def build(seq_len: int, phase: str) -> list[Row]:
        tokens = 1 if phase == "decode" else seq_len
        kv_len = seq_len if phase == "decode" else None
        if positions is not None and (seq_len if phase == "decode" else tokens) > positions:
            raise ValueError(
                f"seq_len={seq_len} exceeds {name}'s {positions} learned positions; "
                f"allowed: 1..{positions}"
            )
        d = d_model
        rows = [
            Row(
                "embed.tokens",
                L.Embedding(num_embeddings=vocab_size, embedding_dim=d, lookups=tokens),
            )
        ]
        if positions is not None:
            rows.append(
                Row(
                    "embed.positions",
                    L.Embedding(num_embeddings=positions, embedding_dim=d, lookups=tokens),
                )
            )
        if type_vocab:
            rows.append(
                Row(
                    "embed.token_type",
                    L.Embedding(num_embeddings=type_vocab, embedding_dim=d, lookups=tokens),
                )
            )
        if positions is not None or type_vocab:
            n_sum = (positions is not None) + bool(type_vocab)
            rows.append(Row("embed.add", L.Elementwise(elements=tokens * d), n_sum))
        if embed_norm:
            rows.append(Row("embed.norm", L.LayerNorm(normalized_shape=d, elements=tokens * d)))
        block = L.TransformerBlock(
            d_model=d,
            n_heads=n_heads,
            d_ff=d_ff,
            seq_len=tokens,
            kv_heads=kv_heads,
            kv_len=kv_len,
            variant=variant,
            flash=flash,
        )
        rows += _leaf_rows("blocks", block, n_layers)
        if final_norm == "layernorm":
            rows.append(Row("final_norm", L.LayerNorm(normalized_shape=d, elements=tokens * d)))
        elif final_norm == "rmsnorm":
            rows.append(Row("final_norm", L.RMSNorm(normalized_shape=d, elements=tokens * d)))
        if lm_head in ("tied", "untied"):
            rows.append(
                Row(
                    "lm_head",
                    L.Dense(
                        in_features=d,
                        out_features=vocab_size,
                        bias=False,
                        tokens=tokens,
                        tied=lm_head == "tied",
                    ),
                )
            )
        if pooler:
            rows.append(Row("pooler.dense", L.Dense(in_features=d, out_features=d)))
            rows.append(Row("pooler.tanh", L.Activation(kind="tanh", elements=d)))
        return rows

    d_head = d_model // n_heads
    n_kv = kv_heads or n_heads

    def kv_per_token(precision: str) -> int:
        return math.ceil(2 * n_layers * n_kv * d_head * bytes_per_value(precision))

    cfg = {
        "d_model": d_model,
        "n_layers": n_layers,
        "n_heads": n_heads,
        "d_ff": d_ff,
        "vocab_size": vocab_size,
        "kv_heads": n_kv,
        **(config or {}),
    }
    return Model(
        name,
        family,
        build,
        is_lm=True,
        default_seq_len=default_seq_len,
        kv_per_token=kv_per_token,
        config=cfg,
        max_seq_len=positions,
    )


def gpt2(
    d_model: int = 768,
    n_layers: int = 12,
    n_heads: int = 12,
    vocab_size: int = 50257,
    context_length: int = 1024,
    name: str | None = None,
    flash: bool = False,
) -> Model:
    """GPT-2 as Hugging Face's GPT2LMHeadModel builds it (``mlsysim.hf``: fused ``c_attn``
    Q/K/V projection, pre-LN blocks with a 4d GELU MLP, final LayerNorm, LM head tied to the
    token embedding): the registry's GPT-2 XL and the shipped ``gpt2-xl`` config are one model,
    with one latency in every notebook."""
    _check_sizes(
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        vocab_size=vocab_size,
        context_length=context_length,
    )
    from . import hf  # (from_hf_config checks ``flash``)

    config = {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "activation_function": "gelu_new",
        "n_embd": d_model,
        "n_layer": n_layers,
        "n_head": n_heads,
        "vocab_size": vocab_size,
        "n_positions": context_length,
    }
    return hf.from_hf_config(config, name=name or f"GPT-2 (d={d_model}, L={n_layers})", flash=flash)


def bert(
    d_model: int = 768,
    n_layers: int = 12,
    n_heads: int = 12,
    d_ff: int = 3072,
    vocab_size: int = 30522,
    max_position: int = 512,
    name: str | None = None,
    flash: bool = False,
) -> Model:
    """BERT encoder (HuggingFace BertModel: word/position/token-type embeddings, embedding
    LayerNorm, post-LN blocks, pooler)."""
    return _lm(
        name or f"BERT (d={d_model}, L={n_layers})",
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        d_ff=d_ff,
        vocab_size=vocab_size,
        positions=max_position,
        type_vocab=2,
        embed_norm=True,
        final_norm=None,
        lm_head="none",
        pooler=True,
        default_seq_len=max_position,
        flash=flash,
        config={"max_position": max_position, "flash": flash},
    )


def llama(
    d_model: int = 4096,
    n_layers: int = 32,
    n_heads: int = 32,
    kv_heads: int = 32,
    d_ff: int = 11008,
    vocab_size: int = 32000,
    context_length: int = 4096,
    tie_embeddings: bool = False,
    name: str | None = None,
    flash: bool = False,
) -> Model:
    """Llama-style decoder: RMSNorm, rotary positions (no learned table), bias-free attention
    with grouped-query K/V heads, SwiGLU FFN, untied LM head."""
    return _lm(
        name or f"Llama (d={d_model}, L={n_layers}, kv={kv_heads})",
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        d_ff=d_ff,
        vocab_size=vocab_size,
        kv_heads=kv_heads,
        variant="llama",
        final_norm="rmsnorm",
        lm_head="tied" if tie_embeddings else "untied",
        default_seq_len=context_length,
        flash=flash,
        config={"context_length": context_length, "flash": flash},
    )


# --------------------------------------------------------------------------------------------
# DLRM
# --------------------------------------------------------------------------------------------


def dlrm(
    dense_features: int = 13,
    embedding_rows: Sequence[int] = (7_812_500,) * 25,
    embedding_dim: int = 128,
    bottom_mlp: Sequence[int] = (512, 256, 128),
    top_mlp: Sequence[int] = (1024, 1024, 512, 256, 1),
    lookups_per_table: int = 1,
    name: str = "DLRM",
) -> Model:
    """DLRM: bottom MLP on dense features || one gather per embedding table -> pairwise-dot
    interaction -> top MLP -> CTR. The bottom MLP must end at ``embedding_dim``."""
    bottom, top, tables = list(bottom_mlp), list(top_mlp), list(embedding_rows)
    if not tables:
        raise ValueError("embedding_rows must list at least one table")
    if not bottom or bottom[-1] != embedding_dim:
        raise ValueError(
            f"bottom_mlp must end at embedding_dim={embedding_dim} (the interaction needs equal "
            f"widths), got {bottom!r}"
        )
    rows: list[Row] = []
    widths = [dense_features, *bottom]
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
        rows.append(Row(f"bottom.fc{i + 1}", L.Dense(in_features=a, out_features=b)))
        rows.append(Row(f"bottom.relu{i + 1}", L.Activation(elements=b)))
    for t, n in enumerate(tables):
        rows.append(
            Row(
                f"emb.{t}",
                L.Embedding(
                    num_embeddings=n,
                    embedding_dim=embedding_dim,
                    lookups=lookups_per_table,
                    pooling="sum" if lookups_per_table > 1 else "none",
                ),
            )
        )
    inter = L.FeatureInteraction(num_vectors=len(tables) + 1, dim=embedding_dim)
    rows.append(Row("interaction", inter))
    widths = [embedding_dim + inter.pairs, *top]
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
        rows.append(Row(f"top.fc{i + 1}", L.Dense(in_features=a, out_features=b)))
        last = i == len(widths) - 2
        rows.append(
            Row(
                f"top.{'sigmoid' if last else f'relu{i + 1}'}",
                L.Activation(kind="sigmoid" if last else "relu", elements=b),
            )
        )
    return Model(
        name,
        "dlrm",
        _fixed(rows),
        description="embedding tables + MLPs",
        config={"embedding_rows": tables, "embedding_dim": embedding_dim},
    )


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


_PRESETS: dict[str, Callable[[], Model]] = {
    "ResNet50": lambda: resnet(50),
    "MobileNetV2": lambda: mobilenet_v2(1.0),
    "GPT2": lambda: gpt2(1600, 48, 25, name="GPT-2 XL"),
    "GPT2XL": lambda: Models.GPT2,
    "GPT2Small": lambda: gpt2(768, 12, 12, name="GPT-2 small"),
    "BERTBase": lambda: bert(name="BERT-base"),
    "Llama7B": lambda: llama(name="Llama-2 7B"),
    "DLRM": lambda: dlrm(),
    "KWS": lambda: kws_dscnn(),
    "MNISTMLP": lambda: mnist_mlp(),
    "MNISTCNN": lambda: mnist_cnn(),
    # the other networks of the chapter's Figure 1 (mlsysim.vision, imported on first use)
    "AlexNet": lambda: _vision("alexnet"),
    "VGG16": lambda: _vision("vgg", 16),
    "InceptionV3": lambda: _vision("inception_v3"),
    "MobileNetV3L": lambda: _vision("mobilenet_v3", "large"),
    "EfficientNetB0": lambda: _vision("efficientnet", "b0"),
    "RegNetY400MF": lambda: _vision("regnet", "y_400mf"),
    "ConvNeXtT": lambda: _vision("convnext", "tiny"),
    "ViTB16": lambda: _vision("vit", "b_16"),
    "SwinT": lambda: _vision("swin", "t"),
}


def _vision(builder: str, *args) -> Model:
    from . import vision

    return getattr(vision, builder)(*args)


class _Models:
    """Preset models, built on first access: ``Models.ResNet50``, ``Models.GPT2`` (the chapter's
    GPT-2 XL lighthouse), ``Models.GPT2Small``, ``Models.BERTBase``, ``Models.MobileNetV2``,
    ``Models.DLRM``, ``Models.KWS``, ``Models.Llama7B``, ``Models.MNISTMLP``, ``Models.MNISTCNN``,
    and one network of each other family in the chapter's Figure 1 at torchvision's defaults
    (``Models.AlexNet``, ``VGG16``, ``InceptionV3``, ``MobileNetV3L``, ``EfficientNetB0``,
    ``RegNetY400MF``, ``ConvNeXtT``, ``ViTB16``, ``SwinT``; every size and variant through
    ``mlsysim.vision``)."""

    def __init__(self):
        self._built: dict[str, Model] = {}

    def __getattr__(self, key: str) -> Model:
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self.get(key)
        except ValueError as e:
            raise _check.UnknownName(str(e)) from None

    def get(self, key: str) -> Model:
        if not isinstance(key, str) or key not in _PRESETS:
            raise ValueError(f"model={key!r} is not a preset; allowed: {', '.join(_PRESETS)}")
        if key not in self._built:
            self._built[key] = _PRESETS[key]()
        return self._built[key]

    def names(self) -> list[str]:
        return list(_PRESETS)

    def __dir__(self):
        return [*super().__dir__(), *_PRESETS]


Models = _Models()

#: The chapter's lighthouse roster, in the order the chapter introduces it.
LIGHTHOUSES = ("ResNet50", "GPT2", "DLRM", "MobileNetV2", "KWS")


# --------------------------------------------------------------------------------------------
# Every public builder checks its own arguments (mlsysim._check): sizes are integers in
# [1, 2**40] (layer counts in [1, 10,000]), flags are bools, and an error names the builder's
# argument, never an inner layer's field.
# --------------------------------------------------------------------------------------------

_BUILDER_RANGES: dict[str, dict[str, tuple]] = {
    "resnet": {"input_size": (32, _check.MAX_SIZE)},
    "mobilenet_v2": {"width_mult": (0.1, 2.0), "input_size": (32, _check.MAX_SIZE)},
    "mobilenet_v1": {"width_mult": (0.1, 2.0), "input_size": (32, _check.MAX_SIZE)},
}


_check.check_module(globals(), __all__, _BUILDER_RANGES)

# Hugging Face configurations (defined in mlsysim.hf, which builds on Model and Row above),
# imported on first use: a notebook that never reads a config.json does not pay for it.
_HF = ("from_hf_config", "from_shipped", "shipped_configs")
if TYPE_CHECKING:
    from .hf import from_hf_config, from_shipped, shipped_configs  # noqa: F401


def __getattr__(name: str):
    if name in _HF:
        from . import hf

        return getattr(hf, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

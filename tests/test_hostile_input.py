"""Hostile input, everywhere in the public API (issue 13, "Bad input refused, by name").

Two halves:

1. Every case the issue lists, reproduced as it was reported (each of these failed before the
   fix: a wrong count, an exception that is not a ValueError, a hang, inf/nan, a wrapped int64).
2. A table: every public callable (every name in ``mlsysim.__all__`` and in the ``__all__`` of
   each core module, plus the public methods of the public classes) is called with each of
   ``HOSTILE`` in place of each of its arguments. Each call either raises a ``ValueError`` whose
   message names that argument, or returns a result with no NaN, no inf and no negative count,
   time or energy. A public callable without a row makes ``test_every_public_callable_has_a_row``
   fail, so a new function cannot skip the rule.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import math
import time
from fractions import Fraction

import pytest

import mlsysim
from mlsysim import Engine, Hardware, Models, _check, energy, gradients, primitives, units
from mlsysim import engine as E
from mlsysim import hardware as HW
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim import vision as V

np = pytest.importorskip("numpy")

H100 = Hardware.Cloud.H100
NAN, INF = float("nan"), float("inf")


def _raises_naming(fn, name: str) -> str:
    with pytest.raises(ValueError) as err:
        fn()
    msg = str(err.value)
    assert name in msg, msg
    return msg


# --------------------------------------------------------------------------------------------
# 1. The cases, one by one
# --------------------------------------------------------------------------------------------


def test_bool_and_string_sizes_refused():
    # was: a Dense with 14 parameters (True -> 1, '7' -> 7)
    _raises_naming(lambda: L.Dense(in_features=True, out_features="7"), "in_features")
    _raises_naming(lambda: L.Dense(in_features=2, out_features="7"), "out_features")


def test_llama_kv_heads_zero_or_negative_named():
    # was: ZeroDivisionError; a negative kv_heads gave negative cache bytes
    _raises_naming(lambda: M.llama(kv_heads=0), "kv_heads")
    _raises_naming(lambda: M.llama(d_model=256, n_layers=2, n_heads=8, kv_heads=-8), "kv_heads")


def test_lstm_with_huge_layer_count_refused_fast():
    # was: built, then exhausted memory on the first count
    t0 = time.perf_counter()
    msg = _raises_naming(
        lambda: L.LSTM(input_size=4, hidden_size=4, seq_len=3, num_layers=10**15), "num_layers"
    )
    assert "10000" in msg  # the allowed range is stated
    assert time.perf_counter() - t0 < 1.0


def test_huge_batch_refused_the_same_way_by_solve_and_sweep():
    # was: OverflowError from solve, inf/nan from sweep
    a = _raises_naming(
        lambda: Engine.solve(Models.ResNet50, H100, batch_size=10**300), "batch_size"
    )
    b = _raises_naming(
        lambda: Engine.sweep(Models.ResNet50, H100, batch_sizes=[1, 10**300]), "batch_sizes[1]"
    )
    assert "2**31" in a and "2**31" in b


@pytest.mark.parametrize("batches", [[3.5], "64", [], [True], [None], 64])
def test_sweep_batch_sizes_refused(batches):
    # was: [3.5] -> 3, '64' -> [6, 4]
    _raises_naming(lambda: Engine.sweep(Models.ResNet50, H100, batch_sizes=batches), "batch_sizes")


def test_solve_fractional_batch_refused_integral_float_accepted():
    _raises_naming(lambda: Engine.solve(Models.ResNet50, H100, batch_size=3.5), "batch_size")
    assert Engine.solve(Models.ResNet50, H100, batch_size=4.0).batch_size == 4


def test_sweep_empty_seq_lens_refused():
    # was: empty columns
    _raises_naming(lambda: Engine.sweep(Models.GPT2Small, H100, seq_lens=[]), "seq_lens")
    _raises_naming(lambda: Engine.sweep(Models.GPT2Small, H100, seq_lens=[16, 2.5]), "seq_lens[1]")


@pytest.mark.parametrize("entry", ["solve", "sweep"])
def test_sparse_must_be_a_bool(entry):
    # was: sparse='no' selected the sparse rate
    fn = getattr(Engine, entry)
    _raises_naming(lambda: fn(Models.ResNet50, H100, sparse="no"), "sparse")
    _raises_naming(lambda: fn(Models.ResNet50, H100, fused=1), "fused")


@pytest.mark.parametrize("entry", ["solve", "sweep"])
def test_subnormal_efficiency_refused(entry):
    # was: an infinite latency
    msg = _raises_naming(
        lambda: getattr(Engine, entry)(Models.ResNet50, H100, efficiency=5e-324), "efficiency"
    )
    assert "1e-12" in msg


def test_ridge_point_and_roofline_refuse_bad_numbers():
    # was: ridge_point('fp16', -1) < 0 and attainable_flops(nan) == peak
    _raises_naming(lambda: H100.sustained_ridge_point("fp16", -1), "efficiency")
    _raises_naming(lambda: H100.sustained_flops("fp16", 5e-324), "efficiency")
    _raises_naming(lambda: H100.ridge_point(0), "precision")
    _raises_naming(lambda: H100.attainable_flops(NAN), "intensity")
    _raises_naming(lambda: H100.attainable_flops(-1.0), "intensity")
    _raises_naming(lambda: H100.attainable_flops(10.0, efficiency=INF), "efficiency")


def test_gpt2_without_context_length_refused():
    # was: the position table silently dropped
    _raises_naming(lambda: M.gpt2(context_length=None), "context_length")


def test_builder_errors_name_the_builders_argument():
    # was: "validation error for Dense | out_features"
    msg = _raises_naming(lambda: M.resnet(num_classes=0), "num_classes")
    assert "out_features" not in msg
    msg = _raises_naming(lambda: M.mobilenet_v2(num_classes=-3), "num_classes")
    assert "out_features" not in msg
    # a combination only an inner layer can refuse is reported with the builder's arguments
    msg = _raises_naming(lambda: M.kws_dscnn(input_size=(1, 1)), "kws_dscnn(")
    assert "input_size=(1, 1)" in msg


def test_receptive_field_of_huge_depth_is_fast_and_exact():
    # was: did not return
    t0 = time.perf_counter()
    _raises_naming(lambda: L.receptive_field(10**12), "num_layers")
    r = L.receptive_field(10_000, 3, 2)
    assert time.perf_counter() - t0 < 1.0
    assert r == 1 + 2 * (2**10_000 - 1)  # sum of (K-1) * 2**l for l < 10,000
    # against the layer-by-layer recurrence on a depth small enough to loop
    rf, jump = 1, 1
    for _ in range(300):
        rf += (5 - 1) * jump
        jump *= 3
    assert L.receptive_field(300, 5, 3) == rf


def test_numpy_integers_accepted_by_solve_like_sweep():
    # was: solve refused np.int64(8) while sweep took it
    a = Engine.solve(Models.ResNet50, H100, batch_size=np.int64(8))
    b = Engine.solve(Models.ResNet50, H100, batch_size=8)
    assert a.batch_size == 8 and type(a.batch_size) is int
    assert a.latency_s == b.latency_s
    out = Engine.sweep(Models.ResNet50, H100, batch_sizes=np.array([8, 16]))
    assert out["latency_s"][0] == b.latency_s
    assert L.Dense(in_features=np.int32(3), out_features=np.uint8(4)).params == 16


def test_model_table_totals_are_exact_past_int64():
    # was: int64 columns that wrapped negative for a 70B model at long context
    pytest.importorskip("pandas")
    llama70 = M.llama(
        d_model=8192,
        n_layers=80,
        n_heads=64,
        kv_heads=8,
        d_ff=28672,
        vocab_size=128256,
        context_length=131072,
    )
    batch, seq = 1024, 131072
    table = llama70.table(batch=batch, seq_len=seq, phase="prefill")
    expect = llama70.flops(batch, seq, "prefill")
    assert expect > 2**63
    assert table["flops"].sum() == expect
    assert all(type(v) is int for v in table["flops"])
    assert (table["bytes_moved"] >= 0).all()


# --------------------------------------------------------------------------------------------
# solve and sweep share one validation
# --------------------------------------------------------------------------------------------

SHARED = [
    ("precision", "fp12"),
    ("precision", 16),
    ("efficiency", 0),
    ("efficiency", "0.5"),
    ("efficiency", NAN),
    ("efficiency", 2),
    ("phase", "train"),
    ("sparse", "no"),
    ("fused", None),
    ("hardware", "H900"),
    ("hardware", 3),
]


@pytest.mark.parametrize("arg,value", SHARED, ids=[f"{a}={v!r}" for a, v in SHARED])
def test_solve_and_sweep_refuse_alike(arg, value):
    kw = {"model": Models.GPT2Small, "hardware": H100, arg: value}
    with pytest.raises(ValueError) as a:
        Engine.solve(**kw)
    with pytest.raises(ValueError) as b:
        Engine.sweep(**kw)
    assert str(a.value) == str(b.value)
    assert arg in str(a.value)


# --------------------------------------------------------------------------------------------
# 2. The table: every public callable x every argument x every hostile value
# --------------------------------------------------------------------------------------------

HOSTILE = [True, "7", 2.5, NAN, INF, -1, 0, 10**300, np.int64(3), None, 10**400, []]
HOSTILE_IDS = [
    "True",
    "str",
    "2.5",
    "nan",
    "inf",
    "-1",
    "0",
    "1e300",
    "np.int64",
    "None",
    "1e400 int",
    "[]",
]


def _core_modules() -> list:
    """mlsysim and every public module under it, except the notebooks' UI kit (mlsysim.labs)."""
    import importlib
    import pkgutil

    mods = [mlsysim]
    for info in pkgutil.walk_packages(mlsysim.__path__, "mlsysim."):
        parts = info.name.split(".")
        if parts[1] == "labs" or any(p.startswith("_") for p in parts):
            continue
        mods.append(importlib.import_module(info.name))
    return mods


_MODULES = _core_modules()

# Result records: returned by the API, never constructed by callers (no row needed).
RESULTS = {
    "HeadUpdate",
    "Profile",
    "LayerTiming",
    "GradientFlow",
    "SystolicRun",
    "AccessCost",
    "AttentionMovement",
    "Row",
    "Entry",
    "Prior",
}
# Not mlsysim's: pint's registry and quantity class, re-exported for convenience.
FOREIGN = {"Q_", "Quantity", "ureg"}

_BLOCK = dict(d_model=16, n_heads=4, d_ff=32, seq_len=8)

# name -> (callable, valid keyword arguments); every argument of the callable is attacked
ROWS: dict[str, tuple] = {
    # layers
    "layers.Layer": (L.Layer, {}),
    "layers.Dense": (L.Dense, dict(in_features=8, out_features=4, bias=True, tokens=2, tied=False)),
    "layers.Conv2d": (
        L.Conv2d,
        dict(
            in_channels=4,
            out_channels=8,
            kernel_size=3,
            input_size=8,
            stride=1,
            padding=1,
            groups=2,
            bias=False,
        ),
    ),
    "layers.BatchNorm2d": (L.BatchNorm2d, dict(num_features=4, elements=64)),
    "layers.LayerNorm": (
        L.LayerNorm,
        dict(normalized_shape=8, elements=64, elementwise_affine=True),
    ),
    "layers.RMSNorm": (L.RMSNorm, dict(normalized_shape=8, elements=64)),
    "layers.Activation": (L.Activation, dict(kind="gelu", elements=64)),
    "layers.ResidualAdd": (L.ResidualAdd, dict(elements=64, op="add")),
    "layers.Elementwise": (L.Elementwise, dict(elements=64, op="mul")),
    "layers.Pool2d": (
        L.Pool2d,
        dict(channels=4, input_size=8, kernel_size=2, stride=2, padding=0, kind="avg"),
    ),
    "layers.AdaptiveAvgPool2d": (
        L.AdaptiveAvgPool2d,
        dict(channels=4, input_size=(13, 9), output_size=6),
    ),
    "layers.Scale": (L.Scale, dict(channels=4, elements=64)),
    "layers.TrainingOnly": (
        L.TrainingOnly,
        dict(layer=L.Dense(in_features=8, out_features=4)),
    ),
    "layers.OncePerPass": (
        L.OncePerPass,
        dict(layer=L.Dense(in_features=2, out_features=8, tokens=9)),
    ),
    "layers.Embedding": (
        L.Embedding,
        dict(num_embeddings=100, embedding_dim=8, lookups=3, pooling="sum"),
    ),
    "layers.RNN": (
        L.RNN,
        dict(
            input_size=4,
            hidden_size=8,
            seq_len=5,
            num_layers=2,
            bidirectional=True,
            bias=True,
            weights_resident=False,
        ),
    ),
    "layers.LSTM": (
        L.LSTM,
        dict(
            input_size=4,
            hidden_size=8,
            seq_len=5,
            num_layers=1,
            bidirectional=False,
            bias=False,
            weights_resident=True,
        ),
    ),
    "layers.GRU": (
        L.GRU,
        dict(
            input_size=4,
            hidden_size=8,
            seq_len=5,
            num_layers=3,
            bidirectional=False,
            bias=True,
            weights_resident=False,
        ),
    ),
    "layers.Attention": (
        L.Attention,
        dict(d_model=16, n_heads=4, seq_len=4, kv_len=8, kv_heads=2, flash=False),
    ),
    "layers.MultiHeadAttention": (
        L.MultiHeadAttention,
        dict(
            d_model=16,
            n_heads=4,
            seq_len=4,
            kv_heads=2,
            kv_len=8,
            bias=True,
            flash=False,
            name="attn",
            layers=(),
        ),
    ),
    "layers.TransformerBlock": (
        L.TransformerBlock,
        dict(
            **_BLOCK,
            kv_heads=2,
            kv_len=None,
            variant="llama",
            bias=None,
            flash=True,
            activation="silu",
            head_dim=4,
            name="block",
            layers=(),
        ),
    ),
    "layers.Sequential": (
        L.Sequential,
        dict(name="s", layers=(L.Dense(in_features=2, out_features=2),)),
    ),
    "layers.FeatureInteraction": (L.FeatureInteraction, dict(num_vectors=4, dim=8)),
    "layers.depthwise_separable": (
        L.depthwise_separable,
        dict(
            in_channels=4,
            out_channels=8,
            kernel_size=3,
            input_size=8,
            stride=1,
            padding=None,
            bias=False,
        ),
    ),
    "layers.receptive_field": (L.receptive_field, dict(num_layers=5, kernel_size=3, stride=2)),
    "layers.check_batch": (L.check_batch, dict(batch=3, name="batch")),
    # models
    "models.Model": (
        M.Model,
        dict(
            name="m",
            family="mlp",
            build=lambda s, p: [M.Row("fc", L.Dense(in_features=2, out_features=2))],
            is_lm=False,
            default_seq_len=1,
            description="",
            kv_per_token=None,
            config=None,
        ),
    ),
    "models.mlp": (M.mlp, dict(widths=[8, 4, 2], bias=True, activation="relu", name=None)),
    "models.mnist_mlp": (M.mnist_mlp, dict(bias=True)),
    "models.mnist_cnn": (M.mnist_cnn, dict(bias=False)),
    "models.resnet": (M.resnet, dict(depth=18, input_size=64, num_classes=10)),
    "models.mobilenet_v2": (M.mobilenet_v2, dict(width_mult=0.5, input_size=64, num_classes=10)),
    "models.mobilenet_v1": (M.mobilenet_v1, dict(width_mult=0.5, input_size=64, num_classes=10)),
    "vision.alexnet": (V.alexnet, dict(input_size=(63, 80), num_classes=10)),
    "vision.vgg": (V.vgg, dict(depth=11, batch_norm=True, input_size=32, num_classes=10)),
    "vision.vit": (V.vit, dict(variant="b_32", image_size=64, num_classes=10)),
    "vision.convnext": (V.convnext, dict(variant="tiny", input_size=32, num_classes=10)),
    "vision.efficientnet": (V.efficientnet, dict(variant="v2_s", input_size=40, num_classes=10)),
    "vision.mobilenet_v3": (
        V.mobilenet_v3,
        dict(variant="small", width_mult=0.5, input_size=40, num_classes=10),
    ),
    "vision.swin": (V.swin, dict(variant="t", v2=True, input_size=40, num_classes=10)),
    "vision.regnet": (V.regnet, dict(variant="x_400mf", input_size=40, num_classes=10)),
    "vision.inception_v3": (
        V.inception_v3,
        dict(input_size=(75, 90), num_classes=10, aux_logits=True),
    ),
    "vision.googlenet": (
        V.googlenet,
        dict(input_size=(40, 50), num_classes=10, aux_logits=False),
    ),
    "models.kws_dscnn": (
        M.kws_dscnn,
        dict(channels=16, ds_layers=2, input_size=(49, 10), num_classes=12),
    ),
    "models.gpt2": (
        M.gpt2,
        dict(
            d_model=32,
            n_layers=2,
            n_heads=4,
            vocab_size=100,
            context_length=64,
            name=None,
            flash=False,
        ),
    ),
    "models.bert": (
        M.bert,
        dict(
            d_model=32,
            n_layers=2,
            n_heads=4,
            d_ff=64,
            vocab_size=100,
            max_position=64,
            name=None,
            flash=False,
        ),
    ),
    "models.llama": (
        M.llama,
        dict(
            d_model=32,
            n_layers=2,
            n_heads=4,
            kv_heads=2,
            d_ff=64,
            vocab_size=100,
            context_length=64,
            tie_embeddings=False,
            name=None,
            flash=False,
        ),
    ),
    "models.dlrm": (
        M.dlrm,
        dict(
            dense_features=13,
            embedding_rows=[100, 200],
            embedding_dim=8,
            bottom_mlp=[16, 8],
            top_mlp=[16, 1],
            lookups_per_table=2,
            name="d",
        ),
    ),
    "models.Models.get": (Models.get, dict(key="KWS")),
    # engine
    "engine.Engine.solve": (
        Engine.solve,
        dict(
            model=Models.GPT2Small,
            hardware=H100,
            batch_size=2,
            precision="fp16",
            efficiency=0.5,
            phase="prefill",
            seq_len=16,
            sparse=False,
            fused=False,
        ),
    ),
    "engine.Engine.sweep": (
        Engine.sweep,
        dict(
            model=Models.GPT2Small,
            hardware=H100,
            batch_sizes=[1, 2],
            precision="fp16",
            efficiency=0.5,
            phase="decode",
            seq_lens=[16],
            sparse=False,
            fused=False,
            use_numpy=None,
        ),
    ),
    "engine.weight_reuse": (
        E.weight_reuse,
        dict(model=Models.GPT2Small, batch=2, seq_len=16, phase="decode"),
    ),
    "engine.weight_only_intensity": (
        E.weight_only_intensity,
        dict(model=Models.GPT2Small, precision="fp32", batch=1, seq_len=16, phase="prefill"),
    ),
    "engine.max_batch": (
        E.max_batch,
        dict(
            model=Models.GPT2Small,
            hardware="A100",
            precision="fp16",
            phase="decode",
            seq_len=16,
            reserve_bytes=1e9,
        ),
    ),
    "engine.round_sig": (E.round_sig, dict(x=8_176_000_000.0, digits=2)),
    "engine.table8_printed": (E.table8_printed, dict(model=Models.ResNet50)),
    # hardware
    "hardware.Provenance": (
        HW.Provenance,
        dict(document="doc", url="https://x.org", date="2024-01-01", notes=""),
    ),
    "hardware.PeakRate": (
        HW.PeakRate,
        dict(dense=(1, "TFLOP/s"), sparse=(2, "TFLOP/s"), unit_kind="tensor"),
    ),
    "hardware.Memory": (
        HW.Memory,
        dict(
            capacity=(8, "GB"), bandwidth=(100, "GB/s"), kind="", sram=(1, "MiB"), flash=(2, "MiB")
        ),
    ),
    "hardware.Compute": (
        HW.Compute,
        dict(
            quoted_precision="fp16",
            precisions={"fp16": HW.PeakRate(dense=(1, "TFLOP/s"))},
            rate_basis="datasheet_peak",
        ),
    ),
    "hardware.Device": (HW.Device, {k: getattr(H100, k) for k in HW.Device.model_fields}),
    "hardware.Device.ridge_point": (H100.ridge_point, dict(precision="fp16")),
    "hardware.Device.attainable_flops": (
        H100.attainable_flops,
        dict(intensity=10.0, precision="fp16", efficiency=0.5),
    ),
    "hardware.Compute.peak": (H100.compute.peak, dict(precision="fp16", sparse=True)),
    "hardware.Hardware.get": (Hardware.get, dict(key="H100")),
    # units, energy
    "units.bytes_per_value": (units.bytes_per_value, dict(precision="int4")),
    "energy.mac_energy": (energy.mac_energy, dict(precision="int8")),
    "energy.access_energy": (energy.access_energy, dict(n_bytes=64.0, level="sram_8kb")),
    "energy.move_vs_compute": (
        energy.move_vs_compute,
        dict(precision="fp32", level="dram", reuse=4),
    ),
    "energy.duty_cycle": (energy.duty_cycle, dict(busy_s=20.9, period_s=86_400.0)),
    "energy.average_power": (
        energy.average_power,
        dict(active_w=0.2, idle_w=0.02, duty=0.01),
    ),
    # gradients
    "gradients.activation": (gradients.activation, dict(kind="tanh", z=0.5)),
    "gradients.derivative": (gradients.derivative, dict(kind="sigmoid", z=0.5)),
    "gradients.max_derivative": (gradients.max_derivative, dict(kind="sigmoid")),
    "gradients.simulate": (
        gradients.simulate,
        dict(
            depth=4,
            width=4,
            activation="relu",
            gain=1.0,
            residual=True,
            branch_scale=None,
            seed=0,
            use_numpy=None,
        ),
    ),
    "gradients.batchnorm_train_serve_gap": (
        gradients.batchnorm_train_serve_gap,
        dict(batch=4, positions=2, trials=8, seed=0, eps=1e-5),
    ),
    # primitives
    "primitives.GemmShape": (primitives.GemmShape, dict(m=4, k=8, n=8, count=1)),
    "primitives.gemm_shape": (
        primitives.gemm_shape,
        dict(layer=L.Dense(in_features=4, out_features=4), batch=2),
    ),
    "primitives.SystolicArray": (
        primitives.SystolicArray,
        dict(size=8, clock=mlsysim.Q_(1, "GHz"), name="a"),
    ),
    "primitives.systolic_gemm": (
        primitives.systolic_gemm,
        dict(shape=primitives.GemmShape(m=4, k=8, n=8), size=4, weight_load=True),
    ),
    "primitives.access_cost": (
        primitives.access_cost,
        dict(pattern="strided", n_items=8, item_bytes=4, stride_bytes=16, line_bytes=64),
    ),
    "primitives.reduction_stages": (primitives.reduction_stages, dict(n=9, tree=True)),
    "primitives.attention_data_movement": (
        primitives.attention_data_movement,
        dict(seq_len=8, d_head=4, batch=2, n_heads=2, kv_len=None),
    ),
}

# The Hugging Face configurations and the mixture-of-experts layer (branch "hf"): their rows
# take effect once that API is merged.
if importlib.util.find_spec("mlsysim.hf") is not None:
    HF = importlib.import_module("mlsysim.hf")
    _GPT2_CFG = HF.shipped_config("gpt2")["config"]
    ROWS.update(
        {
            "hf.from_hf_config": (HF.from_hf_config, dict(config=_GPT2_CFG)),
            "hf.from_shipped": (HF.from_shipped, dict(name="gpt2")),
            "hf.shipped_config": (HF.shipped_config, dict(name="gpt2")),
            "hf.shipped_configs": (HF.shipped_configs, {}),
        }
    )
if hasattr(L, "MoE"):
    ROWS["layers.MoE"] = (L.MoE, dict(d_model=16, d_ff=32, num_experts=4, top_k=2, tokens=3))

# Modules merged with the lessons branches: the chapter's tables, the toy experiments of 6.2/6.5
# and the accuracy tables.
from mlsysim import accuracy as ACC  # noqa: E402
from mlsysim import blockopt as BO  # noqa: E402
from mlsysim import catalogue as CAT  # noqa: E402
from mlsysim import deployment as DEP  # noqa: E402
from mlsysim import moe as MOE  # noqa: E402
from mlsysim import order as ORD  # noqa: E402
from mlsysim import priors as PRI  # noqa: E402
from mlsysim import published as PUB  # noqa: E402
from mlsysim import symmetry as SYM  # noqa: E402
from mlsysim import table7 as T7  # noqa: E402

_M2 = [[1.0, 2.0], [3.0, 4.0]]
_IMG = [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]
_GPT_FAST = Engine.solve(Models.GPT2Small, H100, fused=True)
_GPT_SLOW = Engine.solve(Models.GPT2Small, H100, fused=False)
_ZOO = ["ResNet18", "ResNet50", "MobileNetV2"]


def _gmacs(key):
    return ACC.imagenet(key).published_gmacs


def _top1(key):
    return ACC.imagenet(key).top1


ROWS.update(
    {
        "engine.with_launch_cost": (E.with_launch_cost, dict(device=H100, seconds=5e-6)),
        "engine.launch_cost_for_speedup": (
            E.launch_cost_for_speedup,
            dict(slow=_GPT_SLOW, fast=_GPT_FAST, speedup=1.1),
        ),
        "models.batchnorm_sync": (M.batchnorm_sync, dict(model=Models.MNISTCNN)),
        "gradients.flow_verdict": (gradients.flow_verdict, dict(norm=0.5)),
        "gradients.bptt": (
            gradients.bptt,
            dict(
                steps=8,
                width=4,
                activation="tanh",
                gain=1.0,
                additive=False,
                branch_scale=None,
                seed=0,
            ),
        ),
        "gradients.skip_path": (
            gradients.skip_path,
            dict(form="highway", depth=8, gate_bias=-2.0),
        ),
        "gradients.gate_carry": (gradients.gate_carry, dict(gate_bias=-2.0)),
        "gradients.highway_bias_for": (gradients.highway_bias_for, dict(carry=0.1, depth=8)),
        "gradients.skip_weights": (gradients.skip_weights, dict(form="highway", width=8)),
        "primitives.winograd_multiplications": (
            primitives.winograd_multiplications,
            dict(m=2, r=3),
        ),
        "primitives.scatter_tiles": (
            primitives.scatter_tiles,
            dict(m=256, n=512, tile=64, cores=108),
        ),
        "primitives.tiled_gemm_values": (
            primitives.tiled_gemm_values,
            dict(shape=primitives.GemmShape(m=64, k=64, n=64), tile=16),
        ),
        "catalogue.identity": (CAT.identity, dict(key="H100")),
        "catalogue.label": (CAT.label, dict(key="JetsonOrinNX")),
        "catalogue.labels": (CAT.labels, dict(keys=["H100", "JetsonOrinNX"])),
        "catalogue.grouped": (CAT.grouped, dict(keys=["H100", "JetsonOrinNX"])),
        "table7.chapter": (
            T7.chapter,
            dict(block="dense", width=64, length=16, rows=1, precision="fp16"),
        ),
        "table7.exact": (
            T7.exact,
            dict(block="transformer", width=128, length=16, rows=1, precision="fp16"),
        ),
        "moe.MoELayer": (
            MOE.MoELayer,
            dict(d_model=16, d_ff=32, n_experts=4, top_k=2, ffn="swiglu"),
        ),
        "moe.mixtral_params": (MOE.mixtral_params, dict(n_experts=8, top_k=2)),
        "blockopt.AddInEpilogue": (BO.AddInEpilogue, dict(elements=64)),
        "blockopt.Int8Weights": (
            BO.Int8Weights,
            dict(inner=L.Dense(in_features=8, out_features=4)),
        ),
        "blockopt.rewritten": (BO.rewritten, dict(model=Models.KWS, optimization="int8_gemm")),
        "blockopt.optimized": (BO.optimized, dict(model=Models.KWS, optimization="fuse_add")),
        "blockopt.gain": (
            BO.gain,
            dict(case="kws", optimization="int8_gemm", device="L4", efficiency=0.5),
        ),
        "published.Published": (
            PUB.Published,
            dict(
                value=8.75,
                unit="%",
                what="error",
                source="paper",
                locator="Table 6",
                url="https://arxiv.org/abs/1512.03385",
                year=2016,
            ),
        ),
        "accuracy.Source": (
            ACC.Source,
            dict(document="doc", url="https://x.org", date="2024-01-01", notes=""),
        ),
        "deployment.head_update": (
            DEP.head_update,
            dict(
                build=lambda n: M.mobilenet_v2(0.5, input_size=32, num_classes=n),
                classes_before=10,
                classes_after=12,
                precision="int8",
            ),
        ),
        "deployment.throttle": (
            DEP.throttle,
            dict(device=Hardware.get("CortexA53Camera"), clock_fraction=0.5),
        ),
        "deployment.throttled_frame": (
            DEP.throttled_frame,
            dict(
                model=Models.KWS,
                device=Hardware.get("CortexA53Camera"),
                precision="int8",
                clock_fraction=0.5,
            ),
        ),
        "accuracy.imagenet": (ACC.imagenet, dict(key="ResNet50")),
        "accuracy.language": (ACC.language, dict(key="GPT2Small_LAMBADA")),
        "accuracy.zoo_entries": (ACC.zoo_entries, {}),
        "accuracy.exact_entries": (ACC.exact_entries, {}),
        "accuracy.pareto_front": (ACC.pareto_front, dict(items=_ZOO, cost=_gmacs, value=_top1)),
        "accuracy.cheapest_meeting": (
            ACC.cheapest_meeting,
            dict(items=_ZOO, bar=70.0, cost=_gmacs, value=_top1),
        ),
        "priors.layer": (PRI.layer, dict(family="cnn", seq_len=16, features=4, kernel=3)),
        "priors.compare": (PRI.compare, dict(seq_len=16, features=4, kernel=3, distance=1)),
        "symmetry.edge_image": (SYM.edge_image, dict(size=7, column=2)),
        "symmetry.conv2d_valid": (SYM.conv2d_valid, dict(image=_IMG, kernel=_M2)),
        "symmetry.shift": (SYM.shift, dict(image=_IMG, dx=1, dy=0)),
        "symmetry.dense_layer": (SYM.dense_layer, dict(n_in=4, n_out=3, seed=0)),
        "symmetry.dense_apply": (
            SYM.dense_apply,
            dict(image=_M2, weights=[[1.0] * 4] * 4, out_shape=(2, 2)),
        ),
        "symmetry.relu": (SYM.relu, dict(fmap=_M2)),
        "symmetry.global_average_pool": (SYM.global_average_pool, dict(fmap=_M2)),
        "symmetry.max_abs_difference": (SYM.max_abs_difference, dict(a=_M2, b=_M2)),
        "symmetry.step_image": (SYM.step_image, dict(size=7, column=3)),
        "symmetry.rot90": (SYM.rot90, dict(image=_IMG, k=1)),
        "symmetry.p4_conv2d_valid": (SYM.p4_conv2d_valid, dict(image=_IMG, kernel=_M2)),
        "symmetry.p4_rotate": (SYM.p4_rotate, dict(maps=[_M2] * 4, k=1)),
        "symmetry.p4_layer": (
            SYM.p4_layer,
            dict(layer=L.Conv2d(in_channels=1, out_channels=2, kernel_size=3, input_size=7)),
        ),
        "order.matmul": (ORD.matmul, dict(a=_M2, b=_M2)),
        "order.softmax": (ORD.softmax, dict(row=[1.0, 2.0, 3.0])),
        "order.scores": (ORD.scores, dict(x=_M2, wq=_M2, wk=_M2)),
        "order.self_attention": (
            ORD.self_attention,
            dict(x=_M2, wq=_M2, wk=_M2, wv=_M2, causal=True),
        ),
        "order.sinusoidal_positions": (ORD.sinusoidal_positions, dict(n_tokens=4, d_model=4)),
        "order.permute": (ORD.permute, dict(rows=_M2, order=[1, 0])),
        "order.random_matrix": (
            ORD.random_matrix,
            dict(rows=2, cols=3, rng=__import__("random").Random(0)),
        ),
        "order.order_experiment": (
            ORD.order_experiment,
            dict(n_tokens=5, d_model=4, shift=1, positions=False, seed=0),
        ),
        "order.causal_experiment": (
            ORD.causal_experiment,
            dict(n_tokens=5, d_model=4, causal=True, seed=0),
        ),
    }
)
# Records returned by the new API (not constructed by callers), and type aliases.
RESULTS |= {
    "BPTTFlow",
    "SkipPath",
    "Counts",
    "MixtralCounts",
    "Gain",
    "TileScatter",
    "ImageNetResult",
    "LanguageResult",
}
ALIASES_OF_TYPES = {"Matrix", "Grid"}

# War Story 6.1: the serving cost of a blend (mlsysim.ensemble)
from mlsysim import ensemble as ENS  # noqa: E402

ROWS.update(
    {
        "ensemble.serve": (ENS.serve, dict(members=2, factors=50)),
        "ensemble.improvement_pct": (ENS.improvement_pct, dict(rmse=0.88, baseline=0.9514)),
        "ensemble.stages": (ENS.stages, {}),
    }
)
RESULTS |= {"Serving", "Stage"}

# The hardware of 2012: AlexNet's training work and state (mlsysim.history)
from mlsysim import history as HIST  # noqa: E402

_ALEXNET = V.alexnet()
ROWS.update(
    {
        "history.training_flops": (
            HIST.training_flops,
            dict(model=_ALEXNET, images=1_200_000, epochs=90),
        ),
        "history.training_seconds": (
            HIST.training_seconds,
            dict(flops=10**17, device=HIST.GTX580, efficiency=0.3, count=2),
        ),
        "history.implied_efficiency": (
            HIST.implied_efficiency,
            dict(flops=10**17, device=HIST.GTX580, seconds=86_400.0, count=2),
        ),
        "history.training_state": (
            HIST.training_state,
            dict(model=_ALEXNET, batch=128, precision="fp32"),
        ),
    }
)
RESULTS |= {"TrainingState"}

# 6.7 head redundancy: what pruning heads saves in time (mlsysim.pruning)
from mlsysim import pruning as PRU  # noqa: E402

ROWS.update(
    {
        "pruning.prune_heads": (
            PRU.prune_heads,
            dict(heads_pruned=5, seq_len=64, device="H100", precision="fp16"),
        ),
        "pruning.pruned_encoder": (
            PRU.pruned_encoder,
            dict(heads_pruned=1, seq_len=8, d_model=16, n_heads=4, d_ff=32, n_layers=2),
        ),
    }
)
RESULTS |= {"HeadPruning"}

# Arguments whose result may legitimately be negative (an activation of a negative input).
SIGNED = {
    "gradients.activation",
    "ensemble.improvement_pct",  # an RMSE above the baseline is a negative improvement
    "gradients.highway_bias_for",
    "symmetry.conv2d_valid",
    "symmetry.shift",
    "symmetry.dense_layer",
    "symmetry.dense_apply",
    "symmetry.relu",
    "symmetry.global_average_pool",
    "symmetry.rot90",
    "symmetry.p4_conv2d_valid",
    "symmetry.p4_rotate",
    "order.matmul",
    "order.scores",
    "order.self_attention",
    "order.sinusoidal_positions",
    "order.permute",
    "order.random_matrix",
    "order.order_experiment",
    "order.causal_experiment",
}
# What a refusal may name instead of the argument (the caller-facing name of the same thing).
ALIASES = {
    ("hardware.Hardware.get", "key"): "hardware",
    ("models.Models.get", "key"): "model",
    ("accuracy.imagenet", "key"): "model",
    ("accuracy.language", "key"): "result",
}

# Valid values for the arguments of public methods (found by name on each instance).
METHOD_ARGS = {
    "batch": 2,
    "precision": "fp16",
    "seq_len": 16,
    "phase": None,
    "prefix": "p",
    "clock": mlsysim.Q_(1, "GHz"),
    "efficiency": 0.5,
    "sparse": False,
    "intensity": 10.0,
    "q_tile": 2,
    # Dense.forward on the table's Dense(in_features=8, out_features=4)
    "x": [0.5, -1.0, 2.0, 0.0, 1.0, 3.0, -2.0, 0.25],
    "weights": [[0.1, -0.2, 0.3, 0.4]] * 8,
    "relu": True,
    # a layer's model_copy: an empty update (validated like constructor arguments)
    "update": {},
    "deep": False,
}


def _public_callables() -> set[str]:
    names = set()
    for mod in _MODULES:
        for key in getattr(mod, "__all__", ()):
            obj = getattr(mod, key)
            if inspect.ismodule(obj) or key in FOREIGN or key in RESULTS or key in ALIASES_OF_TYPES:
                continue
            if obj in (Models, Hardware):
                continue  # instances: their methods have rows (Models.get, Hardware.get)
            if not callable(obj):
                continue  # constants
            names.add(obj)
    return names


def _row_objects() -> set:
    out = set()
    for fn, _ in ROWS.values():
        out.add(fn)
        out.add(getattr(fn, "__func__", fn))
    return out


def test_every_public_callable_has_a_row():
    covered = _row_objects()
    solve_sweep = {Engine.solve, Engine.sweep, E.solve, E.sweep, Engine}
    missing = [
        getattr(o, "__qualname__", repr(o))
        for o in _public_callables()
        if o not in covered and o not in solve_sweep
    ]
    assert not missing, f"public callables without a row in ROWS: {sorted(missing)}"
    for key in RESULTS:  # the exemptions are real public names
        assert any(key in getattr(m, "__all__", ()) for m in _MODULES), key


def _finite(v, signed: bool, where: str):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return
    if isinstance(v, int | Fraction):
        assert signed or v >= 0, f"{where}: negative {v}"
        return
    if isinstance(v, float):
        assert math.isfinite(v), f"{where}: {v}"
        assert signed or v >= 0, f"{where}: negative {v}"
        return
    if isinstance(v, units.Quantity):
        _finite(v.magnitude, signed, where)


def _sane(obj, signed=False, where="result", depth=0):
    """No NaN, inf or negative number anywhere a caller reads one."""
    if depth > 3:
        return
    _finite(obj, signed, where)
    if isinstance(obj, L.Layer):
        for attr in (
            "params",
            "weight_elements",
            "input_elements",
            "output_elements",
            "kernels",
            "operand_reads_per_output",
            "sync_values",
        ):  # the last two: Dense, BatchNorm2d
            if hasattr(obj, attr):
                _finite(getattr(obj, attr), False, f"{where}.{attr}")
        for meth in ("macs", "flops", "elementwise_flops", "live_elements", "traffic_elements"):
            _finite(getattr(obj, meth)(2), False, f"{where}.{meth}(2)")
        _finite(obj.bytes_moved(2, "int4"), False, f"{where}.bytes_moved")
        _finite(obj.arithmetic_intensity(2), False, f"{where}.arithmetic_intensity")
    elif isinstance(obj, M.Model):
        _finite(obj.params, False, f"{where}.params")
        _finite(obj.flops(2), False, f"{where}.flops")
        _finite(obj.kv_cache_bytes(3, 2), False, f"{where}.kv_cache_bytes")
    elif isinstance(obj, E.Profile):
        for f in (
            "latency_s",
            "latency_compute_s",
            "latency_memory_s",
            "latency_dispatch_s",
            "flops",
            "bytes_moved",
            "mfu",
            "memory_footprint_bytes",
            "ridge_point",
            "iron_law_s",
            "roofline_s",
            "energy_per_sample_j",
        ):
            _finite(getattr(obj, f), False, f"{where}.{f}")
        _finite(obj.over, False, f"{where}.over")
        _finite(obj.throughput, False, f"{where}.throughput")
        _finite(obj.arithmetic_intensity, False, f"{where}.intensity")
    elif hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a pandas DataFrame
        _sane(obj.to_dict("list"), signed, where, depth)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _sane(v, signed, f"{where}[{k!r}]", depth + 1)
    elif isinstance(obj, list | tuple):
        for i, v in enumerate(obj[:50]):
            _sane(v, signed, f"{where}[{i}]", depth + 1)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _sane(getattr(obj, f.name), signed, f"{where}.{f.name}", depth + 1)
        for name in ("macs", "cycles", "utilization", "efficiency", "first", "peak"):
            if hasattr(type(obj), name):
                _sane(getattr(obj, name), signed, f"{where}.{name}", depth + 1)


def _attack(fn, kwargs: dict, arg: str, value, name: str, signed: bool):
    call = {**kwargs, arg: value}
    try:
        result = fn(**call)
    except ValueError as exc:
        expected = ALIASES.get((name, arg), arg)
        assert expected in str(exc), (
            f"{name}({arg}={value!r}): message does not name {arg!r}: {exc}"
        )
        return
    _sane(result, signed, f"{name}({arg}={value!r})")


def _params(fn) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _base(name: str) -> dict:
    """The row's valid call: its listed values, and the signature's default for any optional
    argument the row does not list (so a new optional argument is attacked from day one)."""
    fn, kwargs = ROWS[name]
    base = {p.name: p.default for p in _params(fn) if p.default is not inspect.Parameter.empty}
    return {**base, **kwargs}


_CASES = [(name, p.name) for name, (fn, _) in ROWS.items() for p in _params(fn)]


@pytest.mark.parametrize("name,arg", _CASES, ids=[f"{n}.{a}" for n, a in _CASES])
def test_hostile_argument(name, arg):
    fn, _ = ROWS[name]
    kwargs = _base(name)
    signed = name in SIGNED
    _sane(fn(**kwargs), signed, f"{name}(valid)")  # the row's base call is valid
    for value in HOSTILE:
        _attack(fn, kwargs, arg, value, name, signed)


def test_rows_list_every_required_argument():
    """Every parameter of every row's callable is attacked; a required one needs a valid value."""
    for name, (fn, kwargs) in ROWS.items():
        missing = [
            p.name
            for p in _params(fn)
            if p.name not in kwargs and p.default is inspect.Parameter.empty
        ]
        assert not missing, f"{name}: no valid value for {missing}"
        unknown = set(kwargs) - {p.name for p in _params(fn)}
        assert not unknown, f"{name}: the row lists arguments the callable does not take: {unknown}"


def _instances():
    """One instance of every public class with methods: every layer, a CNN and an LM, a device."""
    out = {
        name: fn(**kw)
        for name, (fn, kw) in ROWS.items()
        if inspect.isclass(fn) and issubclass(fn, L.Layer)
    }
    out["models.Model(cnn)"] = Models.MNISTCNN
    out["models.Model(lm)"] = Models.GPT2Small
    out["hardware.Device"] = H100
    out["hardware.Compute"] = H100.compute
    out["primitives.SystolicRun"] = primitives.systolic_gemm(primitives.GemmShape(m=4, k=4, n=4))
    return out


def _methods():
    cases = []
    for iname, obj in _instances().items():
        seen = set()
        for klass in type(obj).__mro__:
            if klass.__module__.split(".")[0] != "mlsysim":
                continue  # pydantic's BaseModel and object: not mlsysim's API
            for mname, fn in vars(klass).items():
                if mname.startswith("_") or mname in seen or not inspect.isfunction(fn):
                    continue
                seen.add(mname)
                meth = getattr(obj, mname)
                params = [
                    p
                    for p in inspect.signature(meth).parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
                cases.append((f"{iname}.{mname}", obj, mname, [p.name for p in params]))
    return cases


_METHOD_CASES = _methods()


def test_every_method_argument_has_a_valid_value():
    unknown = sorted({p for _, _, _, ps in _METHOD_CASES for p in ps if p not in METHOD_ARGS})
    assert not unknown, f"add a valid value to METHOD_ARGS for: {unknown}"


@pytest.mark.parametrize("label,obj,mname,params", _METHOD_CASES, ids=[c[0] for c in _METHOD_CASES])
def test_hostile_method_argument(label, obj, mname, params):
    meth = getattr(obj, mname)
    kwargs = {p: METHOD_ARGS[p] for p in params if p in METHOD_ARGS}
    if isinstance(obj, M.Model) and not obj.is_lm:
        kwargs = {k: v for k, v in kwargs.items() if k != "seq_len"}
    if mname == "kv_cache_bytes":
        kwargs["seq_len"] = 16
    _sane(meth(**kwargs), False, f"{label}(valid)")
    for arg in kwargs:
        for value in HOSTILE:
            _attack(meth, kwargs, arg, value, label, False)


def test_the_caps_are_the_documented_ones():
    assert (_check.MAX_SIZE, _check.MAX_LAYERS, _check.MAX_BATCH) == (2**40, 10_000, 2**31)
    _raises_naming(lambda: L.Dense(in_features=2**40 + 1, out_features=1), "2**40")
    assert L.Dense(in_features=2**40, out_features=1).params == 2**40 + 1


def test_no_single_call_runs_away():
    """Work that grows with an argument is capped, with the cap in the message."""
    t0 = time.perf_counter()
    _raises_naming(
        lambda: Engine.sweep(Models.ResNet50, H100, batch_sizes=range(1, 2_000_001)), "batch_sizes"
    )
    _raises_naming(
        lambda: Engine.sweep(
            Models.GPT2Small, H100, batch_sizes=range(1, 1001), seq_lens=range(1, 1025)
        ),
        "1,000,000",
    )
    _raises_naming(
        lambda: gradients.batchnorm_train_serve_gap(2, 1024, trials=100_000), "trials x positions"
    )
    _raises_naming(lambda: M.mlp([4] * 20_000), "widths")
    _raises_naming(lambda: M.dlrm(embedding_rows=[10] * 20_000), "embedding_rows")
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize(
    "build,name",
    [
        (lambda: HW.Memory(capacity=(8, "GB"), bandwidth=(1e-300, "B/s")), "bandwidth"),
        (lambda: HW.Memory(capacity=(8, "GB"), bandwidth=(NAN, "GB/s")), "bandwidth"),
        (lambda: HW.Memory(capacity=(INF, "GB"), bandwidth=(1, "GB/s")), "capacity"),
        (lambda: HW.PeakRate(dense=(1e-300, "FLOP/s")), "dense"),
        (lambda: HW.PeakRate(dense=(1, "TFLOP/s"), sparse=(0, "TFLOP/s")), "sparse"),
        (
            lambda: HW.Device.model_validate({**dict(H100), "dispatch_tax": (1e300, "s")}),
            "dispatch_tax",
        ),
        (lambda: HW.Device.model_validate({**dict(H100), "tdp": (-1, "W")}), "tdp"),
        (lambda: primitives.SystolicArray(size=8, clock=mlsysim.Q_(1e-300, "Hz")), "clock"),
        (
            lambda: primitives.systolic_gemm(primitives.GemmShape(m=1, k=1, n=1)).time(
                mlsysim.Q_(INF, "GHz")
            ),
            "clock",
        ),
    ],
)
def test_device_figures_that_would_overflow_a_latency_are_refused(build, name):
    """A rate the engine divides by is at least 1 per second, and every figure is bounded, so
    no latency, energy or cycle time derived from a valid device can be inf."""
    _raises_naming(build, name)


def test_slowest_valid_device_gives_finite_latency_for_the_largest_model():
    slow = HW.Device.model_validate(
        {
            **dict(H100),
            "memory": HW.Memory(capacity=(1, "B"), bandwidth=(1, "B/s")),
            "compute": HW.Compute(
                quoted_precision="fp64", precisions={"fp64": HW.PeakRate(dense=(1, "FLOP/s"))}
            ),
            "dispatch_tax": (3600, "s"),
        }
    )
    huge = L.Dense(in_features=2**40, out_features=2**40, tokens=2**40)
    p = Engine.solve(huge, slow, batch_size=2**31, precision="fp64", efficiency=1e-12)
    for v in (p.latency_s, p.latency_compute_s, p.latency_memory_s, p.mfu, p.over.magnitude):
        assert math.isfinite(v) and v >= 0
    assert p.flops == 2 * 2**31 * 2**120


def test_parameter_free_model_has_no_weight_intensity():
    """0 parameters: a ValueError, not a ZeroDivisionError or inf."""
    act = M.Model("act", "mlp", lambda s, p: [M.Row("relu", L.Activation(elements=8))])
    _raises_naming(lambda: E.weight_only_intensity(act), "no parameters")
    _raises_naming(lambda: E.table8_printed(act), "no parameters")
    assert E.max_batch(act, "H100") > 0  # nothing to hold but activations: many samples
    _raises_naming(lambda: E.weight_reuse(L.Activation(elements=8)), "no parameters")

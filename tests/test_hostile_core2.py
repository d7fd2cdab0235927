"""Hostile input to the core modules (moe, engine, layers, hf) that the earlier hostile-input
tests did not reach: an MoE layer's unchecked fields and method arguments, devices and layers
changed by pydantic's ``model_copy(update=...)`` (which skipped validation; now validated at the
copy) or built by ``model_construct`` (which still skips it), ``phase`` given a numpy
array, composite layers whose fields are each in range but whose inner layers' sizes are not,
a caller-passed ``layers`` that a composite ignored, an endless ``layers`` iterator, and Hugging
Face configs with values that have no truth value (numpy arrays).

Each test fails on the code before the fix (a bare OverflowError / TypeError /
ZeroDivisionError, a negative or NaN result, an error naming an inner layer's field or nothing)
and asserts the fixed behaviour: a ValueError whose message names the argument the caller
passed. The last tests pin numbers recorded before the fix for valid input.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mlsysim import Engine, Hardware, Models, hf, moe
from mlsysim import engine as E
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim.units import Q_

H100 = Hardware.get("H100")
HUGE = 10**400  # an int no float can hold
MIX = moe.MIXTRAL_8X7B


# --------------------------------------------------------------------------------------------
# 1. moe.MoELayer: fields and method arguments
# --------------------------------------------------------------------------------------------

_MOE = {"d_model": 64, "d_ff": 128, "n_experts": 4, "top_k": 2}


@pytest.mark.parametrize("field", ["d_model", "d_ff", "n_experts", "top_k"])
@pytest.mark.parametrize("bad", [True, "8", 4.5, None, [], 0, -1, HUGE, 2**41, math.nan])
def test_moe_layer_fields_are_sizes(field, bad):
    with pytest.raises(ValueError, match=rf"{field} must be an integer in \[1, "):
        moe.MoELayer(**{**_MOE, field: bad})


def test_moe_layer_field_examples_from_the_audit():
    with pytest.raises(ValueError, match=r"d_model must be an integer in \[1, 2\*\*40\], got True"):
        moe.MoELayer(d_model=True, d_ff="8", n_experts=4.0, top_k=2)
    with pytest.raises(ValueError, match=r"d_ff must be an integer in \[1, 2\*\*40\], got '8'"):
        moe.MoELayer(d_model=8, d_ff="8", n_experts=4, top_k=2)
    # a size past the inner Dense layers' cap is refused at construction, by the MoE's own name
    with pytest.raises(ValueError, match=r"d_model must be an integer in \[1, 2\*\*40\]"):
        moe.MoELayer(d_model=2**41, d_ff=8, n_experts=4, top_k=2)
    with pytest.raises(ValueError, match=r"n_experts must be an integer in \[1, 2\*\*20\]"):
        moe.MoELayer(d_model=8, d_ff=8, n_experts=2**21, top_k=2)
    # an integral float or a numpy integer is a size, as in every layer
    lay = moe.MoELayer(d_model=np.int64(8), d_ff=16.0, n_experts=4.0, top_k=2)
    assert lay.n_experts == 4 and type(lay.n_experts) is int and lay.params > 0


def test_moe_layer_model_copy_is_validated():
    with pytest.raises(ValueError, match=r"d_model must be an integer in \[1, 2\*\*40\], got -1"):
        MIX.model_copy(update={"d_model": -1})
    with pytest.raises(ValueError, match=r"top_k=9 must be <= n_experts=8"):
        MIX.model_copy(update={"top_k": 9})
    assert MIX.model_copy(update={"top_k": 1}).active_params < MIX.active_params


_BAD_TOKENS = [HUGE, 2**41, "3", None, [], True, 0, -1, 2.5, math.inf]


@pytest.mark.parametrize("bad", _BAD_TOKENS)
@pytest.mark.parametrize(
    "call",
    [
        lambda t: MIX.capacity(t, 1.0),
        lambda t: MIX.experts_touched(t),
        lambda t: MIX.hot_loads(t, 0.5),
        lambda t: MIX.dropped(t, 1.0, 0.5),
        lambda t: MIX.step_stretch(t, 1.0, 0.5),
        lambda t: MIX.weight_bytes_read(t),
        lambda t: MIX.weight_read_s(t, "H100"),
    ],
)
def test_moe_tokens_named_with_range(call, bad):
    with pytest.raises(ValueError, match=r"tokens must be an integer in \[1, 2\*\*40\]"):
        call(bad)


@pytest.mark.parametrize("bad", [1e308, HUGE, "3", None, [], True, 0, -1.0, math.nan, math.inf])
@pytest.mark.parametrize(
    "call",
    [
        lambda c: MIX.capacity(64, c),
        lambda c: MIX.dropped(64, c, 0.5),
        lambda c: MIX.step_stretch(64, c, 0.5),
    ],
)
def test_moe_capacity_factor_named_with_range(call, bad):
    with pytest.raises(
        ValueError, match=r"capacity_factor must be a finite number in \(0, 1e\+06\]"
    ):
        call(bad)


@pytest.mark.parametrize("bad", ["0.5", None, [], True, HUGE, math.nan, 0.01, 1.5])
@pytest.mark.parametrize(
    "call",
    [
        lambda h: MIX.hot_loads(64, h),
        lambda h: MIX.dropped(64, 1.0, h),
        lambda h: MIX.step_stretch(64, 1.0, h),
    ],
)
def test_moe_hot_share_named_with_range(call, bad):
    with pytest.raises(ValueError, match=r"hot_share must be a number in \[1/n_experts, 1\]"):
        call(bad)


@pytest.mark.parametrize("bad", ["2", None, HUGE, True, 2.5, 0, 9])
def test_moe_devices_named_with_range(bad):
    with pytest.raises(ValueError, match=r"devices must be in \[1, n_experts\] = \[1, 8\]"):
        MIX.all_to_all_bytes_per_token(bad)


def test_moe_weight_read_s_names_device():
    with pytest.raises(ValueError, match=r"device='H900' is not a known device; allowed: H100"):
        MIX.weight_read_s(1, "H900")
    with pytest.raises(ValueError, match=r"device must be a Device or a device key, got 3"):
        MIX.weight_read_s(1, 3)
    broken = _mem(bandwidth=Q_(0, "B/s"))
    with pytest.raises(ValueError, match=r"device\.memory\.bandwidth must be a finite quantity"):
        MIX.weight_read_s(1, broken)


# --------------------------------------------------------------------------------------------
# 2. engine: devices and layers from model_copy / model_construct, phase given a numpy array
# --------------------------------------------------------------------------------------------


def _unchecked(model, **update):
    """``model`` with ``update`` written in unchecked: pydantic's ``model_construct``, the one
    path left that skips validation (``model_copy(update=...)`` now validates)."""
    values = {k: getattr(model, k) for k in type(model).model_fields}
    return type(model).model_construct(**{**values, **update})


def _mem(**update):
    return _unchecked(H100, memory=_unchecked(H100.memory, **update))


def _rate(q):
    fp16 = _unchecked(H100.compute.precisions["fp16"], dense=q)
    precisions = {**H100.compute.precisions, "fp16": fp16}
    return _unchecked(H100, compute=_unchecked(H100.compute, precisions=precisions))


_BROKEN_DEVICES = [
    ("dispatch_tax", _unchecked(H100, dispatch_tax=Q_(-1, "s"))),
    ("dispatch_tax", _unchecked(H100, dispatch_tax=Q_(math.inf, "s"))),
    ("dispatch_tax", _unchecked(H100, dispatch_tax=1e-6)),
    ("tdp", _unchecked(H100, tdp=Q_(math.nan, "W"))),
    ("tdp", _unchecked(H100, tdp=Q_(-700, "W"))),
    ("memory.bandwidth", _mem(bandwidth=Q_(0, "B/s"))),
    ("memory.bandwidth", _mem(bandwidth=Q_(-1, "TB/s"))),
    ("memory.capacity", _mem(capacity=Q_(math.nan, "GB"))),
    ("memory.sram", _mem(sram=Q_(-1, "MB"))),
    ("memory", _unchecked(H100, memory=None)),
    ("compute.precisions['fp16'].dense", _rate(Q_(0, "FLOP/s"))),
    ("compute.precisions['fp16'].dense", _rate(Q_(math.inf, "TFLOP/s"))),
]

_BAD_COPIES = [
    (
        H100,
        {"dispatch_tax": Q_(-1, "s")},
        r"dispatch_tax must be a finite quantity in \[0, 3600\] s",
    ),
    (H100, {"dispatch_tax": Q_(math.inf, "s")}, r"dispatch_tax must be a finite quantity"),
    (H100, {"dispatch_tax": 1e-6}, r"dispatch_tax"),
    (H100, {"tdp": Q_(math.nan, "W")}, r"tdp must be a finite quantity"),
    (H100, {"tdp": Q_(-700, "W")}, r"tdp must be a finite quantity"),
    (H100, {"memory": None}, r"memory: "),
    (H100.memory, {"bandwidth": Q_(0, "B/s")}, r"bandwidth must be a finite quantity"),
    (H100.memory, {"bandwidth": Q_(-1, "TB/s")}, r"bandwidth must be a finite quantity"),
    (H100.memory, {"capacity": Q_(math.nan, "GB")}, r"capacity must be a finite quantity"),
    (H100.memory, {"sram": Q_(-1, "MB")}, r"sram must be a finite quantity"),
    (H100.compute.precisions["fp16"], {"dense": Q_(0, "FLOP/s")}, r"dense must be"),
    (H100.compute.precisions["fp16"], {"dense": Q_(math.inf, "TFLOP/s")}, r"dense must be"),
]


@pytest.mark.parametrize(("model", "update", "says"), _BAD_COPIES)
def test_device_model_copy_is_validated(model, update, says):
    """pydantic's model_copy(update=...) skips validation; a device's (and its memory's and peak
    rates') validates the update as the constructor does, and the error names the field."""
    name = type(model).__name__
    with pytest.raises(
        ValueError, match=rf"model_copy\(update=\.\.\.\) would make an invalid {name}: .*{says}"
    ):
        model.model_copy(update=update)


def test_device_model_copy_keeps_valid_updates():
    fast = H100.model_copy(update={"dispatch_tax": Q_(0, "s")})
    assert fast.dispatch_tax.m == 0 and fast.memory == H100.memory and fast.key == H100.key
    assert H100.model_copy() == H100 and H100.model_copy(deep=True) == H100


@pytest.mark.parametrize(("field", "dev"), _BROKEN_DEVICES)
def test_engine_checks_device_figures(field, dev):
    pat = "hardware." + field.replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")
    with pytest.raises(ValueError, match=pat):
        Engine.solve(Models.GPT2, dev)
    with pytest.raises(ValueError, match=pat):
        Engine.sweep(Models.ResNet50, dev, batch_sizes=[1, 2])


def test_engine_accepts_valid_device_copies():
    """Lab-style copies with valid figures still solve (capacity 0 B is allowed, as in Device)."""
    fast = E.with_launch_cost("H100", 0.0)
    assert Engine.solve(Models.GPT2, fast).latency_dispatch_s == 0
    small = _mem(capacity=Q_(0, "B"), sram=Q_(0, "B"))
    p = Engine.solve(Models.MNISTMLP, small)
    assert p.latency_s > 0 and not p.feasible


def _bad_dense():
    return L.Dense(in_features=4, out_features=4).model_copy(update={"in_features": -5})


@pytest.mark.parametrize(
    "call",
    [
        lambda lay: Engine.solve(lay, "H100"),
        lambda lay: Engine.sweep(lay, "H100", batch_sizes=[1, 2]),
        lambda lay: Engine.solve(L.Sequential(layers=(L.Activation(elements=4), lay)), "H100"),
        lambda lay: E.weight_reuse(lay),
        lambda lay: Engine.solve(M.Model("byom", "mlp", lambda s, p: [M.Row("fc", lay)]), "H100"),
        lambda lay: E.weight_reuse(M.Model("byom", "mlp", lambda s, p: [M.Row("fc", lay, 2)])),
        lambda lay: E.weight_only_intensity(M.Model("byom", "mlp", lambda s, p: [M.Row("x", lay)])),
    ],
)
def test_engine_checks_a_layer_changed_by_model_copy(call):
    """pydantic's model_copy(update=...) skips validation: a layer's model_copy validates the
    update, so no engine path ever sees the invalid copy (it solved a Dense of in_features=-5 to
    a latency before, and the copy's own params were -16)."""
    with pytest.raises(
        ValueError, match=r"model_copy.*in_features must be an integer in \[1, 2\*\*40\], got -5"
    ):
        call(_bad_dense())


def test_engine_checks_a_composite_changed_by_model_copy():
    mha = L.MultiHeadAttention(d_model=8, n_heads=2, seq_len=4)
    with pytest.raises(ValueError, match=r"n_heads x head_dim must be in \[1, 2\*\*40\]"):
        Engine.solve(mha.model_copy(update={"head_dim": 2**30, "n_heads": 2**20}), "H100")
    tb = L.TransformerBlock(d_model=8, n_heads=2, d_ff=16, seq_len=4)
    with pytest.raises(ValueError, match=r"n_heads=3 must divide d_model=8"):
        Engine.solve(tb.model_copy(update={"n_heads": 3}), "H100")


def test_valid_layer_copies_still_solve():
    d = L.Dense(in_features=4, out_features=4)
    c = d.model_copy(update={"in_features": 8})
    assert Engine.solve(c, "H100").flops == 2 * 8 * 4
    assert Engine.solve(c, "H100").latency_s > 0  # checked once, then as any layer
    assert d.model_copy() == d and d.model_copy(deep=True) == d


def test_composite_model_copy_drops_cached_counts():
    """pydantic's model_copy carried the cached leaves over: the copy counted the old seq_len."""
    m = L.MultiHeadAttention(d_model=64, n_heads=4, seq_len=8)
    assert m.macs() > 0  # fills the cache
    c = m.model_copy(update={"seq_len": 16})
    assert c.macs() == L.MultiHeadAttention(d_model=64, n_heads=4, seq_len=16).macs()


_ARRAY_PHASES = [np.array(["decode"]), np.array(["prefill", "decode"]), np.array([]), 1, b"decode"]


@pytest.mark.parametrize("phase", _ARRAY_PHASES)
@pytest.mark.parametrize(
    "call",
    [
        lambda ph: Engine.solve(Models.GPT2, "H100", phase=ph),
        lambda ph: Engine.sweep(Models.GPT2, "H100", phase=ph),
        lambda ph: E.weight_reuse(Models.GPT2, phase=ph),
        lambda ph: E.weight_reuse(L.Dense(in_features=2, out_features=2), phase=ph),
        lambda ph: E.weight_only_intensity(Models.GPT2, phase=ph),
    ],
)
def test_phase_must_be_a_string(call, phase):
    with pytest.raises(ValueError, match=r"phase=.* is not valid; allowed: None, 'prefill'"):
        call(phase)


# --------------------------------------------------------------------------------------------
# 3. layers: composites refuse sizes their inner layers cannot take; layers= and iterators
# --------------------------------------------------------------------------------------------


def test_mha_refuses_a_query_width_past_the_cap():
    with pytest.raises(ValueError, match=r"n_heads x head_dim must be in \[1, 2\*\*40\]"):
        L.MultiHeadAttention(d_model=4, n_heads=2**20, head_dim=2**30, seq_len=1)
    # at the cap it builds and counts
    m = L.MultiHeadAttention(d_model=4, n_heads=2**10, head_dim=2**30, seq_len=1)
    assert m.params > 0


@pytest.mark.parametrize(
    ("kw", "names"),
    [
        (
            {"d_model": 2**20, "d_ff": 8, "seq_len": 2**30},
            r"seq_len x d_model must be in \[1, 2\*\*40\]",
        ),
        (
            {"d_model": 8, "d_ff": 2**20, "seq_len": 2**30},
            r"seq_len x d_ff must be in \[1, 2\*\*40\]",
        ),
    ],
)
@pytest.mark.parametrize("variant", ["encoder", "llama"])
def test_transformer_block_refuses_inner_sizes_past_the_cap(kw, names, variant):
    with pytest.raises(ValueError, match=names):
        L.TransformerBlock(n_heads=1, variant=variant, **kw)


def test_audit_transformer_block_fails_at_construction_not_in_solve():
    with pytest.raises(ValueError, match=r"seq_len x d_model"):
        L.TransformerBlock(d_model=2**20, n_heads=1, d_ff=2**20, seq_len=2**30)


@pytest.mark.parametrize(
    "cls", [L.MultiHeadAttention, L.TransformerBlock], ids=lambda c: c.__name__
)
def test_composites_refuse_caller_layers(cls):
    kw = {"d_model": 8, "n_heads": 2, "seq_len": 4}
    if cls is L.TransformerBlock:
        kw["d_ff"] = 16
    with pytest.raises(ValueError, match=rf"layers is built by {cls.__name__}"):
        cls(layers=(L.Dense(in_features=4, out_features=4),), **kw)
    # the empty default (what model_dump writes) still round-trips
    layer = cls(**kw)
    assert cls(**layer.model_dump()).params == layer.params


@pytest.mark.parametrize(
    "bad",
    [
        itertools.count(),
        itertools.repeat(L.Dense(in_features=2, out_features=2)),
        (L.Dense(in_features=2, out_features=2) for _ in range(3)),
        {L.Activation(elements=2)},
        "layers",
        None,
    ],
)
def test_sequential_layers_must_be_a_list_or_tuple(bad):
    with pytest.raises(ValueError, match=r"layers must be a list or tuple of layers"):
        L.Sequential(layers=bad)


def test_sequential_list_still_accepted():
    d = L.Dense(in_features=2, out_features=2)
    assert L.Sequential(layers=[d, d]).params == 2 * d.params


@pytest.mark.parametrize(
    "weights", [np.array([1.0, 2.0]), np.zeros((2, 2, 2)), np.array([[[1.0, 2.0], [3.0, 4.0]]])]
)
def test_dense_forward_names_weights_for_an_array_of_another_shape(weights):
    with pytest.raises(ValueError, match=r"weights must be 2 rows of 2 values .*shape"):
        L.Dense(in_features=2, out_features=2).forward([1.0, 2.0], weights)


def test_dense_forward_2d_array_unchanged():
    d = L.Dense(in_features=2, out_features=2)
    assert d.forward([1, 2], np.array([[1, 2], [3, 4]])) == [7.0, 10.0]
    assert d.forward(np.array([1, 2]), [[1, 2], [3, 4]]) == [7.0, 10.0]


# --------------------------------------------------------------------------------------------
# 4. hf: RoBERTa's padding row, fields with no truth value, shipped_config(name=array)
# --------------------------------------------------------------------------------------------

ROBERTA = hf.shipped_config("roberta-base")["config"]
GPT2 = hf.shipped_config("gpt2")["config"]
LLAMA = hf.shipped_config("llama-2-7b")["config"]


@pytest.mark.parametrize("pad", [513, 600, 10**6])
def test_roberta_pad_token_id_named(pad):
    with pytest.raises(
        ValueError,
        match=rf"config\['pad_token_id'\]={pad} with config\['max_position_embeddings'\]=514 "
        r"leaves no usable position.*\[0, 512\]",
    ):
        hf.from_hf_config({**ROBERTA, "pad_token_id": pad})


def test_roberta_pad_token_id_at_the_limit_builds():
    m = hf.from_hf_config({**ROBERTA, "pad_token_id": 512})
    assert m.default_seq_len == 1


@pytest.mark.parametrize(
    "archs", [np.int64(3), np.array([1, 2]), np.array([]), "GPT2LMHeadModel", {"a": 1}, 3]
)
def test_architectures_not_a_list_named(archs):
    with pytest.raises(
        ValueError, match=r"config\['architectures'\] must be a list of class names"
    ):
        hf.from_hf_config({**GPT2, "architectures": archs})


@pytest.mark.parametrize("key", ["quantization_config", "per_layer_config", "add_cross_attention"])
@pytest.mark.parametrize("v", [np.array([1, 2]), np.array([])])
def test_flags_with_no_truth_value_named(key, v):
    with pytest.raises(ValueError, match=rf"config\['{key}'\] must be a JSON value"):
        hf.from_hf_config({**GPT2, key: v})


@pytest.mark.parametrize("key", ["num_key_value_heads", "head_dim"])
@pytest.mark.parametrize("v", [np.array([1, 2]), np.array([])])
def test_decoder_sizes_given_arrays_named(key, v):
    with pytest.raises(ValueError, match=rf"config\['{key}'\] must be an integer"):
        hf.from_hf_config({**LLAMA, key: v})


def test_position_embedding_type_is_ignored_whatever_it_holds():
    """transformers 5 no longer reads it (tests/test_hf_configs.py): an array there changes
    nothing and raises nothing, as in transformers."""
    odd = hf.from_hf_config({**ROBERTA, "position_embedding_type": np.array(["absolute", "x"])})
    assert odd.params == hf.from_hf_config(ROBERTA).params


@pytest.mark.parametrize("name", [np.array(["gpt2"]), np.array(["gpt2", "bert"]), 3, None])
def test_shipped_config_name_must_be_a_string(name):
    with pytest.raises(ValueError, match=r"name must be a string"):
        hf.shipped_config(name)


# --------------------------------------------------------------------------------------------
# 5. valid input: the numbers recorded before these fixes
# --------------------------------------------------------------------------------------------


def test_mixtral_layer_numbers_unchanged():
    assert (MIX.params, MIX.active_params) == (1_409_318_912, 352_354_304)
    assert (MIX.macs_per_token(), MIX.dense_equivalent_macs()) == (352_354_304, 1_409_318_912)
    assert [MIX.experts_touched(t) for t in (1, 2, 32, 10**6)] == pytest.approx(
        [2.0, 3.5, 7.999196380594235, 8.0], rel=1e-15
    )
    assert [MIX.weight_bytes_read(t, p) for t in (1, 32) for p in ("fp16", "int8")] == (
        pytest.approx([704708608.0, 352354304.0, 2818354691.5766015, 1409177345.7883008], rel=1e-15)
    )
    assert [MIX.weight_read_s(t, d) for t in (1, 32) for d in ("H100", "A100")] == pytest.approx(
        [
            0.0002103607785074627,
            0.00034561481510544386,
            0.0008412999079333139,
            0.0013822239782131445,
        ],
        rel=1e-15,
    )
    assert [MIX.capacity(t, c) for t in (1, 64, 4096) for c in (1.0, 1.25, 2)] == [
        1, 1, 1, 16, 20, 32, 1024, 1280, 2048
    ]  # fmt: skip
    assert MIX.hot_loads(64, 0.5) == pytest.approx([64.0] + [9.142857142857142] * 7, rel=1e-15)
    assert [MIX.dropped(64, c, h) for c in (1.0, 1.25) for h in (0.125, 0.5, 1.0)] == [
        0.0, 48.0, 112.0, 0.0, 44.0, 108.0
    ]  # fmt: skip
    assert [MIX.step_stretch(64, c, h) for c in (1.0, 1.25) for h in (0.125, 0.5, 1.0)] == (
        pytest.approx([1.0, 1.0, 1.0, 1.0, 1.25, 1.25], rel=1e-12)
    )
    assert [MIX.all_to_all_bytes_per_token(n) for n in (1, 2, 8)] == [0.0, 16384.0, 28672.0]
    assert MIX.all_to_all_limit("fp32") == 65536.0
    assert moe.mixtral_params().model_dump() == {"total": 46702792704, "active": 12879925248}
    m2 = moe.MoELayer(d_model=64, d_ff=256, n_experts=4, top_k=1, ffn="gelu")
    assert [m2.params, m2.active_params, m2.macs_per_token()] == [132608, 33344, 33024]
    assert m2.experts_touched(3) == 2.3125 and m2.hot_loads(5, 0.25) == [1.25] * 4


@pytest.mark.parametrize(
    ("model", "dev", "latency", "energy"),
    [
        ("GPT2", "H100", 0.0042280468226865665, 0.7399081939701492),
        ("GPT2", "A100", 0.005078715966650318, 0.5078715966650318),
        ("GPT2", "JetsonOrinNX", 0.054903270078125, 0.34314543798828123),
        ("ResNet50", "H100", 0.0010953632125009314, 0.191688562187663),
        ("ResNet50", "JetsonOrinNX", 0.012650406120079786, 0.07906503825049867),
    ],
)
def test_engine_numbers_unchanged(model, dev, latency, energy):
    p = Engine.solve(getattr(Models, model), dev, batch_size=4)
    assert p.latency_s == pytest.approx(latency, rel=1e-15)
    assert p.energy_per_sample_j == pytest.approx(energy, rel=1e-15)


def test_other_numbers_unchanged():
    assert Engine.solve(Models.GPT2, "H100", phase="prefill", seq_len=128).latency_s == (
        pytest.approx(0.004108971400597014, rel=1e-15)
    )
    sw = Engine.sweep(Models.GPT2, "H100", batch_sizes=[1, 8, 64], phase="decode")
    assert sw["latency_s"] == pytest.approx(
        [0.003932465944477612, 0.004622154660298507, 0.010139664386865671], rel=1e-15
    )
    mha = L.MultiHeadAttention(d_model=768, n_heads=12, seq_len=128)
    assert [mha.params, mha.macs(2), mha.bytes_moved(2)] == [2362368, 654311424, 12589056]
    tb = L.TransformerBlock(
        d_model=4096, n_heads=32, d_ff=14336, seq_len=64, variant="llama", kv_heads=8
    )
    assert [tb.params, tb.macs(2), tb.bytes_moved(2)] == [218112000, 27984396288, 490749952]
    assert Engine.solve(tb, "H100").latency_s == pytest.approx(0.00021835432119402985, rel=1e-15)
    assert E.weight_reuse(Models.GPT2) == pytest.approx(0.9984037094751245, rel=1e-15)
    params = {n: hf.from_shipped(n).params for n in ("gpt2", "roberta-base", "mixtral-8x7b-v0.1")}
    assert params == {
        "gpt2": 124439808,
        "roberta-base": 124697433,
        "mixtral-8x7b-v0.1": 46702792704,
    }


@pytest.mark.parametrize("method", ["macs", "flops", "table"])
def test_model_phase_given_an_array_is_refused_by_name(method):
    """A numpy array (or any non-string) as ``phase`` names ``phase``, not 'unhashable type'."""
    np = pytest.importorskip("numpy")
    from mlsysim import Models

    with pytest.raises(ValueError, match=r"phase=.*allowed: 'prefill', 'decode'"):
        getattr(Models.GPT2, method)(phase=np.array(["decode"]))

"""Invalid configurations fail loudly, at construction, with a ValueError naming the field;
valid extreme configurations never produce NaN, inf or a negative number."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import pytest

from mlsysim import Engine, Hardware, Models
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim.hardware import Compute, Device, Memory, PeakRate, Provenance

H100 = Hardware.Cloud.H100
A100 = Hardware.Cloud.A100
NAN = float("nan")


class Bad(NamedTuple):
    id: str
    call: Callable[[], object]
    names: str  # a substring the message must contain (the field, or the offending value)


def _conv(**kw):
    base = dict(in_channels=3, out_channels=8, kernel_size=3, input_size=8)
    return L.Conv2d(**{**base, **kw})


def _solve(model=None, dev=H100, **kw):
    return Engine.solve(model or Models.ResNet50, dev, **kw)


def _dense():
    return L.Dense(in_features=4, out_features=4)


BAD: list[Bad] = [
    # zero / negative sizes
    Bad("conv_in_channels_0", lambda: _conv(in_channels=0), "in_channels"),
    Bad("conv_out_channels_neg", lambda: _conv(out_channels=-8), "out_channels"),
    Bad("conv_kernel_0", lambda: _conv(kernel_size=0), "kernel_size"),
    Bad("conv_kernel_pair_0", lambda: _conv(kernel_size=(3, 0)), "kernel_size"),
    Bad("conv_input_0", lambda: _conv(input_size=0), "input_size"),
    Bad("conv_input_neg", lambda: _conv(input_size=-4), "input_size"),
    Bad("conv_stride_0", lambda: _conv(stride=0), "stride"),
    Bad("conv_padding_neg", lambda: _conv(padding=-1), "padding"),
    Bad("conv_padding_pair_neg", lambda: _conv(padding=(1, -1)), "padding"),
    Bad("dense_in_0", lambda: L.Dense(in_features=0, out_features=4), "in_features"),
    Bad("dense_out_neg", lambda: L.Dense(in_features=4, out_features=-1), "out_features"),
    Bad("dense_tokens_0", lambda: L.Dense(in_features=4, out_features=4, tokens=0), "tokens"),
    Bad("rnn_hidden_0", lambda: L.RNN(input_size=4, hidden_size=0, seq_len=3), "hidden_size"),
    Bad("lstm_seq_0", lambda: L.LSTM(input_size=4, hidden_size=4, seq_len=0), "seq_len"),
    Bad(
        "gru_layers_0",
        lambda: L.GRU(input_size=4, hidden_size=4, seq_len=2, num_layers=0),
        "num_layers",
    ),
    Bad("attention_seq_0", lambda: L.Attention(d_model=8, n_heads=2, seq_len=0), "seq_len"),
    Bad(
        "embedding_rows_0", lambda: L.Embedding(num_embeddings=0, embedding_dim=8), "num_embeddings"
    ),
    Bad("layernorm_0", lambda: L.LayerNorm(normalized_shape=0, elements=8), "normalized_shape"),
    Bad("batchnorm_elements_0", lambda: L.BatchNorm2d(num_features=4, elements=0), "elements"),
    Bad("pool_input_0", lambda: L.Pool2d(channels=3, input_size=0), "input_size"),
    Bad(
        "pool_stride_0",
        lambda: L.Pool2d(channels=3, input_size=4, kernel_size=2, stride=0),
        "stride",
    ),
    Bad("interaction_1_vector", lambda: L.FeatureInteraction(num_vectors=1, dim=4), "num_vectors"),
    Bad("gpt2_d_model_0", lambda: M.gpt2(d_model=0), "d_model"),
    Bad("gpt2_layers_neg", lambda: M.gpt2(n_layers=-1), "n_layers"),
    Bad("mlp_width_0", lambda: M.mlp([4, 0]), "widths[1]"),
    Bad("mlp_one_width", lambda: M.mlp([4]), "widths"),
    Bad("resnet_input_16", lambda: M.resnet(50, 16), "input_size"),
    Bad("receptive_field_neg", lambda: L.receptive_field(-1), "num_layers"),
    # non-integer sizes
    Bad("conv_channels_3.5", lambda: _conv(in_channels=3.5), "in_channels"),
    Bad("dense_features_2.5", lambda: L.Dense(in_features=2.5, out_features=4), "in_features"),
    Bad("lstm_hidden_2.5", lambda: L.LSTM(input_size=4, hidden_size=2.5, seq_len=1), "hidden_size"),
    Bad("gpt2_d_model_float", lambda: M.gpt2(d_model=768.5), "d_model"),
    Bad("resnet_input_float", lambda: M.resnet(50, 224.5), "input_size"),
    # kernel larger than the padded input
    Bad("conv_kernel_gt_input", lambda: _conv(kernel_size=5, input_size=3), "kernel_size"),
    Bad(
        "conv_kernel_gt_padded",
        lambda: _conv(kernel_size=(3, 9), input_size=4, padding=2),
        "kernel_size",
    ),
    Bad(
        "pool_kernel_gt_input",
        lambda: L.Pool2d(channels=3, input_size=2, kernel_size=5),
        "kernel_size",
    ),
    # groups / heads that do not divide
    Bad("conv_groups_in", lambda: _conv(in_channels=6, out_channels=8, groups=4), "groups"),
    Bad("conv_groups_out", lambda: _conv(in_channels=8, out_channels=6, groups=4), "groups"),
    Bad(
        "depthwise_sep_bad_pad", lambda: L.depthwise_separable(4, 8, 5, 2, padding=0), "kernel_size"
    ),
    Bad("attention_heads", lambda: L.Attention(d_model=100, n_heads=12, seq_len=4), "n_heads"),
    Bad(
        "attention_kv_heads",
        lambda: L.Attention(d_model=96, n_heads=12, seq_len=4, kv_heads=5),
        "kv_heads",
    ),
    Bad("mha_heads", lambda: L.MultiHeadAttention(d_model=100, n_heads=12, seq_len=4), "n_heads"),
    Bad(
        "mha_kv_heads",
        lambda: L.MultiHeadAttention(d_model=96, n_heads=12, seq_len=4, kv_heads=5),
        "kv_heads",
    ),
    Bad(
        "block_heads",
        lambda: L.TransformerBlock(d_model=100, n_heads=12, d_ff=8, seq_len=4),
        "n_heads",
    ),
    Bad(
        "block_kv_heads",
        lambda: L.TransformerBlock(
            d_model=96, n_heads=12, d_ff=8, seq_len=4, kv_heads=5, variant="llama"
        ),
        "kv_heads",
    ),
    Bad("gpt2_heads", lambda: M.gpt2(d_model=100, n_heads=12), "n_heads"),
    Bad(
        "llama_kv_heads",
        lambda: M.llama(d_model=256, n_layers=2, n_heads=8, kv_heads=3),
        "kv_heads",
    ),
    # unknown names
    Bad("precision_layer", lambda: _dense().weight_bytes("fp12"), "precision"),
    Bad("precision_bytes_moved", lambda: _dense().bytes_moved(1, "float16"), "precision"),
    Bad("precision_solve", lambda: _solve(precision="fp12"), "precision"),
    Bad(
        "precision_sweep",
        lambda: Engine.sweep(Models.ResNet50, H100, precision="half"),
        "precision",
    ),
    Bad("precision_unlisted_a100_fp8", lambda: _solve(dev=A100, precision="fp8"), "precision"),
    Bad("precision_unlisted_h100_int4", lambda: _solve(precision="int4"), "precision"),
    Bad(
        "precision_in_compute_table",
        lambda: Compute(
            quoted_precision="fp12", precisions={"fp12": PeakRate(dense=(1, "TFLOP/s"))}
        ),
        "precision",
    ),
    Bad(
        "quoted_precision_unlisted",
        lambda: Compute(
            quoted_precision="fp8", precisions={"fp16": PeakRate(dense=(1, "TFLOP/s"))}
        ),
        "quoted_precision",
    ),
    Bad("sparse_unavailable", lambda: _solve(precision="fp32", sparse=True), "sparse"),
    Bad("device_h200", lambda: Hardware.get("H900"), "H900"),
    Bad("device_h200_solve", lambda: _solve(dev="H900"), "hardware"),
    Bad("preset_get", lambda: Models.get("GPT5"), "GPT5"),
    Bad("preset_attr", lambda: Models.GPT5, "model"),
    Bad("resnet_depth", lambda: M.resnet(49), "depth"),
    Bad("mobilenet_width", lambda: M.mobilenet_v2(3.0), "width_mult"),
    Bad("model_type", lambda: Engine.solve("ResNet50", H100), "model"),
    Bad("dlrm_bottom_width", lambda: M.dlrm(bottom_mlp=(64,)), "bottom_mlp"),
    Bad("dlrm_no_tables", lambda: M.dlrm(embedding_rows=()), "embedding_rows"),
    Bad("activation_kind", lambda: L.Activation(kind="swish", elements=4), "kind"),
    Bad(
        "layer_extra_field", lambda: L.Dense(in_features=4, out_features=4, dropout=0.1), "dropout"
    ),
    # wrong units in hardware specs
    Bad(
        "capacity_as_bandwidth",
        lambda: Memory(capacity=(80, "GB/s"), bandwidth=(3.35, "TB/s")),
        "capacity",
    ),
    Bad(
        "bandwidth_as_bytes",
        lambda: Memory(capacity=(80, "GB"), bandwidth=(3.35, "TB")),
        "bandwidth",
    ),
    Bad("capacity_bare_number", lambda: Memory(capacity=80, bandwidth=(3.35, "TB/s")), "capacity"),
    Bad(
        "capacity_negative",
        lambda: Memory(capacity=(-80, "GB"), bandwidth=(3.35, "TB/s")),
        "capacity",
    ),
    Bad(
        "sram_as_time",
        lambda: Memory(capacity=(1, "MiB"), bandwidth=(1, "GB/s"), sram=(1, "s")),
        "sram",
    ),
    Bad("peak_as_bandwidth", lambda: PeakRate(dense=(989.5, "TB/s")), "dense"),
    Bad("sparse_as_watts", lambda: PeakRate(dense=(1, "TFLOP/s"), sparse=(2, "W")), "sparse"),
    Bad(
        "dispatch_tax_as_power",
        lambda: Device.model_validate({**H100.model_dump(), "dispatch_tax": (5, "W")}),
        "dispatch_tax",
    ),
    Bad(
        "tdp_as_energy",
        lambda: Device.model_validate({**H100.model_dump(), "tdp": (700, "J")}),
        "tdp",
    ),
    Bad(
        "provenance_url",
        lambda: Provenance(document="datasheet", url="ftp://x", date="2023-01-01"),
        "url",
    ),
    # batch, efficiency, phase, sequence length
    Bad("batch_0", lambda: _solve(batch_size=0), "batch"),
    Bad("batch_neg", lambda: _solve(batch_size=-3), "batch"),
    Bad("batch_float", lambda: _solve(batch_size=1.5), "batch"),
    Bad("batch_bool", lambda: _solve(batch_size=True), "batch"),
    Bad("layer_macs_batch_0", lambda: _dense().macs(0), "batch"),
    Bad("layer_bytes_batch_0", lambda: _dense().bytes_moved(0), "batch"),
    Bad("model_flops_batch_0", lambda: Models.ResNet50.flops(0), "batch"),
    Bad("sweep_batch_0", lambda: Engine.sweep(Models.ResNet50, H100, batch_sizes=[1, 0]), "batch"),
    Bad(
        "sweep_no_batches",
        lambda: Engine.sweep(Models.ResNet50, H100, batch_sizes=[]),
        "batch_sizes",
    ),
    Bad("efficiency_0", lambda: _solve(efficiency=0), "efficiency"),
    Bad("efficiency_1.5", lambda: _solve(efficiency=1.5), "efficiency"),
    Bad("efficiency_nan", lambda: _solve(efficiency=NAN), "efficiency"),
    Bad("efficiency_neg", lambda: _solve(efficiency=-0.5), "efficiency"),
    Bad("efficiency_inf", lambda: _solve(efficiency=float("inf")), "efficiency"),
    Bad("efficiency_str", lambda: _solve(efficiency="0.5"), "efficiency"),
    Bad(
        "efficiency_sweep_nan",
        lambda: Engine.sweep(Models.ResNet50, H100, efficiency=NAN),
        "efficiency",
    ),
    Bad("ridge_point_precision", lambda: H100.ridge_point("int4"), "precision"),
    Bad("phase_on_cnn_solve", lambda: _solve(phase="decode"), "phase"),
    Bad("phase_on_cnn_model", lambda: Models.ResNet50.flops(phase="prefill"), "phase"),
    Bad("phase_on_layer", lambda: Engine.solve(_dense(), H100, phase="decode"), "phase"),
    Bad("phase_unknown", lambda: _solve(Models.GPT2, phase="train"), "phase"),
    Bad("phase_unknown_model", lambda: Models.GPT2.flops(phase="training"), "phase"),
    Bad("gpt2_seq_1025", lambda: Models.GPT2.flops(seq_len=1025), "seq_len"),
    Bad("gpt2_seq_2048_solve", lambda: _solve(Models.GPT2, seq_len=2048), "seq_len"),
    Bad(
        "gpt2_small_seq_decode",
        lambda: _solve(Models.GPT2Small, seq_len=4096, phase="decode"),
        "seq_len",
    ),
    Bad("bert_seq_513", lambda: Models.BERTBase.flops(seq_len=513), "seq_len"),
    Bad("gpt2_seq_0", lambda: Models.GPT2.flops(seq_len=0), "seq_len"),
    Bad("gpt2_seq_float", lambda: Models.GPT2.flops(seq_len=12.5), "seq_len"),
    Bad("kv_seq_neg", lambda: Models.GPT2.kv_cache_bytes(-1), "seq_len"),
    Bad("kv_batch_0", lambda: Models.GPT2.kv_cache_bytes(10, 0), "batch"),
]


@pytest.mark.parametrize("case", BAD, ids=[b.id for b in BAD])
def test_invalid_config_raises_value_error_naming_field(case: Bad):
    with pytest.raises(ValueError) as err:
        case.call()
    assert case.names in str(err.value), str(err.value)


def test_bad_ids_unique():
    assert len({b.id for b in BAD}) == len(BAD)


def test_unknown_names_list_allowed_values():
    with pytest.raises(ValueError, match="allowed: H100, A100"):
        Hardware.get("H900")
    with pytest.raises(ValueError, match="allowed: ResNet50"):
        Models.get("GPT5")
    with pytest.raises(ValueError, match="allowed: fp64, fp32"):
        _dense().weight_bytes("fp12")
    with pytest.raises(ValueError, match=r"allowed: 1\.\.1024"):
        Models.GPT2.flops(seq_len=1025)


def test_validation_happens_at_construction_not_first_use():
    """A bad head split must not hide until .params is read (it used to, for MHA/blocks)."""
    with pytest.raises(ValueError):
        L.MultiHeadAttention(d_model=96, n_heads=12, seq_len=3, kv_heads=5)
    with pytest.raises(ValueError):
        L.TransformerBlock(d_model=100, n_heads=12, d_ff=3, seq_len=3)


def test_gpt2_context_boundary_is_inclusive():
    assert Models.GPT2.flops(seq_len=1024) > 0
    assert Engine.solve(Models.GPT2, H100, seq_len=1024).latency_s > 0


# --------------------------------------------------------------------------------------------
# Valid extremes: everything finite and non-negative
# --------------------------------------------------------------------------------------------


def _numbers(prof):
    return {
        "latency": prof.latency_s,
        "compute": prof.latency_compute_s,
        "memory": prof.latency_memory_s,
        "dispatch": prof.latency_dispatch_s,
        "flops": prof.flops,
        "bytes": prof.bytes_moved,
        "mfu": prof.mfu,
        "intensity": prof.arithmetic_intensity.magnitude,
        "footprint": prof.memory_footprint_bytes,
        "over": prof.over.magnitude,
        "throughput": prof.throughput.magnitude,
        "ridge": prof.ridge_point,
    }


EXTREMES = [
    (
        "tiny_dense_on_mcu",
        L.Dense(in_features=1, out_features=1, bias=False),
        Hardware.Tiny.ArduinoNano33BLESense,
        dict(precision="int8"),
    ),
    (
        "1x1_conv_1x1_input",
        L.Conv2d(in_channels=1, out_channels=1, kernel_size=1, input_size=1),
        H100,
        {},
    ),
    (
        "kernel_equals_padded_input",
        L.Conv2d(in_channels=2, out_channels=2, kernel_size=5, input_size=1, padding=2),
        H100,
        {},
    ),
    ("embedding_only", L.Embedding(num_embeddings=1, embedding_dim=1), H100, {}),
    ("global_pool_1x1", L.Pool2d(channels=1, input_size=1), H100, {}),
    ("attention_seq_1", L.Attention(d_model=1, n_heads=1, seq_len=1), H100, {}),
    ("huge_batch_resnet", Models.ResNet50, H100, dict(batch_size=1_000_000)),
    (
        "resnet_on_arduino",
        Models.ResNet50,
        Hardware.Tiny.ArduinoNano33BLESense,
        dict(precision="int8"),
    ),
    (
        "tiny_efficiency",
        Models.MobileNetV2,
        Hardware.Mobile.iPhone15Pro,
        dict(precision="int8", efficiency=1e-9),
    ),
    ("efficiency_1", Models.KWS, Hardware.Tiny.STM32H743, dict(precision="int8", efficiency=1.0)),
    ("gpt2_decode_seq_1", Models.GPT2, H100, dict(phase="decode", seq_len=1)),
    ("gpt2_prefill_seq_1", Models.GPT2, H100, dict(phase="prefill", seq_len=1)),
    ("gpt2_full_context_big_batch", Models.GPT2, H100, dict(seq_len=1024, batch_size=4096)),
    ("llama_long_context", Models.Llama7B, A100, dict(seq_len=4096, batch_size=64)),
    ("dlrm_fp64", Models.DLRM, H100, dict(precision="fp64")),
    ("fused_single_layer", L.Dense(in_features=8, out_features=8), H100, dict(fused=True)),
    ("rnn_long_sequence", L.LSTM(input_size=1, hidden_size=1, seq_len=100_000), H100, {}),
]


@pytest.mark.parametrize("model,dev,kw", [e[1:] for e in EXTREMES], ids=[e[0] for e in EXTREMES])
def test_valid_extremes_are_finite_and_nonnegative(model, dev, kw):
    prof = Engine.solve(model, dev, **kw)
    for name, value in _numbers(prof).items():
        assert math.isfinite(value), name
        assert value >= 0, name
    assert prof.latency_s > 0
    for t in prof.layers:
        for v in (t.flops, t.bytes, t.t_compute, t.t_memory, t.t_dispatch, t.time, t.intensity):
            assert math.isfinite(v) and v >= 0


@pytest.mark.parametrize("model,dev,kw", [e[1:] for e in EXTREMES], ids=[e[0] for e in EXTREMES])
def test_valid_extremes_sweep_finite(model, dev, kw):
    kw = {k: v for k, v in kw.items() if k != "batch_size"}
    seq = kw.pop("seq_len", None)
    out = Engine.sweep(
        model, dev, batch_sizes=[1, 3], seq_lens=None if seq is None else [seq], **kw
    )
    for key, values in out.items():
        if key == "seq_len":
            continue
        for v in values:
            assert math.isfinite(v) and v >= 0, key


def test_an_invalid_layer_built_from_positional_arguments_names_them():
    """The checks' fast path (positional arguments) reports a layer refused inside a builder
    the way the keyword path does: the call, argument by argument."""
    messages = []
    for call in (
        lambda: L.depthwise_separable(8, 16, 7, 4, 1, 0),
        lambda: L.depthwise_separable(8, 16, 7, 4, 1, padding=0),
    ):
        with pytest.raises(ValueError) as err:
            call()
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith(
        "depthwise_separable(in_channels=8, out_channels=16, kernel_size=7, input_size=4, "
        "stride=1, padding=0): these arguments build an invalid Conv2d layer"
    )


def test_checked_functions_called_from_two_threads_at_once_keep_their_arguments():
    """The checks are built on the first call; a second thread calling meanwhile must see all of
    them or wait for them, never run the function on its defaults."""
    import threading
    import time

    from mlsysim import _check

    original = _check._arg_check

    def slow(*a):
        time.sleep(0.05)  # a thread switch while the first call builds the checks
        return original(*a)

    def scale(x: float = 7.0, factor: float = 1.0) -> float:
        return x * factor

    try:
        _check._arg_check = slow
        wrapped = _check.checked(scale)
        out = {}
        first = threading.Thread(target=lambda: out.setdefault("first", wrapped(3.0, 2.0)))
        first.start()
        time.sleep(0.02)
        out["second"] = wrapped(5.0, 10.0)
        first.join()
    finally:
        _check._arg_check = original
    assert out == {"first": 6.0, "second": 50.0}


@pytest.mark.parametrize(
    "make, field",
    [
        (
            lambda: L.Conv2d(
                in_channels=4, out_channels=4, kernel_size=3, input_size=8, stride=(1, 0)
            ),
            "stride",
        ),
        (
            lambda: L.Conv2d(in_channels=4, out_channels=4, kernel_size=(3, 0), input_size=8),
            "kernel_size",
        ),
        (
            lambda: L.Conv2d(in_channels=4, out_channels=4, kernel_size=3, input_size=(0, 8)),
            "input_size",
        ),
        (lambda: L.Pool2d(channels=4, input_size=8, kernel_size=(1, 0)), "kernel_size"),
    ],
)
def test_a_pair_with_a_zero_is_one_clear_error_with_the_true_range(make, field):
    """A (height, width) pair holding 0 gave two raw pydantic errors (stride.int, stride.tuple
    ...1), and the message for a pair said 'in [0, 2**40]' though 0 is refused."""
    with pytest.raises(ValueError) as e:
        make()
    text = str(e.value)
    assert text.startswith("1 validation error") and text.count("Value error") == 1
    assert f"{field} must be an integer or a pair of integers in [1, 2**40]" in text


@pytest.mark.parametrize("extra", [{"stride": 2}, {"padding": 1}])
def test_global_pooling_refuses_a_stride_or_padding_it_would_ignore(extra):
    """kernel_size=None is global pooling: a stride or padding beside it was silently ignored."""
    with pytest.raises(ValueError, match=r"kernel_size=None is global pooling.*stride=.*padding="):
        L.Pool2d(channels=4, input_size=8, **extra)
    assert L.Pool2d(channels=4, input_size=8).output_size == (1, 1)

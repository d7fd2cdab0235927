"""Bytes moved and kernels launched, stated independently of the implementation.

Every expected number below is written out by hand from the layer's definition (weights read,
inputs read, outputs written, intermediates such as scores or K/V read) for concrete shapes,
with the arithmetic in the comment next to it. Nothing here calls ``traffic_elements`` or a
layer's own byte formula to build the expectation, so a wrong per-layer traffic (a stride
applied to the wrong axis, recurrent weights re-read one step too many, grouped-query attention
reading one K/V per query head) fails here even though the engine, which sums each layer's own
bytes, would stay self-consistent.

Conventions: FP16 = 2 B, FP32 = 4 B, INT8 = 1 B per value; weights are read once per batch,
activations once per example; ``kernels`` counts launches in eager mode.
"""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware
from mlsysim import layers as L
from mlsysim.models import Model, Row, llama, mobilenet_v2, resnet

H100 = Hardware.get("H100")
# H100 SXM datasheet (the registry's source, asserted in test_hardware.py): 989.5 TFLOP/s dense
# FP16, 3.35 TB/s HBM3, and the registry's 5 µs per kernel launch.
H100_FP16 = 989.5e12
H100_BW = 3.35e12
H100_TAX = 5e-6


def _engine_bytes(layer, batch, precision):
    return Engine.solve(layer, H100, batch_size=batch, precision=precision).bytes_moved


def _engine_kernels(layer_or_model, **kw):
    p = Engine.solve(layer_or_model, H100, **kw)
    return round(p.latency_dispatch_s / H100_TAX)


# --------------------------------------------------------------------------------------------
# Convolution: non-square kernel, stride and padding
# --------------------------------------------------------------------------------------------


def test_conv_non_square_stride_and_padding_shape():
    """3->8 channels, kernel 3x5, input 17x23, stride (2, 3), padding (1, 2):
    H_out = (17 + 2 - 3) // 2 + 1 = 9;  W_out = (23 + 4 - 5) // 3 + 1 = 8."""
    c = L.Conv2d(
        in_channels=3,
        out_channels=8,
        kernel_size=(3, 5),
        input_size=(17, 23),
        stride=(2, 3),
        padding=(1, 2),
    )
    assert c.output_size == (9, 8)
    # the same layer with the stride swapped is a different layer:
    # H_out = (19 - 3) // 3 + 1 = 6;  W_out = (27 - 5) // 2 + 1 = 12
    swapped = L.Conv2d(
        in_channels=3,
        out_channels=8,
        kernel_size=(3, 5),
        input_size=(17, 23),
        stride=(3, 2),
        padding=(1, 2),
    )
    assert swapped.output_size == (6, 12)


@pytest.mark.parametrize(
    "batch, precision, expected",
    [
        # weights 8*3*3*5 + 8 = 368; input 3*17*23 = 1,173; output 8*9*8 = 576
        (1, "fp16", (368 + 1 * (1173 + 576)) * 2),  # 4,234 B
        (2, "fp16", (368 + 2 * (1173 + 576)) * 2),  # 7,732 B
        (4, "fp32", (368 + 4 * (1173 + 576)) * 4),  # 29,456 B
    ],
)
def test_conv_non_square_bytes(batch, precision, expected):
    c = L.Conv2d(
        in_channels=3,
        out_channels=8,
        kernel_size=(3, 5),
        input_size=(17, 23),
        stride=(2, 3),
        padding=(1, 2),
    )
    assert c.bytes_moved(batch, precision) == expected
    assert _engine_bytes(c, batch, precision) == expected
    # MACs: 9*8 outputs x 8 channels x 3*3*5 taps = 25,920 per example
    assert c.macs(batch) == batch * 25_920
    assert c.kernels == 1


def test_conv_asymmetric_padding_and_grouped_bytes():
    """16->32, 3x3, groups 4, input 10x14, stride 1, padding (0, 1), no bias:
    out 8x14; weights 32 * (16/4) * 9 = 1,152; input 16*10*14 = 2,240; output 32*8*14 = 3,584."""
    c = L.Conv2d(
        in_channels=16,
        out_channels=32,
        kernel_size=3,
        input_size=(10, 14),
        padding=(0, 1),
        groups=4,
        bias=False,
    )
    assert c.output_size == (8, 14)
    assert c.params == 1_152
    assert c.bytes_moved(3, "int8") == 1_152 + 3 * (2_240 + 3_584)
    assert c.macs(1) == 8 * 14 * 32 * 4 * 9


def test_conv_dilation_if_supported():
    """Dilation 2 on a 3x3 kernel covers 5x5: input 12x12, padding 2, stride 1 -> 12x12 out;
    dilation (2, 1) -> H: (12+4-5)+1 = 12, W: (12+4-3)+1 = 14."""
    if "dilation" not in L.Conv2d.model_fields:
        pytest.skip("Conv2d has no dilation argument on this branch")
    c = L.Conv2d(in_channels=4, out_channels=4, kernel_size=3, input_size=12, padding=2, dilation=2)
    assert c.output_size == (12, 12)
    c2 = L.Conv2d(
        in_channels=4, out_channels=4, kernel_size=3, input_size=12, padding=2, dilation=(2, 1)
    )
    assert c2.output_size == (12, 14)
    # weights 4*4*9 + 4 = 148 (dilation adds no weights); in 4*144 = 576; out 4*168 = 672
    assert c2.bytes_moved(1, "fp16") == (148 + 576 + 672) * 2


# --------------------------------------------------------------------------------------------
# Dense
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bias, batch, precision, expected",
    [
        # 300 -> 70 over 5 tokens: weights 300*70 (+70 bias); input 5*300 = 1,500; output 5*70 = 350
        (True, 1, "fp16", (21_070 + 1_850) * 2),
        (True, 3, "fp32", (21_070 + 3 * 1_850) * 4),
        (False, 8, "int8", 21_000 + 8 * 1_850),
    ],
)
def test_dense_bytes(bias, batch, precision, expected):
    d = L.Dense(in_features=300, out_features=70, tokens=5, bias=bias)
    assert d.bytes_moved(batch, precision) == expected
    assert _engine_bytes(d, batch, precision) == expected
    assert d.kernels == 1


def test_tied_dense_reads_weights_it_does_not_own():
    """A tied LM head owns no parameters but still reads its 64 x 1000 matrix."""
    d = L.Dense(in_features=64, out_features=1000, bias=False, tied=True)
    assert d.params == 0
    assert d.bytes_moved(1, "fp16") == (64_000 + 64 + 1_000) * 2


# --------------------------------------------------------------------------------------------
# Recurrent cells with streamed weights
# --------------------------------------------------------------------------------------------


def test_rnn_streams_w_hh_once_per_step():
    """RNN 10 -> 20, 6 steps. W_ih 20x10 = 200, W_hh 20x20 = 400, biases 2x20 = 40.
    Streamed: W_ih and biases once, W_hh at every one of the 6 steps:
    200 + 40 + 6 * 400 = 2,640 values; inputs 6*10 = 60, outputs 6*20 = 120."""
    r = L.RNN(input_size=10, hidden_size=20, seq_len=6)
    assert r.params == 640
    assert r.bytes_moved(1, "fp32") == (2_640 + 60 + 120) * 4
    assert r.bytes_moved(2, "fp16") == (2_640 + 2 * 180) * 2
    # resident weights: each weight read once
    res = L.RNN(input_size=10, hidden_size=20, seq_len=6, weights_resident=True)
    assert res.bytes_moved(1, "fp32") == (640 + 180) * 4
    # one input GEMM, then a GEMV + a pointwise kernel per step
    assert r.kernels == 1 + 2 * 6


def test_lstm_two_layers_streamed():
    """LSTM 10 -> 20, 2 layers, 6 steps (4 gates, 80 rows).
    Layer 1: W_ih 80x10 = 800, W_hh 80x20 = 1,600; layer 2: W_ih 80x20 = 1,600, W_hh 1,600;
    biases 2 x 80 per layer = 320. Streamed: 800 + 1,600 + 320 + 6 * (1,600 + 1,600) = 21,920.
    Per example: inputs 6*10 = 60, outputs 6*20 = 120."""
    m = L.LSTM(input_size=10, hidden_size=20, seq_len=6, num_layers=2)
    assert m.params == 5_920
    assert m.bytes_moved(1, "fp16") == (21_920 + 180) * 2
    assert _engine_bytes(m, 4, "fp32") == (21_920 + 4 * 180) * 4
    assert m.kernels == 2 * (1 + 2 * 6)


def test_gru_bidirectional_streamed():
    """GRU 8 -> 16, bidirectional, 5 steps (3 gates, 48 rows), per direction:
    W_ih 48x8 = 384, W_hh 48x16 = 768, biases 96. Streamed, both directions:
    2 * (384 + 96) + 2 * 5 * 768 = 8,640. Inputs 5*8 = 40, outputs 5*16*2 = 160."""
    g = L.GRU(input_size=8, hidden_size=16, seq_len=5, bidirectional=True)
    assert g.params == 2_496
    assert g.bytes_moved(1, "fp32") == (8_640 + 40 + 160) * 4
    assert g.kernels == 2 * (1 + 2 * 5)


# --------------------------------------------------------------------------------------------
# Attention with grouped-query K/V, prefill and decode
# --------------------------------------------------------------------------------------------


def test_attention_gqa_prefill_bytes():
    """d_model 512, 8 query heads, 2 K/V heads (d_head 64), 100 tokens.
    Q read 100*512 = 51,200; K and V read 2 * 100 * 2 * 64 = 25,600; output 51,200;
    scores 8 * 100 * 100 = 80,000, written and read twice (logits, probabilities) = 320,000."""
    a = L.Attention(d_model=512, n_heads=8, kv_heads=2, seq_len=100)
    assert a.bytes_moved(1, "fp16") == (51_200 + 25_600 + 51_200 + 320_000) * 2
    f = L.Attention(d_model=512, n_heads=8, kv_heads=2, seq_len=100, flash=True)
    assert f.bytes_moved(3, "fp16") == 3 * (51_200 + 25_600 + 51_200) * 2
    assert (a.kernels, f.kernels) == (3, 1)
    # MACs: QK^T and PV over every query head: 2 * 100 * 100 * 512
    assert a.macs() == 10_240_000


def test_attention_gqa_decode_reads_each_kv_head_once():
    """Decode: 1 query against a 32,768-token cache, 32 query heads sharing 8 K/V heads
    (d_head 128). K/V read: 2 * 32,768 * 8 * 128 = 67,108,864 values, once per K/V head
    (a query-head-wise read would be 4x that). Q 4,096, output 4,096; flash: no scores."""
    a = L.Attention(d_model=4096, n_heads=32, kv_heads=8, seq_len=1, kv_len=32_768, flash=True)
    assert a.bytes_moved(1, "fp16") == (4_096 + 67_108_864 + 4_096) * 2
    assert a.bytes_moved(16, "fp16") == 16 * (4_096 + 67_108_864 + 4_096) * 2
    mha = L.Attention(d_model=4096, n_heads=32, seq_len=1, kv_len=32_768, flash=True)
    assert mha.bytes_moved(1, "fp16") == (4_096 + 4 * 67_108_864 + 4_096) * 2
    # materialized: scores 32 * 1 * 32,768 = 1,048,576, written and read twice
    m = L.Attention(d_model=4096, n_heads=32, kv_heads=8, seq_len=1, kv_len=32_768)
    assert m.bytes_moved(1, "fp16") == (4_096 + 67_108_864 + 4_096 + 4 * 1_048_576) * 2


def test_mha_gqa_projection_bytes_and_kernels():
    """MHA d=512, 8 heads, 2 K/V heads (kv_dim 128), 100 tokens, bias:
    q_proj / o_proj: weights 512*512 + 512 = 262,656, in 51,200, out 51,200;
    k_proj / v_proj: weights 512*128 + 128 = 65,664, in 51,200, out 12,800;
    core (flash): 51,200 + 25,600 + 51,200. Kernels: 4 GEMMs + 1 fused attention."""
    m = L.MultiHeadAttention(d_model=512, n_heads=8, kv_heads=2, seq_len=100, flash=True)
    weights = 2 * 262_656 + 2 * 65_664
    acts = 2 * (51_200 + 51_200) + 2 * (51_200 + 12_800) + (51_200 + 25_600 + 51_200)
    assert m.params == weights
    assert m.bytes_moved(2, "fp16") == (weights + 2 * acts) * 2
    assert _engine_bytes(m, 2, "fp16") == (weights + 2 * acts) * 2
    assert m.kernels == 5
    assert L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=100).kernels == 4 + 3


def test_mha_decode_kv_cache_per_token():
    """K and V of 2 heads x 64 dims in FP16: 2 * 2 * 64 * 2 B = 512 B per token per layer."""
    m = L.MultiHeadAttention(d_model=512, n_heads=8, kv_heads=2, seq_len=1, kv_len=10)
    assert m.kv_cache_bytes_per_token("fp16") == 512


# --------------------------------------------------------------------------------------------
# Embedding gathers, norms, activations, residual adds
# --------------------------------------------------------------------------------------------


def test_embedding_gathers_rows_not_the_table():
    """1,000 x 64 table, 7 lookups: the 7 gathered rows are read (448) and written (448);
    the 64,000-value table is capacity, not traffic. Sum pooling writes one 64-vector."""
    e = L.Embedding(num_embeddings=1000, embedding_dim=64, lookups=7)
    assert e.bytes_moved(1, "fp32") == (448 + 448) * 4
    assert e.bytes_moved(3, "fp16") == 3 * 896 * 2
    bag = L.Embedding(num_embeddings=1000, embedding_dim=64, lookups=7, pooling="sum")
    assert bag.bytes_moved(2, "fp32") == 2 * (448 + 64) * 4
    assert e.weight_bytes("fp32") == 256_000


@pytest.mark.parametrize(
    "layer, weights, per_example",
    [
        # BN over 16 channels x 10x10: gamma, beta, running mean, running var = 64; in 1,600, out 1,600
        (L.BatchNorm2d(num_features=16, elements=1600), 64, 3200),
        # LayerNorm over 64 features, 10 tokens: gamma + beta = 128; in 640, out 640
        (L.LayerNorm(normalized_shape=64, elements=640), 128, 1280),
        (L.LayerNorm(normalized_shape=64, elements=640, elementwise_affine=False), 0, 1280),
        # RMSNorm: gamma only
        (L.RMSNorm(normalized_shape=64, elements=640), 64, 1280),
        (L.Activation(kind="gelu", elements=999), 0, 1998),
        # a binary add or multiply reads two tensors and writes one
        (L.ResidualAdd(elements=1000), 0, 3000),
        (L.Elementwise(op="mul", elements=1000), 0, 3000),
        # max pool 3x3 stride 2 pad 1 over 8 x 15x15: out 8x8x8 = 512; in 1,800
        (L.Pool2d(channels=8, input_size=15, kernel_size=3, stride=2, padding=1), 0, 1800 + 512),
        # global average pool over 8 x 7x7: in 392, out 8
        (L.Pool2d(channels=8, input_size=7, kind="avg"), 0, 392 + 8),
    ],
)
def test_elementwise_layers_bytes_and_one_kernel(layer, weights, per_example):
    for batch, precision, b in ((1, "fp16", 2), (5, "fp32", 4)):
        assert layer.bytes_moved(batch, precision) == (weights + batch * per_example) * b
    assert layer.kernels == 1


def test_residual_add_fp32_intensity_is_one_twelfth():
    """The chapter: a residual add in FP32 does 1 FLOP per 3 values = 12 bytes."""
    assert L.ResidualAdd(elements=4096).elementwise_intensity(1, "fp32") == pytest.approx(1 / 12)


def _block(n_ch=8, hw=6):
    """conv -> BN -> ReLU -> conv -> BN -> add(skip) -> ReLU, 8 channels at 6x6, no conv bias."""
    conv = L.Conv2d(
        in_channels=n_ch, out_channels=n_ch, kernel_size=3, input_size=hw, padding=1, bias=False
    )
    n = n_ch * hw * hw
    return L.Sequential(
        layers=(
            conv,
            L.BatchNorm2d(num_features=n_ch, elements=n),
            L.Activation(elements=n),
            conv,
            L.BatchNorm2d(num_features=n_ch, elements=n),
            L.ResidualAdd(elements=n),
            L.Activation(elements=n),
        )
    )


def test_residual_block_eager_and_fused_bytes_and_kernels():
    """8 x 6x6 = 288 values per tensor; conv weights 8*8*9 = 576; BN reads 4*8 = 32 values.
    Eager, per example: conv 288 + 288, BN 288 + 288, ReLU 288 + 288, each twice, add
    3 x 288: 2*576 + 2*576 + 2*576 + 864 = 4,320; weights
    2*576 + 2*32 = 1,216. Seven kernels.
    Fused: BN folded into the conv, ReLUs in the epilogue; the add still reads its skip input
    (288) though F(x) never leaves the conv. Per example 2*576 + 288 = 1,440; weights 1,152;
    two kernels."""
    blk = _block()
    eager = Engine.solve(blk, H100, batch_size=2, precision="fp16")
    fused = Engine.solve(blk, H100, batch_size=2, precision="fp16", fused=True)
    assert eager.bytes_moved == (1_216 + 2 * 4_320) * 2
    assert fused.bytes_moved == (1_152 + 2 * 1_440) * 2
    assert round(eager.latency_dispatch_s / H100_TAX) == 7
    assert round(fused.latency_dispatch_s / H100_TAX) == 2
    add = [t for t in fused.layers if t.type == "ResidualAdd"]
    assert len(add) == 1 and add[0].bytes == 2 * 288 * 2 and add[0].kernels == 0


# --------------------------------------------------------------------------------------------
# Kernels launched by whole models (counted from the architecture, not from the rows)
# --------------------------------------------------------------------------------------------


def test_resnet50_kernel_counts():
    """Eager: stem conv+BN+ReLU+maxpool = 4; each of 16 bottlenecks 3 x (conv+BN) + 2 ReLU +
    add + ReLU = 10, plus conv+BN downsample on 4 of them = 8; avgpool + fc = 2:
    4 + 160 + 8 + 2 = 174. Fused: only convs (1 + 48 + 4 = 53), two pools and the fc = 56."""
    m = resnet(50)
    assert _engine_kernels(m) == 174
    assert _engine_kernels(m, fused=True) == 56


def test_mobilenet_v2_kernel_counts():
    """Eager: stem 3; block 1 (t=1): dw 3 + project 2 = 5; 16 blocks of expand 3 + dw 3 +
    project 2 = 128; 10 residual adds (stride-1 blocks with equal in/out channels:
    1 + 2 + 3 + 2 + 2); last 1x1 conv 3; avgpool + classifier 2: 3+5+128+10+3+2 = 151.
    Fused: 52 convs + pool + classifier = 54."""
    m = mobilenet_v2()
    assert _engine_kernels(m) == 151
    assert _engine_kernels(m, fused=True) == 54


# --------------------------------------------------------------------------------------------
# Engine: GQA decode at 32K context, batch 16, against hand arithmetic
# --------------------------------------------------------------------------------------------

D, LAYERS, HEADS, KV_HEADS, D_FF, VOCAB = 4096, 32, 32, 8, 14_336, 128_256
CTX, BATCH = 32_768, 16


def _gqa_model():
    return llama(
        d_model=D,
        n_layers=LAYERS,
        n_heads=HEADS,
        kv_heads=KV_HEADS,
        d_ff=D_FF,
        vocab_size=VOCAB,
        context_length=CTX,
        flash=True,
        name="GQA 8B",
    )


def _hand_decode_rows():
    """(flops per example, weight values, per-example values, kernels, copies) of one decoded
    token, written from the Llama architecture (Llama-3-8B shapes), d_head = 128, kv_dim = 1,024."""
    d, f, kv_dim = D, D_FF, KV_HEADS * (D // HEADS)
    kv_read = 2 * CTX * kv_dim  # K and V of every cached token, once per K/V head
    per_layer = [
        (0, d, 2 * d, 1),  # RMSNorm: gamma; read x, write y
        (2 * d * d, d * d, 2 * d, 1),  # q_proj
        (2 * d * kv_dim, d * kv_dim, d + kv_dim, 1),  # k_proj
        (2 * d * kv_dim, d * kv_dim, d + kv_dim, 1),  # v_proj
        (2 * 2 * CTX * d, 0, d + kv_read + d, 1),  # attention core, flash
        (2 * d * d, d * d, 2 * d, 1),  # o_proj
        (0, 0, 3 * d, 1),  # residual add
        (0, d, 2 * d, 1),  # RMSNorm
        (2 * d * f, d * f, d + f, 1),  # gate
        (2 * d * f, d * f, d + f, 1),  # up
        (0, 0, 2 * f, 1),  # SiLU
        (0, 0, 3 * f, 1),  # gate * up
        (2 * f * d, f * d, f + d, 1),  # down
        (0, 0, 3 * d, 1),  # residual add
    ]
    rows = [(0, 0, 2 * d, 1, 1)]  # token embedding: gather 1 row, write it
    rows += [(fl, w, a, k, LAYERS) for fl, w, a, k in per_layer]
    rows += [
        (0, d, 2 * d, 1, 1),  # final RMSNorm
        (2 * d * VOCAB, d * VOCAB, d + VOCAB, 1, 1),
    ]  # untied LM head
    return rows


def test_gqa_decode_latency_at_32k_batch16_by_hand():
    """t = sum over rows of max(FLOPs / (peak x 0.5), bytes / BW) + kernels x 5 µs, FP16."""
    rate, b = H100_FP16 * 0.5, 2
    t = 0.0
    kernels = 0
    moved = 0
    for fl, w, a, k, n in _hand_decode_rows():
        by = (w + BATCH * a) * b
        t += n * max(BATCH * fl / rate, by / H100_BW)
        kernels += n * k
        moved += n * by
    t += kernels * H100_TAX
    p = Engine.solve(
        _gqa_model(),
        H100,
        batch_size=BATCH,
        precision="fp16",
        efficiency=0.5,
        phase="decode",
        seq_len=CTX,
    )
    assert kernels == 3 + 14 * 32
    assert p.bytes_moved == moved
    assert p.latency_s == pytest.approx(t, rel=1e-12)
    # the KV read dominates: 32 layers x 16 sequences x 2 x 32,768 x 1,024 x 2 B = 68.7 GB
    kv_bytes = LAYERS * BATCH * 2 * CTX * 1024 * 2
    assert kv_bytes == 68_719_476_736
    assert 0.70 < kv_bytes / p.bytes_moved < 0.85
    assert 25e-3 < p.latency_s < 28e-3  # 20.5 ms of KV + 4.5 ms of weights + 2.3 ms launches
    assert p.bottleneck == "Memory"
    # the same decode with one K/V head per query head reads 4x the cache: ~3x the latency
    mha = Engine.solve(
        llama(
            d_model=D,
            n_layers=LAYERS,
            n_heads=HEADS,
            kv_heads=HEADS,
            d_ff=D_FF,
            vocab_size=VOCAB,
            context_length=CTX,
            flash=True,
        ),
        H100,
        batch_size=BATCH,
        precision="fp16",
        efficiency=0.5,
        phase="decode",
        seq_len=CTX,
    )
    assert mha.bytes_moved - p.bytes_moved == pytest.approx(
        3 * kv_bytes + 2 * LAYERS * (D * 3072 * 2 + BATCH * 3072 * 2), rel=1e-12
    )
    assert 3.0 < mha.latency_s / p.latency_s < 3.5


def test_gqa_kv_cache_footprint_matches_published_figure():
    """Llama-3-8B's KV cache: 2 x 32 layers x 8 heads x 128 dims x 2 B = 131,072 B = 128 KiB
    per token (the figure Meta's GQA design is quoted for; Llama-2-7B without GQA: 512 KiB)."""
    m = _gqa_model()
    assert m.kv_cache_bytes_per_token("fp16") == 128 * 1024
    assert m.kv_cache_bytes(CTX, BATCH) == 128 * 1024 * CTX * BATCH  # 68.7 GB
    assert llama().kv_cache_bytes_per_token("fp16") == 512 * 1024


def test_model_rows_from_a_custom_model():
    """A hand-assembled Model's bytes are the layer definitions' bytes, copies included."""
    d = L.Dense(in_features=10, out_features=20)
    m = Model(
        "tiny", "mlp", lambda _s, _p: [Row("fc", d, 3), Row("act", L.Activation(elements=20))]
    )
    p = Engine.solve(m, H100, batch_size=2, precision="fp32")
    # fc: 3 copies x (220 weights + 2 x 30); act: 2 x 40
    assert p.bytes_moved == (3 * (220 + 60) + 80) * 4
    assert round(p.latency_dispatch_s / H100_TAX) == 4


# --------------------------------------------------------------------------------------------
# Live memory, pooling defaults, DLRM's interaction, narrow precisions
# --------------------------------------------------------------------------------------------


def test_attention_live_memory_prefill_and_decode():
    """Prefill (d 512, 8 heads, 2 K/V heads, 100 tokens): Q 51,200 + K,V 25,600 + output 51,200
    live, plus logits and probabilities (2 x 80,000) when materialized. Decode against a
    32,768-token cache: only Q and the output (4,096 each) are this layer's; the cached K/V are
    counted once, as the KV cache; materialized scores add 2 x 32 x 32,768."""
    pre = L.Attention(d_model=512, n_heads=8, kv_heads=2, seq_len=100)
    assert pre.live_elements(2) == 2 * (51_200 + 25_600 + 51_200 + 160_000)
    dec = L.Attention(d_model=4096, n_heads=32, kv_heads=8, seq_len=1, kv_len=32_768, flash=True)
    assert dec.live_elements(3) == 3 * (4_096 + 4_096)
    dec_m = L.Attention(d_model=4096, n_heads=32, kv_heads=8, seq_len=1, kv_len=32_768)
    assert dec_m.live_elements(1) == 4_096 + 4_096 + 2 * 32 * 32_768


def test_composite_live_memory_is_the_peak_not_the_sum():
    """The residual block's tensors (288 values each) are alive a layer at a time: the add
    holds three (both inputs and its output), 864 per example, the most of any layer."""
    assert _block().live_elements(2) == 2 * 864


def test_pool_stride_defaults_to_the_kernel():
    """torch: MaxPool2d(2) has stride 2: 32 x 28x28 -> 32 x 14x14 (in 25,088, out 6,272)."""
    p = L.Pool2d(channels=32, input_size=28, kernel_size=2)
    assert p.output_size == (14, 14)
    assert p.bytes_moved(1, "fp32") == (25_088 + 6_272) * 4


def test_dlrm_interaction_pairs_and_top_mlp_width():
    """DLRM (Naumov et al. 2019): the dense vector and one vector per table interact pairwise,
    n (n - 1) / 2 dot products for n = tables + 1. The mlsysim preset: 25 tables -> 26 vectors
    -> 325 pairs, top MLP input 128 + 325 = 453. MLPerf's DLRM (26 tables): 351 + 128 = 479."""
    from mlsysim.models import Models, dlrm

    inter = [r.layer for r in Models.DLRM.rows() if isinstance(r.layer, L.FeatureInteraction)]
    assert len(inter) == 1 and inter[0].num_vectors == 26 and inter[0].pairs == 325
    top = {r.name: r.layer for r in Models.DLRM.rows()}["top.fc1"]
    assert top.in_features == 453
    mlperf = dlrm(embedding_rows=(1000,) * 26)
    assert {r.name: r.layer for r in mlperf.rows()}["top.fc1"].in_features == 479
    # the interaction writes its 325 dot products; it reads the 26 x 128 vectors
    assert inter[0].bytes_moved(1, "fp32") == (26 * 128 + 325) * 4
    assert inter[0].macs() == 26 * 26 * 128


@pytest.mark.parametrize(
    "precision, num, den",
    [
        ("fp64", 8, 1),
        ("fp32", 4, 1),
        ("tf32", 4, 1),
        ("bf16", 2, 1),
        ("fp16", 2, 1),
        ("fp8", 1, 1),
        ("int8", 1, 1),
        ("int4", 1, 2),
    ],
)
def test_bytes_per_value_by_format_width(precision, num, den):
    """IEEE binary64/32/16, bfloat16 (16 bits), TF32 stored in 32-bit words, FP8/INT8 one byte,
    INT4 half a byte: a bias-free 300 -> 70 GEMM over 5 tokens moves 22,850 values."""
    d = L.Dense(in_features=300, out_features=70, tokens=5, bias=False)
    assert d.bytes_moved(1, precision) == -(-22_850 * num // den)
    assert d.weight_bytes(precision) == -(-21_000 * num // den)

"""Every flag means what torch means (issue 13). The torch-measured cases (dilated convs, LSTM
proj_size, cross-attention with kdim/vdim, TransformerEncoderLayer(bias=False), ResNeXt, Wide
ResNet, non-square inputs) are fixture entries asserted in test_ground_truth.py; here: the flags'
arithmetic from torch's documented shapes, and the refusals."""

from __future__ import annotations

import pytest

from mlsysim import layers as L
from mlsysim import models as M


def test_norm_affine_flags_follow_torch():
    """nn.BatchNorm2d(64, affine=False), nn.RMSNorm(768, elementwise_affine=False) and
    nn.LayerNorm(768, elementwise_affine=False) have no parameters; nn.LayerNorm(768, bias=False)
    has gamma only (768)."""
    assert L.BatchNorm2d(num_features=64, elements=64, affine=False).params == 0
    assert L.RMSNorm(normalized_shape=768, elements=768, elementwise_affine=False).params == 0
    assert L.LayerNorm(normalized_shape=768, elements=768, elementwise_affine=False).params == 0
    assert L.LayerNorm(normalized_shape=768, elements=768, bias=False).params == 768


def test_transformer_block_bias_false_drops_layernorm_biases():
    """nn.TransformerEncoderLayer(256, 4, 512, bias=False): 4 x 256^2 attention + 2 x 256 x 512 FFN
    weights + 2 LayerNorm gammas of 256 = 524,800 (the fixture's torch count)."""
    block = L.TransformerBlock(d_model=256, n_heads=4, d_ff=512, seq_len=16, bias=False)
    assert block.params == 4 * 256**2 + 2 * 256 * 512 + 2 * 256 == 524_800


def test_tied_dense_keeps_its_own_bias():
    d = L.Dense(in_features=768, out_features=30522, tied=True)
    assert d.params == 30522 and d.weight_elements == 768 * 30522 + 30522


def test_dilation_changes_extent_not_cost_per_output():
    """Output side = (H + 2P - D(K-1) - 1) / S + 1: 40 + 4 - 4 - 1 + 1 = 40 for K=3, D=2, P=2."""
    c = L.Conv2d(
        in_channels=16, out_channels=32, kernel_size=3, input_size=(40, 56), padding=2, dilation=2
    )
    assert c.output_size == (40, 56)
    assert c.macs() == 40 * 56 * 32 * 16 * 9
    with pytest.raises(ValueError, match="dilation"):
        L.Conv2d(in_channels=1, out_channels=1, kernel_size=3, input_size=4, dilation=3)


def test_lstm_projection_shapes():
    """torch LSTM(10, 20, proj_size=5): W_ih 80x10, W_hh 80x5, biases 2x80, W_hr 5x20 = 1,460."""
    assert (
        L.LSTM(input_size=10, hidden_size=20, proj_size=5, seq_len=3).params
        == 800 + 400 + 160 + 100
    )
    with pytest.raises(ValueError, match="proj_size"):
        L.GRU(input_size=10, hidden_size=20, proj_size=5, seq_len=3)
    with pytest.raises(ValueError, match="proj_size"):
        L.LSTM(input_size=10, hidden_size=20, proj_size=20, seq_len=3)


def test_cross_attention_projects_the_source_not_the_cache():
    """Decoder cross-attention over a 1,500-token encoder output with 10 queries: K and V are
    projected from 1,500 tokens, 150x the K/V projection work ``kv_len`` would count."""
    cross = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=10, src_len=1500)
    cached = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=10, kv_len=1500)
    kv_flops = {n: lay.flops() for n, lay in cross.rows() if n in ("k_proj", "v_proj")}
    assert kv_flops["k_proj"] == 2 * 1500 * 512 * 512
    assert sum(kv_flops.values()) == 150 * sum(
        lay.flops() for n, lay in cached.rows() if n in ("k_proj", "v_proj")
    )
    assert cross.core.flops() == cached.core.flops()  # same scores either way
    with pytest.raises(ValueError, match="src_len"):
        L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=10, src_len=5, kv_len=5)


def test_kdim_vdim_shapes():
    """nn.MultiheadAttention(64, 4, kdim=32, vdim=16): q 64x64, k 64x32, v 64x16, 3x64 in-proj
    bias, out 64x64+64 = 11,520."""
    assert L.MultiHeadAttention(d_model=64, n_heads=4, seq_len=5, kdim=32, vdim=16).params == 11_520


def test_moe_counts_all_experts_but_runs_top_k():
    moe = L.MoE(d_model=4096, d_ff=14336, num_experts=8, top_k=2, tokens=3)
    expert = 3 * 4096 * 14336
    assert moe.params == 4096 * 8 + 8 * expert
    assert moe.macs() == 3 * (4096 * 8 + 2 * expert)
    assert (
        moe.experts_read == 6
        and L.MoE(d_model=8, d_ff=8, num_experts=8, top_k=2, tokens=100).experts_read == 8
    )
    with pytest.raises(ValueError, match="top_k"):
        L.MoE(d_model=8, d_ff=8, num_experts=2, top_k=3)


def test_resnet_variants_refuse_what_torchvision_refuses():
    with pytest.raises(ValueError, match="basic blocks"):
        M.resnet(18, groups=32, width_per_group=4)
    with pytest.raises(ValueError, match="input_size"):
        M.resnet(50, input_size=(224, 16))
    with pytest.raises(ValueError, match="groups"):
        M.resnet(50, groups=0)
    assert M.resnet(50, groups=32, width_per_group=4).name == "ResNeXt-50 32x4d"
    assert M.resnet(50, width_per_group=128).name == "Wide ResNet-50-2"


def test_streaming_rnn_holds_the_state_not_the_sequence():
    """Section 6.5's O(d) inference state: a streamed Elman RNN (100 -> 128) keeps one step's
    input (100), its gate values (128), its output (128) and h (128) live: 484 values at any
    length, where torch's whole-sequence call holds all 1,000 inputs and outputs (228,000). Same
    FLOPs either way; streaming drops the one input-projection GEMM (2 x 1,000 kernels, not 2,001)
    and reads W_ih every step as well as W_hh."""
    whole = L.RNN(input_size=100, hidden_size=128, seq_len=1000)
    for steps in (10, 1000, 100_000):
        streamed = L.RNN(input_size=100, hidden_size=128, seq_len=steps, streaming=True)
        assert streamed.live_elements(1) == 100 + 128 + 128 + 128 == 484
        assert streamed.live_elements(4) == 4 * 484
    streamed = L.RNN(input_size=100, hidden_size=128, seq_len=1000, streaming=True)
    assert whole.live_elements(1) == 1000 * (100 + 128) == 228_000
    assert streamed.flops(1) == whole.flops(1) == 2 * 1000 * (100 * 128 + 128 * 128)
    assert (whole.kernels, streamed.kernels) == (2001, 2000)
    assert streamed.weight_elements == 1000 * whole.params
    lstm = L.LSTM(input_size=40, hidden_size=64, seq_len=50, num_layers=2, streaming=True)
    # widest layer input (64 from layer 1's h) + 4 gates x 64 + output 64 + (h, c) x 2 layers
    assert lstm.live_elements(1) == 64 + 4 * 64 + 64 + 2 * 64 * 2


def test_streaming_refuses_a_backward_direction():
    with pytest.raises(ValueError, match="streaming=True needs bidirectional=False"):
        L.GRU(input_size=8, hidden_size=8, seq_len=4, bidirectional=True, streaming=True)

#!/usr/bin/env python
"""Cross-check mlsysim's single layers against torch on random configurations that are *not* in
the fixture: Linear (batch, bias), Conv2d (rectangular kernels, strides, padding and dilation
pairs, groups, bias), RNN/LSTM/GRU (layers, bidirectional, bias, LSTM ``proj_size``, batch),
MultiheadAttention (heads, kdim/vdim, a source of another length, batch), TransformerEncoderLayer
(bias, batch), and params-only Embedding/LayerNorm/BatchNorm2d/RMSNorm.

Each random entry is built in the fixture's own schema (``regenerate.layer_entry``: params and
FlopCounterMode FLOPs measured by torch) and rebuilt with the test suite's builder
(``tests/test_ground_truth.py``), so the fuzz checks exactly what the fixture does. Needs torch
(it imports mlsysim from this checkout too):

    /tmp/tvenv/bin/python tests/reference/fuzz_layers.py [seed] [count]

Exits non-zero on any mismatch. Not part of the normal test run (it needs torch).
"""

from __future__ import annotations

import random
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parents[1])]
warnings.filterwarnings("ignore")

# regenerate.py imports torchvision and transformers for its whole-model entries; layers need
# neither (a stand-in module where one is not installed)
for _name in ("torchvision", "transformers"):
    try:
        __import__(_name)
    except ImportError:
        import types

        sys.modules[_name] = types.ModuleType(_name)

import regenerate as R  # noqa: E402
import test_ground_truth as G  # noqa: E402
from torch import nn  # noqa: E402


def _pair_or_int(rng: random.Random, lo: int, hi: int):
    return rng.randint(lo, hi) if rng.random() < 0.5 else (rng.randint(lo, hi), rng.randint(lo, hi))


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv(rng: random.Random, i: int):
    g = rng.choice([1, 1, 2, 3, 4])
    in_c = g * rng.randint(1, 6)
    out_c = g * rng.randint(1, 6)
    if rng.random() < 0.2:  # depthwise
        g, out_c = in_c, in_c * rng.choice([1, 2])
    k = _pair_or_int(rng, 1, 5)
    d = _pair_or_int(rng, 1, 3)
    s = _pair_or_int(rng, 1, 3)
    p = _pair_or_int(rng, 0, 3)
    (kh, kw), (dh, dw), (ph, pw) = _pair(k), _pair(d), _pair(p)
    h = rng.randint(max(1, dh * (kh - 1) + 1 - 2 * ph), 33)
    w = rng.randint(max(1, dw * (kw - 1) + 1 - 2 * pw), 33)
    cfg = dict(
        in_channels=in_c,
        out_channels=out_c,
        kernel_size=k,
        stride=s,
        padding=p,
        groups=g,
        bias=rng.random() < 0.5,
        dilation=d,
    )
    R.layer_entry(f"conv_fuzz{i}", nn.Conv2d, cfg, [rng.randint(1, 3), in_c, h, w])


def dense(rng: random.Random, i: int):
    cfg = dict(
        in_features=rng.randint(1, 300), out_features=rng.randint(1, 300), bias=rng.random() < 0.5
    )
    R.layer_entry(f"dense_fuzz{i}", nn.Linear, cfg, [rng.randint(1, 16), cfg["in_features"]])


def recurrent(rng: random.Random, i: int):
    kind = rng.choice(["rnn", "lstm", "gru"])
    cls = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}[kind]
    h = rng.randint(2, 64)
    cfg = dict(
        input_size=rng.randint(1, 64),
        hidden_size=h,
        num_layers=rng.randint(1, 3),
        bidirectional=rng.random() < 0.5,
        bias=rng.random() < 0.7,
    )
    if kind == "lstm" and rng.random() < 0.5:
        cfg["proj_size"] = rng.randint(1, h - 1)
    shape = [G.RNN_SEQ_LEN, rng.randint(1, 3), cfg["input_size"]]
    R.layer_entry(f"{kind}_fuzz{i}", cls, cfg, shape, note="seq_len=10 fuzz")


def mha(rng: random.Random, i: int):
    heads = rng.randint(1, 6)
    d = heads * rng.randint(1, 16)
    cfg = dict(embed_dim=d, num_heads=heads, batch_first=True)
    cross = rng.random() < 0.5
    if cross:
        cfg.update(kdim=rng.randint(1, 40), vdim=rng.randint(1, 40))
    b, s, src = rng.randint(1, 3), rng.randint(1, 40), rng.randint(1, 40)
    if cross:
        import torch

        k = torch.randn(b, src, cfg["kdim"])
        v = torch.randn(b, src, cfg["vdim"])

        def call(m, x):
            return lambda: m(x, k, v, need_weights=False)

        R.layer_entry(f"mha_fuzz{i}", nn.MultiheadAttention, cfg, [b, s, d], make_call=call)
        R.ENTRIES[-1]["source_shape"] = [b, src]
    else:
        R.layer_entry(
            f"mha_fuzz{i}",
            nn.MultiheadAttention,
            cfg,
            [b, s, d],
            make_call=lambda m, x: lambda: m(x, x, x, need_weights=False),
        )


def encoder(rng: random.Random, i: int):
    heads = rng.randint(1, 6)
    d = heads * rng.randint(1, 16)
    cfg = dict(
        d_model=d,
        nhead=heads,
        dim_feedforward=rng.randint(1, 200),
        batch_first=True,
        bias=rng.random() < 0.5,
    )
    R.layer_entry(
        f"encoder_layer_fuzz{i}",
        nn.TransformerEncoderLayer,
        cfg,
        [rng.randint(1, 3), rng.randint(1, 40), d],
    )


def params_only(rng: random.Random, i: int):
    which = rng.choice(["embedding", "layernorm", "batchnorm", "rmsnorm"])
    if which == "embedding":
        cfg = dict(num_embeddings=rng.randint(1, 5000), embedding_dim=rng.randint(1, 300))
        R.layer_entry(f"embedding_fuzz{i}", nn.Embedding, cfg, None, flops=False)
    elif which == "layernorm":
        cfg = dict(normalized_shape=rng.randint(1, 2000), elementwise_affine=rng.random() < 0.7)
        if cfg["elementwise_affine"]:
            cfg["bias"] = rng.random() < 0.5
        R.layer_entry(f"layernorm_fuzz{i}", nn.LayerNorm, cfg, None, flops=False)
    elif which == "batchnorm":
        cfg = dict(num_features=rng.randint(1, 2000), affine=rng.random() < 0.7)
        R.layer_entry(f"batchnorm_fuzz{i}", nn.BatchNorm2d, cfg, None, flops=False)
    else:
        cfg = dict(normalized_shape=rng.randint(1, 2000), elementwise_affine=rng.random() < 0.7)
        R.layer_entry(f"rmsnorm_fuzz{i}", nn.RMSNorm, cfg, None, flops=False)


KINDS = [conv, conv, dense, recurrent, recurrent, mha, encoder, params_only]


def main() -> int:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = random.Random(seed)
    bad = 0
    for i in range(count):
        R.ENTRIES.clear()
        rng.choice(KINDS)(rng, i)
        e = R.ENTRIES[-1]
        try:
            params, flops = G._counts(e)
        except Exception as exc:  # noqa: BLE001 - report every failure, keep fuzzing
            print(f"ERROR {e['id']} {e['config']} {e['input_shape']}: {exc!r}")
            bad += 1
            continue
        want = (e["params"], e["flops"])
        got = (params, flops if e["flops"] is not None else None)
        if got != want:
            print(
                f"MISMATCH {e['id']} {e['config']} {e['input_shape']}: mlsysim {got} torch {want}"
            )
            bad += 1
    print(f"{count - bad}/{count} layers match torch (seed {seed})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Structure that carries no parameters, checked against torchvision and HuggingFace.

``reference/structure.json`` (``reference/regenerate_structure.py``, torch on the meta device)
counts, per model of the zoo, the forward calls of each module class and the additions of two
equal-shaped tensors. A residual add on the wrong block, a missing norm or activation changes
launches and bytes but neither parameters nor FLOPs, so only a count like this can see it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from mlsysim import layers as L
from mlsysim.models import bert, gpt2, llama, mobilenet_v2, resnet

REF = json.loads(Path(__file__).with_name("reference").joinpath("structure.json").read_text())

BUILDERS = {
    "resnet18": lambda: resnet(18),
    "resnet34": lambda: resnet(34),
    "resnet50": lambda: resnet(50),
    "resnet101": lambda: resnet(101),
    "resnet152": lambda: resnet(152),
    "mobilenet_v2_1": lambda: mobilenet_v2(1.0),
    "mobilenet_v2_0.75": lambda: mobilenet_v2(0.75),
    "mobilenet_v2_0.5": lambda: mobilenet_v2(0.5),
    "gpt2_small": lambda: gpt2(),
    "gpt2_xl": lambda: gpt2(1600, 48, 25),
    "bert_base": lambda: bert(),
    "llama_tiny": lambda: llama(
        d_model=256, n_layers=2, n_heads=8, kv_heads=2, d_ff=688, vocab_size=1000
    ),
}
MODELS = [k for k in REF if not k.startswith("_")]


def test_every_fixture_has_a_builder():
    assert sorted(MODELS) == sorted(BUILDERS)


def _counts(model) -> Counter:
    """mlsysim's rows, counted per kind (a row with count n counts n times)."""
    c: Counter = Counter()
    rows = model.rows(8, "prefill") if model.is_lm else model.rows()
    for r in rows:
        lay = r.layer
        if isinstance(lay, L.ResidualAdd):
            c["residual"] += r.count
        elif isinstance(lay, L.Elementwise):
            c[f"elementwise_{lay.op}"] += r.count
        elif isinstance(lay, L.Activation):
            c[lay.kind] += r.count
        elif isinstance(lay, L.Pool2d):
            c["avgpool" if lay.kernel_size is None else "maxpool"] += r.count
        else:
            c[type(lay).__name__] += r.count
    return c


def _ref(key) -> tuple[Counter, int]:
    return Counter(REF[key]["calls"]), REF[key]["adds"]


@pytest.mark.parametrize("key", [k for k in MODELS if k.startswith(("resnet", "mobilenet"))])
def test_cnn_module_calls_match_torchvision(key):
    calls, adds = _ref(key)
    got = _counts(BUILDERS[key]())
    assert got["Conv2d"] == calls["Conv2d"]
    assert got["BatchNorm2d"] == calls["BatchNorm2d"]
    assert got["relu"] == calls["ReLU"]
    assert got["relu6"] == calls["ReLU6"]
    assert got["Dense"] == calls["Linear"]
    assert got["residual"] == adds
    if key.startswith("resnet"):
        assert got["maxpool"] == calls["MaxPool2d"] and got["avgpool"] == calls["AdaptiveAvgPool2d"]


@pytest.mark.parametrize("key", ["mobilenet_v2_1", "mobilenet_v2_0.75", "mobilenet_v2_0.5"])
def test_mobilenet_v2_residual_adds_sit_on_the_right_blocks(key):
    """torchvision sets ``use_res_connect`` exactly on stride-1 blocks whose input and output
    channels are equal; mlsysim must put its adds on the same blocks, not just as many."""
    rows = BUILDERS[key]().rows()
    blocks = [r.name.removesuffix(".add") for r in rows if isinstance(r.layer, L.ResidualAdd)]
    assert blocks == REF[key]["residual_blocks"]


@pytest.mark.parametrize("key", [k for k in MODELS if k.startswith("resnet")])
def test_resnet_projection_shortcuts_sit_on_the_right_blocks(key):
    rows = BUILDERS[key]().rows()
    blocks = [
        r.name.removesuffix(".downsample.conv") for r in rows if r.name.endswith("downsample.conv")
    ]
    assert blocks == REF[key]["downsample_blocks"]


@pytest.mark.parametrize("key", ["gpt2_small", "gpt2_xl", "bert_base", "llama_tiny"])
def test_transformer_module_calls_match_huggingface(key):
    calls, adds = _ref(key)
    n_layers = REF[key]["config"]["n_layers"]
    got = _counts(BUILDERS[key]())
    # norms: LayerNorm (GPT-2, BERT) or RMSNorm (Llama)
    assert got["LayerNorm"] + got["RMSNorm"] == calls["LayerNorm"] + calls["LlamaRMSNorm"]
    # activations: GPT-2's NewGELU, BERT's GELU (+ the pooler's tanh), Llama's SiLU
    assert got["gelu"] == calls["NewGELUActivation"] + calls["GELUActivation"]
    assert got["silu"] == calls["SiLUActivation"] + calls["SiLU"]
    assert got["tanh"] == calls["Tanh"]
    assert got["Embedding"] == calls["Embedding"]
    # adds of two hidden-state tensors: the residual adds plus the embedding sums
    assert got["residual"] + got["elementwise_add"] == adds
    assert got["residual"] == 2 * n_layers
    # GEMMs: one per Linear, and one per Conv1D (HF's GPT-2 runs Q, K and V as one fused
    # c_attn, and so does mlsysim's GPT-2: the same launches as the model it names)
    assert got["Dense"] == calls["Linear"] + calls["Conv1D"]


@pytest.mark.parametrize(
    "key", [k for k in MODELS if k.startswith(("resnet", "mobilenet"))] + ["mnist_cnn", "kws"]
)
def test_cnn_rows_chain_shapes(key):
    """Each row consumes what the row before produced (a projection shortcut consumes its
    block's input; an add combines two tensors of its size; a dense head reads the flattened
    map): a stride or pool that disagrees with the next layer's input breaks the chain."""
    from mlsysim.models import kws_dscnn, mnist_cnn

    model = {"mnist_cnn": mnist_cnn, "kws": kws_dscnn}.get(key, BUILDERS.get(key))()
    prev = None
    for r in model.rows():
        lay = r.layer
        if r.name.endswith("downsample.conv") or r.name.endswith("downsample.bn"):
            continue
        consumed = (
            lay.elements
            if isinstance(lay, L.Elementwise | L.Activation | L.BatchNorm2d)
            else lay.input_elements
        )
        if prev is not None:
            assert consumed == prev, r.name
        prev = lay.output_elements

"""mlsysim's counts against independent torch / torchvision / HF ground truth.

Every entry of ``tests/reference/ground_truth.json`` is rebuilt with mlsysim and compared
*exactly*: ``params`` always, ``flops`` (torch ``FlopCounterMode``: 2 x matmul/conv MACs) when the
fixture measured them. See ``tests/reference/README.md`` for how the fixture was produced.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlsysim import layers as L
from mlsysim import models as M

FIXTURE = json.loads((Path(__file__).parent / "reference" / "ground_truth.json").read_text())
ENTRIES = FIXTURE["entries"]

#: torch.nn.RNN/LSTM/GRU fixtures were measured on input [seq_len=10, batch=1, features].
RNN_SEQ_LEN = 10


def _batch(entry) -> int:
    shape = entry["input_shape"]
    return shape[0] if shape else 1


def _seq(entry) -> int:
    return entry["input_shape"][1]


def _image(e):
    h, w = e["input_shape"][2:]
    return h if h == w else (h, w)


#: torchvision's ResNeXt / Wide ResNet constructors: (depth, groups, width_per_group)
RESNET_VARIANTS = {
    "resnext50_32x4d": (50, 32, 4),
    "resnext101_32x8d": (101, 32, 8),
    "resnext101_64x4d": (101, 64, 4),
    "wide_resnet50_2": (50, 1, 128),
    "wide_resnet101_2": (101, 1, 128),
}


def _resnet(e):
    arch = e["config"]["arch"]
    depth, groups, wpg = RESNET_VARIANTS.get(arch, (None, 1, 64))
    depth = depth or int(arch.removeprefix("resnet"))
    return M.resnet(
        depth,
        input_size=_image(e),
        num_classes=e["config"]["num_classes"],
        groups=groups,
        width_per_group=wpg,
    )


def _mobilenet(e):
    c = e["config"]
    return M.mobilenet_v2(
        c.get("width_mult", 1.0), input_size=_image(e), num_classes=c["num_classes"]
    )


def _gpt2(e):
    c = e["config"]
    assert c["n_inner"] is None and c["tie_word_embeddings"]  # 4d MLP, tied LM head
    return M.gpt2(
        c["n_embd"],
        c["n_layer"],
        c["n_head"],
        vocab_size=c["vocab_size"],
        context_length=c["n_positions"],
    )


def _bert(e):
    c = e["config"]
    assert c["type_vocab_size"] == 2 and c["add_pooling_layer"]
    return M.bert(
        c["hidden_size"],
        c["num_hidden_layers"],
        c["num_attention_heads"],
        c["intermediate_size"],
        c["vocab_size"],
        c["max_position_embeddings"],
    )


def _llama(e):
    c = e["config"]
    assert not c["tie_word_embeddings"] and not c["attention_bias"] and not c["mlp_bias"]
    assert c["head_dim"] == c["hidden_size"] // c["num_attention_heads"]
    return M.llama(
        c["hidden_size"],
        c["num_hidden_layers"],
        c["num_attention_heads"],
        c["num_key_value_heads"],
        c["intermediate_size"],
        c["vocab_size"],
    )


def _vision(e):
    """torchvision's constructor names, read independently of mlsysim.vision's own tables."""
    from mlsysim import vision as V

    arch, kw = e["config"]["arch"], e["config"]["kwargs"]
    size, classes = _image(e), e["config"]["num_classes"]
    if arch == "alexnet":
        return V.alexnet(size, classes)
    if arch.startswith("vgg"):
        return V.vgg(int(arch[3:5]), arch.endswith("_bn"), size, classes)
    if arch.startswith("vit_"):
        assert kw.get("image_size", 224) == e["input_shape"][2] == e["input_shape"][3]
        return V.vit(arch[4:], kw.get("image_size", 224), classes)
    if arch.startswith("convnext_"):
        return V.convnext(arch[9:], size, classes)
    if arch.startswith("efficientnet_"):
        return V.efficientnet(arch[13:], size, classes)
    if arch.startswith("mobilenet_v3_"):
        return V.mobilenet_v3(arch[13:], kw.get("width_mult", 1.0), size, classes)
    if arch.startswith("swin_"):
        v2 = arch.startswith("swin_v2_")
        return V.swin(arch[-1], v2, size, classes)
    if arch.startswith("regnet_"):
        return V.regnet(arch[7:], size, classes)
    if arch == "inception_v3":
        return V.inception_v3(size, classes, kw.get("aux_logits", True))
    if arch == "googlenet":
        return V.googlenet(size, classes, kw.get("aux_logits", True))
    raise AssertionError(f"no mlsysim builder for torchvision {arch!r}")


# Whole models: (builder, flops(model, entry)).
MODEL_BUILDERS = {
    "resnet": (_resnet, lambda m, e: m.flops(_batch(e))),
    "resnext": (_resnet, lambda m, e: m.flops(_batch(e))),
    "wide_resnet": (_resnet, lambda m, e: m.flops(_batch(e))),
    # from_hf_config on the raw config.json dict (tests/test_hf_configs.py checks decode and cache)
    # (kwargs: from_hf_config's add_pooling_layer / image_size; a vision model counts an image)
    "hf_": (
        lambda e: M.from_hf_config(e["config"], **e.get("kwargs", {})),
        lambda m, e: m.flops(_batch(e), seq_len=_seq(e)) if m.is_lm else m.flops(_batch(e)),
    ),
    "shipped_": (lambda e: M.from_shipped(e["config"]["shipped"]), None),
    # a bare {"model_type": ...} of issue 34's decoder families: full-size params (meta device)
    "hfdefault_": (lambda e: M.from_hf_config(e["config"]), None),
    "mobilenet_v2": (_mobilenet, lambda m, e: m.flops(_batch(e))),
    "gpt2": (_gpt2, lambda m, e: m.flops(_batch(e), seq_len=_seq(e))),
    "bert": (_bert, lambda m, e: m.flops(_batch(e), seq_len=_seq(e))),
    "llama": (_llama, lambda m, e: m.flops(_batch(e), seq_len=_seq(e))),
    # mlsysim.vision: AlexNet, VGG, ViT, ConvNeXt, EfficientNet, MobileNetV3, Swin, RegNet, Inception
    "tv_": (_vision, lambda m, e: m.flops(_batch(e))),
}


def _layer(e) -> tuple[L.Layer, int]:
    """The mlsysim layer for a single-layer fixture and the batch its FLOPs are taken at."""
    i, c = e["id"], e["config"]
    if i.startswith("dense"):
        return L.Dense(**c), _batch(e)
    if i.startswith("conv"):
        return L.Conv2d(**c, input_size=tuple(e["input_shape"][2:])), _batch(e)
    if i.startswith(("rnn", "lstm", "gru")):
        assert e["input_shape"][0] == RNN_SEQ_LEN and "seq_len=10" in e["note"]
        cls = {"rnn": L.RNN, "lstm": L.LSTM, "gru": L.GRU}[i.split("_")[0]]
        return cls(**c, seq_len=RNN_SEQ_LEN), e["input_shape"][1]
    if i.startswith("mha"):
        b, s, d = e["input_shape"]
        src = e["source_shape"][1] if "source_shape" in e else None
        return L.MultiHeadAttention(
            d_model=c["embed_dim"],
            n_heads=c["num_heads"],
            seq_len=s,
            kdim=c.get("kdim"),
            vdim=c.get("vdim"),
            src_len=src,
        ), b
    if i.startswith("encoder_layer"):
        b, s, d = e["input_shape"]
        # torch's default activation is ReLU; GELU vs ReLU changes no matmul FLOP or param.
        return (
            L.TransformerBlock(
                d_model=c["d_model"],
                n_heads=c["nhead"],
                d_ff=c["dim_feedforward"],
                seq_len=s,
                activation="relu",
                bias=c.get("bias", True),
            ),
            b,
        )
    if i.startswith("sdpa"):
        assert not c["is_causal"]
        return (
            L.Attention(
                d_model=c["num_heads"] * c["head_dim"], n_heads=c["num_heads"], seq_len=c["seq_len"]
            ),
            c["batch"],
        )
    if i.startswith("embedding"):
        return L.Embedding(**c), 1
    if i.startswith("layernorm"):
        return L.LayerNorm(**c, elements=c["normalized_shape"]), 1
    if i.startswith("batchnorm"):
        return L.BatchNorm2d(**c, elements=c["num_features"]), 1
    if i.startswith("rmsnorm"):
        return L.RMSNorm(**c, elements=c["normalized_shape"]), 1
    raise AssertionError(f"no mlsysim builder for fixture {i!r}")


def _model_kind(entry) -> str | None:
    for kind in MODEL_BUILDERS:
        if entry["id"].startswith(kind):
            return kind
    return None


def _counts(entry) -> tuple[int, int]:
    kind = _model_kind(entry)
    if kind is not None:
        build, flops = MODEL_BUILDERS[kind]
        model = build(entry)
        return model.params, None if flops is None else flops(model, entry)
    layer, batch = _layer(entry)
    return layer.params, layer.flops(batch)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_params_match_torch(entry):
    params, _ = _counts(entry)
    assert isinstance(params, int)
    assert params == entry["params"]


@pytest.mark.parametrize(
    "entry",
    [e for e in ENTRIES if e["flops"] is not None],
    ids=[e["id"] for e in ENTRIES if e["flops"] is not None],
)
def test_flops_match_torch(entry):
    _, flops = _counts(entry)
    assert isinstance(flops, int)
    assert flops == entry["flops"]


def test_fixture_covers_every_family():
    """Guard against a silently shrunk fixture: 525 entries (288 of them issue 38's one-field pairs; 72 of them mlsysim.vision's
    torchvision families; 72 of them issue 34's Hugging Face families), all rebuildable."""
    assert len(ENTRIES) == 525
    assert sum("field_pair" in e for e in ENTRIES) == 288 - 27  # less the 27 bases
    assert sum(e["id"].startswith("tv_") for e in ENTRIES) == 72
    assert len({e["id"] for e in ENTRIES}) == len(ENTRIES)


def test_fixture_flops_by_op_sums_to_total():
    for e in ENTRIES:
        if e["flops"] is not None:
            assert sum(e["flops_by_op"].values()) == e["flops"], e["id"]


def test_vision_fixture_covers_each_family_beyond_its_defaults():
    """Each torchvision family is fixed at its default and at another input size and class
    count; Inception v3's and GoogLeNet's auxiliary heads count params only (they run in
    training)."""
    from mlsysim import vision as V

    tv = [e for e in ENTRIES if e["id"].startswith("tv_")]
    fams = ("alexnet", "vgg", "vit_", "convnext", "efficientnet_b", "efficientnet_v2")
    fams += ("mobilenet_v3", "swin_v1", "swin_v2", "regnet", "inception", "googlenet")
    for fam in fams:
        arch = lambda e: e["config"]["arch"].replace("swin_", "swin_v1_").replace("v1_v2", "v2")  # noqa: E731
        mine = [e for e in tv if arch(e).startswith(fam)]
        assert any(e["config"]["num_classes"] == 1000 for e in mine), fam
        assert any(e["config"]["num_classes"] != 1000 for e in mine), fam
        assert len({tuple(e["input_shape"][2:]) for e in mine}) >= 2, fam
    with_aux = next(e for e in tv if e["id"] == "tv_inception_v3")
    without = V.inception_v3(299, 1000, aux_logits=False)
    assert with_aux["params"] - without.params == 3_326_696
    assert with_aux["flops"] == without.flops()
    g = {e["id"]: e for e in tv if e["id"] in ("tv_googlenet", "tv_googlenet_noaux")}
    assert g["tv_googlenet"]["params"] - g["tv_googlenet_noaux"]["params"] == 6_379_984
    assert g["tv_googlenet"]["flops"] == g["tv_googlenet_noaux"]["flops"]


@pytest.mark.parametrize("arch", ["resnet50"])
def test_resnet_fc_flops_match_addmm_share(arch):
    """The one ``addmm`` in torchvision ResNet-50 is the classifier: 2048 x 1000 MACs x 2."""
    entry = next(e for e in ENTRIES if e["id"] == arch)
    model = _resnet(entry)
    fc = next(r.layer for r in model.rows() if r.name == "fc")
    assert fc.flops() == entry["flops_by_op"]["addmm"]
    conv = sum(r.layer.flops() * r.count for r in model.rows() if isinstance(r.layer, L.Conv2d))
    assert conv == entry["flops_by_op"]["convolution"]


def test_attention_bmm_share_matches_fixture():
    """The QK^T and PV bmm FLOPs of each LM equal mlsysim's Attention rows (Mamba: its
    SelectiveScan rows)."""
    for e in ENTRIES:
        kind = _model_kind(e)
        if kind not in ("gpt2", "bert", "llama", "hf_") or e["flops"] is None:
            continue
        model = MODEL_BUILDERS[kind][0](e)
        attn = sum(
            r.layer.flops(_batch(e)) * r.count
            for r in model.rows(_seq(e) if model.is_lm else None)
            # Mamba's scan reads its state out by a batched matmul (transformers' slow path)
            if isinstance(r.layer, L.Attention) or type(r.layer).__name__ == "SelectiveScan"
        )
        assert attn == e["flops_by_op"]["bmm"], e["id"]


def test_vision_conv_and_attention_shares_match_fixture():
    """Per aten op, not just in total: every torchvision zoo entry's convolution FLOPs are
    mlsysim.vision's Conv2d rows, and its bmm FLOPs (ViT's SDPA, Swin's window attention) its
    Attention rows; the rest (addmm/mm) are its Dense rows."""
    for e in ENTRIES:
        if not e["id"].startswith("tv_"):
            continue
        model, b, by = _vision(e), _batch(e), e["flops_by_op"]

        def share(cls, model=model, b=b):
            return sum(r.layer.flops(b) * r.count for r in model.rows() if type(r.layer) is cls)

        assert share(L.Conv2d) == by.get("convolution", 0), e["id"]
        assert share(L.Attention) == by.get("bmm", 0), e["id"]
        rest = by.get("addmm", 0) + by.get("mm", 0)
        assert model.flops(b) - share(L.Conv2d) - share(L.Attention) == rest, e["id"]

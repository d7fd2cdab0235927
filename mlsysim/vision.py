"""torchvision's image classifiers, layer by layer: AlexNet, VGG, ViT, ConvNeXt, EfficientNet
(B0-B7, V2), MobileNetV3, Swin (v1, v2), RegNet, Inception v3 and GoogLeNet.

Each builder assembles ``mlsysim.layers`` rows exactly as the torchvision 0.29 module runs them
in eval mode (``weights=None``), so ``params`` equals ``sum(p.numel() for p in
model.parameters())`` and ``flops`` equals what torch's ``FlopCounterMode`` counts for one
forward pass (2 FLOPs per multiply-accumulate of every convolution and matmul; pooling,
normalization, activations, softmax and adds count none). Checked in
``tests/test_ground_truth.py`` against ``tests/reference/ground_truth.json`` and fuzzed past it by
``tests/reference/fuzz_torchvision.py``.

Presets (``Models.VGG16``, ``Models.ViTB16``, ...) are built on first access; this module is
imported only then.
"""

from __future__ import annotations

import math
from typing import Literal

from . import _check
from . import layers as L
from .models import _CNN, Model, Row, _fixed, _make_divisible, _size_label

__all__ = [
    "alexnet",
    "vgg",
    "vit",
    "convnext",
    "efficientnet",
    "mobilenet_v3",
    "swin",
    "regnet",
    "inception_v3",
    "googlenet",
]


def _image(input_size, least: int, name: str = "input_size") -> tuple[int, int]:
    """An int (square) or an (height, width) pair, each an integer >= ``least``."""
    hw = (input_size, input_size) if not isinstance(input_size, tuple | list) else tuple(input_size)
    if len(hw) != 2 or any(
        isinstance(v, bool) or not isinstance(v, int) or not least <= v <= _check.MAX_SIZE
        for v in hw
    ):
        raise ValueError(
            f"{name} must be an integer in [{least}, {_check.MAX_SIZE}] or a (height, width) pair "
            f"of them, got {_check._short(input_size)}"
        )
    return hw


def _block(rows: list[Row], prefix: str, count: int) -> list[Row]:
    """``rows`` of one block, named under ``prefix`` and repeated ``count`` times."""
    return [Row(f"{prefix}.{r.name}", r.layer, r.count * count) for r in rows]


def _model(label: str, family: str, rows: list[Row], description: str, config: dict) -> Model:
    return Model(label, family, _fixed(rows), description=description, config=config)


# --------------------------------------------------------------------------------------------
# AlexNet and VGG: plain conv stacks, a fixed-size pool, a 4096-wide classifier
# --------------------------------------------------------------------------------------------


def _classifier(net: _CNN, widths: tuple[int, ...]) -> None:
    """Linear layers with ReLU between (dropout has no cost in eval)."""
    for i, out in enumerate(widths):
        net.fc(f"classifier.fc{i + 1}", out)
        if i < len(widths) - 1:
            net.rows.append(Row(f"classifier.relu{i + 1}", L.Activation(elements=out)))


def _adaptive_pool(net: _CNN, name: str, size: int) -> None:
    net.rows.append(
        Row(name, L.AdaptiveAvgPool2d(channels=net.c, input_size=net.hw, output_size=size))
    )
    net.hw = (size, size)


def alexnet(input_size: int | tuple[int, int] = 224, num_classes: int = 1000) -> Model:
    """torchvision ``alexnet`` (the "one weird trick" variant: 64-192-384-256-256 channels): five
    biased convolutions, three 3x3/2 max pools, an adaptive average pool to 6x6 (so the
    classifier is 9216 -> 4096 -> 4096 -> ``num_classes`` at any input size), ReLU between.
    ``input_size``: an int or (height, width), each at least 63 (torchvision's minimum)."""
    hw = _image(input_size, 63)
    net = _CNN(3, hw)
    net.conv_bn("features.conv1", 64, 11, stride=4, padding=2, bn=False)
    net.pool("features.pool1", k=3, stride=2)
    net.conv_bn("features.conv2", 192, 5, padding=2, bn=False)
    net.pool("features.pool2", k=3, stride=2)
    net.conv_bn("features.conv3", 384, 3, bn=False)
    net.conv_bn("features.conv4", 256, 3, bn=False)
    net.conv_bn("features.conv5", 256, 3, bn=False)
    net.pool("features.pool5", k=3, stride=2)
    _adaptive_pool(net, "avgpool", 6)
    _classifier(net, (4096, 4096, num_classes))
    return _model(
        "AlexNet",
        "cnn",
        net.rows,
        f"torchvision alexnet, {_size_label(hw)} input",
        {"input_size": input_size, "num_classes": num_classes},
    )


_VGG = {
    11: (1, 1, 2, 2, 2),
    13: (2, 2, 2, 2, 2),
    16: (2, 2, 3, 3, 3),
    19: (2, 2, 4, 4, 4),
}


def vgg(
    depth: int = 16,
    batch_norm: bool = False,
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``vgg11``/``13``/``16``/``19`` (``batch_norm=True``: the ``_bn`` variants):
    five stages of 3x3 convolutions (64, 128, 256, 512, 512 channels; biased, each followed by
    BatchNorm when ``batch_norm``) and 2x2 max pools, an adaptive average pool to 7x7 (the
    classifier is 25088 -> 4096 -> 4096 -> ``num_classes`` at any input size).
    ``input_size``: an int or (height, width), each at least 32."""
    if depth not in _VGG:
        raise ValueError(
            f"depth={depth!r} is not a VGG depth; allowed: {', '.join(map(str, _VGG))}"
        )
    hw = _image(input_size, 32)
    net = _CNN(3, hw)
    for stage, (n, width) in enumerate(zip(_VGG[depth], (64, 128, 256, 512, 512), strict=True)):
        for i in range(n):
            name = f"features.{stage + 1}.{i + 1}"
            conv = net.conv_bn(name, width, 3, bn=False, act=None if batch_norm else "relu")
            if batch_norm:  # torchvision keeps the conv's bias before the BatchNorm
                n_out = conv.output_elements
                net.rows.append(
                    Row(f"{name}.bn", L.BatchNorm2d(num_features=width, elements=n_out))
                )
                net.rows.append(Row(f"{name}.relu", L.Activation(elements=n_out)))
        net.pool(f"features.{stage + 1}.pool", k=2, stride=2)
    _adaptive_pool(net, "avgpool", 7)
    _classifier(net, (4096, 4096, num_classes))
    label = f"VGG-{depth}" + ("-BN" if batch_norm else "")
    return _model(
        label,
        "cnn",
        net.rows,
        f"torchvision vgg{depth}{'_bn' if batch_norm else ''}, {_size_label(hw)} input",
        {
            "depth": depth,
            "batch_norm": batch_norm,
            "input_size": input_size,
            "num_classes": num_classes,
        },
    )


# --------------------------------------------------------------------------------------------
# Vision Transformer
# --------------------------------------------------------------------------------------------

#: torchvision vit_*: (patch, layers, heads, hidden, mlp)
_VIT = {
    "b_16": (16, 12, 12, 768, 3072),
    "b_32": (32, 12, 12, 768, 3072),
    "l_16": (16, 24, 16, 1024, 4096),
    "l_32": (32, 24, 16, 1024, 4096),
    "h_14": (14, 32, 16, 1280, 5120),
}


def _encoder_block(d: int, heads: int, mlp: int, tokens: int) -> list[Row]:
    """A pre-LN transformer encoder block (torchvision ViT's ``EncoderBlock``): LayerNorm,
    ``nn.MultiheadAttention`` (packed Q/K/V with bias, out projection), residual add,
    LayerNorm, MLP d -> mlp -> d with GELU, residual add."""
    n = tokens * d
    return [
        Row("ln_1", L.LayerNorm(normalized_shape=d, elements=n)),
        *(
            Row(f"self_attention.{name}", leaf)
            for name, leaf in L.MultiHeadAttention(d_model=d, n_heads=heads, seq_len=tokens).rows()
        ),
        Row("attn_residual", L.ResidualAdd(elements=n)),
        Row("ln_2", L.LayerNorm(normalized_shape=d, elements=n)),
        Row("mlp.fc1", L.Dense(in_features=d, out_features=mlp, tokens=tokens)),
        Row("mlp.gelu", L.Activation(kind="gelu", elements=tokens * mlp)),
        Row("mlp.fc2", L.Dense(in_features=mlp, out_features=d, tokens=tokens)),
        Row("mlp_residual", L.ResidualAdd(elements=n)),
    ]


def vit(
    variant: Literal["b_16", "b_32", "l_16", "l_32", "h_14"] = "b_16",
    image_size: int = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``vit_b_16`` ... ``vit_h_14``: a stride-``patch`` convolution cuts the image
    into (image_size / patch)^2 patch tokens, a learned class token joins them, a learned
    position table is added, a stack of pre-LN encoder blocks runs over all tokens, a final
    LayerNorm, and a linear head reads the class token. ``image_size`` is square and a multiple
    of the patch size (torchvision builds the position table for that one size)."""
    patch, layers, heads, d, mlp = _VIT[variant]
    if image_size < patch or image_size % patch:
        raise ValueError(
            f"image_size={image_size} must be a multiple of vit_{variant}'s patch size {patch} "
            f"(at least {patch}); e.g. {max(patch, image_size // patch * patch)}"
        )
    grid = image_size // patch
    tokens = grid * grid + 1
    rows = [
        Row(
            "conv_proj",
            L.Conv2d(
                in_channels=3,
                out_channels=d,
                kernel_size=patch,
                stride=patch,
                input_size=image_size,
            ),
        ),
        Row("class_token", L.Embedding(num_embeddings=1, embedding_dim=d)),
        Row(
            "encoder.pos_embedding",
            L.Embedding(num_embeddings=tokens, embedding_dim=d, lookups=tokens),
        ),
        Row("encoder.pos_add", L.Elementwise(elements=tokens * d)),
        *_block(_encoder_block(d, heads, mlp, tokens), "encoder.layers", layers),
        Row("encoder.ln", L.LayerNorm(normalized_shape=d, elements=tokens * d)),
        Row("heads.head", L.Dense(in_features=d, out_features=num_classes)),
    ]
    label = f"ViT-{variant[0].upper()}/{variant[2:]}"
    return _model(
        label,
        "transformer",
        rows,
        f"torchvision vit_{variant}, {image_size}x{image_size} input, {tokens} tokens",
        {"variant": variant, "image_size": image_size, "num_classes": num_classes},
    )


# --------------------------------------------------------------------------------------------
# ConvNeXt
# --------------------------------------------------------------------------------------------

#: torchvision convnext_*: (widths per stage, blocks per stage)
_CONVNEXT = {
    "tiny": ((96, 192, 384, 768), (3, 3, 9, 3)),
    "small": ((96, 192, 384, 768), (3, 3, 27, 3)),
    "base": ((128, 256, 512, 1024), (3, 3, 27, 3)),
    "large": ((192, 384, 768, 1536), (3, 3, 27, 3)),
}


def convnext(
    variant: Literal["tiny", "small", "base", "large"] = "tiny",
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``convnext_tiny`` ... ``convnext_large``: a 4x4 stride-4 "patchify" stem and
    LayerNorm, four stages of ConvNeXt blocks (7x7 depthwise conv, LayerNorm over channels,
    Linear C -> 4C, GELU, Linear 4C -> C, a learned per-channel layer scale, residual add;
    stochastic depth is the identity in eval), LayerNorm + 2x2 stride-2 conv between stages,
    global average pool, LayerNorm, linear head. ``input_size``: int or (height, width), >= 32."""
    widths, depths = _CONVNEXT[variant]
    hw = _image(input_size, 32)
    net = _CNN(3, hw)
    net.conv_bn("features.0.conv", widths[0], 4, stride=4, padding=0, bn=False, act=None)

    def norm(name: str) -> None:
        c = net.c
        n = c * net.hw[0] * net.hw[1]
        net.rows.append(Row(name, L.LayerNorm(normalized_shape=c, elements=n)))

    norm("features.0.norm")
    for stage, (c, blocks) in enumerate(zip(widths, depths, strict=True)):
        if stage:
            norm(f"downsample{stage}.norm")
            net.conv_bn(f"downsample{stage}", c, 2, stride=2, padding=0, bn=False, act=None)
        tokens = net.hw[0] * net.hw[1]
        n = c * tokens
        block = [
            Row(
                "dwconv",
                L.Conv2d(
                    in_channels=c,
                    out_channels=c,
                    kernel_size=7,
                    padding=3,
                    groups=c,
                    input_size=net.hw,
                ),
            ),
            Row("norm", L.LayerNorm(normalized_shape=c, elements=n)),
            Row("pwconv1", L.Dense(in_features=c, out_features=4 * c, tokens=tokens)),
            Row("gelu", L.Activation(kind="gelu", elements=4 * n)),
            Row("pwconv2", L.Dense(in_features=4 * c, out_features=c, tokens=tokens)),
            Row("layer_scale", L.Scale(channels=c, elements=n)),
            Row("residual", L.ResidualAdd(elements=n)),
        ]
        net.rows += _block(block, f"stage{stage + 1}", blocks)
    net.pool("avgpool", kind="avg")
    norm("classifier.norm")
    net.fc("classifier.fc", num_classes)
    label = f"ConvNeXt-{variant[0].upper()}"
    return _model(
        label,
        "cnn",
        net.rows,
        f"torchvision convnext_{variant}, {_size_label(hw)} input",
        {"variant": variant, "input_size": input_size, "num_classes": num_classes},
    )


# --------------------------------------------------------------------------------------------
# EfficientNet (B0-B7, V2) and MobileNetV3: inverted residuals with squeeze-and-excitation
# --------------------------------------------------------------------------------------------


def _squeeze_excite(net: _CNN, name: str, squeeze: int, act: str, gate: str) -> None:
    """torchvision ``SqueezeExcitation`` on ``net``'s current map: global average pool, 1x1 conv
    C -> ``squeeze`` (biased), ``act``, 1x1 conv back to C (biased), ``gate``, and the map
    scaled channel by channel."""
    c, n = net.c, net.c * net.hw[0] * net.hw[1]
    net.rows += [
        Row(f"{name}.avgpool", L.Pool2d(channels=c, input_size=net.hw, kind="avg")),
        Row(
            f"{name}.fc1",
            L.Conv2d(in_channels=c, out_channels=squeeze, kernel_size=1, input_size=1),
        ),
        Row(f"{name}.{act}", L.Activation(kind=act, elements=squeeze)),
        Row(
            f"{name}.fc2",
            L.Conv2d(in_channels=squeeze, out_channels=c, kernel_size=1, input_size=1),
        ),
        Row(f"{name}.{gate}", L.Activation(kind=gate, elements=c)),
        Row(f"{name}.scale", L.Elementwise(op="mul", elements=n)),
    ]


#: EfficientNet B-series stages: (expand ratio, kernel, stride, in, out, blocks) at width 1.0
_EFFNET_B = (
    (1, 3, 1, 32, 16, 1),
    (6, 3, 2, 16, 24, 2),
    (6, 5, 2, 24, 40, 2),
    (6, 3, 2, 40, 80, 3),
    (6, 5, 1, 80, 112, 3),
    (6, 5, 2, 112, 192, 4),
    (6, 3, 1, 192, 320, 1),
)
#: (width multiplier, depth multiplier) of efficientnet_b0 ... b7
_EFFNET_MULT = {
    "b0": (1.0, 1.0),
    "b1": (1.0, 1.1),
    "b2": (1.1, 1.2),
    "b3": (1.2, 1.4),
    "b4": (1.4, 1.8),
    "b5": (1.6, 2.2),
    "b6": (1.8, 2.6),
    "b7": (2.0, 3.1),
}
#: EfficientNetV2 stages: (fused?, expand ratio, kernel, stride, in, out, blocks)
_EFFNET_V2 = {
    "v2_s": (
        (True, 1, 3, 1, 24, 24, 2),
        (True, 4, 3, 2, 24, 48, 4),
        (True, 4, 3, 2, 48, 64, 4),
        (False, 4, 3, 2, 64, 128, 6),
        (False, 6, 3, 1, 128, 160, 9),
        (False, 6, 3, 2, 160, 256, 15),
    ),
    "v2_m": (
        (True, 1, 3, 1, 24, 24, 3),
        (True, 4, 3, 2, 24, 48, 5),
        (True, 4, 3, 2, 48, 80, 5),
        (False, 4, 3, 2, 80, 160, 7),
        (False, 6, 3, 1, 160, 176, 14),
        (False, 6, 3, 2, 176, 304, 18),
        (False, 6, 3, 1, 304, 512, 5),
    ),
    "v2_l": (
        (True, 1, 3, 1, 32, 32, 4),
        (True, 4, 3, 2, 32, 64, 7),
        (True, 4, 3, 2, 64, 96, 7),
        (False, 4, 3, 2, 96, 192, 10),
        (False, 6, 3, 1, 192, 224, 19),
        (False, 6, 3, 2, 224, 384, 25),
        (False, 6, 3, 1, 384, 640, 7),
    ),
}


def efficientnet(
    variant: Literal["b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "v2_s", "v2_m", "v2_l"] = "b0",
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``efficientnet_b0`` ... ``b7`` and ``efficientnet_v2_s/m/l``.

    B-series: MBConv blocks (1x1 expansion unless the ratio is 1, depthwise kxk, squeeze-and-
    excitation to ``max(1, in // 4)`` channels, 1x1 projection; BatchNorm and SiLU; residual
    add where stride is 1 and widths match). Widths are ``make_divisible(c * width, 8)`` and
    block counts ``ceil(n * depth)`` with the variant's multipliers, as torchvision rounds
    them; the head is a 1x1 conv to 4x the last width. V2: the first stages are Fused-MBConv
    (one full kxk conv in place of expansion + depthwise, no SE), the head 1280 wide.
    Stochastic depth and dropout are the identity in eval. The resolution is the student's
    (``input_size``: int or (height, width), >= 32); each variant's published resolution
    (B7: 600) is not applied."""
    hw = _image(input_size, 32)
    if variant in _EFFNET_MULT:
        wm, dm = _EFFNET_MULT[variant]
        stages = [
            (False, e, k, s, _make_divisible(i * wm), _make_divisible(o * wm), math.ceil(n * dm))
            for e, k, s, i, o, n in _EFFNET_B
        ]
        last = 4 * stages[-1][5]
    else:
        stages = list(_EFFNET_V2[variant])
        last = 1280
    net = _CNN(3, hw)
    net.conv_bn("features.0", stages[0][4], 3, stride=2, act="silu")
    for si, (fused, expand, k, stride, c_in, c_out, blocks) in enumerate(stages, start=1):
        for b in range(blocks):
            name = f"features.{si}.{b}"
            cin, s = (c_in, stride) if b == 0 else (c_out, 1)
            assert net.c == cin
            hidden = _make_divisible(cin * expand)
            if fused:
                if hidden != cin:
                    net.conv_bn(f"{name}.expand", hidden, k, stride=s, act="silu")
                    net.conv_bn(f"{name}.project", c_out, 1, act=None)
                else:
                    net.conv_bn(f"{name}.conv", c_out, k, stride=s, act="silu")
            else:
                if hidden != cin:
                    net.conv_bn(f"{name}.expand", hidden, 1, act="silu")
                net.conv_bn(f"{name}.dw", hidden, k, stride=s, groups=hidden, act="silu")
                _squeeze_excite(net, f"{name}.se", max(1, cin // 4), "silu", "sigmoid")
                net.conv_bn(f"{name}.project", c_out, 1, act=None)
            if s == 1 and cin == c_out:
                net.add(name)
    net.conv_bn(f"features.{len(stages) + 1}", last, 1, act="silu")
    net.pool("avgpool", kind="avg")
    net.fc("classifier", num_classes)
    label = "EfficientNet-" + (
        variant.upper() if variant[0] == "b" else f"V2-{variant[-1].upper()}"
    )
    return _model(
        label,
        "cnn",
        net.rows,
        f"torchvision efficientnet_{variant}, {_size_label(hw)} input",
        {"variant": variant, "input_size": input_size, "num_classes": num_classes},
    )


#: MobileNetV3 blocks: (in, kernel, expanded, out, squeeze-excite, hardswish, stride)
_MNV3 = {
    "large": (
        (16, 3, 16, 16, False, False, 1),
        (16, 3, 64, 24, False, False, 2),
        (24, 3, 72, 24, False, False, 1),
        (24, 5, 72, 40, True, False, 2),
        (40, 5, 120, 40, True, False, 1),
        (40, 5, 120, 40, True, False, 1),
        (40, 3, 240, 80, False, True, 2),
        (80, 3, 200, 80, False, True, 1),
        (80, 3, 184, 80, False, True, 1),
        (80, 3, 184, 80, False, True, 1),
        (80, 3, 480, 112, True, True, 1),
        (112, 3, 672, 112, True, True, 1),
        (112, 5, 672, 160, True, True, 2),
        (160, 5, 960, 160, True, True, 1),
        (160, 5, 960, 160, True, True, 1),
    ),
    "small": (
        (16, 3, 16, 16, True, False, 2),
        (16, 3, 72, 24, False, False, 2),
        (24, 3, 88, 24, False, False, 1),
        (24, 5, 96, 40, True, True, 2),
        (40, 5, 240, 40, True, True, 1),
        (40, 5, 240, 40, True, True, 1),
        (40, 5, 120, 48, True, True, 1),
        (48, 5, 144, 48, True, True, 1),
        (48, 5, 288, 96, True, True, 2),
        (96, 5, 576, 96, True, True, 1),
        (96, 5, 576, 96, True, True, 1),
    ),
}


def mobilenet_v3(
    variant: Literal["large", "small"] = "large",
    width_mult: float = 1.0,
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``mobilenet_v3_large`` / ``mobilenet_v3_small`` (``width_mult`` as torchvision
    passes it: every width ``make_divisible(c * width_mult, 8)``): inverted residuals with ReLU
    or hardswish, squeeze-and-excitation (to ``make_divisible(expanded // 4, 8)`` channels,
    ReLU, hardsigmoid gate) on some blocks, a 1x1 conv to 6x the last width, global pool, then
    Linear -> hardswish -> Linear (1280 / 1024 wide, scaled by ``width_mult``).
    ``input_size``: int or (height, width), >= 32."""
    if not (0.1 <= width_mult <= 2.0):
        raise ValueError(f"width_mult must be in [0.1, 2.0], got {width_mult!r}")
    hw = _image(input_size, 32)

    def adj(c: int) -> int:
        return _make_divisible(c * width_mult)

    blocks = _MNV3[variant]
    net = _CNN(3, hw)
    net.conv_bn("features.0", adj(blocks[0][0]), 3, stride=2, act="hardswish")
    for i, (c_in, k, exp, c_out, se, hs, stride) in enumerate(blocks, start=1):
        c_in, exp, c_out = adj(c_in), adj(exp), adj(c_out)
        act, name = ("hardswish" if hs else "relu"), f"features.{i}"
        assert net.c == c_in
        if exp != c_in:
            net.conv_bn(f"{name}.expand", exp, 1, act=act)
        net.conv_bn(f"{name}.dw", exp, k, stride=stride, groups=exp, act=act)
        if se:
            _squeeze_excite(net, f"{name}.se", _make_divisible(exp // 4), "relu", "hardsigmoid")
        net.conv_bn(f"{name}.project", c_out, 1, act=None)
        if stride == 1 and c_in == c_out:
            net.add(name)
    net.conv_bn(f"features.{len(blocks) + 1}", 6 * net.c, 1, act="hardswish")
    net.pool("avgpool", kind="avg")
    hidden = adj(1280 if variant == "large" else 1024)
    net.fc("classifier.fc1", hidden)
    net.rows.append(Row("classifier.hardswish", L.Activation(kind="hardswish", elements=hidden)))
    net.fc("classifier.fc2", num_classes)
    label = f"MobileNetV3-{variant.capitalize()}" + (
        "" if width_mult == 1.0 else f"-{width_mult:g}"
    )
    return _model(
        label,
        "cnn",
        net.rows,
        f"torchvision mobilenet_v3_{variant}(width_mult={width_mult}), {_size_label(hw)} input",
        {
            "variant": variant,
            "width_mult": width_mult,
            "input_size": input_size,
            "num_classes": num_classes,
        },
    )


# --------------------------------------------------------------------------------------------
# Swin Transformer (v1 and v2)
# --------------------------------------------------------------------------------------------

#: torchvision swin_*: (embed dim, blocks per stage, heads per stage); v1 windows 7x7, v2 8x8
_SWIN = {
    "t": (96, (2, 2, 6, 2), (3, 6, 12, 24)),
    "s": (96, (2, 2, 18, 2), (3, 6, 12, 24)),
    "b": (128, (2, 2, 18, 2), (4, 8, 16, 32)),
}


def _window_attention(dim: int, heads: int, hw: tuple[int, int], w: int, v2: bool) -> list[Row]:
    """torchvision ``ShiftedWindowAttention`` (``V2``) on an ``hw`` map of ``dim`` channels: the
    map is padded to whole ``w`` x ``w`` windows, a packed Q/K/V projection and an output
    projection run on every padded token, attention runs inside each window. v1 adds a learned
    relative-position bias gathered from a (2w-1)^2 x heads table; v2 computes it every pass with
    a 2 -> 512 -> heads MLP over the (2w-1)^2 relative coordinates, and scales its cosine
    attention logits by a learned per-head ``logit_scale`` (shifting windows moves no FLOP)."""
    wins = math.ceil(hw[0] / w) * math.ceil(hw[1] / w)
    t = w * w
    rel = (2 * w - 1) ** 2
    rows = [Row("qkv", L.Dense(in_features=dim, out_features=3 * dim, tokens=wins * t))]
    if v2:
        cpb = L.Sequential(
            name="cpb_mlp",
            layers=(
                L.Dense(in_features=2, out_features=512, tokens=rel),
                L.Activation(elements=rel * 512),
                L.Dense(in_features=512, out_features=heads, bias=False, tokens=rel),
            ),
        )
        rows += [
            Row("cpb_mlp", L.OncePerPass(layer=cpb)),  # same coordinates for every image
            Row("logit_scale", L.Scale(channels=heads, elements=wins * heads * t * t)),
        ]
    else:
        rows.append(
            Row(
                "relative_position_bias_table",
                L.Embedding(num_embeddings=rel, embedding_dim=heads, lookups=t * t),
            )
        )
    rows += [
        Row("core", L.Attention(d_model=dim, n_heads=heads, seq_len=t), wins),
        Row("proj", L.Dense(in_features=dim, out_features=dim, tokens=wins * t)),
    ]
    return rows


def swin(
    variant: Literal["t", "s", "b"] = "t",
    v2: bool = False,
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``swin_t/s/b`` and (``v2=True``) ``swin_v2_t/s/b``: a 4x4 stride-4 patch
    embedding and LayerNorm, four stages of Swin blocks (window attention, 7x7 windows in v1 and
    8x8 in v2, alternately shifted; MLP 4x wide with GELU; pre-norm in v1, post-norm in v2),
    patch merging between stages (2x2 neighbours concatenated to 4C, LayerNorm and a bias-free
    Linear 4C -> 2C; v2 normalizes after the Linear), final LayerNorm, global pool, linear head.
    Maps that are not whole windows are padded (the padded tokens are projected too).
    ``input_size``: int or (height, width), >= 32."""
    hw = _image(input_size, 32)
    embed, depths, heads = _SWIN[variant]
    w = 8 if v2 else 7
    net = _CNN(3, hw)
    net.conv_bn("features.0.proj", embed, 4, stride=4, padding=0, bn=False, act=None)

    def norm(name: str, c: int, tokens: int) -> Row:
        return Row(name, L.LayerNorm(normalized_shape=c, elements=c * tokens))

    net.rows.append(norm("features.0.norm", embed, net.hw[0] * net.hw[1]))
    for stage, (blocks, h) in enumerate(zip(depths, heads, strict=True)):
        dim = embed * 2**stage
        tokens = net.hw[0] * net.hw[1]
        n = dim * tokens
        attn = [
            Row(f"attn.{r.name}", r.layer, r.count)
            for r in _window_attention(dim, h, net.hw, w, v2)
        ]
        block = [
            norm("norm1", dim, tokens),
            *attn,
            Row("attn_residual", L.ResidualAdd(elements=n)),
            norm("norm2", dim, tokens),
            Row("mlp.fc1", L.Dense(in_features=dim, out_features=4 * dim, tokens=tokens)),
            Row("mlp.gelu", L.Activation(kind="gelu", elements=4 * n)),
            Row("mlp.fc2", L.Dense(in_features=4 * dim, out_features=dim, tokens=tokens)),
            Row("mlp_residual", L.ResidualAdd(elements=n)),
        ]
        net.rows += _block(block, f"stage{stage + 1}", blocks)
        if stage < len(depths) - 1:
            net.hw = (math.ceil(net.hw[0] / 2), math.ceil(net.hw[1] / 2))
            merged = net.hw[0] * net.hw[1]
            reduction = Row(
                f"merge{stage + 1}.reduction",
                L.Dense(in_features=4 * dim, out_features=2 * dim, bias=False, tokens=merged),
            )
            if v2:
                net.rows += [reduction, norm(f"merge{stage + 1}.norm", 2 * dim, merged)]
            else:
                net.rows += [norm(f"merge{stage + 1}.norm", 4 * dim, merged), reduction]
            net.c = 2 * dim
        else:
            net.c = dim
    net.rows.append(norm("norm", net.c, net.hw[0] * net.hw[1]))
    net.pool("avgpool", kind="avg")
    net.fc("head", num_classes)
    label = f"Swin{'-V2' if v2 else ''}-{variant.upper()}"
    return _model(
        label,
        "transformer",
        net.rows,
        f"torchvision swin_{'v2_' if v2 else ''}{variant}, {_size_label(hw)} input",
        {"variant": variant, "v2": v2, "input_size": input_size, "num_classes": num_classes},
    )


# --------------------------------------------------------------------------------------------
# RegNet
# --------------------------------------------------------------------------------------------

#: torchvision regnet_*: blocks, widths and group widths per stage, as
#: ``BlockParams.from_init_params`` quantizes them (bottleneck ratio 1, stride 2 per stage);
#: Y models add squeeze-and-excitation (ratio 0.25 of the block's input width)
_REGNET = {
    "y_400mf": ((1, 3, 6, 6), (48, 104, 208, 440), (8, 8, 8, 8)),
    "y_800mf": ((1, 3, 8, 2), (64, 144, 320, 784), (16, 16, 16, 16)),
    "y_1_6gf": ((2, 6, 17, 2), (48, 120, 336, 888), (24, 24, 24, 24)),
    "y_3_2gf": ((2, 5, 13, 1), (72, 216, 576, 1512), (24, 24, 24, 24)),
    "y_8gf": ((2, 4, 10, 1), (224, 448, 896, 2016), (56, 56, 56, 56)),
    "y_16gf": ((2, 4, 11, 1), (224, 448, 1232, 3024), (112, 112, 112, 112)),
    "y_32gf": ((2, 5, 12, 1), (232, 696, 1392, 3712), (232, 232, 232, 232)),
    "y_128gf": ((2, 7, 17, 1), (528, 1056, 2904, 7392), (264, 264, 264, 264)),
    "x_400mf": ((1, 2, 7, 12), (32, 64, 160, 400), (16, 16, 16, 16)),
    "x_800mf": ((1, 3, 7, 5), (64, 128, 288, 672), (16, 16, 16, 16)),
    "x_1_6gf": ((2, 4, 10, 2), (72, 168, 408, 912), (24, 24, 24, 24)),
    "x_3_2gf": ((2, 6, 15, 2), (96, 192, 432, 1008), (48, 48, 48, 48)),
    "x_8gf": ((2, 5, 15, 1), (80, 240, 720, 1920), (80, 120, 120, 120)),
    "x_16gf": ((2, 6, 13, 1), (256, 512, 896, 2048), (128, 128, 128, 128)),
    "x_32gf": ((2, 7, 13, 1), (336, 672, 1344, 2520), (168, 168, 168, 168)),
}


def regnet(
    variant: Literal[
        "y_400mf",
        "y_800mf",
        "y_1_6gf",
        "y_3_2gf",
        "y_8gf",
        "y_16gf",
        "y_32gf",
        "y_128gf",
        "x_400mf",
        "x_800mf",
        "x_1_6gf",
        "x_3_2gf",
        "x_8gf",
        "x_16gf",
        "x_32gf",
    ] = "y_400mf",
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
) -> Model:
    """torchvision ``regnet_x_*`` / ``regnet_y_*``: a 3x3 stride-2 stem (32 channels), four stages
    of residual bottleneck blocks (1x1, grouped 3x3 with groups = width / group width, for Y a
    squeeze-and-excitation to ``round(0.25 * block input width)`` channels, 1x1; a strided 1x1
    projection where the shape changes; BatchNorm and ReLU), global pool, linear head.
    ``input_size``: int or (height, width), >= 32."""
    hw = _image(input_size, 32)
    depths, widths, group_widths = _REGNET[variant]
    se = variant[0] == "y"
    net = _CNN(3, hw)
    net.conv_bn("stem", 32, 3, stride=2)
    for stage, (n, width, gw) in enumerate(zip(depths, widths, group_widths, strict=True), 1):
        for i in range(n):
            name, stride = f"trunk_output.block{stage}.{i}", 2 if i == 0 else 1
            c_in, hw_in = net.c, net.hw
            if c_in != width or stride != 1:
                net.conv_bn(f"{name}.proj", width, 1, stride=stride, act=None)
                net.c, net.hw = c_in, hw_in
            net.conv_bn(f"{name}.f.a", width, 1)
            net.conv_bn(f"{name}.f.b", width, 3, stride=stride, groups=width // gw)
            if se:
                _squeeze_excite(net, f"{name}.f.se", int(round(0.25 * c_in)), "relu", "sigmoid")
            net.conv_bn(f"{name}.f.c", width, 1, act=None)
            net.add(name, act="relu")
    net.pool("avgpool", kind="avg")
    net.fc("fc", num_classes)
    label = f"RegNet{variant[0].upper()}-{variant[2:].upper().replace('_', '.')}"
    return _model(
        label,
        "cnn",
        net.rows,
        f"torchvision regnet_{variant}, {_size_label(hw)} input",
        {"variant": variant, "input_size": input_size, "num_classes": num_classes},
    )


# --------------------------------------------------------------------------------------------
# Inception v3
# --------------------------------------------------------------------------------------------


class _Branches:
    """Parallel branches of an Inception module: each starts from the module's input and
    appends its rows to one list; the outputs are concatenated along channels."""

    def __init__(self, net: _CNN, name: str):
        self.net, self.name = net, name
        self.c, self.hw = net.c, net.hw
        self.out: list[tuple[int, tuple[int, int]]] = []

    def branch(self, label: str, convs, pool: str | None = None) -> None:
        """``convs``: (out, kernel, stride, padding) of BasicConv2d (conv without bias, BN,
        ReLU) layers one after another; ``pool``: an "avg" 3x3/1 (before the convs) or a "max"
        3x3/2 pool."""
        net = self.net
        net.c, net.hw = self.c, self.hw
        if pool == "avg":
            net.pool(f"{self.name}.{label}.avgpool", k=3, stride=1, padding=1, kind="avg")
        elif pool == "max":
            net.pool(f"{self.name}.{label}.maxpool", k=3, stride=2)
        for i, (out, k, stride, pad) in enumerate(convs):
            net.conv_bn(f"{self.name}.{label}.{i + 1}", out, k, stride=stride, padding=pad)
        self.out.append((net.c, net.hw))

    def concat(self) -> None:
        sizes = {hw for _, hw in self.out}
        assert len(sizes) == 1, sizes
        self.net.c, self.net.hw = sum(c for c, _ in self.out), sizes.pop()


def _inception_a(net: _CNN, name: str, pool_features: int) -> None:
    b = _Branches(net, name)
    b.branch("branch1x1", [(64, 1, 1, 0)])
    b.branch("branch5x5", [(48, 1, 1, 0), (64, 5, 1, 2)])
    b.branch("branch3x3dbl", [(64, 1, 1, 0), (96, 3, 1, 1), (96, 3, 1, 1)])
    b.branch("branch_pool", [(pool_features, 1, 1, 0)], pool="avg")
    b.concat()


def _inception_c(net: _CNN, name: str, c7: int) -> None:
    b = _Branches(net, name)
    row, col = ((1, 7), 1, (0, 3)), ((7, 1), 1, (3, 0))
    b.branch("branch1x1", [(192, 1, 1, 0)])
    b.branch("branch7x7", [(c7, 1, 1, 0), (c7, *row), (192, *col)])
    b.branch("branch7x7dbl", [(c7, 1, 1, 0), (c7, *col), (c7, *row), (c7, *col), (192, *row)])
    b.branch("branch_pool", [(192, 1, 1, 0)], pool="avg")
    b.concat()


def _inception_e(net: _CNN, name: str) -> None:
    b = _Branches(net, name)
    b.branch("branch1x1", [(320, 1, 1, 0)])
    b.branch("branch3x3_1", [(384, 1, 1, 0)])
    mid = b.out.pop()
    for label in ("branch3x3_2a", "branch3x3_2b"):
        net.c, net.hw = mid
        kernel, pad = ((1, 3), (0, 1)) if label.endswith("a") else ((3, 1), (1, 0))
        net.conv_bn(f"{name}.{label}", 384, kernel, padding=pad)
        b.out.append((net.c, net.hw))
    b.branch("branch3x3dbl_1", [(448, 1, 1, 0), (384, 3, 1, 1)])
    mid = b.out.pop()
    for label in ("branch3x3dbl_3a", "branch3x3dbl_3b"):
        net.c, net.hw = mid
        kernel, pad = ((1, 3), (0, 1)) if label.endswith("a") else ((3, 1), (1, 0))
        net.conv_bn(f"{name}.{label}", 384, kernel, padding=pad)
        b.out.append((net.c, net.hw))
    b.branch("branch_pool", [(192, 1, 1, 0)], pool="avg")
    b.concat()


def inception_v3(
    input_size: int | tuple[int, int] = 299,
    num_classes: int = 1000,
    aux_logits: bool = True,
) -> Model:
    """torchvision ``inception_v3(weights=None, init_weights=False)`` in eval mode: the stem of
    BasicConv2d (bias-free conv, BatchNorm, ReLU) and max pools, Mixed_5b-5d (InceptionA),
    6a (B, a grid reduction), 6b-6e (C, factorized 1x7 / 7x1 convolutions), 7a (D), 7b-7c (E),
    global pool, linear head; ``transform_input`` (off without weights) moves no FLOP.
    ``aux_logits=True`` (torchvision's default) holds the auxiliary classifier's 3,326,696
    params (at 1000 classes) but runs it only in training: its params count, its FLOPs do not.
    ``input_size``: int or (height, width), >= 75 (torchvision's minimum)."""
    hw = _image(input_size, 75)
    net = _CNN(3, hw)
    for name, out, k, stride, pad in (
        ("Conv2d_1a_3x3", 32, 3, 2, 0),
        ("Conv2d_2a_3x3", 32, 3, 1, 0),
        ("Conv2d_2b_3x3", 64, 3, 1, 1),
        ("maxpool1", 0, 3, 2, 0),
        ("Conv2d_3b_1x1", 80, 1, 1, 0),
        ("Conv2d_4a_3x3", 192, 3, 1, 0),
        ("maxpool2", 0, 3, 2, 0),
    ):
        if out:
            net.conv_bn(name, out, k, stride=stride, padding=pad)
        else:
            net.pool(name, k=k, stride=stride)
    for name, pf in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        _inception_a(net, name, pf)
    b = _Branches(net, "Mixed_6a")
    b.branch("branch3x3", [(384, 3, 2, 0)])
    b.branch("branch3x3dbl", [(64, 1, 1, 0), (96, 3, 1, 1), (96, 3, 2, 0)])
    b.branch("branch_pool", [], pool="max")
    b.concat()
    for name, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        _inception_c(net, name, c7)
    if aux_logits:  # held, run only in training: built at the 299x299 geometry for its params
        aux = _CNN(768, 5)
        aux.conv_bn("conv0", 128, 1, padding=0)
        aux.conv_bn("conv1", 768, 5, padding=0)
        aux.fc("fc", num_classes)
        net.rows.append(
            Row(
                "AuxLogits",
                L.TrainingOnly(
                    layer=L.Sequential(name="AuxLogits", layers=tuple(r.layer for r in aux.rows))
                ),
            )
        )
    b = _Branches(net, "Mixed_7a")
    b.branch("branch3x3", [(192, 1, 1, 0), (320, 3, 2, 0)])
    row, col = ((1, 7), 1, (0, 3)), ((7, 1), 1, (3, 0))
    b.branch("branch7x7x3", [(192, 1, 1, 0), (192, *row), (192, *col), (192, 3, 2, 0)])
    b.branch("branch_pool", [], pool="max")
    b.concat()
    _inception_e(net, "Mixed_7b")
    _inception_e(net, "Mixed_7c")
    net.pool("avgpool", kind="avg")
    net.fc("fc", num_classes)
    return _model(
        "Inception v3",
        "cnn",
        net.rows,
        f"torchvision inception_v3 (aux_logits={aux_logits}), {_size_label(hw)} input",
        {"input_size": input_size, "num_classes": num_classes, "aux_logits": aux_logits},
    )


# --------------------------------------------------------------------------------------------
# GoogLeNet (Inception v1)
# --------------------------------------------------------------------------------------------

#: torchvision GoogLeNet's Inception modules: (1x1, 3x3 reduce, 3x3, "5x5" reduce, "5x5", pool
#: projection); torchvision's "5x5" branch is a 3x3 convolution (a known slip it keeps)
_GOOGLENET = {
    "inception3a": (64, 96, 128, 16, 32, 32),
    "inception3b": (128, 128, 192, 32, 96, 64),
    "inception4a": (192, 96, 208, 16, 48, 64),
    "inception4b": (160, 112, 224, 24, 64, 64),
    "inception4c": (128, 128, 256, 24, 64, 64),
    "inception4d": (112, 144, 288, 32, 64, 64),
    "inception4e": (256, 160, 320, 32, 128, 128),
    "inception5a": (256, 160, 320, 32, 128, 128),
    "inception5b": (384, 192, 384, 48, 128, 128),
}


def _ceil_pool(net: _CNN, name: str, k: int, stride: int, padding: int = 0) -> None:
    p = L.Pool2d(
        channels=net.c,
        input_size=net.hw,
        kernel_size=k,
        stride=stride,
        padding=padding,
        ceil_mode=True,
    )
    net.rows.append(Row(name, p))
    net.hw = p.output_size


def _googlenet_aux(c_in: int, num_classes: int) -> L.TrainingOnly:
    """An auxiliary classifier (training only): adaptive pool to 4x4, BasicConv2d 1x1 to 128,
    Linear 2048 -> 1024, ReLU, Linear 1024 -> classes."""
    layers = (
        L.Conv2d(in_channels=c_in, out_channels=128, kernel_size=1, input_size=4, bias=False),
        L.BatchNorm2d(num_features=128, elements=128 * 16),
        L.Dense(in_features=2048, out_features=1024),
        L.Dense(in_features=1024, out_features=num_classes),
    )
    return L.TrainingOnly(layer=L.Sequential(name="aux", layers=layers))


def googlenet(
    input_size: int | tuple[int, int] = 224,
    num_classes: int = 1000,
    aux_logits: bool = True,
) -> Model:
    """torchvision ``googlenet(weights=None, init_weights=False)`` in eval mode: BasicConv2d stem
    (7x7/2, 1x1, 3x3; bias-free conv, BatchNorm, ReLU) and ceil-mode max pools, nine Inception
    modules (1x1 | 1x1 -> 3x3 | 1x1 -> 3x3 | 3x3/1 max pool -> 1x1, concatenated), global pool,
    linear head. ``aux_logits=True`` (torchvision's default without weights; its ImageNet
    weights drop them) holds two auxiliary classifiers that run only in training: their params
    count, their FLOPs do not. ``input_size``: int or (height, width), >= 32."""
    hw = _image(input_size, 32)
    net = _CNN(3, hw)
    net.conv_bn("conv1", 64, 7, stride=2, padding=3)
    _ceil_pool(net, "maxpool1", 3, 2)
    net.conv_bn("conv2", 64, 1, padding=0)
    net.conv_bn("conv3", 192, 3, padding=1)
    _ceil_pool(net, "maxpool2", 3, 2)
    for name, (c1, r3, c3, r5, c5, pp) in _GOOGLENET.items():
        if name == "inception4a":
            _ceil_pool(net, "maxpool3", 3, 2)
        elif name == "inception5a":
            _ceil_pool(net, "maxpool4", 2, 2)
        b = _Branches(net, name)
        b.branch("branch1", [(c1, 1, 1, 0)])
        b.branch("branch2", [(r3, 1, 1, 0), (c3, 3, 1, 1)])
        b.branch("branch3", [(r5, 1, 1, 0), (c5, 3, 1, 1)])
        net.c, net.hw = b.c, b.hw
        _ceil_pool(net, f"{name}.branch4.maxpool", 3, 1, padding=1)
        net.conv_bn(f"{name}.branch4.1", pp, 1, padding=0)
        b.out.append((net.c, net.hw))
        b.concat()
        if aux_logits and name in ("inception4a", "inception4d"):
            aux = "aux1" if name == "inception4a" else "aux2"
            net.rows.append(Row(aux, _googlenet_aux(net.c, num_classes)))
    net.pool("avgpool", kind="avg")
    net.fc("fc", num_classes)
    return _model(
        "GoogLeNet",
        "cnn",
        net.rows,
        f"torchvision googlenet (aux_logits={aux_logits}), {_size_label(hw)} input",
        {"input_size": input_size, "num_classes": num_classes, "aux_logits": aux_logits},
    )


_check.check_module(
    globals(),
    __all__,
    {
        "alexnet": {"input_size": (63, _check.MAX_SIZE)},
        "vgg": {"input_size": (32, _check.MAX_SIZE)},
        "vit": {"image_size": (1, _check.MAX_SIZE)},
        "convnext": {"input_size": (32, _check.MAX_SIZE)},
        "efficientnet": {"input_size": (32, _check.MAX_SIZE)},
        "mobilenet_v3": {"width_mult": (0.1, 2.0), "input_size": (32, _check.MAX_SIZE)},
        "swin": {"input_size": (32, _check.MAX_SIZE)},
        "regnet": {"input_size": (32, _check.MAX_SIZE)},
        "inception_v3": {"input_size": (75, _check.MAX_SIZE)},
        "googlenet": {"input_size": (32, _check.MAX_SIZE)},
    },
)

"""``from_hf_config`` builders of the families whose structure is not a plain encoder or decoder
stack (``mlsysim.hf`` reads the config, checks it and dispatches here):

- vision transformers, ``vit`` (ViTModel, ViTForImageClassification) and
  ``clip_vision_model`` (CLIPVisionModel, CLIPVisionModelWithProjection): an image cut into
  patches by a strided convolution, a learned class token and position embeddings, then a
  pre-norm encoder over ``patches + 1`` tokens. They are image models (``is_lm=False``): their
  rows are one forward pass over one image of ``image_size`` (the config's, or the
  ``image_size=`` argument of ``from_hf_config``: transformers' ``interpolate_pos_encoding=True``,
  which resizes the position table without a matmul and leaves the parameters as they are).

Counts follow transformers 5.25 module for module (``tests/reference/ground_truth.json``,
``hf_*`` entries, measured by ``tests/reference/regenerate.py``).
"""

from __future__ import annotations

from . import hf as H
from ._lazy import lazy

L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")

__all__ = ["BUILDERS"]


# --------------------------------------------------------------------------------------------
# vision transformers
# --------------------------------------------------------------------------------------------


def _pair(c, key: str) -> tuple[int, int]:
    """A config field that is an int (square) or an [height, width] pair, checked by name."""
    v = c.get(key)
    if isinstance(v, list | tuple):
        if len(v) != 2:
            raise ValueError(
                f"config[{key!r}] must be an integer or a [height, width] pair, got {v!r}"
            )
        return (
            H._Cfg({key: v[0]}, c.mt).int(key),
            H._Cfg({key: v[1]}, c.mt).int(key),
        )
    n = c.int(key)
    return (n, n)


def _image_arg(size, cfg_hw, patch, mt) -> tuple[int, int]:
    """The ``image_size`` argument of from_hf_config (None: the config's), checked: the image
    must hold at least one patch, and transformers interpolates the position table only for a
    square grid of square patches (its ``interpolate_pos_encoding``)."""
    if size is None:
        return cfg_hw
    hw = (size, size) if not isinstance(size, list | tuple) else tuple(size)
    if len(hw) != 2 or any(
        isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 2**20 for v in hw
    ):
        raise ValueError(
            f"image_size must be an integer in [1, 2**20] or a (height, width) pair of them, got "
            f"{size!r}"
        )
    if hw == cfg_hw:
        return hw
    if patch[0] != patch[1] or (cfg_hw[0] // patch[0]) != (cfg_hw[1] // patch[1]):
        raise ValueError(
            f"image_size={size!r} differs from the config's {cfg_hw}: transformers interpolates "
            "the position embeddings only of a square grid of square patches (config['image_size'] "
            f"and config['patch_size'] of this {mt} config are not)"
        )
    if mt == "clip_vision_model" and hw[0] != hw[1]:
        raise ValueError(
            f"image_size={size!r}: CLIP's vision tower interpolates to square images only"
        )
    return hw


def _vision(c, arch: str, head: str, label: str, flash: bool) -> M.Model:
    mt = c.mt
    vit = mt == "vit"
    d, n_layers, heads = (
        c.int("hidden_size"),
        c.int("num_hidden_layers"),
        c.int("num_attention_heads"),
    )
    ff, channels = c.int("intermediate_size"), c.int("num_channels")
    act = c.act("hidden_act")
    if vit:
        cfg_hw, patch = _pair(c, "image_size"), _pair(c, "patch_size")
    else:  # CLIPVisionEmbeddings: (image_size // patch_size) ** 2 patches, ints only
        cfg_hw, patch = (c.int("image_size"),) * 2, (c.int("patch_size"),) * 2
    if d % heads:
        raise ValueError(
            f"config['num_attention_heads']={heads} must divide config['hidden_size']={d}"
        )
    if cfg_hw[0] < patch[0] or cfg_hw[1] < patch[1]:
        raise ValueError(
            f"config['patch_size']={c.get('patch_size')!r} is larger than config['image_size']="
            f"{c.get('image_size')!r}: no patch fits"
        )
    positions = (cfg_hw[0] // patch[0]) * (cfg_hw[1] // patch[1]) + 1  # the learned table
    hw = _image_arg(c.image_size, cfg_hw, patch, mt)
    if hw[0] < patch[0] or hw[1] < patch[1]:
        raise ValueError(f"image_size={c.image_size!r} is smaller than one patch {patch}")
    qkv_bias = c.bool("qkv_bias") if vit else True
    pooler = vit and head == "bare" and c.add_pooling_layer
    pool_dim = c.int("pooler_output_size") if vit and c.get("pooler_output_size") else d
    pool_act = c.act("pooler_act") if pooler else "tanh"
    labels = H._num_labels(c.raw) if head == "imgcls" else 0
    proj = c.int("projection_dim") if head == "proj" else 0
    H._check_derived([(positions * d, "the position table (patches + 1) x config['hidden_size']")])

    conv = L.Conv2d(
        in_channels=channels,
        out_channels=d,
        kernel_size=patch,
        stride=patch,
        input_size=hw,
        bias=vit,
    )
    t = conv.output_size[0] * conv.output_size[1] + 1  # patches + the class token
    n = t * d
    rows = [
        M.Row("embeddings.patch", conv),
        M.Row("embeddings.cls_token", L.Embedding(num_embeddings=1, embedding_dim=d)),
        M.Row(
            "embeddings.positions",
            L.Embedding(num_embeddings=positions, embedding_dim=d, lookups=t),
        ),
        M.Row("embeddings.add", L.Elementwise(elements=n)),
    ]
    if not vit:
        rows.append(M.Row("pre_layrnorm", L.LayerNorm(normalized_shape=d, elements=n)))
    block = [
        ("layernorm_before", L.LayerNorm(normalized_shape=d, elements=n)),
        ("attention.q_proj", L.Dense(in_features=d, out_features=d, bias=qkv_bias, tokens=t)),
        ("attention.k_proj", L.Dense(in_features=d, out_features=d, bias=qkv_bias, tokens=t)),
        ("attention.v_proj", L.Dense(in_features=d, out_features=d, bias=qkv_bias, tokens=t)),
        ("attention.sdpa", L.Attention(d_model=d, n_heads=heads, seq_len=t, flash=flash)),
        ("attention.o_proj", L.Dense(in_features=d, out_features=d, tokens=t)),
        ("attention.residual", L.ResidualAdd(elements=n)),
        ("layernorm_after", L.LayerNorm(normalized_shape=d, elements=n)),
        ("mlp.fc1", L.Dense(in_features=d, out_features=ff, tokens=t)),
        ("mlp.act", L.Activation(kind=act, elements=t * ff)),
        ("mlp.fc2", L.Dense(in_features=ff, out_features=d, tokens=t)),
        ("mlp.residual", L.ResidualAdd(elements=n)),
    ]
    rows += [M.Row(f"encoder.layer.{k}", lay, n_layers) for k, lay in block]
    if vit:  # ViTModel.layernorm over every token
        rows.append(M.Row("layernorm", L.LayerNorm(normalized_shape=d, elements=n)))
    else:  # CLIP: post_layernorm on the pooled class token only
        rows.append(M.Row("post_layernorm", L.LayerNorm(normalized_shape=d, elements=d)))
    if pooler:  # ViTPooler: dense + activation on the class token
        rows.append(M.Row("pooler.dense", L.Dense(in_features=d, out_features=pool_dim)))
        rows.append(M.Row("pooler.act", L.Activation(kind=pool_act, elements=pool_dim)))
    if head == "imgcls":  # on the class token's final state
        rows.append(M.Row("classifier", L.Dense(in_features=d, out_features=labels)))
    if head == "proj":
        rows.append(
            M.Row("visual_projection", L.Dense(in_features=d, out_features=proj, bias=False))
        )

    return M.Model(
        label,
        "transformer",
        lambda _s, _p: rows,
        description=f"{arch}, one {hw[0]}x{hw[1]} image ({t - 1} patches + a class token)",
        config=H._summary(
            arch,
            model_type=mt,
            d_model=d,
            n_layers=n_layers,
            n_heads=heads,
            kv_heads=heads,
            head_dim=d // heads,
            d_ff=ff,
            image_size=hw,
            patch_size=patch,
            tokens=t,
            flash=flash,
        ),
    )


#: model_type -> builder (``hf._from_hf_config`` dispatches here)
BUILDERS = {"vit": _vision, "clip_vision_model": _vision}

"""``from_hf_config`` builders of the families whose structure is not a plain encoder or decoder
stack (``mlsysim.hf`` reads the config, checks it and dispatches here):

- vision transformers, ``vit`` (ViTModel, ViTForImageClassification) and
  ``clip_vision_model`` (CLIPVisionModel, CLIPVisionModelWithProjection): an image cut into
  patches by a strided convolution, a learned class token and position embeddings, then a
  pre-norm encoder over ``patches + 1`` tokens. They are image models (``is_lm=False``): their
  rows are one forward pass over one image of ``image_size`` (the config's, or the
  ``image_size=`` argument of ``from_hf_config``: transformers' ``interpolate_pos_encoding=True``,
  which resizes the position table without a matmul and leaves the parameters as they are).

- encoder-decoder transformers, ``t5`` (T5Model, T5ForConditionalGeneration, T5EncoderModel:
  relative attention bias in the first layer of each stack, ``d_kv`` x ``num_heads`` wide
  attention, ``feed_forward_proj`` ``relu`` or gated (``gated-gelu``: t5 v1.1, flan-t5)) and
  ``bart`` (BartModel, BartForConditionalGeneration: learned positions with BART's offset of 2,
  ``final_logits_bias`` a buffer, not a parameter). What the Model API's arguments mean for
  them (the API the rest of mlsysim uses is unchanged):

  * ``flops(seq_len=S)`` (prefill): one teacher-forced forward pass, the encoder over the
    source and the decoder over S target tokens (``model(input_ids=src,
    decoder_input_ids=tgt)``). The source is S tokens too, unless ``from_hf_config(...,
    source_len=N)`` fixes it at N.
  * ``flops(seq_len=S, phase="decode")``: one decoder step for the S-th target token. The
    encoder is not run (it ran once, before the first step) and the cross-attention keys and
    values are not re-projected (they are in the cache): the step is the decoder's
    projections, its self-attention over S keys, its cross-attention over the source, and the
    LM head.
  * ``kv_cache_bytes(S)``: transformers' ``EncoderDecoderCache`` after that step: every decoder
    layer's self-attention keys and values for S target tokens plus its cross-attention keys
    and values for the source tokens (S, or ``source_len``).
  * ``params``: every parameter of the class, encoder included (a decode step's rows omit the
    encoder and the cross-attention K/V projections, which it does not read).

  transformers 5.25 ties T5's LM head to its token table whatever ``tie_word_embeddings`` says
  (T5Config forces it; ``False`` only turns off the output scaling, which is no matmul), and
  counts it once; an untied BART keeps four vocabulary tables (``shared``, never read, the
  encoder's, the decoder's and the LM head).

Counts follow transformers 5.25 module for module (``tests/reference/ground_truth.json``,
``hf_*`` entries, measured by ``tests/reference/regenerate.py``).
"""

from __future__ import annotations

from functools import lru_cache

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


# --------------------------------------------------------------------------------------------
# encoder-decoder transformers
# --------------------------------------------------------------------------------------------


def _t5_act(c) -> tuple[str, bool]:
    """T5's ``feed_forward_proj``: ``"relu"`` or ``"gated-<act>"`` -> (activation, gated), as
    T5Config reads it (``"gated-gelu"`` is gelu_new)."""
    v = c.get("feed_forward_proj")
    parts = v.split("-") if isinstance(v, str) else []
    if not parts or len(parts) > 2 or (len(parts) == 2 and parts[0] != "gated"):
        raise ValueError(
            f"config['feed_forward_proj']={v!r} must be an activation ('relu') or 'gated-<activation>' "
            "('gated-gelu')"
        )
    name = parts[-1]
    if name not in H._ACT:
        raise ValueError(
            f"config['feed_forward_proj']={v!r}: {name!r} is not a modelled activation; allowed: "
            f"{', '.join(sorted(H._ACT))}"
        )
    return H._ACT[name], len(parts) == 2


def _seq2seq(c, arch: str, head: str, label: str, flash: bool) -> M.Model:
    """T5 (T5Model, T5ForConditionalGeneration, T5EncoderModel) and BART (BartModel,
    BartForConditionalGeneration): an encoder over the source, a decoder whose every layer
    attends to its own tokens (causal self-attention, cached) and to the encoder's output
    (cross-attention, whose keys and values are projected once and cached)."""
    mt = c.mt
    t5 = mt == "t5"
    d, vocab = c.int("d_model"), c.int("vocab_size")
    if t5:
        n_enc = c.int("num_layers")
        n_dec = n_enc if c.get("num_decoder_layers") is None else c.int("num_decoder_layers")
        heads_e = heads_d = c.int("num_heads")
        hd_e = hd_d = c.int("d_kv")
        ff_e = ff_d = c.int("d_ff")
        act, gated = _t5_act(c)
        buckets = c.int("relative_attention_num_buckets")
        limit = None
        tied = True  # transformers 5.25's T5Config forces tie_word_embeddings=True
        bias = False
    else:
        n_enc, n_dec = c.int("encoder_layers"), c.int("decoder_layers")
        heads_e, heads_d = c.int("encoder_attention_heads"), c.int("decoder_attention_heads")
        for key, h in (("encoder_attention_heads", heads_e), ("decoder_attention_heads", heads_d)):
            if d % h:
                raise ValueError(f"config[{key!r}]={h} must divide config['d_model']={d}")
        hd_e, hd_d = d // heads_e, d // heads_d
        ff_e, ff_d = c.int("encoder_ffn_dim"), c.int("decoder_ffn_dim")
        act, gated = c.act("activation_function"), False
        buckets = 0
        limit = c.int("max_position_embeddings")
        tied = c.bool("tie_word_embeddings")
        bias = True
    inner_d = heads_d * hd_d  # BART: d_model
    if t5:
        H._check_derived([(inner_d, "config['num_heads'] x config['d_kv']")])
    src_fixed = c.source_len
    if src_fixed is not None and limit is not None and src_fixed > limit:
        raise ValueError(
            f"source_len={src_fixed} exceeds {label}'s {limit} learned positions; allowed: 1..{limit}"
        )
    encoder_only = head == "encoder"
    if encoder_only and src_fixed is not None:
        raise ValueError(f"source_len applies to encoder-decoder models; {arch} is an encoder")
    Norm = L.RMSNorm if t5 else L.LayerNorm  # T5LayerNorm: a scale, no bias, no mean

    def norm(name: str, elements: int, count: int = 1) -> M.Row:
        return M.Row(name, Norm(normalized_shape=d, elements=elements), count)

    def proj(name, i, o, tokens, count):
        return M.Row(name, L.Dense(in_features=i, out_features=o, bias=bias, tokens=tokens), count)

    def ffn(prefix: str, ff: int, t: int, count: int) -> list[M.Row]:
        if gated:  # T5DenseGatedActDense: act(wi_0 x) * wi_1 x
            rows = [
                proj(f"{prefix}.wi_0", d, ff, t, count),
                proj(f"{prefix}.wi_1", d, ff, t, count),
                M.Row(f"{prefix}.act", L.Activation(kind=act, elements=t * ff), count),
                M.Row(f"{prefix}.mul", L.Elementwise(op="mul", elements=t * ff), count),
            ]
        else:
            rows = [
                proj(f"{prefix}.fc1", d, ff, t, count),
                M.Row(f"{prefix}.act", L.Activation(kind=act, elements=t * ff), count),
            ]
        return [*rows, proj(f"{prefix}.fc2", ff, d, t, count)]

    def build(seq_len: int, phase: str) -> list[M.Row]:
        if encoder_only and phase == "decode":
            raise ValueError(
                f"phase='decode' applies to decoders; {label} ({arch}) is T5's encoder alone: use "
                "phase='prefill'"
            )
        src = seq_len if src_fixed is None else src_fixed
        if limit is not None:
            H._check_len(label, seq_len, limit)
        decode = phase == "decode"
        t = 1 if decode else seq_len  # decoder tokens run in this pass
        rows: list[M.Row] = []
        n_src, n_t = src * d, t * d
        # token tables: T5's one shared table (tied), BART's shared table (or three when untied)
        if tied:
            lookups = src if encoder_only else t if decode else src + t
            rows.append(
                M.Row("shared", L.Embedding(num_embeddings=vocab, embedding_dim=d, lookups=lookups))
            )
        else:  # BART untied: model.shared is a parameter the forward pass never reads
            rows.append(M.Row("shared", H._unused_parameter_cls()(numel=vocab * d)))
            if not decode:
                rows.append(
                    M.Row(
                        "encoder.embed_tokens",
                        L.Embedding(num_embeddings=vocab, embedding_dim=d, lookups=src),
                    )
                )
            rows.append(
                M.Row(
                    "decoder.embed_tokens",
                    L.Embedding(num_embeddings=vocab, embedding_dim=d, lookups=t),
                )
            )
        # ---- encoder: not run by a decode step (its output is in the cross-attention cache;
        # a model's parameters are counted from its prefill rows)
        if not decode:
            rows += _encoder_stack(t5, d, src, n_enc, heads_e, hd_e, limit, bias, flash, norm, proj)
            rows += ffn("encoder.layer.ff", ff_e, src, n_enc)
            rows.append(M.Row("encoder.layer.ff.residual", L.ResidualAdd(elements=n_src), n_enc))
            if t5:
                rows.append(norm("encoder.final_layer_norm", n_src))
                rows.append(
                    M.Row(
                        "encoder.relative_attention_bias",
                        L.Embedding(num_embeddings=buckets, embedding_dim=heads_e),
                    )
                )
            else:
                rows.append(norm("encoder.layer.final_layer_norm", n_src, n_enc))
        if encoder_only:
            return rows
        # ---- decoder
        kv = seq_len if decode else None
        if not t5:
            rows += [
                M.Row(
                    "decoder.embed_positions",
                    L.Embedding(num_embeddings=limit + 2, embedding_dim=d, lookups=t),
                ),
                M.Row("decoder.embed_add", L.Elementwise(elements=n_t)),
                norm("decoder.layernorm_embedding", n_t),
            ]
        else:
            rows.append(
                M.Row(
                    "decoder.relative_attention_bias",
                    L.Embedding(num_embeddings=buckets, embedding_dim=heads_d),
                )
            )
        rows += [
            *([norm("decoder.layer.self_attn_norm", n_t, n_dec)] if t5 else []),
            proj("decoder.layer.self_attn.q_proj", d, inner_d, t, n_dec),
            proj("decoder.layer.self_attn.k_proj", d, inner_d, t, n_dec),
            proj("decoder.layer.self_attn.v_proj", d, inner_d, t, n_dec),
            M.Row(
                "decoder.layer.self_attn.sdpa",
                L.Attention(
                    d_model=d, n_heads=heads_d, head_dim=hd_d, seq_len=t, kv_len=kv, flash=flash
                ),
                n_dec,
            ),
            proj("decoder.layer.self_attn.o_proj", inner_d, d, t, n_dec),
            M.Row("decoder.layer.self_attn.residual", L.ResidualAdd(elements=n_t), n_dec),
            *([norm("decoder.layer.self_attn_norm", n_t, n_dec)] if not t5 else []),
            *([norm("decoder.layer.cross_attn_norm", n_t, n_dec)] if t5 else []),
            proj("decoder.layer.cross_attn.q_proj", d, inner_d, t, n_dec),
        ]
        if not decode:  # the encoder's output projected to keys and values once per
            # sequence, by the prefill (a decode step reads them from the cross-attention cache)
            rows += [
                proj("decoder.layer.cross_attn.k_proj", d, inner_d, src, n_dec),
                proj("decoder.layer.cross_attn.v_proj", d, inner_d, src, n_dec),
            ]
        rows += [
            M.Row(
                "decoder.layer.cross_attn.sdpa",
                L.Attention(
                    d_model=d, n_heads=heads_d, head_dim=hd_d, seq_len=t, kv_len=src, flash=flash
                ),
                n_dec,
            ),
            proj("decoder.layer.cross_attn.o_proj", inner_d, d, t, n_dec),
            M.Row("decoder.layer.cross_attn.residual", L.ResidualAdd(elements=n_t), n_dec),
            *([norm("decoder.layer.cross_attn_norm", n_t, n_dec)] if not t5 else []),
            *([norm("decoder.layer.ff_norm", n_t, n_dec)] if t5 else []),
            *ffn("decoder.layer.ff", ff_d, t, n_dec),
            M.Row("decoder.layer.ff.residual", L.ResidualAdd(elements=n_t), n_dec),
            *([norm("decoder.layer.final_layer_norm", n_t, n_dec)] if not t5 else []),
        ]
        if t5:
            rows.append(norm("decoder.final_layer_norm", n_t))
        if head == "lm":
            rows.append(
                M.Row(
                    "lm_head",
                    L.Dense(in_features=d, out_features=vocab, bias=False, tokens=t, tied=tied),
                )
            )
        return rows

    def kv_elements(s: int) -> int:
        src = s if src_fixed is None else src_fixed
        return 2 * inner_d * n_dec * (s + src)  # self-attention K, V + cross-attention K, V

    ctx = limit if limit is not None else 512
    return M.Model(
        label,
        "transformer",
        build,
        is_lm=True,
        default_seq_len=ctx,
        kv_elements=None if encoder_only else kv_elements,
        max_seq_len=limit,
        description=f"{arch}: encoder over the source, decoder over the target"
        + ("" if src_fixed is None else f" ({src_fixed} source tokens)"),
        config=H._summary(
            arch,
            model_type=mt,
            d_model=d,
            n_layers=n_enc + (0 if encoder_only else n_dec),
            encoder_layers=n_enc,
            decoder_layers=0 if encoder_only else n_dec,
            n_heads=heads_d,
            kv_heads=heads_d,
            head_dim=hd_d,
            d_ff=ff_d,
            vocab_size=vocab,
            context_length=ctx,
            source_len=src_fixed,
            tie_word_embeddings=tied,
            flash=flash,
        ),
    )


def _encoder_stack(t5, d, src, n_enc, heads, hd, limit, bias, flash, norm, proj) -> list[M.Row]:
    """The encoder's embeddings and attention half of each layer over ``src`` tokens (the
    feed-forward half is added by the caller, which knows the gating)."""
    n = src * d
    inner = heads * hd
    rows = []
    if not t5:  # BART: learned positions (offset 2) + layernorm_embedding
        rows += [
            M.Row(
                "encoder.embed_positions",
                L.Embedding(num_embeddings=limit + 2, embedding_dim=d, lookups=src),
            ),
            M.Row("encoder.embed_add", L.Elementwise(elements=n)),
            norm("encoder.layernorm_embedding", n),
        ]
    rows += [
        *([norm("encoder.layer.self_attn_norm", n, n_enc)] if t5 else []),
        proj("encoder.layer.self_attn.q_proj", d, inner, src, n_enc),
        proj("encoder.layer.self_attn.k_proj", d, inner, src, n_enc),
        proj("encoder.layer.self_attn.v_proj", d, inner, src, n_enc),
        M.Row(
            "encoder.layer.self_attn.sdpa",
            L.Attention(d_model=d, n_heads=heads, head_dim=hd, seq_len=src, flash=flash),
            n_enc,
        ),
        proj("encoder.layer.self_attn.o_proj", inner, d, src, n_enc),
        M.Row("encoder.layer.self_attn.residual", L.ResidualAdd(elements=n), n_enc),
        *([norm("encoder.layer.self_attn_norm", n, n_enc)] if not t5 else []),
        *([norm("encoder.layer.ff_norm", n, n_enc)] if t5 else []),
    ]
    return rows


# --------------------------------------------------------------------------------------------
# state-space models
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _scan_cls():
    """Mamba's selective scan (built on first use: a pydantic class costs milliseconds).

    Per token and channel the state of ``state_size`` values is updated elementwise
    (``h = exp(A dt) h + dt B x``) and read out by one dot product with C: transformers' slow
    path runs that readout as a batched matmul of ``channels x state_size`` MACs per token
    (FlopCounterMode counts it; the discretization, the update, the ``D`` skip and the gate
    are elementwise). Its parameters are ``A_log`` (channels x state_size) and ``D``."""

    class SelectiveScan(L.Layer):
        channels: int
        state_size: int
        tokens: int = 1

        @property
        def params(self) -> int:
            return self.channels * self.state_size + self.channels

        @property
        def input_elements(self) -> int:  # x, dt, gate per channel; B and C per state
            return self.tokens * (3 * self.channels + 2 * self.state_size)

        @property
        def output_elements(self) -> int:
            return self.tokens * self.channels

        def _macs1(self) -> int:
            return self.tokens * self.channels * self.state_size

        def _elementwise1(self) -> int:
            # exp(A dt), dt B, (dt B) x, the state's multiply-add: 5 per state value; the D
            # skip (2) and the gate (1) per channel
            return self.tokens * self.channels * (5 * self.state_size + 3)

    return SelectiveScan


def _mamba(c, arch: str, head: str, label: str, flash: bool) -> M.Model:
    """Mamba (MambaModel, MambaForCausalLM): each layer a pre-norm mixer, in_proj to 2 x
    ``intermediate`` (x and the gate), a causal depthwise conv1d of ``conv_kernel`` taps on x,
    x_proj to (dt rank, B, C), dt_proj, the selective scan, out_proj. There is no attention and
    no growing cache: what a sequence keeps between steps is, per layer, the conv state
    (``intermediate x conv_kernel``) and the SSM state (``intermediate x state_size``), the same
    after 10 tokens as after 100,000.

    - ``flops(seq_len=S)``: transformers' slow (non-CUDA) path under FlopCounterMode: the
      projections, the conv over S + conv_kernel - 1 outputs (its causal padding, cropped after),
      the scan's readout; the LM head.
    - ``flops(seq_len=S, phase="decode")``: one token with the state cached, independent of S
      (the conv reruns over its conv_kernel-long state: conv_kernel x (2 conv_kernel - 1) MACs per
      channel).
    - ``kv_cache_bytes(S)``: the bytes of transformers' cache (its conv and recurrent state
      tensors) after S >= 1 tokens, at the precision asked for."""
    d, n_layers, vocab = c.int("hidden_size"), c.int("num_hidden_layers"), c.int("vocab_size")
    n_state, expand, k = c.int("state_size"), c.int("expand"), c.int("conv_kernel")
    e = expand * d
    rank_raw = c.get("time_step_rank")
    rank = -(-d // 16) if rank_raw == "auto" else c.int("time_step_rank")
    bias, conv_bias = c.bool("use_bias"), c.bool("use_conv_bias")
    act = c.act("hidden_act")
    tied = c.bool("tie_word_embeddings")
    H._check_derived(
        [
            (2 * e, "2 x config['expand'] x config['hidden_size']"),
            (rank + 2 * n_state, "config['time_step_rank'] + 2 x config['state_size']"),
        ]
    )
    scan = _scan_cls()

    def build(seq_len: int, phase: str) -> list[M.Row]:
        decode = phase == "decode"
        t = 1 if decode else seq_len
        conv_in = k if decode else seq_len  # the cached state, or the sequence
        n = t * d
        rows = [M.Row("embeddings", L.Embedding(num_embeddings=vocab, embedding_dim=d, lookups=t))]
        layer = [
            ("norm", L.RMSNorm(normalized_shape=d, elements=n)),
            ("mixer.in_proj", L.Dense(in_features=d, out_features=2 * e, bias=bias, tokens=t)),
            (
                "mixer.conv1d",
                L.Conv2d(
                    in_channels=e,
                    out_channels=e,
                    kernel_size=(1, k),
                    input_size=(1, conv_in),
                    padding=(0, k - 1),
                    groups=e,
                    bias=conv_bias,
                ),
            ),
            ("mixer.conv1d.act", L.Activation(kind=act, elements=t * e)),
            (
                "mixer.x_proj",
                L.Dense(in_features=e, out_features=rank + 2 * n_state, bias=False, tokens=t),
            ),
            ("mixer.dt_proj", L.Dense(in_features=rank, out_features=e, tokens=t)),
            ("mixer.scan", scan(channels=e, state_size=n_state, tokens=t)),
            ("mixer.gate_act", L.Activation(kind=act, elements=t * e)),
            ("mixer.out_proj", L.Dense(in_features=e, out_features=d, bias=bias, tokens=t)),
            ("residual", L.ResidualAdd(elements=n)),
        ]
        rows += [M.Row(f"layers.{name}", lay, n_layers) for name, lay in layer]
        rows.append(M.Row("norm_f", L.RMSNorm(normalized_shape=d, elements=n)))
        if head == "lm":
            rows.append(
                M.Row(
                    "lm_head",
                    L.Dense(in_features=d, out_features=vocab, bias=False, tokens=t, tied=tied),
                )
            )
        return rows

    def state_elements(s: int) -> int:
        return 0 if s == 0 else n_layers * e * (k + n_state)

    return M.Model(
        label,
        "ssm",
        build,
        is_lm=True,
        default_seq_len=2048,
        kv_elements=state_elements,
        description=f"{arch}: a selective state-space model (no attention, a fixed-size state)",
        config=H._summary(
            arch,
            model_type="mamba",
            d_model=d,
            n_layers=n_layers,
            d_inner=e,
            state_size=n_state,
            conv_kernel=k,
            time_step_rank=rank,
            vocab_size=vocab,
            context_length=2048,
            tie_word_embeddings=tied,
            state_elements_per_layer=e * (k + n_state),
            flash=flash,
        ),
    )


#: model_type -> builder (``hf._from_hf_config`` dispatches here)
BUILDERS = {
    "vit": _vision,
    "clip_vision_model": _vision,
    "t5": _seq2seq,
    "bart": _seq2seq,
    "mamba": _mamba,
}

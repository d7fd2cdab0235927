"""Hugging Face ``config.json`` -> an mlsysim :class:`~mlsysim.models.Model`, counted exactly.

``from_hf_config(config)`` reads a transformers configuration (a dict, a path to a
``config.json``, or its JSON text) of one of the families below and builds the model the way
transformers 5.24 builds it, module for module:

======================  =====================================================================
``model_type``          classes (``architectures[0]``; the first is the bare model)
======================  =====================================================================
``gpt2``                GPT2Model, GPT2LMHeadModel
``bert``                BertModel (with pooler), BertForMaskedLM, BertForPreTraining
``roberta``             RobertaModel (with pooler), RobertaForMaskedLM
``xlm-roberta``         XLMRobertaModel (with pooler), XLMRobertaForMaskedLM (RoBERTa's modules)
``distilbert``          DistilBertModel (no pooler), DistilBertForMaskedLM
``llama``               LlamaModel, LlamaForCausalLM (Llama 2, Llama 3)
``mistral``             MistralModel, MistralForCausalLM
``qwen2`` / ``qwen3``   Qwen2Model, Qwen2ForCausalLM / Qwen3Model, Qwen3ForCausalLM
``gemma``               GemmaModel, GemmaForCausalLM
``phi3``                Phi3Model, Phi3ForCausalLM (fused qkv_proj and gate_up_proj)
``mixtral``             MixtralModel, MixtralForCausalLM (mixture of experts)
``vit``                 ViTModel (with pooler), ViTForImageClassification (``mlsysim.hf_extra``)
``clip_vision_model``   CLIPVisionModel, CLIPVisionModelWithProjection (``mlsysim.hf_extra``)
``t5``                  T5Model, T5ForConditionalGeneration, T5EncoderModel (``mlsysim.hf_extra``)
``bart``                BartModel, BartForConditionalGeneration (``mlsysim.hf_extra``)
``mamba``               MambaModel, MambaForCausalLM (a state-space model; ``mlsysim.hf_extra``)
======================  =====================================================================

Every encoder and decoder family also reads ``<Prefix>ForSequenceClassification``
(``num_labels`` from ``id2label``). ``add_pooling_layer=False`` (a constructor argument, not a config field) builds
BertModel, RobertaModel, XLMRobertaModel or ViTModel without its pooler. The vision families
(``mlsysim.hf_extra``) are image models: their counts are one image of the config's
``image_size`` (or ``from_hf_config``'s ``image_size=``, as ``interpolate_pos_encoding=True``).
The encoder-decoder families (t5, bart) read S source and S target tokens at ``seq_len=S`` (or
``source_len=`` source tokens); decode is one decoder step, and the cache holds the
self-attention and the cross-attention keys and values (``mlsysim.hf_extra``). Mamba keeps a
fixed-size state (conv + SSM) in place of a KV cache: ``kv_cache_bytes(S)`` is that state's
bytes, the same for every S >= 1, and a decode step costs the same at any S.

What the numbers match (the ground truth is ``tests/reference/ground_truth.json``):

- ``params`` equals ``sum(p.numel() for p in model.parameters())`` of **the class named in
  ``architectures``** (tied weights once); with ``bare=True``, or when ``architectures`` is
  absent from an encoder's, a vision model's or an encoder-decoder's config, the bare model
  (``AutoModel``: BertModel with its pooler, ViTModel, T5Model); a decoder without
  ``architectures`` (Mamba's too) is its ``*ForCausalLM`` (GPT2LMHeadModel for GPT-2).
- ``flops(seq_len=S)`` equals torch ``FlopCounterMode`` on one forward pass over S tokens
  (``attn_implementation="eager"``, batch 1; 2 FLOPs per MAC of every matmul). A
  mixture-of-experts layer counts its router and the ``num_experts_per_tok`` experts each token
  is routed to.
- ``flops(seq_len=S, phase="decode")`` is one new token whose position is the S-th: ``seq_len``
  includes the new token, so after the step transformers' ``cache.get_seq_length() == S``.
- ``kv_cache_bytes(S)`` equals the bytes of transformers' ``DynamicCache`` key and value tensors
  after S tokens; a sliding-window layer keeps its last ``sliding_window - 1`` tokens and attends
  to at most ``sliding_window`` keys when decoding. As in transformers' cache, a
  ``sliding_window`` (else an ``attention_chunk_size``) in any decoder's config windows every
  layer, a Llama's too (Qwen: only with ``use_sliding_window``), and a window of 1 keeps
  everything. A family's aliases are read as transformers reads them (GPT-2's ``hidden_size``
  is ``n_embd``; Mixtral's ``num_experts`` is ``num_local_experts``). A sequence classifier
  (``*ForSequenceClassification``) has no decode phase and ``kv_cache_bytes`` 0: it reads each
  input in one pass and keeps nothing for the next, as a server runs it (transformers' default
  ``use_cache=True`` would still fill a cache during that pass, which is not counted).

A field missing from the config takes transformers' default for that class. Every field that
changes a count is honoured (``head_dim``, ``num_key_value_heads``, ``attention_bias``,
``mlp_bias``, ``tie_word_embeddings``, ``n_inner``, ``type_vocab_size``, ``intermediate_size``,
``sliding_window``, ``layer_types``, ``num_local_experts``, ``num_experts_per_tok``, ...). A field
that would change a count but is not modelled (``add_cross_attention``, ``quantization_config``,
``per_layer_config``, an activation with weights of its own such as ``prelu``) raises a
``ValueError`` naming it. Fields transformers does not read for the class are ignored, as
transformers ignores them: transformers 5 no longer reads BERT's relative
``position_embedding_type`` or ``pruned_heads`` (both build the plain model), nor does mlsysim.
"""

from __future__ import annotations

import json
import numbers
import os
import sys
from functools import lru_cache
from pathlib import Path

from . import _check
from ._lazy import lazy

L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")

__all__ = [
    "from_hf_config",
    "from_shipped",
    "shipped_configs",
    "shipped_config",
    "SUPPORTED_MODEL_TYPES",
]

CONFIG_DIR = Path(__file__).parent / "configs"

MAX_FIELD = 2**40  # the largest size a config field may take (products stay finite as floats)
_HEADS = "=num_attention_heads"  # default: as many K/V heads as query heads
_DERIVED = "=hidden_size/num_attention_heads"  # default: hidden_size // num_attention_heads

#: transformers 5.24 config-class defaults of every field read here (a field missing from a
#: config.json takes these, exactly as ``XConfig(**json)`` does).
_DEFAULTS: dict[str, dict] = {
    "gpt2": dict(
        vocab_size=50257,
        n_positions=1024,
        n_embd=768,
        n_layer=12,
        n_head=12,
        n_inner=None,
        activation_function="gelu_new",
        tie_word_embeddings=True,
        add_cross_attention=False,
    ),
    "bert": dict(
        vocab_size=30522,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        hidden_act="gelu",
        max_position_embeddings=512,
        type_vocab_size=2,
        tie_word_embeddings=True,
        add_cross_attention=False,
        pad_token_id=0,
    ),
    "roberta": dict(
        vocab_size=50265,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        hidden_act="gelu",
        max_position_embeddings=512,
        type_vocab_size=2,
        tie_word_embeddings=True,
        add_cross_attention=False,
        pad_token_id=1,
    ),
    "xlm-roberta": dict(
        vocab_size=30522,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        hidden_act="gelu",
        max_position_embeddings=512,
        type_vocab_size=2,
        tie_word_embeddings=True,
        add_cross_attention=False,
        pad_token_id=1,
    ),
    "distilbert": dict(
        vocab_size=30522,
        dim=768,
        n_layers=6,
        n_heads=12,
        hidden_dim=3072,
        activation="gelu",
        max_position_embeddings=512,
        tie_word_embeddings=True,
    ),
    "llama": dict(
        vocab_size=32000,
        hidden_size=4096,
        intermediate_size=11008,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=_HEADS,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        attention_bias=False,
        mlp_bias=False,
    ),
    "mistral": dict(
        vocab_size=32000,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=131072,
        tie_word_embeddings=False,
        sliding_window=4096,
    ),
    "qwen2": dict(
        vocab_size=151936,
        hidden_size=4096,
        intermediate_size=22016,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=32,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=32768,
        tie_word_embeddings=False,
        use_sliding_window=False,
        sliding_window=4096,
        max_window_layers=28,
    ),
    "qwen3": dict(
        vocab_size=151936,
        hidden_size=4096,
        intermediate_size=22016,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=32,
        head_dim=128,
        hidden_act="silu",
        max_position_embeddings=32768,
        tie_word_embeddings=False,
        attention_bias=False,
        use_sliding_window=False,
        sliding_window=4096,
        max_window_layers=28,
    ),
    "gemma": dict(
        vocab_size=256000,
        hidden_size=3072,
        intermediate_size=24576,
        num_hidden_layers=28,
        num_attention_heads=16,
        num_key_value_heads=16,
        head_dim=256,
        hidden_act="gelu_pytorch_tanh",
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        attention_bias=False,
    ),
    "phi3": dict(
        vocab_size=32064,
        hidden_size=3072,
        intermediate_size=8192,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=_HEADS,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        sliding_window=None,
    ),
    "mixtral": dict(
        vocab_size=32000,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=131072,
        tie_word_embeddings=False,
        sliding_window=None,
        num_local_experts=8,
        num_experts_per_tok=2,
    ),
    # families built by mlsysim.hf_extra (not a plain encoder or decoder stack)
    "vit": dict(
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        hidden_act="gelu",
        image_size=224,
        patch_size=16,
        num_channels=3,
        qkv_bias=True,
        pooler_output_size=None,
        pooler_act="tanh",
    ),
    "clip_vision_model": dict(
        hidden_size=768,
        intermediate_size=3072,
        projection_dim=512,
        num_hidden_layers=12,
        num_attention_heads=12,
        num_channels=3,
        image_size=224,
        patch_size=32,
        hidden_act="quick_gelu",
    ),
    "t5": dict(
        vocab_size=32128,
        d_model=512,
        d_kv=64,
        d_ff=2048,
        num_layers=6,
        num_decoder_layers=None,
        num_heads=8,
        relative_attention_num_buckets=32,
        feed_forward_proj="relu",
    ),
    "bart": dict(
        vocab_size=50265,
        max_position_embeddings=1024,
        encoder_layers=12,
        encoder_ffn_dim=4096,
        encoder_attention_heads=16,
        decoder_layers=12,
        decoder_ffn_dim=4096,
        decoder_attention_heads=16,
        activation_function="gelu",
        d_model=1024,
        tie_word_embeddings=True,
    ),
    "mamba": dict(
        vocab_size=50280,
        hidden_size=768,
        state_size=16,
        num_hidden_layers=32,
        expand=2,
        conv_kernel=4,
        use_bias=False,
        use_conv_bias=True,
        hidden_act="silu",
        time_step_rank="auto",
        tie_word_embeddings=True,
    ),
}

SUPPORTED_MODEL_TYPES = tuple(_DEFAULTS)

_PREFIX = {
    "gpt2": "GPT2",
    "bert": "Bert",
    "roberta": "Roberta",
    "xlm-roberta": "XLMRoberta",
    "distilbert": "DistilBert",
    "llama": "Llama",
    "mistral": "Mistral",
    "qwen2": "Qwen2",
    "qwen3": "Qwen3",
    "gemma": "Gemma",
    "phi3": "Phi3",
    "mixtral": "Mixtral",
}
_ENCODERS = ("bert", "roberta", "xlm-roberta", "distilbert")
#: model_type -> its classes, for the families mlsysim.hf_extra builds (no architectures: the
#: bare class, AutoModel's)
_EXTRA = {
    "vit": {"ViTModel": "bare", "ViTForImageClassification": "imgcls"},
    "clip_vision_model": {"CLIPVisionModel": "bare", "CLIPVisionModelWithProjection": "proj"},
    "t5": {"T5Model": "bare", "T5ForConditionalGeneration": "lm", "T5EncoderModel": "encoder"},
    "bart": {"BartModel": "bare", "BartForConditionalGeneration": "lm"},
    "mamba": {"MambaModel": "bare", "MambaForCausalLM": "lm"},
}
#: families numbering positions from ``pad_token_id + 1`` (RobertaEmbeddings)
_ROBERTA = ("roberta", "xlm-roberta")


def _classes(model_type: str) -> dict[str, str]:
    """Supported transformers classes of a family -> which head they carry."""
    if model_type in _EXTRA:
        return _EXTRA[model_type]
    p = _PREFIX[model_type]
    cls = {f"{p}ForSequenceClassification": "seqcls"}
    if model_type == "gpt2":
        return {"GPT2Model": "bare", "GPT2LMHeadModel": "lm", **cls}
    if model_type == "bert":
        return {
            "BertModel": "bare",
            "BertForMaskedLM": "mlm",
            "BertForPreTraining": "pretraining",
            **cls,
        }
    if model_type in _ENCODERS:  # RoBERTa, XLM-RoBERTa, DistilBERT
        return {f"{p}Model": "bare", f"{p}ForMaskedLM": "mlm", **cls}
    return {f"{p}Model": "bare", f"{p}ForCausalLM": "lm", **cls}


#: HF activation names -> mlsysim's elementwise cost classes (FLOPs of matmuls do not change).
_ACT = {
    "gelu": "gelu",
    "gelu_new": "gelu",
    "gelu_pytorch_tanh": "gelu",
    "gelu_fast": "gelu",
    "quick_gelu": "gelu",
    "gelu_python": "gelu",
    "gelu_accurate": "gelu",
    "gelu_10": "gelu",
    "silu": "silu",
    "swish": "silu",
    "relu": "relu",
    "relu6": "relu6",
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "linear": "identity",
    # no weights and no matmul (transformers 5.25's ACT2FN): counted as the nearest modelled
    # kind, whose elementwise cost they share within an op or two per element
    "gelu_python_tanh": "gelu",
    "laplace": "gelu",
    "relu2": "relu",
    "leaky_relu": "relu",
    "hardswish": "relu6",
    "mish": "silu",
    "sqrtsoftplus": "silu",
}


# --------------------------------------------------------------------------------------------
# reading and checking a config
# --------------------------------------------------------------------------------------------


def _parse_json(text: str, where: str) -> object:
    """``text`` parsed as JSON, or a ValueError saying what is wrong with ``where`` (the
    ``config`` argument, or the path it names)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{where} is not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    except RecursionError:
        raise ValueError(f"{where} is not valid JSON here: nested too deeply") from None
    except ValueError:  # Python's limit on converting a long run of digits to an integer
        raise ValueError(
            f"{where} holds a number of more than {sys.get_int_max_str_digits():,} digits; every "
            "count a config.json gives is far shorter (at most 2**62)"
        ) from None


#: The largest config.json read (a real one is a few kB; one with 22k ImageNet labels, ~1 MB):
#: anything larger is refused before it is read.
MAX_CONFIG_BYTES = 4_000_000


def _too_big(size: int, where: str) -> None:
    if size > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{where} is {size:,} bytes; a config.json is at most {MAX_CONFIG_BYTES:,} bytes here"
        )


def _load(config) -> dict:
    if isinstance(config, dict):
        return dict(config)
    if callable(getattr(config, "to_dict", None)) and not isinstance(config, str | os.PathLike):
        data = config.to_dict()  # a transformers PretrainedConfig object
        if isinstance(data, dict):
            return data
    if isinstance(config, str) and config.lstrip().startswith("{"):
        _too_big(len(config), "config")
        data = _parse_json(config, "config")
    elif isinstance(config, str | os.PathLike):
        path = Path(config)
        try:
            if path.is_file():
                _too_big(path.stat().st_size, f"config={_check._short(str(path))}")
            text = path.read_bytes().decode("utf-8") if path.is_file() else None
        except UnicodeDecodeError as e:
            raise ValueError(
                f"config={_check._short(str(path))} is not UTF-8 text ({e.reason} at byte {e.start})"
            ) from None
        except (OSError, ValueError) as e:  # a name too long for the file system, a NUL byte
            if "bytes; a config.json" in str(e):
                raise
            text = None
        if text is None:
            raise ValueError(
                f"config={_check._short(str(config))} is neither a JSON object nor a path to a "
                "config.json file"
            )
        data = _parse_json(text, f"config={_check._short(str(path))}")
    else:
        raise ValueError(
            f"config must be a dict, a path to a config.json or its JSON text, got {type(config).__name__}"
        )
    if not isinstance(data, dict):
        raise ValueError(f"config must be a JSON object (a dict), got {type(data).__name__}")
    return data


class _Cfg:
    """A config dict with transformers' defaults and checked reads that name the field."""

    def __init__(self, raw: dict, model_type: str):
        self.raw = raw
        self.mt = model_type
        self.defaults = _DEFAULTS[model_type]
        #: the bare class's constructor argument (BertModel(config, add_pooling_layer=...))
        self.add_pooling_layer = True
        #: from_hf_config's image_size (vision families; None: the config's)
        self.image_size = None
        #: from_hf_config's source_len (encoder-decoder families; None: seq_len source tokens)
        self.source_len = None

    def get(self, key):
        return self.raw[key] if key in self.raw else self.defaults.get(key)

    def int(self, key, minimum: int = 1) -> int:
        v = self.get(key)
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            v = int(v)  # a numpy integer is an integer (README's argument rule)
        elif isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= MAX_FIELD:
            raise ValueError(
                f"config[{key!r}] must be an integer in [{minimum}, 2**40], got {_check._short(v, 40)}"
            )
        return v

    def bool(self, key) -> bool:
        v = self.get(key)
        if not isinstance(v, bool):
            raise ValueError(f"config[{key!r}] must be true or false, got {_check._short(v, 40)}")
        return v

    def act(self, key) -> str:
        v = self.get(key)
        if not isinstance(v, str) or v not in _ACT:
            raise ValueError(
                f"config[{key!r}]={_check._short(v, 40)} is not a modelled activation; allowed: "
                f"{', '.join(sorted(_ACT))}"
            )
        return _ACT[v]


def _set(raw: dict, key: str) -> bool:
    """Whether ``raw[key]`` is set (truthy, as transformers reads it); a value with no truth value
    of its own (a numpy array) is refused by the field's name."""
    v = raw.get(key)
    try:
        return bool(v)
    except (TypeError, ValueError):
        raise ValueError(
            f"config[{key!r}] must be a JSON value (an object, a list, a number, a string, true, "
            f"false or null), got {_check._short(v, 80)}"
        ) from None


def _unset(v, *sentinels: str) -> bool:
    """``v`` is None or one of the default markers (compared as strings only: a numpy array
    compared with a string is an array, whose truth value is ambiguous)."""
    return v is None or (isinstance(v, str) and v in sentinels)


#: Other names a family's transformers config accepts for a field (its ``attribute_map``): a
#: config.json may use either
_ALIASES = {
    "gpt2": {
        "hidden_size": "n_embd",
        "max_position_embeddings": "n_positions",
        "num_attention_heads": "n_head",
        "num_hidden_layers": "n_layer",
    },
    "mixtral": {"num_experts": "num_local_experts"},
    "t5": {
        "hidden_size": "d_model",
        "num_attention_heads": "num_heads",
        "num_hidden_layers": "num_layers",
        "head_dim": "d_kv",
    },
    "bart": {
        "num_attention_heads": "encoder_attention_heads",
        "hidden_size": "d_model",
        "num_hidden_layers": "encoder_layers",
    },
    "distilbert": {
        "hidden_size": "dim",
        "num_attention_heads": "n_heads",
        "num_hidden_layers": "n_layers",
    },
}


def _resolve_aliases(raw: dict, model_type: str) -> dict:
    """``raw`` with each alias's value under the field it names; both given and different: a
    ValueError naming the two."""
    out = dict(raw)
    for alias, field in _ALIASES.get(model_type, {}).items():
        if alias not in raw:
            continue
        if field in raw and raw[field] != raw[alias]:
            raise ValueError(
                f"config[{alias!r}]={_check._short(raw[alias], 40)} and config[{field!r}]="
                f"{_check._short(raw[field], 40)} differ; transformers reads {alias!r} as "
                f"{field!r}: give one"
            )
        out[field] = out.pop(alias)
    return out


def _refuse_unmodelled(raw: dict, model_type: str) -> None:
    """Fields that would change a count in transformers but are not modelled: refuse by name."""
    if _set(raw, "quantization_config"):
        raise ValueError(
            "config['quantization_config'] (a quantized checkpoint) is not modelled: its packed "
            "weights change the parameter count; remove it and pick the precision instead"
        )
    if _set(raw, "per_layer_config"):
        raise ValueError(
            "config['per_layer_config'] (sizes that differ from layer to layer) is not modelled"
        )
    if _set(raw, "add_cross_attention"):
        raise ValueError(
            "config['add_cross_attention']=true (cross-attention layers) is not modelled by from_hf_config"
        )


def _architecture(raw: dict, model_type: str, bare: bool) -> tuple[str, str]:
    classes = _classes(model_type)
    bare_cls = next(c for c, h in classes.items() if h == "bare")
    if bare:
        return bare_cls, "bare"
    archs = raw.get("architectures")
    if archs is None or (isinstance(archs, list) and not archs):
        if model_type in _ENCODERS or (model_type in _EXTRA and model_type != "mamba"):
            return bare_cls, "bare"  # an encoder, a vision tower, an encoder-decoder: AutoModel's
        lm = next(c for c, h in classes.items() if h == "lm")
        return lm, "lm"
    if not isinstance(archs, list) or not all(isinstance(a, str) for a in archs):
        raise ValueError(
            f"config['architectures'] must be a list of class names, got {_check._short(archs, 80)}"
        )
    arch = archs[0]
    if arch not in classes:
        raise ValueError(
            f"config['architectures'][0]={arch!r} is not modelled for model_type={model_type!r}; "
            f"allowed: {', '.join(classes)} (or pass bare=True for {bare_cls})"
        )
    return arch, classes[arch]


# --------------------------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------------------------


def from_hf_config(
    config,
    *,
    bare: bool = False,
    name: str | None = None,
    flash: bool = False,
    add_pooling_layer: bool | None = None,
    image_size: int | tuple[int, int] | None = None,
    source_len: int | None = None,
) -> M.Model:
    """Build the mlsysim model of a Hugging Face ``config.json``, counted as transformers 5.24
    builds it (details in the module docstring):

    - ``params`` = ``sum(p.numel() for p in model.parameters())`` of the class named in
      ``architectures[0]`` (``*ForCausalLM``, ``GPT2LMHeadModel``, ``BertForMaskedLM``, ...);
      ``bare=True`` or an encoder config without ``architectures``: the bare model (BertModel
      with its pooler); a decoder without ``architectures``: its ``*ForCausalLM``.
    - ``flops(seq_len=S)`` = FlopCounterMode on one eager forward pass over S tokens.
    - ``flops(seq_len=S, phase="decode")``: one new token; ``seq_len`` *includes* it, so after
      the step transformers' ``cache.get_seq_length() == S``.
    - ``kv_cache_bytes(S)`` = bytes of transformers' cache key/value tensors after S tokens.

    ``config``: a dict, a path to a ``config.json``, its JSON text, or a transformers config
    object (anything with ``to_dict()``). ``bare=True``: the bare
    model (no LM/MLM head) instead of the class in ``architectures``. ``flash``: attention
    without materialized scores (changes bytes, not FLOPs). ``add_pooling_layer``: the bare
    class's constructor argument of that name, which no config.json holds
    (``BertModel(config, add_pooling_layer=False)``, as sentence-embedding checkpoints are
    loaded): False drops the pooler; it applies to the bare classes that take it (BertModel,
    RobertaModel, XLMRobertaModel, ViTModel; None or True: with the pooler, transformers'
    default). ``image_size`` (vision families): count one image of that size (an int or
    (height, width)) instead of the config's, as transformers runs it with
    ``interpolate_pos_encoding=True`` (same parameters). ``source_len`` (encoder-decoder
    families, t5 and bart): a fixed number of source tokens the encoder reads and the decoder
    attends to; None: as many as ``seq_len`` (see ``mlsysim.hf_extra``). Raises ``ValueError`` naming the
    field for an unsupported ``model_type`` or architecture, a bad size, or a field that would
    change a count but is not modelled.
    """
    if not isinstance(bare, bool):
        raise ValueError(f"bare must be True or False, got {_check._short(bare, 40)}")
    if not isinstance(flash, bool):
        raise ValueError(f"flash must be True or False, got {_check._short(flash, 40)}")
    if add_pooling_layer is not None and not isinstance(add_pooling_layer, bool):
        raise ValueError(
            f"add_pooling_layer must be True, False or None, got {_check._short(add_pooling_layer, 40)}"
        )
    opts = {
        "add_pooling_layer": add_pooling_layer,
        "image_size": image_size,
        "source_len": source_len,
    }
    return _checked_model(config, bare, name, flash, count_check=True, **opts)


def _checked_model(config, bare: bool, name, flash: bool, count_check: bool, **opts) -> M.Model:
    try:
        return _from_hf_config(config, bare, name, flash, count_check, **opts)
    except RecursionError:  # a value nested thousands deep (a dict given directly)
        raise ValueError("config is nested too deeply to be a config.json") from None


def _countable(model: M.Model, mt: str) -> M.Model:
    """Refused at load, not at the first count: a model that cannot be counted at its own
    default sequence length (its config's context field) names that field."""
    field = {"gpt2": "n_positions", "vit": "image_size", "clip_vision_model": "image_size"}.get(
        mt, "max_position_embeddings"
    )
    try:
        model.flops()
    except ValueError as e:
        raise ValueError(
            f"config gives a model that cannot be counted at its own default sequence length "
            f"(config[{field!r}] = {model.default_seq_len:,}): {e}"
        ) from None
    return model


#: the bare classes whose constructor takes ``add_pooling_layer``
_POOLING_ARG = ("bert", "roberta", "xlm-roberta", "vit")


def _from_hf_config(
    config,
    bare: bool,
    name,
    flash: bool,
    count_check: bool,
    add_pooling_layer: bool | None = None,
    image_size=None,
    source_len=None,
) -> M.Model:
    raw = _load(config)
    mt = raw.get("model_type")
    if not isinstance(mt, str) or mt not in _DEFAULTS:
        raise ValueError(
            f"config['model_type']={_check._short(mt, 60)} is not supported; allowed: "
            f"{', '.join(SUPPORTED_MODEL_TYPES)}"
        )
    raw = _resolve_aliases(raw, mt)
    _refuse_unmodelled(raw, mt)
    arch, head = _architecture(raw, mt, bare)
    c = _Cfg(raw, mt)
    pooling = add_pooling_layer
    if image_size is not None and mt not in ("vit", "clip_vision_model"):
        raise ValueError(
            f"image_size={_check._short(image_size, 40)} applies to the vision families (vit, "
            f"clip_vision_model); model_type={mt!r} reads tokens: pass seq_len to its counts"
        )
    c.image_size = image_size
    if source_len is not None:
        if mt not in ("t5", "bart"):
            raise ValueError(
                f"source_len={_check._short(source_len, 40)} applies to the encoder-decoder "
                f"families (t5, bart); model_type={mt!r} is not one"
            )
        c.source_len = _check.integer("source_len", source_len)
    if pooling is not None:
        if head != "bare" or mt not in _POOLING_ARG:
            raise ValueError(
                f"add_pooling_layer={pooling} is an argument of the bare BertModel, RobertaModel, "
                f"XLMRobertaModel and ViTModel; {arch} does not take it (pass bare=True for the "
                "bare class, or leave add_pooling_layer=None)"
            )
        c.add_pooling_layer = pooling
        if not pooling:
            arch = f"{arch} (add_pooling_layer=False)"
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError(f"name must be a non-empty string, got {_check._short(name, 60)}")
    path_name = raw.get("_name_or_path")
    label = name or (
        path_name if isinstance(path_name, str) and path_name else f"{arch} (from config)"
    )
    if len(label) > 200:  # a label is a name, not a payload
        label = label[:199] + "…"
    if mt in _EXTRA:
        from .hf_extra import BUILDERS

        build = BUILDERS[mt]
    else:
        build = _gpt2 if mt == "gpt2" else _encoder if mt in _ENCODERS else _decoder
    model = build(c, arch, head, label, flash)
    return _countable(model, mt) if count_check else model


@lru_cache(maxsize=1)
def _unused_parameter_cls():
    """A parameter tensor a module holds but its forward pass never reads (BERT's and RoBERTa's
    MLM ``bias`` when the decoder is untied: transformers ties ``decoder.bias`` to it only
    together with the weights). Counted in ``params``; no traffic, no FLOPs, no kernel.
    (Built on first use: a pydantic class costs milliseconds at import.)"""

    class UnusedParameter(L.Layer):
        numel: int

        @property
        def params(self) -> int:
            return self.numel

        @property
        def weight_elements(self) -> int:
            return 0

        @property
        def kernels(self) -> int:
            return 0

    return UnusedParameter


def _num_labels(raw: dict) -> int:
    """Classes of a *ForSequenceClassification head, as transformers derives them:
    ``num_labels`` when given (it wins over a differing ``id2label``, which transformers rebuilds
    to match), else the size of ``id2label``, else 2."""
    labels = raw.get("id2label")
    if labels is not None and not isinstance(labels, dict):
        raise ValueError(
            f"config['id2label'] must be an object mapping class ids to names, got "
            f"{type(labels).__name__} {str(labels)[:40]}"
        )
    n = raw.get("num_labels")
    if n is None:
        if labels:
            return len(labels)
        n = 2
    if isinstance(n, numbers.Integral) and not isinstance(n, bool):
        n = int(n)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_FIELD:
        raise ValueError(
            f"config['num_labels'] must be an integer in [1, 2**40], got {_check._short(n, 40)}"
        )
    return n


def _no_decode(label: str, arch: str) -> None:
    raise ValueError(
        f"phase='decode' applies to causal language models; {label} ({arch}) classifies a whole "
        "input in one pass: use phase='prefill'"
    )


def _summary(arch: str, **kw) -> dict:
    return {"architecture": arch, **kw}


def _embed_rows(vocab, d, tokens, positions=None, type_vocab=0) -> list[M.Row]:
    rows = [
        M.Row("embed.tokens", L.Embedding(num_embeddings=vocab, embedding_dim=d, lookups=tokens))
    ]
    n_sum = 0
    if positions:
        rows.append(
            M.Row(
                "embed.positions",
                L.Embedding(num_embeddings=positions, embedding_dim=d, lookups=tokens),
            )
        )
        n_sum += 1
    if type_vocab:
        rows.append(
            M.Row(
                "embed.token_type",
                L.Embedding(num_embeddings=type_vocab, embedding_dim=d, lookups=tokens),
            )
        )
        n_sum += 1
    if n_sum:
        rows.append(M.Row("embed.add", L.Elementwise(elements=tokens * d), n_sum))
    return rows


def _check_len(label: str, seq_len: int, limit: int | None) -> None:
    if limit is not None and seq_len > limit:
        raise ValueError(
            f"seq_len={seq_len} exceeds {label}'s {limit} learned positions; allowed: 1..{limit}"
        )


def _check_derived(widths) -> None:
    """Refuse a config whose derived layer widths pass a layer's cap (2**40), naming the config
    fields: ``widths`` are (width, how it is derived from the config) of the projections whose
    output is wider than any one field (``3 x n_embd``, ``heads x head_dim``). Checked here,
    with no layer built, so the model fails at once and by field, not at its first use. (A
    ``seq_len`` too long for the model's layers is refused by name when it is asked for.)"""
    for w, what in widths:
        if w > MAX_FIELD:
            raise ValueError(
                f"{what} = {w}: a layer may be at most 2**40 ({MAX_FIELD}) wide; lower it"
            )


def _gpt2(c: _Cfg, arch: str, head: str, label: str, flash: bool) -> M.Model:
    d, n_layers, heads = c.int("n_embd"), c.int("n_layer"), c.int("n_head")
    vocab, positions = c.int("vocab_size"), c.int("n_positions")
    inner = 4 * d if c.get("n_inner") is None else c.int("n_inner")
    act = c.act("activation_function")
    tied = c.bool("tie_word_embeddings")
    if d % heads:
        raise ValueError(f"config['n_head']={heads} must divide config['n_embd']={d}")
    widths = [(3 * d, "3 x config['n_embd']")]
    if c.get("n_inner") is None:  # transformers' default MLP width
        widths.append((inner, "4 x config['n_embd'] (config['n_inner'] unset)"))
    _check_derived(widths)

    labels = _num_labels(c.raw) if head == "seqcls" else 0
    n_sliding, window = _layer_types(c, n_layers)
    if 0 < n_sliding < n_layers:
        raise ValueError(
            "config['layer_types'] mixing full and sliding layers is not modelled for GPT-2"
        )
    window = window if n_sliding else None  # every layer windowed, or none

    def build(seq_len: int, phase: str) -> list[M.Row]:
        if phase == "decode" and head == "seqcls":
            _no_decode(label, arch)
        _check_len(label, seq_len, positions)
        t = 1 if phase == "decode" else seq_len
        kv = _keys_attended(seq_len, window) if phase == "decode" else None
        n = t * d
        rows = _embed_rows(vocab, d, t, positions=positions)
        block = [
            ("ln_1", L.LayerNorm(normalized_shape=d, elements=n)),
            ("attn.c_attn", L.Dense(in_features=d, out_features=3 * d, tokens=t)),
            ("attn.sdpa", L.Attention(d_model=d, n_heads=heads, seq_len=t, kv_len=kv, flash=flash)),
            ("attn.c_proj", L.Dense(in_features=d, out_features=d, tokens=t)),
            ("attn_residual", L.ResidualAdd(elements=n)),
            ("ln_2", L.LayerNorm(normalized_shape=d, elements=n)),
            ("mlp.c_fc", L.Dense(in_features=d, out_features=inner, tokens=t)),
            ("mlp.act", L.Activation(kind=act, elements=t * inner)),
            ("mlp.c_proj", L.Dense(in_features=inner, out_features=d, tokens=t)),
            ("mlp_residual", L.ResidualAdd(elements=n)),
        ]
        rows += [M.Row(f"h.{k}", lay, n_layers) for k, lay in block]
        rows.append(M.Row("ln_f", L.LayerNorm(normalized_shape=d, elements=n)))
        if head == "lm":
            rows.append(
                M.Row(
                    "lm_head",
                    L.Dense(in_features=d, out_features=vocab, bias=False, tokens=t, tied=tied),
                )
            )
        if head == "seqcls":  # logits at every position; the last one is kept
            rows.append(
                M.Row("score", L.Dense(in_features=d, out_features=labels, bias=False, tokens=t))
            )
        return rows

    per_token = 2 * n_layers * d  # K and V of every layer
    return M.Model(
        label,
        "transformer",
        build,
        is_lm=True,
        default_seq_len=positions,
        kv_elements=None if head == "seqcls" else (lambda s: per_token * _tokens_cached(s, window)),
        max_seq_len=positions,
        config=_summary(
            arch,
            model_type="gpt2",
            d_model=d,
            n_layers=n_layers,
            n_heads=heads,
            kv_heads=heads,
            head_dim=d // heads,
            d_ff=inner,
            vocab_size=vocab,
            context_length=positions,
            tie_word_embeddings=tied,
            sliding_window=window,
            sliding_layers=n_layers if window else 0,
            flash=flash,
        ),
    )


#: DistilBERT's names for the fields BERT calls hidden_size, num_hidden_layers, ... (its config
#: stores ``dim``, ``n_layers``, ``n_heads``, ``hidden_dim`` and ``activation``)
_ENCODER_FIELDS = {
    "distilbert": ("dim", "n_layers", "n_heads", "hidden_dim", "activation"),
}
_BERT_FIELDS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "hidden_act",
)


def _encoder(c: _Cfg, arch: str, head: str, label: str, flash: bool) -> M.Model:
    """BERT, RoBERTa, XLM-RoBERTa (RoBERTa's modules under another name) and DistilBERT (BERT's
    post-norm block without token types or pooler; its MLM head is BERT's with the bias on the
    decoder itself and its classifier is pre_classifier + ReLU on the [CLS] vector)."""
    names = _ENCODER_FIELDS.get(c.mt, _BERT_FIELDS)
    d, n_layers, heads = (c.int(names[0]), c.int(names[1]), c.int(names[2]))
    ff, vocab = c.int(names[3]), c.int("vocab_size")
    positions = c.int("max_position_embeddings")
    types = 0 if c.mt == "distilbert" else c.int("type_vocab_size", minimum=0)
    act = c.act(names[4])
    tied = c.bool("tie_word_embeddings")
    if d % heads:
        raise ValueError(f"config[{names[2]!r}]={heads} must divide config[{names[0]!r}]={d}")
    # RoBERTa numbers positions from padding_idx + 1, so padding_idx + 1 rows are never used
    limit = positions
    if c.mt in _ROBERTA:
        pad = c.int("pad_token_id", minimum=0)
        limit = positions - (pad + 1)
        if limit < 1:
            raise ValueError(
                f"config['pad_token_id']={pad} with config['max_position_embeddings']={positions} "
                "leaves no usable position (RoBERTa numbers positions from pad_token_id + 1): "
                "pad_token_id must be in [0, max_position_embeddings - 2] = "
                + (f"[0, {positions - 2}]" if positions >= 2 else "[] (none is allowed)")
            )
    pooler = head in ("bare", "pretraining") or (head == "seqcls" and c.mt == "bert")
    if c.mt == "distilbert":
        pooler = False  # DistilBertModel has none
    elif head == "bare":
        pooler = c.add_pooling_layer
    labels = _num_labels(c.raw) if head == "seqcls" else 0

    def build(seq_len: int, phase: str) -> list[M.Row]:
        if phase == "decode":
            raise ValueError(
                f"phase='decode' applies to causal decoders; {label} ({arch}) is an encoder: "
                "use phase='prefill'"
            )
        _check_len(label, seq_len, limit)
        t, n = seq_len, seq_len * d
        rows = _embed_rows(vocab, d, t, positions=positions, type_vocab=types)
        rows.append(M.Row("embed.norm", L.LayerNorm(normalized_shape=d, elements=n)))
        attn = L.MultiHeadAttention(d_model=d, n_heads=heads, seq_len=t, flash=flash)
        block = [
            *attn.rows("attention"),
            ("attention.residual", L.ResidualAdd(elements=n)),
            ("attention.norm", L.LayerNorm(normalized_shape=d, elements=n)),
            ("intermediate", L.Dense(in_features=d, out_features=ff, tokens=t)),
            ("intermediate.act", L.Activation(kind=act, elements=t * ff)),
            ("output", L.Dense(in_features=ff, out_features=d, tokens=t)),
            ("output.residual", L.ResidualAdd(elements=n)),
            ("output.norm", L.LayerNorm(normalized_shape=d, elements=n)),
        ]
        rows += [M.Row(f"layer.{k}", lay, n_layers) for k, lay in block]
        if pooler:
            rows.append(M.Row("pooler.dense", L.Dense(in_features=d, out_features=d)))
            rows.append(M.Row("pooler.tanh", L.Activation(kind="tanh", elements=d)))
        if head in ("mlm", "pretraining"):
            rows += [
                M.Row("mlm.transform", L.Dense(in_features=d, out_features=d, tokens=t)),
                M.Row("mlm.act", L.Activation(kind=act, elements=n)),
                M.Row("mlm.norm", L.LayerNorm(normalized_shape=d, elements=n)),
                M.Row(
                    "mlm.decoder", L.Dense(in_features=d, out_features=vocab, tokens=t, tied=tied)
                ),
            ]
            if not tied and c.mt != "distilbert":  # BERT's separate bias, unread when untied
                rows.append(M.Row("mlm.bias", _unused_parameter_cls()(numel=vocab)))
        if head == "pretraining":
            rows.append(M.Row("nsp", L.Dense(in_features=d, out_features=2)))
        if head == "seqcls" and c.mt == "bert":  # on the pooled [CLS] vector
            rows.append(M.Row("classifier", L.Dense(in_features=d, out_features=labels)))
        if head == "seqcls" and c.mt == "distilbert":  # pre_classifier + ReLU on [CLS]
            rows += [
                M.Row("pre_classifier", L.Dense(in_features=d, out_features=d)),
                M.Row("pre_classifier.relu", L.Activation(kind="relu", elements=d)),
                M.Row("classifier", L.Dense(in_features=d, out_features=labels)),
            ]
        if head == "seqcls" and c.mt in _ROBERTA:  # dense + tanh + out_proj on the <s> token
            rows += [
                M.Row("classifier.dense", L.Dense(in_features=d, out_features=d)),
                M.Row("classifier.tanh", L.Activation(kind="tanh", elements=d)),
                M.Row("classifier.out_proj", L.Dense(in_features=d, out_features=labels)),
            ]
        return rows

    return M.Model(
        label,
        "transformer",
        build,
        is_lm=True,
        default_seq_len=limit,
        config=_summary(
            arch,
            model_type=c.mt,
            d_model=d,
            n_layers=n_layers,
            n_heads=heads,
            kv_heads=heads,
            head_dim=d // heads,
            d_ff=ff,
            vocab_size=vocab,
            context_length=limit,
            type_vocab_size=types,
            flash=flash,
        ),
    )


def _layer_types(c: _Cfg, n_layers: int) -> tuple[int, int | None]:
    """(number of sliding-window layers, the window), as transformers' cache derives them
    (counted, never materialized per layer: a config may claim any number of layers)."""
    mt = c.mt
    window = None
    if mt in ("qwen2", "qwen3"):
        if c.bool("use_sliding_window") and c.get("sliding_window") is not None:
            window = c.int("sliding_window")
        first_sliding = c.int("max_window_layers", minimum=0)
        inferred = max(0, n_layers - first_sliding) if window is not None else 0
    else:
        # transformers' cache (cache_utils.get_layer_types_and_kwargs) reads these of any
        # config, a Llama's or a Gemma's too: a sliding_window, else an attention_chunk_size,
        # keeps every layer's cache to that window
        for key in ("sliding_window", "attention_chunk_size"):
            if c.get(key) is not None:
                window = c.int(key)
                break
        inferred = n_layers if window is not None else 0
    types = c.raw.get("layer_types")
    n_sliding = inferred if types is None else _sliding_layers(types, n_layers, window, mt)
    if window == 1:
        # a window of 1 keeps the whole cache in transformers (its slice [-window + 1:] is
        # [-0:]) and so attends to every key: counted as full attention, as transformers runs it
        return 0, None
    return n_sliding, window


def _sliding_layers(types, n_layers: int, window: int | None, mt: str) -> int:
    """How many layers ``config['layer_types']`` makes sliding-window layers (checked)."""
    if not isinstance(types, list) or len(types) != n_layers:
        raise ValueError(
            f"config['layer_types'] must list one entry per layer ({n_layers}), got {str(types)[:80]}"
        )
    bad = sorted({str(t) for t in types if t not in ("full_attention", "sliding_attention")})
    if bad:
        raise ValueError(
            f"config['layer_types'] entries {bad[:5]} are not modelled; allowed: 'full_attention', "
            "'sliding_attention'"
        )
    n_sliding = types.count("sliding_attention")
    if n_sliding and window is None:
        raise ValueError(
            "config['layer_types'] lists sliding_attention layers but neither config['sliding_window'] "
            "nor config['attention_chunk_size'] is set"
            + (
                " (Qwen: and config['use_sliding_window'] is true)"
                if mt in ("qwen2", "qwen3")
                else ""
            )
        )
    return n_sliding


def _keys_attended(seq_len: int, window: int | None) -> int:
    """Keys one decode step attends to on a layer of sliding ``window`` (None: every token)."""
    return seq_len if window is None else min(seq_len, window)


def _tokens_cached(seq_len: int, window: int | None) -> int:
    """Tokens a layer's cache keeps after ``seq_len`` (transformers: the last ``window - 1``)."""
    return seq_len if window is None else min(seq_len, window - 1)


def _decoder(c: _Cfg, arch: str, head: str, label: str, flash: bool) -> M.Model:
    mt = c.mt
    d, n_layers, heads = (
        c.int("hidden_size"),
        c.int("num_hidden_layers"),
        c.int("num_attention_heads"),
    )
    ff, vocab = c.int("intermediate_size"), c.int("vocab_size")
    kv_heads = (
        heads if _unset(c.get("num_key_value_heads"), _HEADS) else c.int("num_key_value_heads")
    )
    hd_raw = c.get("head_dim")
    if _unset(hd_raw, _DERIVED):
        if d % heads:
            raise ValueError(
                f"config['num_attention_heads']={heads} must divide config['hidden_size']={d} "
                "when config['head_dim'] is not set"
            )
        hd = d // heads
    else:
        hd = c.int("head_dim")
    if heads % kv_heads:
        raise ValueError(
            f"config['num_key_value_heads']={kv_heads} must divide config['num_attention_heads']={heads}"
        )
    act = c.act("hidden_act")
    tied = c.bool("tie_word_embeddings")
    # which projections carry a bias (transformers 5.24 modeling code)
    qkv_bias = o_bias = mlp_bias = False
    if mt in ("llama", "qwen3", "gemma"):
        qkv_bias = o_bias = c.bool("attention_bias")
    if mt == "llama":
        mlp_bias = c.bool("mlp_bias")
    if mt == "qwen2":
        qkv_bias = True  # Qwen2: bias on q, k, v; none on o_proj
    qk_norm = mt == "qwen3"
    fused = mt == "phi3"
    moe = None
    if mt == "mixtral":
        moe = (c.int("num_local_experts"), c.int("num_experts_per_tok"))
        if moe[1] > moe[0]:
            raise ValueError(
                f"config['num_experts_per_tok']={moe[1]} must not exceed "
                f"config['num_local_experts']={moe[0]}"
            )
    n_sliding, window = _layer_types(c, n_layers)
    n_full = n_layers - n_sliding
    q_dim, kv_dim = heads * hd, kv_heads * hd
    hd_field = "config['head_dim']" if hd_raw not in (_DERIVED, None) else "head_dim"
    q_what = f"config['num_attention_heads'] x {hd_field}"
    kv_what = f"config['num_key_value_heads'] x {hd_field}"
    widths = [(q_dim, q_what), (kv_dim, kv_what)]
    if fused:
        widths += [
            (q_dim + 2 * kv_dim, f"{q_what} + 2 x {kv_what}"),
            (2 * ff, "2 x config['intermediate_size']"),
        ]
    _check_derived(widths)
    labels = _num_labels(c.raw) if head == "seqcls" else 0

    def build(seq_len: int, phase: str) -> list[M.Row]:
        if phase == "decode" and head == "seqcls":
            _no_decode(label, arch)
        t = 1 if phase == "decode" else seq_len
        n = t * d
        rows = _embed_rows(vocab, d, t)

        def sdpa(kv_len):
            return L.Attention(
                d_model=d,
                n_heads=heads,
                head_dim=hd,
                kv_heads=kv_heads,
                seq_len=t,
                kv_len=kv_len,
                flash=flash,
            )

        attn: list[tuple[str, L.Layer, int]] = []
        if fused:
            attn.append(
                (
                    "self_attn.qkv_proj",
                    L.Dense(in_features=d, out_features=q_dim + 2 * kv_dim, bias=False, tokens=t),
                    n_layers,
                )
            )
        else:
            attn += [
                (
                    "self_attn.q_proj",
                    L.Dense(in_features=d, out_features=q_dim, bias=qkv_bias, tokens=t),
                    n_layers,
                ),
                (
                    "self_attn.k_proj",
                    L.Dense(in_features=d, out_features=kv_dim, bias=qkv_bias, tokens=t),
                    n_layers,
                ),
                (
                    "self_attn.v_proj",
                    L.Dense(in_features=d, out_features=kv_dim, bias=qkv_bias, tokens=t),
                    n_layers,
                ),
            ]
        if qk_norm:
            attn += [
                ("self_attn.q_norm", L.RMSNorm(normalized_shape=hd, elements=t * q_dim), n_layers),
                ("self_attn.k_norm", L.RMSNorm(normalized_shape=hd, elements=t * kv_dim), n_layers),
            ]
        if phase == "decode":
            full_kv, slide_kv = seq_len, _keys_attended(seq_len, window)
        else:
            full_kv = slide_kv = None
        if n_full and n_sliding and full_kv != slide_kv:
            attn.append(("self_attn.sdpa", sdpa(full_kv), n_full))
            attn.append(("self_attn.sdpa.sliding", sdpa(slide_kv), n_sliding))
        else:
            attn.append(("self_attn.sdpa", sdpa(slide_kv if n_sliding else full_kv), n_layers))
        attn.append(
            (
                "self_attn.o_proj",
                L.Dense(in_features=q_dim, out_features=d, bias=o_bias, tokens=t),
                n_layers,
            )
        )

        rows.append(
            M.Row("layers.input_layernorm", L.RMSNorm(normalized_shape=d, elements=n), n_layers)
        )
        rows += [M.Row(f"layers.{k}", lay, cnt) for k, lay, cnt in attn]
        rows.append(M.Row("layers.attn_residual", L.ResidualAdd(elements=n), n_layers))
        rows.append(
            M.Row(
                "layers.post_attention_layernorm",
                L.RMSNorm(normalized_shape=d, elements=n),
                n_layers,
            )
        )
        if moe is not None:
            mlp = [
                (
                    "moe",
                    L.MoE(
                        d_model=d,
                        d_ff=ff,
                        num_experts=moe[0],
                        top_k=moe[1],
                        tokens=t,
                        activation=act,
                    ),
                )
            ]
        else:
            up = (
                [
                    (
                        "mlp.gate_up_proj",
                        L.Dense(in_features=d, out_features=2 * ff, bias=False, tokens=t),
                    )
                ]
                if fused
                else [
                    (
                        "mlp.gate_proj",
                        L.Dense(in_features=d, out_features=ff, bias=mlp_bias, tokens=t),
                    ),
                    (
                        "mlp.up_proj",
                        L.Dense(in_features=d, out_features=ff, bias=mlp_bias, tokens=t),
                    ),
                ]
            )
            mlp = [
                *up,
                ("mlp.act", L.Activation(kind=act, elements=t * ff)),
                ("mlp.mul", L.Elementwise(op="mul", elements=t * ff)),
                ("mlp.down_proj", L.Dense(in_features=ff, out_features=d, bias=mlp_bias, tokens=t)),
            ]
        rows += [M.Row(f"layers.{k}", lay, n_layers) for k, lay in mlp]
        rows.append(M.Row("layers.mlp_residual", L.ResidualAdd(elements=n), n_layers))
        rows.append(M.Row("norm", L.RMSNorm(normalized_shape=d, elements=n)))
        if head == "lm":
            rows.append(
                M.Row(
                    "lm_head",
                    L.Dense(in_features=d, out_features=vocab, bias=False, tokens=t, tied=tied),
                )
            )
        if head == "seqcls":  # logits at every position; the last non-pad one is kept
            rows.append(
                M.Row("score", L.Dense(in_features=d, out_features=labels, bias=False, tokens=t))
            )
        return rows

    def kv_elements(s: int) -> int:
        kept = _tokens_cached(s, window)
        return 2 * kv_dim * (n_full * s + n_sliding * kept)

    summary = _summary(
        arch,
        model_type=mt,
        d_model=d,
        n_layers=n_layers,
        n_heads=heads,
        kv_heads=kv_heads,
        head_dim=hd,
        d_ff=ff,
        vocab_size=vocab,
        context_length=c.int("max_position_embeddings"),
        tie_word_embeddings=tied,
        sliding_window=window,
        sliding_layers=n_sliding,
        flash=flash,
    )
    if moe is not None:
        summary.update(num_experts=moe[0], experts_per_token=moe[1])
    model = M.Model(
        label,
        "moe" if moe else "transformer",
        build,
        is_lm=True,
        default_seq_len=summary["context_length"],
        kv_elements=None if head == "seqcls" else kv_elements,
        config=summary,
    )
    if moe is not None:
        expert = L.MoE(d_model=d, d_ff=ff, num_experts=moe[0], top_k=moe[1])
        model.config["active_params"] = model.params - n_layers * (
            expert.params - expert.active_params
        )
    return model


# --------------------------------------------------------------------------------------------
# shipped configurations
# --------------------------------------------------------------------------------------------


def shipped_configs() -> list[str]:
    """Names of the configurations shipped with mlsysim (``mlsysim/configs/*.json``)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.json"))


def shipped_config(name: str) -> dict:
    """One shipped configuration: ``{"config": <config.json>, "source": {...},
    "published_params": ...}``. The ``config`` block is what ``from_hf_config`` takes."""
    _check.text("name", name)
    names = shipped_configs()
    if name not in names:
        raise ValueError(
            f"name={name!r} is not a shipped configuration; allowed: {', '.join(names)}"
        )
    return json.loads((CONFIG_DIR / f"{name}.json").read_text())


def from_shipped(
    name: str, *, label: str | None = None, bare: bool = False, flash: bool = False
) -> M.Model:
    """``from_hf_config`` of the shipped configuration ``name`` (a key of ``shipped_configs()``),
    named after its model card, or ``label`` when given; ``bare`` and ``flash`` as in
    ``from_hf_config``."""
    entry = shipped_config(name)
    if label is not None and (not isinstance(label, str) or not label):
        raise ValueError(f"label must be a non-empty string, got {_check._short(label)}")
    for arg, v in (("bare", bare), ("flash", flash)):
        if not isinstance(v, bool):
            raise ValueError(f"{arg} must be True or False, got {_check._short(v, 40)}")
    # a shipped config is counted at its default length by the test suite, not at load: building
    # its layers here would pull the cost models into a lab's first run (the browser defers them)
    return _checked_model(
        entry["config"], bare, label or entry["source"]["model"], flash, count_check=False
    )


#: Arguments checked by name: ``from_shipped("gpt2", name="x")`` or an unknown keyword is a
#: ValueError naming it (the model's own name is ``label=``), not a bare TypeError.
from_shipped = _check.checked(from_shipped)

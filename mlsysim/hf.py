"""Hugging Face ``config.json`` -> an mlsysim :class:`~mlsysim.models.Model`, counted exactly.

``from_hf_config(config)`` reads a transformers configuration (a dict, a path to a
``config.json``, or its JSON text) of one of the families below and builds the model the way
transformers 5.25 builds it, module for module:

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
``gpt_neox``            GPTNeoXModel, GPTNeoXForCausalLM (Pythia: fused query_key_value,
                        LayerNorm, biased MLP, parallel or serial residual)
``opt``                 OPTModel, OPTForCausalLM (learned positions, ``word_embed_proj_dim``
                        projections, pre- or post-LayerNorm)
``falcon``              FalconModel, FalconForCausalLM (multi-query or grouped K/V of the new
                        decoder architecture, one or two norms, parallel or serial, ALiBi)
``phi``                 PhiModel, PhiForCausalLM (phi-1.5/phi-2: parallel attention and MLP on
                        one LayerNorm, biases everywhere, an lm_head with a bias)
``gemma2``              Gemma2Model, Gemma2ForCausalLM (local/global layers, 4 norms a layer,
                        logit soft-capping)
``gemma3_text``         Gemma3TextModel, Gemma3ForCausalLM (as Gemma 2 with q/k norms; one
                        global layer in ``sliding_window_pattern``)
``qwen2_moe``           Qwen2MoeModel, Qwen2MoeForCausalLM (routed + gated shared expert)
``qwen3_moe``           Qwen3MoeModel, Qwen3MoeForCausalLM (routed experts, q/k norms)
``deepseek_v3``         DeepseekV3Model, DeepseekV3ForCausalLM (multi-head latent attention,
                        dense first layers, routed + shared experts)
``vit``                 ViTModel (with pooler), ViTForImageClassification (``mlsysim.hf_extra``)
``clip_vision_model``   CLIPVisionModel, CLIPVisionModelWithProjection (``mlsysim.hf_extra``)
``t5``                  T5Model, T5ForConditionalGeneration, T5EncoderModel (``mlsysim.hf_extra``)
``bart``                BartModel, BartForConditionalGeneration (``mlsysim.hf_extra``)
``mamba``               MambaModel, MambaForCausalLM (a state-space model; ``mlsysim.hf_extra``)
======================  =====================================================================

One builder counts every decoder family (``_decoder``, from a ``_Spec`` of the ways its modules
differ: norm kind and count, fused or separate projections and their biases, gated or plain MLP,
experts, latent attention); GPT-2 and the encoders have their own.

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
  is ``n_embd``; Mixtral's ``num_experts`` is ``num_local_experts``). Gemma 2 and 3 keep
  transformers' default ``layer_types`` (Gemma 2: every other layer local; Gemma 3: all but each
  ``sliding_window_pattern``-th) unless the config lists them; Qwen2-MoE windows the even layers
  below ``max_window_layers`` (with ``use_sliding_window``), Qwen3-MoE every layer. A sequence
  classifier (``*ForSequenceClassification``) has no decode phase and ``kv_cache_bytes`` 0: it
  reads each input in one pass and keeps nothing for the next, as a server runs it
  (transformers' default ``use_cache=True`` would still fill a cache during that pass, which is
  not counted).
- Mixture of experts (Mixtral, Qwen2-MoE, Qwen3-MoE, DeepSeek-V3): the router and the
  ``num_experts_per_tok`` routed experts a token reaches, plus any shared expert (and
  Qwen2-MoE's ``shared_expert_gate``); ``config["active_params"]`` is the count one token runs
  through. Which layers are sparse follows ``decoder_sparse_step`` and ``mlp_only_layers``
  (Qwen) or ``first_k_dense_replace`` (DeepSeek). DeepSeek's group-limited routing
  (``n_group``, ``topk_group``) picks *which* experts, not how many: it changes no count.
- DeepSeek-V3's multi-head latent attention: transformers 5.25's cache stores the compressed
  latent, ``kv_lora_rank + qk_rope_head_dim`` values per token and layer (576 for DeepSeek-V3,
  against 128 heads x (192 + 128) = 40,960 for the keys and values it expands to: the lesson),
  and every step re-expands all cached latents through ``kv_b_proj``, so that projection costs
  ``2 x S x kv_lora_rank x heads x (qk_nope_head_dim + v_head_dim)`` FLOPs per layer in one
  decode step as well as in prefill. Q/K heads are ``qk_nope + qk_rope`` wide, V heads
  ``v_head_dim`` (``Attention.v_head_dim``).
- Soft-capping (Gemma 2's ``attn_logit_softcapping``, Gemma 2/3's ``final_logit_softcapping``):
  ``tanh(x / cap) * cap`` on every score and logit is elementwise work, which FlopCounterMode
  does not count; mlsysim adds it to ``elementwise_flops`` (and its pass over the scores and
  logits to the bytes moved), never to ``flops`` (Gemma 3 reads no attention soft-capping).
  ALiBi (Falcon ``alibi``) and partial rotary (``partial_rotary_factor``) change no count.

A field missing from the config takes transformers' default for that class. Every field that
changes a count is honoured (``head_dim``, ``num_key_value_heads``, ``attention_bias``,
``mlp_bias``, ``tie_word_embeddings``, ``n_inner``, ``type_vocab_size``, ``intermediate_size``,
``sliding_window``, ``layer_types``, ``num_local_experts``, ``num_experts_per_tok``,
``word_embed_proj_dim``, ``do_layer_norm_before``, ``enable_bias``, ``new_decoder_architecture``,
``multi_query``, ``num_kv_heads``, ``parallel_attn``, ``num_ln_in_parallel_attn``, ``bias``,
``qk_layernorm``, ``sliding_window_pattern``, ``moe_intermediate_size``,
``shared_expert_intermediate_size``, ``decoder_sparse_step``, ``mlp_only_layers``, ``q_lora_rank``,
``kv_lora_rank``, ``qk_nope_head_dim``, ``qk_rope_head_dim``, ``v_head_dim``,
``n_shared_experts``, ``first_k_dense_replace``, ...). A field that would change a count but is
not modelled (``add_cross_attention``, ``quantization_config``, ``per_layer_config``, an
activation with weights of its own such as ``prelu``, Gemma 3's
``use_bidirectional_attention``) raises a ``ValueError`` naming it, as does a combination
transformers itself cannot run (Falcon's new architecture without ``parallel_attn``, Phi's
``qk_layernorm`` with a ``head_dim`` apart, DeepSeek's ``num_key_value_heads`` differing from
its heads). DeepSeek-V3's multi-token-prediction layer (``num_nextn_predict_layers``) is not
built by transformers, nor counted here. Fields transformers does not read for the class are
ignored, as transformers ignores them: transformers 5 no longer reads BERT's relative
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

#: transformers 5.25 config-class defaults of every field read here (a field missing from a
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
    "gpt_neox": dict(
        vocab_size=50432,
        hidden_size=6144,
        num_hidden_layers=44,
        num_attention_heads=64,
        intermediate_size=24576,
        hidden_act="gelu",
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        attention_bias=True,
    ),
    "opt": dict(
        vocab_size=50272,
        hidden_size=768,
        num_hidden_layers=12,
        ffn_dim=3072,
        max_position_embeddings=2048,
        do_layer_norm_before=True,
        _remove_final_layer_norm=False,
        word_embed_proj_dim=None,
        num_attention_heads=12,
        activation_function="relu",
        enable_bias=True,
        layer_norm_elementwise_affine=True,
        tie_word_embeddings=True,
    ),
    "falcon": dict(
        vocab_size=65024,
        hidden_size=4544,
        num_hidden_layers=32,
        num_attention_heads=71,
        num_ln_in_parallel_attn=None,
        num_kv_heads=None,
        alibi=False,
        new_decoder_architecture=False,
        multi_query=True,
        parallel_attn=True,
        bias=False,
        max_position_embeddings=2048,
        ffn_hidden_size=None,
        activation="gelu",
        tie_word_embeddings=True,
    ),
    "phi": dict(
        vocab_size=51200,
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=24,
        num_attention_heads=32,
        num_key_value_heads=_HEADS,
        head_dim=_DERIVED,
        hidden_act="gelu_new",
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        qk_layernorm=False,
    ),
    "gemma2": dict(
        vocab_size=256000,
        hidden_size=2304,
        intermediate_size=9216,
        num_hidden_layers=26,
        num_attention_heads=8,
        num_key_value_heads=4,
        head_dim=256,
        hidden_activation="gelu_pytorch_tanh",
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        attention_bias=False,
        sliding_window=4096,
        final_logit_softcapping=30.0,
        attn_logit_softcapping=50.0,
        use_bidirectional_attention=None,
    ),
    "gemma3_text": dict(
        vocab_size=262208,
        hidden_size=2304,
        intermediate_size=9216,
        num_hidden_layers=26,
        num_attention_heads=8,
        num_key_value_heads=4,
        head_dim=256,
        hidden_activation="gelu_pytorch_tanh",
        max_position_embeddings=131072,
        tie_word_embeddings=True,
        attention_bias=False,
        sliding_window=4096,
        sliding_window_pattern=6,
        final_logit_softcapping=None,
        attn_logit_softcapping=None,
        use_bidirectional_attention=False,
    ),
    "qwen2_moe": dict(
        vocab_size=151936,
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=24,
        num_attention_heads=16,
        num_key_value_heads=16,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=32768,
        tie_word_embeddings=False,
        use_sliding_window=False,
        sliding_window=4096,
        max_window_layers=28,
        decoder_sparse_step=1,
        moe_intermediate_size=1408,
        shared_expert_intermediate_size=5632,
        num_experts_per_tok=4,
        num_experts=60,
        mlp_only_layers=None,
        qkv_bias=True,
    ),
    "qwen3_moe": dict(
        vocab_size=151936,
        hidden_size=2048,
        intermediate_size=6144,
        num_hidden_layers=24,
        num_attention_heads=32,
        num_key_value_heads=4,
        head_dim=_DERIVED,
        hidden_act="silu",
        max_position_embeddings=32768,
        tie_word_embeddings=False,
        attention_bias=False,
        use_sliding_window=False,
        sliding_window=None,
        decoder_sparse_step=1,
        moe_intermediate_size=768,
        num_experts_per_tok=8,
        num_local_experts=128,
        mlp_only_layers=None,
    ),
    "deepseek_v3": dict(
        vocab_size=129280,
        hidden_size=7168,
        intermediate_size=18432,
        moe_intermediate_size=2048,
        num_hidden_layers=61,
        num_attention_heads=128,
        num_key_value_heads=128,
        n_shared_experts=1,
        n_routed_experts=256,
        kv_lora_rank=512,
        q_lora_rank=1536,
        qk_rope_head_dim=64,
        v_head_dim=128,
        qk_nope_head_dim=128,
        n_group=8,
        topk_group=4,
        num_experts_per_tok=8,
        first_k_dense_replace=3,
        hidden_act="silu",
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        attention_bias=False,
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
    "gpt_neox": "GPTNeoX",
    "opt": "OPT",
    "falcon": "Falcon",
    "phi": "Phi",
    "gemma2": "Gemma2",
    "gemma3_text": "Gemma3Text",
    "qwen2_moe": "Qwen2Moe",
    "qwen3_moe": "Qwen3Moe",
    "deepseek_v3": "DeepseekV3",
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
    if model_type == "gemma3_text":  # the causal LM of the text-only Gemma 3 is Gemma3ForCausalLM
        return {"Gemma3TextModel": "bare", "Gemma3ForCausalLM": "lm", **cls}
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
    "qwen3_moe": {"num_experts": "num_local_experts"},
    "deepseek_v3": {"num_local_experts": "n_routed_experts"},
    "falcon": {"n_embed": "hidden_size"},
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
    if model_type == "gemma3_text" and _set(raw, "use_bidirectional_attention"):
        raise ValueError(
            "config['use_bidirectional_attention']=true (Gemma 3 as an encoder: transformers then "
            "halves the sliding window) is not modelled; from_hf_config reads causal decoders"
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
    """Build the mlsysim model of a Hugging Face ``config.json``, counted as transformers 5.25
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
    if mt in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
        if c.bool("use_sliding_window") and c.get("sliding_window") is not None:
            window = c.int("sliding_window")
        if window is None:
            inferred = 0
        elif mt == "qwen3_moe":  # every layer
            inferred = n_layers
        elif mt == "qwen2_moe":  # the even-numbered layers below max_window_layers
            below = min(n_layers, c.int("max_window_layers", minimum=0))
            inferred = (below + 1) // 2
        else:  # the layers from max_window_layers on
            inferred = max(0, n_layers - c.int("max_window_layers", minimum=0))
    elif mt in ("gemma2", "gemma3_text"):
        if c.get("sliding_window") is not None:
            window = c.int("sliding_window")
        # transformers' default layer_types: one global layer in every `pattern` (Gemma 2: 2)
        pattern = 2 if mt == "gemma2" else c.int("sliding_window_pattern")
        inferred = n_layers - n_layers // pattern
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
                if mt in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe")
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


def _mlp_rows(prefix: str, d: int, ff: int, t: int, act: str, bias: bool, fused: bool = False):
    """A gated MLP (gate, up, act x up, down) as (name, layer) pairs; ``fused``: Phi-3's single
    gate_up_proj."""
    up = (
        [
            (
                f"{prefix}.gate_up_proj",
                L.Dense(in_features=d, out_features=2 * ff, bias=bias, tokens=t),
            )
        ]
        if fused
        else [
            (f"{prefix}.gate_proj", L.Dense(in_features=d, out_features=ff, bias=bias, tokens=t)),
            (f"{prefix}.up_proj", L.Dense(in_features=d, out_features=ff, bias=bias, tokens=t)),
        ]
    )
    return [
        *up,
        (f"{prefix}.act", L.Activation(kind=act, elements=t * ff)),
        (f"{prefix}.mul", L.Elementwise(op="mul", elements=t * ff)),
        (f"{prefix}.down_proj", L.Dense(in_features=ff, out_features=d, bias=bias, tokens=t)),
    ]


class _Spec:
    """What a decoder family's transformers modules hold, read from its config: one builder
    (``_decoder``) counts every family from this (the families share what their classes share;
    each field here is one way their modules differ)."""

    norm = "rms"  # "rms" (RMSNorm, weight) or "ln" (LayerNorm, weight and bias)
    norm_affine = True  # OPT's layer_norm_elementwise_affine
    norms_per_layer = 2  # Gemma 2/3: 4 (pre/post attention, pre/post feed-forward)
    split_norms = False  # Falcon's new architecture: ln_attn and ln_mlp (two norms, parallel)
    final_norm = True  # OPT: only with do_layer_norm_before
    fused_qkv = False  # one query_key_value / qkv_proj matrix
    qkv_bias = o_bias = mlp_bias = False
    o_name = "self_attn.o_proj"
    qk_norm = None  # None, "rms" (Qwen3, Gemma 3) or "ln" (Phi's qk_layernorm)
    mlp = "gated"  # "gated" (gate/up/down), "fused" (Phi-3 gate_up_proj), "plain" (up, act, down)
    mlp_names = ("mlp.fc1", "mlp.fc2")
    lm_bias = False  # Phi's lm_head has a bias
    positions = 0  # OPT: learned positions (max_position_embeddings + 2 rows)
    embed_dim = None  # OPT: word_embed_proj_dim (project_in / project_out when it differs)
    softcap_attn = softcap_final = False  # Gemma 2: logit soft-capping (elementwise only)
    mla = None  # DeepSeek-V3: (q_lora_rank or None, kv_lora_rank, nope, rope, v_head_dim)
    moe = None  # (experts, top_k, expert d_ff, shared d_ff or 0, shared gate, moe layers)


def _spec(c: _Cfg) -> _Spec:
    mt, s = c.mt, _Spec()
    if mt in ("llama", "qwen3", "gemma", "gemma2", "gemma3_text", "qwen3_moe", "deepseek_v3"):
        s.qkv_bias = s.o_bias = c.bool("attention_bias")
    if mt == "llama":
        s.mlp_bias = c.bool("mlp_bias")
    if mt == "qwen2":
        s.qkv_bias = True  # Qwen2: bias on q, k, v; none on o_proj
    if mt == "qwen2_moe":
        s.qkv_bias = c.bool("qkv_bias")
    if mt in ("qwen3", "qwen3_moe", "gemma3_text"):
        s.qk_norm = "rms"
    if mt == "phi3":
        s.fused_qkv, s.mlp = True, "fused"
    if mt in ("gemma2", "gemma3_text"):
        s.norms_per_layer = 4
    if mt == "gemma2":
        s.softcap_attn = c.get("attn_logit_softcapping") is not None
    if mt in ("gemma2", "gemma3_text"):
        s.softcap_final = c.get("final_logit_softcapping") is not None
    if mt == "gpt_neox":
        s.norm, s.fused_qkv, s.mlp = "ln", True, "plain"
        s.qkv_bias = s.o_bias = c.bool("attention_bias")
        s.mlp_bias = True
        s.o_name, s.mlp_names = "attention.dense", ("mlp.dense_h_to_4h", "mlp.dense_4h_to_h")
    if mt == "opt":
        s.norm, s.mlp = "ln", "plain"
        s.norm_affine = c.bool("layer_norm_elementwise_affine")
        s.qkv_bias = s.o_bias = s.mlp_bias = c.bool("enable_bias")
        s.o_name, s.mlp_names = "self_attn.out_proj", ("fc1", "fc2")
        s.final_norm = c.bool("do_layer_norm_before") and not c.bool("_remove_final_layer_norm")
        s.positions = c.int("max_position_embeddings") + 2
        s.embed_dim = c.int("word_embed_proj_dim") if c.get("word_embed_proj_dim") else None
    if mt == "falcon":
        s.norm, s.fused_qkv, s.mlp = "ln", True, "plain"
        s.qkv_bias = s.o_bias = s.mlp_bias = c.bool("bias")
        s.o_name = "self_attention.dense"
        s.mlp_names = ("mlp.dense_h_to_4h", "mlp.dense_4h_to_h")
        new, parallel = c.bool("new_decoder_architecture"), c.bool("parallel_attn")
        n_ln = c.get("num_ln_in_parallel_attn")
        n_ln = 2 if n_ln is None and new else n_ln
        if n_ln is not None and n_ln not in (1, 2):
            raise ValueError(
                f"config['num_ln_in_parallel_attn'] must be 1, 2 or null, got {_check._short(n_ln, 40)}"
            )
        if new and not parallel:
            raise ValueError(
                "config['new_decoder_architecture']=true needs config['parallel_attn']=true "
                "(transformers' Falcon layer has no serial form of the new architecture)"
            )
        if not new and parallel and n_ln == 2:
            raise ValueError(
                "config['num_ln_in_parallel_attn']=2 applies to the new decoder architecture "
                "(transformers' old-architecture Falcon layer would not run with it)"
            )
        s.split_norms = new and n_ln == 2
        s.norms_per_layer = 1 if parallel and not s.split_norms else 2
    if mt == "phi":
        s.norm, s.mlp, s.norms_per_layer = "ln", "plain", 1
        s.qkv_bias = s.o_bias = s.mlp_bias = s.lm_bias = True
        s.o_name = "self_attn.dense"
        s.qk_norm = "ln" if c.bool("qk_layernorm") else None
    return s


def _sparse_layers(c: _Cfg, n_layers: int) -> int:
    """Qwen2-MoE / Qwen3-MoE: layers whose MLP is the sparse block, as transformers picks them:
    layer i unless i is in ``mlp_only_layers``, when ``num_experts > 0`` and
    ``(i + 1) % decoder_sparse_step == 0`` (counted, never listed per layer)."""
    step = c.int("decoder_sparse_step")
    only = c.get("mlp_only_layers")
    if only is None:
        only = []
    if not isinstance(only, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in only
    ):
        raise ValueError(
            f"config['mlp_only_layers'] must be a list of layer indices, got {_check._short(only, 60)}"
        )
    dense_hits = {i for i in only if 0 <= i < n_layers and (i + 1) % step == 0}
    return n_layers // step - len(dense_hits)


def _decoder(c: _Cfg, arch: str, head: str, label: str, flash: bool) -> M.Model:
    mt = c.mt
    s = _spec(c)
    d, n_layers, heads = (
        c.int("hidden_size"),
        c.int("num_hidden_layers"),
        c.int("num_attention_heads"),
    )
    ff_key = {"opt": "ffn_dim", "falcon": "ffn_hidden_size"}.get(mt, "intermediate_size")
    ff = 4 * d if mt == "falcon" and c.get(ff_key) is None else c.int(ff_key)
    vocab = c.int("vocab_size")
    e_dim = s.embed_dim or d  # the token embedding's width (OPT's word_embed_proj_dim)
    if mt == "falcon":
        new, mq = c.bool("new_decoder_architecture"), c.bool("multi_query")
        kv_cfg = heads if c.get("num_kv_heads") is None else c.int("num_kv_heads")
        if not new and not mq and kv_cfg != heads:
            raise ValueError(
                f"config['num_kv_heads']={kv_cfg} must equal config['num_attention_heads']={heads} "
                "when config['new_decoder_architecture'] and config['multi_query'] are false "
                "(transformers' old Falcon attention has one K/V head per query head)"
            )
        kv_heads = kv_cfg if new or not mq else 1
    elif mt in ("gpt_neox", "opt"):
        kv_heads = heads
    else:
        kv_heads = (
            heads if _unset(c.get("num_key_value_heads"), _HEADS) else c.int("num_key_value_heads")
        )
    hd_raw = c.get("head_dim") if mt not in ("gpt_neox", "opt", "falcon", "deepseek_v3") else None
    if mt == "deepseek_v3":
        hd = 0  # set from qk_nope_head_dim + qk_rope_head_dim below
    elif _unset(hd_raw, _DERIVED):
        if d % heads:
            raise ValueError(
                f"config['num_attention_heads']={heads} must divide config['hidden_size']={d} "
                "when config['head_dim'] is not set"
            )
        hd = d // heads
    else:
        hd = c.int("head_dim")
    if mt in ("gemma2", "gemma3_text") and d % heads:
        raise ValueError(
            f"config['num_attention_heads']={heads} must divide config['hidden_size']={d} "
            f"(transformers' {mt} config requires it)"
        )
    if s.qk_norm == "ln" and hd != d // heads:
        raise ValueError(
            f"config['qk_layernorm']=true normalizes hidden_size / num_attention_heads = "
            f"{d // heads} features per head, but config['head_dim']={hd}: transformers' Phi "
            "would not run; drop one of them"
        )
    v_hd = hd
    if mt == "deepseek_v3":
        q_rank = None if c.get("q_lora_rank") is None else c.int("q_lora_rank")
        kv_rank, nope = c.int("kv_lora_rank"), c.int("qk_nope_head_dim")
        rope, v_hd = c.int("qk_rope_head_dim"), c.int("v_head_dim")
        s.mla = (q_rank, kv_rank, nope, rope, v_hd)
        hd = nope + rope
        if kv_heads != heads:
            raise ValueError(
                f"config['num_key_value_heads']={kv_heads} must equal "
                f"config['num_attention_heads']={heads} for deepseek_v3 (multi-head latent "
                "attention expands its latent into one key and value per query head)"
            )
    if heads % kv_heads:
        kv_key = "num_kv_heads" if mt == "falcon" else "num_key_value_heads"
        raise ValueError(
            f"config[{kv_key!r}]={kv_heads} must divide config['num_attention_heads']={heads}"
        )
    act = c.act(
        "hidden_activation"
        if mt in ("gemma2", "gemma3_text")
        else {"opt": "activation_function", "falcon": "activation"}.get(mt, "hidden_act")
    )
    tied = c.bool("tie_word_embeddings")
    # mixture of experts: which layers, and what each sparse block holds
    n_moe, moe, shared, shared_gate = 0, None, 0, False
    if mt == "mixtral":
        moe, n_moe = (c.int("num_local_experts"), c.int("num_experts_per_tok"), ff), n_layers
    elif mt in ("qwen2_moe", "qwen3_moe"):
        key = "num_experts" if mt == "qwen2_moe" else "num_local_experts"
        n_exp = c.int(key, minimum=0)
        if n_exp:
            moe = (n_exp, c.int("num_experts_per_tok"), c.int("moe_intermediate_size"))
            n_moe = _sparse_layers(c, n_layers)
        if mt == "qwen2_moe":
            shared, shared_gate = c.int("shared_expert_intermediate_size"), True
    elif mt == "deepseek_v3":
        n_exp, n_group = c.int("n_routed_experts"), c.int("n_group")
        if n_exp % n_group or n_exp // n_group < 2:
            raise ValueError(
                f"config['n_group']={n_group} must split config['n_routed_experts']={n_exp} into "
                "groups of at least 2 experts (transformers scores a group by its top 2)"
            )
        if c.int("topk_group") > n_group:
            raise ValueError(
                f"config['topk_group']={c.int('topk_group')} must not exceed config['n_group']={n_group}"
            )
        moe = (n_exp, c.int("num_experts_per_tok"), c.int("moe_intermediate_size"))
        shared = moe[2] * c.int("n_shared_experts", minimum=0)
        n_moe = max(0, n_layers - c.int("first_k_dense_replace", minimum=0))
    if moe is not None and moe[1] > moe[0]:
        raise ValueError(
            f"config['num_experts_per_tok']={moe[1]} must not exceed the number of experts "
            f"({moe[0]})"
        )
    n_dense = n_layers - n_moe
    n_sliding, window = _layer_types(c, n_layers)
    n_full = n_layers - n_sliding
    q_dim, kv_dim = heads * hd, kv_heads * hd
    hd_field = "config['head_dim']" if hd_raw not in (_DERIVED, None) else "head_dim"
    q_what = f"config['num_attention_heads'] x {hd_field}"
    kv_what = f"config['num_key_value_heads'] x {hd_field}"
    widths = [(q_dim, q_what), (kv_dim, kv_what)]
    if s.fused_qkv:
        widths.append((q_dim + 2 * kv_dim, f"{q_what} + 2 x {kv_what}"))
    if s.mla:
        h_ = "config['num_attention_heads']"
        widths = [
            (q_dim, f"{h_} x (config['qk_nope_head_dim'] + config['qk_rope_head_dim'])"),
            (heads * v_hd, f"{h_} x config['v_head_dim']"),
            (
                heads * (s.mla[2] + v_hd),
                f"{h_} x (config['qk_nope_head_dim'] + config['v_head_dim'])",
            ),
        ]
    if s.mlp == "fused":
        widths.append((2 * ff, "2 x config['intermediate_size']"))
    if mt == "falcon" and c.get(ff_key) is None:
        widths.append((ff, "4 x config['hidden_size'] (config['ffn_hidden_size'] unset)"))
    _check_derived(widths)
    labels = _num_labels(c.raw) if head == "seqcls" else 0

    def norm(width: int, elements: int, affine: bool = True) -> L.Layer:
        if s.norm == "rms":
            return L.RMSNorm(normalized_shape=width, elements=elements)
        return L.LayerNorm(normalized_shape=width, elements=elements, elementwise_affine=affine)

    def build(seq_len: int, phase: str) -> list[M.Row]:
        if phase == "decode" and head == "seqcls":
            _no_decode(label, arch)
        if s.positions:
            _check_len(label, seq_len, s.positions - 2)
        t = 1 if phase == "decode" else seq_len
        n = t * d
        rows = _embed_rows(vocab, e_dim, t)
        if s.positions:  # OPT: learned positions added after project_in
            rows.append(
                M.Row(
                    "embed.positions",
                    L.Embedding(num_embeddings=s.positions, embedding_dim=d, lookups=t),
                )
            )
        if e_dim != d:
            rows.append(
                M.Row(
                    "project_in", L.Dense(in_features=e_dim, out_features=d, bias=False, tokens=t)
                )
            )
        if s.positions:
            rows.append(M.Row("embed.add", L.Elementwise(elements=n)))

        def sdpa(kv_len):
            return L.Attention(
                d_model=d,
                n_heads=heads,
                head_dim=hd,
                kv_heads=kv_heads,
                seq_len=t,
                kv_len=kv_len,
                flash=flash,
                v_head_dim=None if v_hd == hd else v_hd,
            )

        attn: list[tuple[str, L.Layer, int]] = []
        if s.mla:
            q_rank, kv_rank, nope, rope, _ = s.mla
            if q_rank is None:
                attn.append(
                    (
                        "self_attn.q_proj",
                        L.Dense(in_features=d, out_features=q_dim, bias=False, tokens=t),
                        n_layers,
                    )
                )
            else:
                attn += [
                    (
                        "self_attn.q_a_proj",
                        L.Dense(in_features=d, out_features=q_rank, bias=s.qkv_bias, tokens=t),
                        n_layers,
                    ),
                    (
                        "self_attn.q_a_layernorm",
                        L.RMSNorm(normalized_shape=q_rank, elements=t * q_rank),
                        n_layers,
                    ),
                    (
                        "self_attn.q_b_proj",
                        L.Dense(in_features=q_rank, out_features=q_dim, bias=False, tokens=t),
                        n_layers,
                    ),
                ]
            # the cache keeps the latent; every step expands all cached latents into K and V
            kv_tokens = seq_len
            attn += [
                (
                    "self_attn.kv_a_proj_with_mqa",
                    L.Dense(in_features=d, out_features=kv_rank + rope, bias=s.qkv_bias, tokens=t),
                    n_layers,
                ),
                (
                    "self_attn.kv_a_layernorm",
                    L.RMSNorm(normalized_shape=kv_rank, elements=t * kv_rank),
                    n_layers,
                ),
                (
                    "self_attn.kv_b_proj",
                    L.Dense(
                        in_features=kv_rank,
                        out_features=heads * (nope + v_hd),
                        bias=False,
                        tokens=kv_tokens,
                    ),
                    n_layers,
                ),
            ]
        elif s.fused_qkv:
            name = {
                "gpt_neox": "attention.query_key_value",
                "falcon": "self_attention.query_key_value",
            }.get(mt, "self_attn.qkv_proj")
            attn.append(
                (
                    name,
                    L.Dense(
                        in_features=d, out_features=q_dim + 2 * kv_dim, bias=s.qkv_bias, tokens=t
                    ),
                    n_layers,
                )
            )
        else:
            attn += [
                (
                    f"self_attn.{p}_proj",
                    L.Dense(in_features=d, out_features=w, bias=s.qkv_bias, tokens=t),
                    n_layers,
                )
                for p, w in (("q", q_dim), ("k", kv_dim), ("v", kv_dim))
            ]
        if s.qk_norm:  # per head: Qwen3/Gemma 3 q_norm, k_norm; Phi q_layernorm, k_layernorm
            qk_cls, suffix = (
                (L.RMSNorm, "norm") if s.qk_norm == "rms" else (L.LayerNorm, "layernorm")
            )
            attn += [
                (f"self_attn.{p}_{suffix}", qk_cls(normalized_shape=hd, elements=t * w), n_layers)
                for p, w in (("q", q_dim), ("k", kv_dim))
            ]
        if phase == "decode":
            full_kv, slide_kv = seq_len, _keys_attended(seq_len, window)
        else:
            full_kv = slide_kv = None
        if n_full and n_sliding and full_kv != slide_kv:
            groups = [
                ("self_attn.sdpa", full_kv, n_full),
                ("self_attn.sdpa.sliding", slide_kv, n_sliding),
            ]
        else:
            groups = [("self_attn.sdpa", slide_kv if n_sliding else full_kv, n_layers)]
        for name, kv, cnt in groups:
            attn.append((name, sdpa(kv), cnt))
            if s.softcap_attn:  # tanh(scores / cap) * cap: elementwise, not in FLOPs
                scores = heads * t * (seq_len if kv is None else kv)
                attn.append((f"{name}.softcap", L.Activation(kind="tanh", elements=scores), cnt))
        attn.append(
            (
                s.o_name,
                L.Dense(in_features=heads * v_hd, out_features=d, bias=s.o_bias, tokens=t),
                n_layers,
            )
        )

        if s.split_norms:
            pre = [("layers.ln_attn", norm(d, n)), ("layers.ln_mlp", norm(d, n))]
        else:
            pre = [("layers.input_layernorm", norm(d, n, s.norm_affine))]
        rows += [M.Row(k, lay, n_layers) for k, lay in pre]
        rows += [M.Row(f"layers.{k}", lay, cnt) for k, lay, cnt in attn]
        if s.norms_per_layer == 4:
            rows.append(M.Row("layers.post_attention_layernorm", norm(d, n), n_layers))
        rows.append(M.Row("layers.attn_residual", L.ResidualAdd(elements=n), n_layers))
        if s.norms_per_layer == 4:
            rows.append(M.Row("layers.pre_feedforward_layernorm", norm(d, n), n_layers))
        elif s.norms_per_layer == 2 and not s.split_norms:
            name = "layers.final_layer_norm" if mt == "opt" else "layers.post_attention_layernorm"
            rows.append(M.Row(name, norm(d, n, s.norm_affine), n_layers))
        if n_dense:  # built only when present: a layer's sizes are checked when it is built
            if s.mlp == "plain":
                dense_mlp = [
                    (
                        s.mlp_names[0],
                        L.Dense(in_features=d, out_features=ff, bias=s.mlp_bias, tokens=t),
                    ),
                    ("mlp.act", L.Activation(kind=act, elements=t * ff)),
                    (
                        s.mlp_names[1],
                        L.Dense(in_features=ff, out_features=d, bias=s.mlp_bias, tokens=t),
                    ),
                ]
            else:
                dense_mlp = _mlp_rows("mlp", d, ff, t, act, s.mlp_bias, fused=s.mlp == "fused")
            rows += [M.Row(f"layers.{k}", lay, n_dense) for k, lay in dense_mlp]
        if n_moe:
            sparse = [
                (
                    "moe" if mt == "mixtral" else "mlp.experts",
                    L.MoE(
                        d_model=d,
                        d_ff=moe[2],
                        num_experts=moe[0],
                        top_k=moe[1],
                        tokens=t,
                        activation=act,
                    ),
                )
            ]
            if shared:
                name = "mlp.shared_expert" if mt == "qwen2_moe" else "mlp.shared_experts"
                sparse += _mlp_rows(name, d, shared, t, act, False)
            if shared_gate:
                sparse += [
                    (
                        "mlp.shared_expert_gate",
                        L.Dense(in_features=d, out_features=1, bias=False, tokens=t),
                    ),
                    ("mlp.shared_expert_gate.sigmoid", L.Activation(kind="sigmoid", elements=t)),
                    ("mlp.shared_expert_gate.mul", L.Elementwise(op="mul", elements=n)),
                ]
            if shared:
                sparse.append(("mlp.shared_expert_add", L.Elementwise(elements=n)))
            rows += [M.Row(f"layers.{k}", lay, n_moe) for k, lay in sparse]
        if s.norms_per_layer == 4:
            rows.append(M.Row("layers.post_feedforward_layernorm", norm(d, n), n_layers))
        rows.append(M.Row("layers.mlp_residual", L.ResidualAdd(elements=n), n_layers))
        if s.final_norm:
            rows.append(M.Row("norm", norm(d, n, s.norm_affine)))
        if e_dim != d:
            rows.append(
                M.Row(
                    "project_out", L.Dense(in_features=d, out_features=e_dim, bias=False, tokens=t)
                )
            )
        if head == "lm":
            rows.append(
                M.Row(
                    "lm_head",
                    L.Dense(
                        in_features=e_dim, out_features=vocab, bias=s.lm_bias, tokens=t, tied=tied
                    ),
                )
            )
            if s.softcap_final:  # tanh(logits / cap) * cap: elementwise, not in FLOPs
                rows.append(M.Row("lm_head.softcap", L.Activation(kind="tanh", elements=t * vocab)))
        if head == "seqcls":  # logits at every position; the last non-pad one is kept
            rows.append(
                M.Row(
                    "score", L.Dense(in_features=e_dim, out_features=labels, bias=False, tokens=t)
                )
            )
        return rows

    # what one layer's cache keeps per token: K and V of every K/V head, or MLA's latent
    per_token = s.mla[1] + s.mla[3] if s.mla else 2 * kv_dim

    def kv_elements(seq: int) -> int:
        kept = _tokens_cached(seq, window)
        return per_token * (n_full * seq + n_sliding * kept)

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
    if s.mla:
        summary.update(
            q_lora_rank=s.mla[0],
            kv_lora_rank=s.mla[1],
            qk_rope_head_dim=s.mla[3],
            v_head_dim=v_hd,
            kv_cache_per_token_layer=per_token,
        )
    if moe is not None and n_moe:
        summary.update(
            num_experts=moe[0], experts_per_token=moe[1], moe_layers=n_moe, dense_layers=n_dense
        )
        if shared:
            summary.update(shared_expert_d_ff=shared)
    model = M.Model(
        label,
        "moe" if n_moe else "transformer",
        build,
        is_lm=True,
        default_seq_len=summary["context_length"],
        kv_elements=None if head == "seqcls" else kv_elements,
        max_seq_len=s.positions - 2 if s.positions else None,
        config=summary,
    )
    if n_moe:
        expert = L.MoE(d_model=d, d_ff=moe[2], num_experts=moe[0], top_k=moe[1])
        model.config["active_params"] = model.params - n_moe * (
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

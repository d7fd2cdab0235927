#!/usr/bin/env python
"""Regenerate tests/reference/ground_truth.json: independent ground truth for mlsysim.

Parameter counts and forward-pass FLOPs measured with PyTorch itself
(torch.utils.flop_counter.FlopCounterMode), torchvision and HuggingFace
transformers.  Nothing is downloaded: torchvision models use weights=None and
HF models are built from config objects.  Whole models are instantiated on the
``meta`` device (shapes only, no memory, no compute); single layers run on CPU
with real small tensors.  A few models are additionally re-run on CPU with real
weights and the totals are asserted equal to the meta-device totals.

Run with the ground-truth venv (see README.md):

    /work/venv-gt/bin/python tests/reference/regenerate.py

The output is deterministic (no timestamps), so a re-run on the same versions
yields a byte-identical file.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import transformers
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode
from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

HERE = Path(__file__).resolve().parent
OUT = HERE / "ground_truth.json"

CONVENTION = (
    "FLOPs as counted by torch FlopCounterMode: 2 FLOPs per multiply-accumulate of "
    "matmul/conv/addmm/bmm/sdpa; bias adds, norms, activations, softmax not counted"
)

META = torch.device("meta")
CPU = torch.device("cpu")


# --------------------------------------------------------------------------- helpers
def n_params(model: nn.Module) -> int:
    # Module.parameters() de-duplicates shared tensors, so tied embeddings count once
    # (same as HF model.num_parameters()).
    return int(sum(p.numel() for p in model.parameters()))


def count_flops(fn):
    """Run fn() once under FlopCounterMode (math SDPA, oneDNN off); return (total, by_op)."""
    fc = FlopCounterMode(display=False)
    # Grad stays enabled on purpose: nn.MultiheadAttention / nn.TransformerEncoderLayer take
    # their fused "fast path" (_native_multi_head_attention etc.) only when grad is disabled.
    with sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False), fc:
        fn()
    by_op = {
        str(k).replace("aten.", ""): int(v)
        for k, v in fc.get_flop_counts().get("Global", {}).items()
    }
    by_op = {k: by_op[k] for k in sorted(by_op) if by_op[k]}
    return int(fc.get_total_flops()), by_op


ENTRIES: list[dict] = []
CROSSCHECKED: list[str] = []


def add(id_, source, config, params, flops, input_shape, by_op=None, note=None):
    e = {
        "id": id_,
        "source": source,
        "config": config,
        "params": int(params),
        "flops": None if flops is None else int(flops),
        "input_shape": input_shape,
    }
    if by_op is not None:
        e["flops_by_op"] = by_op
    if note:
        e["note"] = note
    ENTRIES.append(e)
    print(
        f"  {id_:32s} params={params:>15,d}  flops={'-' if flops is None else format(flops, ',d'):>20s}",
        flush=True,
    )


# --------------------------------------------------------------------------- torchvision
def tv_model(arch, device, **kw):
    with device:
        m = getattr(torchvision.models, arch)(weights=None, **kw)
    return m.eval()


def tv_flops(m, shape, device):
    x = torch.zeros(*shape, device=device)
    return count_flops(lambda: m(x))


def torchvision_entries():
    print("torchvision:")
    for arch in ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152"]:
        m = tv_model(arch, META)
        shape = [1, 3, 224, 224]
        fl, by = tv_flops(m, shape, META)
        add(
            arch,
            f"torchvision.models.{arch}(weights=None)",
            {"arch": arch, "num_classes": 1000},
            n_params(m),
            fl,
            shape,
            by,
        )
        if arch == "resnet50":
            shape = [1, 3, 160, 160]
            fl, by = tv_flops(m, shape, META)
            add(
                "resnet50_r160",
                "torchvision.models.resnet50(weights=None)",
                {"arch": "resnet50", "num_classes": 1000},
                n_params(m),
                fl,
                shape,
                by,
            )

    for id_, wm in [
        ("mobilenet_v2", 1.0),
        ("mobilenet_v2_w0.75", 0.75),
        ("mobilenet_v2_w0.5", 0.5),
    ]:
        m = tv_model("mobilenet_v2", META, width_mult=wm)
        shape = [1, 3, 224, 224]
        fl, by = tv_flops(m, shape, META)
        add(
            id_,
            f"torchvision.models.mobilenet_v2(weights=None, width_mult={wm})",
            {"arch": "mobilenet_v2", "width_mult": wm, "num_classes": 1000},
            n_params(m),
            fl,
            shape,
            by,
        )


# --------------------------------------------------------------------------- HF transformers
def hf_build(model_cls, cfg, device):
    with device:
        m = model_cls(cfg)
    assert m.config._attn_implementation == "eager", m.config._attn_implementation
    return m.eval()


def hf_flops(m, seq, device):
    ids = torch.zeros(1, seq, dtype=torch.long, device=device)
    if isinstance(m, transformers.BertModel):
        # No mask (== all ones): HF then skips building a bidirectional mask.  (Passing an
        # all-ones mask makes HF call mask.all(), which meta tensors cannot evaluate.)
        kw = {}
    else:
        # Causal LMs: an explicit all-ones 2-D mask; without it HF's packed-sequence detection
        # on position_ids calls .item(), which meta tensors cannot do.  All-ones == no padding.
        kw = {
            "attention_mask": torch.ones(1, seq, dtype=torch.long, device=device),
            "use_cache": False,
        }
    return count_flops(lambda: m(input_ids=ids, **kw))


def hf_cfg_summary(cfg, keys):
    d = {k: getattr(cfg, k) for k in keys}
    d["attn_implementation"] = cfg._attn_implementation
    return d


GPT2_KEYS = [
    "n_embd",
    "n_layer",
    "n_head",
    "n_inner",
    "vocab_size",
    "n_positions",
    "tie_word_embeddings",
]
BERT_KEYS = [
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
    "type_vocab_size",
]
LLAMA_KEYS = [
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
]


def hf_entries(crosscheck: bool):
    from transformers import (
        BertConfig,
        BertModel,
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
    )

    print("transformers:")
    specs = [
        # id, model class, config class, explicit kwargs, summary keys, seq lens, crosscheck seq
        ("gpt2_small", GPT2LMHeadModel, GPT2Config, {}, GPT2_KEYS, [128, 1024], 128),
        (
            "gpt2_xl",
            GPT2LMHeadModel,
            GPT2Config,
            dict(n_embd=1600, n_layer=48, n_head=25),
            GPT2_KEYS,
            [1024],
            None,
        ),
        ("bert_base", BertModel, BertConfig, {}, BERT_KEYS, [128], 128),
        (
            "llama_tiny",
            LlamaForCausalLM,
            LlamaConfig,
            dict(
                hidden_size=256,
                intermediate_size=688,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
                vocab_size=1000,
                tie_word_embeddings=False,
                attention_bias=False,
                mlp_bias=False,
            ),
            LLAMA_KEYS,
            [64],
            64,
        ),
    ]
    for base, mcls, ccls, kwargs, keys, seqs, xseq in specs:
        cfg = ccls(attn_implementation="eager", **kwargs)
        m = hf_build(mcls, cfg, META)
        p = n_params(m)
        assert p == m.num_parameters(), (p, m.num_parameters())
        kw_src = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        src = (
            f"transformers.{mcls.__name__}({ccls.__name__}({kw_src})), attn_implementation='eager'"
        )
        config = {"config_kwargs": kwargs, **hf_cfg_summary(m.config, keys)}
        if mcls is BertModel:
            config["add_pooling_layer"] = True
        for s in seqs:
            fl, by = hf_flops(m, s, META)
            add(
                f"{base}_s{s}",
                src,
                config,
                p,
                fl,
                [1, s],
                by,
                note="full forward incl. lm_head over all S positions, use_cache=False"
                if mcls is not BertModel
                else "BertModel forward incl. pooler; no MLM head",
            )
            if crosscheck and s == xseq:
                torch.manual_seed(0)
                mr = hf_build(mcls, cfg, CPU)
                with torch.no_grad():
                    flr, _ = hf_flops(mr, s, CPU)
                assert (n_params(mr), flr) == (p, fl), (base, n_params(mr), flr, p, fl)
                CROSSCHECKED.append(f"{base}_s{s}")
                del mr


# --------------------------------------------------------------------------- HF configs (from_hf_config)
#: Small configurations of every family mlsysim.from_hf_config reads, each exercising fields that
#: change a count (head_dim != hidden/heads, GQA, biases, tying, n_inner, type_vocab_size, sliding
#: windows, experts). Built from the raw dict exactly as a config.json would be
#: (AutoConfig.for_model), run on CPU with real weights (MoE routing cannot run on meta).
HF_SEQ = 12
#: The small decoder shape several HF_CONFIGS entries share
_SMALL = {
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "intermediate_size": 37,
    "vocab_size": 97,
    "pad_token_id": 0,
}

HF_CONFIGS = {
    "gpt2_ninner_untied": {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "n_embd": 64,
        "n_layer": 2,
        "n_head": 4,
        "n_inner": 100,
        "vocab_size": 500,
        "n_positions": 64,
        "tie_word_embeddings": False,
    },
    "gpt2_bare": {
        "model_type": "gpt2",
        "architectures": ["GPT2Model"],
        "n_embd": 48,
        "n_layer": 3,
        "n_head": 3,
        "vocab_size": 300,
        "n_positions": 32,
    },
    "bert_mlm_types3": {
        "model_type": "bert",
        "architectures": ["BertForMaskedLM"],
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "vocab_size": 400,
        "max_position_embeddings": 40,
        "type_vocab_size": 3,
    },
    "bert_pretraining_untied": {
        "model_type": "bert",
        "architectures": ["BertForPreTraining"],
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 80,
        "vocab_size": 333,
        "max_position_embeddings": 24,
        "tie_word_embeddings": False,
    },
    "bert_bare_no_arch": {
        "model_type": "bert",
        "hidden_size": 48,
        "num_hidden_layers": 1,
        "num_attention_heads": 6,
        "intermediate_size": 64,
        "vocab_size": 250,
        "max_position_embeddings": 20,
        "type_vocab_size": 1,
    },
    "roberta_mlm": {
        "model_type": "roberta",
        "architectures": ["RobertaForMaskedLM"],
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 420,
        "max_position_embeddings": 34,
        "type_vocab_size": 1,
        "pad_token_id": 1,
    },
    "roberta_bare": {
        "model_type": "roberta",
        "architectures": ["RobertaModel"],
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "intermediate_size": 64,
        "vocab_size": 100,
        "max_position_embeddings": 30,
    },
    "llama_bias_headdim_tied": {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 24,
        "vocab_size": 300,
        "attention_bias": True,
        "mlp_bias": True,
        "tie_word_embeddings": True,
    },
    "llama_bare": {
        "model_type": "llama",
        "architectures": ["LlamaModel"],
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "vocab_size": 256,
    },
    "mistral_sliding": {
        "model_type": "mistral",
        "architectures": ["MistralForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 112,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 320,
        "sliding_window": 8,
    },
    "qwen2_bias_sliding_tied": {
        "model_type": "qwen2",
        "architectures": ["Qwen2ForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 80,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "vocab_size": 350,
        "tie_word_embeddings": True,
        "use_sliding_window": True,
        "sliding_window": 6,
        "max_window_layers": 1,
    },
    "qwen3_headdim_bias": {
        "model_type": "qwen3",
        "architectures": ["Qwen3ForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "vocab_size": 300,
        "attention_bias": True,
    },
    "gemma_headdim_mqa": {
        "model_type": "gemma",
        "architectures": ["GemmaForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 48,
        "vocab_size": 500,
    },
    "phi3_gqa_sliding": {
        "model_type": "phi3",
        "architectures": ["Phi3ForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "vocab_size": 310,
        "sliding_window": 7,
        "pad_token_id": 0,
    },
    "mixtral_moe": {
        "model_type": "mixtral",
        "architectures": ["MixtralForCausalLM"],
        "hidden_size": 64,
        "intermediate_size": 80,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 300,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
    },
    "roberta_mlm_untied": {
        "model_type": "roberta",
        "architectures": ["RobertaForMaskedLM"],
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 48,
        "vocab_size": 150,
        "max_position_embeddings": 20,
        "tie_word_embeddings": False,
    },
    "mixtral_top1_sliding": {
        "model_type": "mixtral",
        "architectures": ["MixtralForCausalLM"],
        "hidden_size": 48,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 6,
        "num_key_value_heads": 3,
        "head_dim": 16,
        "vocab_size": 200,
        "num_local_experts": 3,
        "num_experts_per_tok": 1,
        "sliding_window": 5,
    },
    "bert_seqcls_3labels": {
        "model_type": "bert",
        "architectures": ["BertForSequenceClassification"],
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "intermediate_size": 40,
        "vocab_size": 120,
        "max_position_embeddings": 16,
        "type_vocab_size": 2,
        "id2label": {"0": "neg", "1": "neu", "2": "pos"},
        "label2id": {"neg": 0, "neu": 1, "pos": 2},
    },
    "roberta_seqcls_5labels": {
        "model_type": "roberta",
        "architectures": ["RobertaForSequenceClassification"],
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 48,
        "vocab_size": 130,
        "max_position_embeddings": 20,
        "num_labels": 5,
    },
    "qwen2_seqcls": {
        "model_type": "qwen2",
        "architectures": ["Qwen2ForSequenceClassification"],
        "hidden_size": 32,
        "intermediate_size": 40,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 100,
        "num_labels": 4,
        "pad_token_id": 0,
    },
    "gpt2_seqcls": {
        "model_type": "gpt2",
        "architectures": ["GPT2ForSequenceClassification"],
        "n_embd": 32,
        "n_layer": 1,
        "n_head": 2,
        "vocab_size": 90,
        "n_positions": 16,
        "pad_token_id": 0,
    },
    # found by a review against transformers 5.25 (2026-12-05): its cache windows any decoder
    # whose config sets sliding_window (else attention_chunk_size), a Llama's or a GPT-2's too;
    # a window of 1 keeps the whole cache; aliases from each config class's attribute_map;
    # num_labels wins over a differing id2label (_SMALL: the shared small decoder shape)
    "llama_sliding_window": {
        **_SMALL,
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "sliding_window": 5,
    },
    "gemma_chunk_size": {
        "model_type": "gemma",
        "architectures": ["GemmaForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 8,
        "num_hidden_layers": 2,
        "intermediate_size": 48,
        "vocab_size": 97,
        "pad_token_id": 0,
        "attention_chunk_size": 4,
    },
    "mistral_chunk_no_window": {
        **_SMALL,
        "model_type": "mistral",
        "architectures": ["MistralForCausalLM"],
        "sliding_window": None,
        "attention_chunk_size": 3,
    },
    "llama_layer_types_sliding": {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 3,
        "intermediate_size": 37,
        "vocab_size": 97,
        "pad_token_id": 0,
        "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention"],
        "sliding_window": 4,
    },
    "mistral_window_1": {
        **_SMALL,
        "model_type": "mistral",
        "architectures": ["MistralForCausalLM"],
        "sliding_window": 1,
    },
    "gpt2_aliases_window": {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "hidden_size": 16,
        "num_attention_heads": 2,
        "num_hidden_layers": 1,
        "max_position_embeddings": 14,
        "vocab_size": 61,
        "sliding_window": 3,
    },
    "llama_seqcls_labels_conflict": {
        **_SMALL,
        "model_type": "llama",
        "architectures": ["LlamaForSequenceClassification"],
        "id2label": {"0": "a", "1": "b", "2": "c"},
        "num_labels": 5,
    },
    "mixtral_num_experts_alias": {
        **_SMALL,
        "model_type": "mixtral",
        "architectures": ["MixtralForCausalLM"],
        "num_experts": 3,
        "num_experts_per_tok": 1,
    },
}


def _hf_model(raw: dict, device):
    """The class named in ``architectures`` (the bare AutoModel when absent) from a raw dict."""
    kw = {k: v for k, v in raw.items() if k != "model_type"}
    # experts_implementation="eager": MoE experts run as one F.linear per expert (the default
    # grouped kernel is not seen by FlopCounterMode); a no-op for dense models.
    cfg = transformers.AutoConfig.for_model(
        raw["model_type"], attn_implementation="eager", experts_implementation="eager", **kw
    )
    with device:
        if raw.get("architectures"):
            m = getattr(transformers, raw["architectures"][0])(cfg)
        else:
            m = transformers.AutoModel.from_config(cfg, attn_implementation="eager")
    assert m.config._attn_implementation == "eager"
    return m.eval()


def _is_encoder(m) -> bool:
    return m.config.model_type in ("bert", "roberta", "xlm-roberta", "distilbert")


def _cache_bytes(cache) -> int:
    total = 0
    for layer in cache.layers:
        for t in (layer.keys, layer.values):
            total += t.numel() * t.element_size()
    return total


def hf_config_entries(configs: dict | None = None):
    print("transformers from raw config dicts:")
    for name, raw in (HF_CONFIGS if configs is None else configs).items():
        torch.manual_seed(0)
        m = _hf_model(raw, CPU)
        p = n_params(m)
        s = HF_SEQ
        ids = torch.randint(5, 50, (1, s))
        extra = {}
        with torch.no_grad():
            if _is_encoder(m) or "ForSequenceClassification" in type(m).__name__:
                fl, by = count_flops(lambda: m(input_ids=ids))
            else:
                fl, by = count_flops(lambda: m(input_ids=ids, use_cache=False))
                # decode convention: a prompt of S-1 tokens, then one step for the S-th token
                out = m(input_ids=ids[:, : s - 1], use_cache=True)
                cache = out.past_key_values
                dfl, dby = count_flops(
                    lambda: m(input_ids=ids[:, s - 1 :], past_key_values=cache, use_cache=True)
                )
                extra = {
                    "decode_flops": dfl,
                    "decode_flops_by_op": dby,
                    "cache_seq_length": int(cache.get_seq_length()),
                    "kv_cache_bytes_fp32": _cache_bytes(cache),
                }
        src = f"transformers.{raw.get('architectures', ['AutoModel'])[0]} from AutoConfig.for_model(**config), eager"
        add(
            f"hf_{name}_s{s}",
            src,
            raw,
            p,
            fl,
            [1, s],
            by,
            note="config is the raw config.json dict; decode_* = one step at seq_len S after a prompt "
            "of S-1 tokens (cache_seq_length == S); kv_cache_bytes_fp32: bytes of every cache "
            "key/value tensor after that step",
        )
        ENTRIES[-1].update(extra)


#: Decoder-only families added for issue 34 (gpt_neox, opt, falcon, phi, gemma2, gemma3_text,
#: qwen2_moe, qwen3_moe, deepseek_v3): several small configurations per family, each varying the
#: fields that change a count (biases, fused/multi-query/grouped attention, parallel blocks,
#: partial rotary, embedding projections, sliding layers, soft-capping, shared experts, sparse
#: steps, dense-first layers, multi-head latent attention).
HF_DECODERS_2 = {
    # GPT-NeoX (Pythia): fused query_key_value, biases on attention (attention_bias) and always on
    # the MLP, LayerNorm, parallel residual, partial rotary, untied embed_out
    "gpt_neox_parallel": {
        **_SMALL,
        "model_type": "gpt_neox",
        "architectures": ["GPTNeoXForCausalLM"],
        "num_key_value_heads": None,
    },
    "gpt_neox_serial_nobias_tied": {
        "model_type": "gpt_neox",
        "architectures": ["GPTNeoXForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 6,
        "num_hidden_layers": 3,
        "intermediate_size": 80,
        "vocab_size": 101,
        "attention_bias": False,
        "use_parallel_residual": False,
        "tie_word_embeddings": True,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 10000.0,
            "partial_rotary_factor": 0.5,
        },
    },
    "gpt_neox_bare": {
        "model_type": "gpt_neox",
        "architectures": ["GPTNeoXModel"],
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_hidden_layers": 1,
        "intermediate_size": 64,
        "vocab_size": 70,
    },
    "gpt_neox_seqcls": {
        "model_type": "gpt_neox",
        "architectures": ["GPTNeoXForSequenceClassification"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 1,
        "intermediate_size": 40,
        "vocab_size": 80,
        "num_labels": 3,
        "pad_token_id": 0,
    },
    # OPT: learned positions (max_position_embeddings + 2 rows), q/k/v/out_proj and fc1/fc2 with
    # enable_bias, word_embed_proj_dim projections, post-LN (no final norm), affine-free norms
    "opt_prenorm": {
        "model_type": "opt",
        "architectures": ["OPTForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "ffn_dim": 56,
        "vocab_size": 97,
        "max_position_embeddings": 24,
        "word_embed_proj_dim": 32,
    },
    "opt_proj_untied": {
        "model_type": "opt",
        "architectures": ["OPTForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "ffn_dim": 64,
        "vocab_size": 90,
        "max_position_embeddings": 16,
        "word_embed_proj_dim": 20,
        "tie_word_embeddings": False,
    },
    "opt_postln_nobias_noaffine": {
        "model_type": "opt",
        "architectures": ["OPTForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_hidden_layers": 2,
        "ffn_dim": 40,
        "vocab_size": 77,
        "max_position_embeddings": 20,
        "word_embed_proj_dim": 32,
        "do_layer_norm_before": False,
        "enable_bias": False,
        "layer_norm_elementwise_affine": False,
    },
    "opt_bare": {
        "model_type": "opt",
        "architectures": ["OPTModel"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 1,
        "ffn_dim": 48,
        "vocab_size": 60,
        "max_position_embeddings": 18,
        "word_embed_proj_dim": 16,
    },
    # Falcon: the 7B layout (multi_query, parallel_attn, one LayerNorm), the old MHA with biases
    # and serial blocks, ALiBi, and the new decoder architecture (grouped K/V, two or one norms)
    "falcon_mq_parallel": {
        "model_type": "falcon",
        "architectures": ["FalconForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "vocab_size": 97,
    },
    "falcon_mha_serial_bias_alibi": {
        "model_type": "falcon",
        "architectures": ["FalconForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 6,
        "num_hidden_layers": 2,
        "vocab_size": 88,
        "multi_query": False,
        "parallel_attn": False,
        "bias": True,
        "alibi": True,
        "ffn_hidden_size": 72,
        "tie_word_embeddings": False,
    },
    "falcon_new_arch_gqa": {
        "model_type": "falcon",
        "architectures": ["FalconForCausalLM"],
        "hidden_size": 64,
        "num_attention_heads": 8,
        "num_kv_heads": 2,
        "num_hidden_layers": 2,
        "vocab_size": 97,
        "new_decoder_architecture": True,
        "ffn_hidden_size": 100,
    },
    "falcon_new_arch_one_norm_bias": {
        "model_type": "falcon",
        "architectures": ["FalconForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_kv_heads": 4,
        "num_hidden_layers": 2,
        "vocab_size": 64,
        "new_decoder_architecture": True,
        "num_ln_in_parallel_attn": 1,
        "bias": True,
    },
    "falcon_mq_alibi_bare": {
        "model_type": "falcon",
        "architectures": ["FalconModel"],
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_hidden_layers": 1,
        "vocab_size": 50,
        "alibi": True,
    },
    # Phi (phi-2): q/k/v/dense with biases, parallel attention and MLP on one LayerNorm, partial
    # rotary, an lm_head with a bias; optional qk_layernorm and grouped K/V
    "phi_base": {
        "model_type": "phi",
        "architectures": ["PhiForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "intermediate_size": 64,
        "vocab_size": 97,
    },
    "phi_gqa_qk_layernorm_tied": {
        "model_type": "phi",
        "architectures": ["PhiForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 72,
        "vocab_size": 90,
        "qk_layernorm": True,
        "tie_word_embeddings": True,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 10000.0,
            "partial_rotary_factor": 0.5,
        },
    },
    "phi_bare_headdim": {
        "model_type": "phi",
        "architectures": ["PhiModel"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 12,
        "num_hidden_layers": 1,
        "intermediate_size": 40,
        "vocab_size": 60,
    },
    # Gemma 2: four RMSNorms per layer, local/global layers alternating (layer_types), logit
    # soft-capping (elementwise: not in FlopCounterMode's count), query_pre_attn_scalar
    "gemma2_alternating": {
        "model_type": "gemma2",
        "architectures": ["Gemma2ForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 3,
        "intermediate_size": 48,
        "vocab_size": 97,
        "sliding_window": 5,
    },
    "gemma2_layer_types_nocap_bias_untied": {
        "model_type": "gemma2",
        "architectures": ["Gemma2ForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 24,
        "num_hidden_layers": 3,
        "intermediate_size": 40,
        "vocab_size": 80,
        "sliding_window": 4,
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention"],
        "attn_logit_softcapping": None,
        "final_logit_softcapping": None,
        "query_pre_attn_scalar": 10,
        "attention_bias": True,
        "tie_word_embeddings": False,
    },
    # Gemma 3 (text): q_norm/k_norm, five local layers to one global (sliding_window_pattern)
    "gemma3_text_pattern": {
        "model_type": "gemma3_text",
        "architectures": ["Gemma3ForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 8,
        "num_hidden_layers": 7,
        "intermediate_size": 48,
        "vocab_size": 97,
        "sliding_window": 4,
    },
    "gemma3_text_pattern2_bias_untied": {
        "model_type": "gemma3_text",
        "architectures": ["Gemma3ForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 20,
        "num_hidden_layers": 4,
        "intermediate_size": 64,
        "vocab_size": 90,
        "sliding_window": 6,
        "sliding_window_pattern": 2,
        "attention_bias": True,
        "tie_word_embeddings": False,
        "final_logit_softcapping": 30.0,
    },
    "gemma3_text_bare_layer_types": {
        "model_type": "gemma3_text",
        "architectures": ["Gemma3TextModel"],
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 2,
        "intermediate_size": 40,
        "vocab_size": 60,
        "sliding_window": 3,
        "layer_types": ["full_attention", "sliding_attention"],
    },
    # Qwen2-MoE: routed experts (moe_intermediate_size), a shared expert with its sigmoid gate,
    # dense MLPs on mlp_only_layers and off the decoder_sparse_step, q/k/v biases (qkv_bias)
    "qwen2_moe_shared": {
        **_SMALL,
        "model_type": "qwen2_moe",
        "architectures": ["Qwen2MoeForCausalLM"],
        "num_hidden_layers": 2,
        "moe_intermediate_size": 16,
        "shared_expert_intermediate_size": 24,
        "num_experts": 4,
        "num_experts_per_tok": 2,
    },
    "qwen2_moe_step2_mlp_only_nobias_tied": {
        **_SMALL,
        "model_type": "qwen2_moe",
        "architectures": ["Qwen2MoeForCausalLM"],
        "num_hidden_layers": 4,
        "intermediate_size": 44,
        "moe_intermediate_size": 12,
        "shared_expert_intermediate_size": 20,
        "num_experts": 5,
        "num_experts_per_tok": 3,
        "decoder_sparse_step": 2,
        "mlp_only_layers": [3],
        "qkv_bias": False,
        "norm_topk_prob": True,
        "tie_word_embeddings": True,
    },
    "qwen2_moe_sliding": {
        **_SMALL,
        "model_type": "qwen2_moe",
        "architectures": ["Qwen2MoeForCausalLM"],
        "num_hidden_layers": 3,
        "moe_intermediate_size": 16,
        "shared_expert_intermediate_size": 16,
        "num_experts": 3,
        "num_experts_per_tok": 1,
        "use_sliding_window": True,
        "sliding_window": 5,
        "max_window_layers": 2,
    },
    # Qwen3-MoE: q_norm/k_norm, no shared expert, head_dim apart, num_experts alias
    "qwen3_moe_headdim": {
        **_SMALL,
        "model_type": "qwen3_moe",
        "architectures": ["Qwen3MoeForCausalLM"],
        "head_dim": 12,
        "moe_intermediate_size": 16,
        "num_experts": 4,
        "num_experts_per_tok": 2,
    },
    "qwen3_moe_mlp_only_bias_sliding": {
        **_SMALL,
        "model_type": "qwen3_moe",
        "architectures": ["Qwen3MoeForCausalLM"],
        "num_hidden_layers": 3,
        "intermediate_size": 40,
        "moe_intermediate_size": 10,
        "num_experts": 6,
        "num_experts_per_tok": 2,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [0],
        "attention_bias": True,
        "use_sliding_window": True,
        "sliding_window": 4,
    },
    "qwen3_moe_step3": {
        **_SMALL,
        "model_type": "qwen3_moe",
        "architectures": ["Qwen3MoeModel"],
        "num_hidden_layers": 3,
        "moe_intermediate_size": 8,
        "num_local_experts": 3,
        "num_experts_per_tok": 3,
        "decoder_sparse_step": 3,
    },
    # DeepSeek-V3: multi-head latent attention (q_lora_rank, kv_lora_rank, nope/rope/v head
    # dims; the cache holds the compressed latent), first_k_dense_replace dense layers, routed
    # experts with shared experts, group-limited routing (n_group, topk_group)
    "deepseek_v3_mla_moe": {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3ForCausalLM"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "num_hidden_layers": 3,
        "intermediate_size": 48,
        "moe_intermediate_size": 16,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_group": 2,
        "topk_group": 1,
        "n_shared_experts": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 12,
        "kv_lora_rank": 10,
        "qk_nope_head_dim": 8,
        "qk_rope_head_dim": 4,
        "v_head_dim": 6,
        "vocab_size": 97,
    },
    "deepseek_v3_no_q_lora_bias_tied": {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3ForCausalLM"],
        "hidden_size": 48,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 40,
        "moe_intermediate_size": 12,
        "n_routed_experts": 4,
        "num_experts_per_tok": 3,
        "n_group": 1,
        "topk_group": 1,
        "n_shared_experts": 2,
        "first_k_dense_replace": 0,
        "q_lora_rank": None,
        "kv_lora_rank": 16,
        "qk_nope_head_dim": 6,
        "qk_rope_head_dim": 2,
        "v_head_dim": 10,
        "attention_bias": True,
        "tie_word_embeddings": True,
        "vocab_size": 80,
    },
    "deepseek_v3_all_dense_bare": {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3Model"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "num_hidden_layers": 2,
        "intermediate_size": 36,
        "moe_intermediate_size": 8,
        "n_routed_experts": 4,
        "num_experts_per_tok": 2,
        "n_group": 2,
        "topk_group": 2,
        "first_k_dense_replace": 2,
        "q_lora_rank": 8,
        "kv_lora_rank": 6,
        "qk_nope_head_dim": 4,
        "qk_rope_head_dim": 2,
        "v_head_dim": 4,
        "vocab_size": 60,
    },
    # classifiers (the score head on OPT's word_embed_proj_dim) and Qwen2-MoE's layer_types
    # listed (the fuzzer draws configs without architectures: their *ForCausalLM)
    "opt_seqcls_proj": {
        "model_type": "opt",
        "architectures": ["OPTForSequenceClassification"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 1,
        "ffn_dim": 40,
        "vocab_size": 70,
        "max_position_embeddings": 16,
        "word_embed_proj_dim": 16,
        "num_labels": 3,
    },
    "falcon_seqcls_new_arch": {
        "model_type": "falcon",
        "architectures": ["FalconForSequenceClassification"],
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_kv_heads": 2,
        "num_hidden_layers": 1,
        "vocab_size": 70,
        "new_decoder_architecture": True,
        "pad_token_id": 0,
    },
    "deepseek_v3_seqcls": {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3ForSequenceClassification"],
        "hidden_size": 30,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "num_hidden_layers": 2,
        "intermediate_size": 40,
        "moe_intermediate_size": 8,
        "n_routed_experts": 4,
        "num_experts_per_tok": 2,
        "n_group": 2,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 6,
        "kv_lora_rank": 8,
        "qk_nope_head_dim": 4,
        "qk_rope_head_dim": 2,
        "v_head_dim": 6,
        "vocab_size": 60,
        "num_labels": 2,
        "pad_token_id": 0,
    },
    "qwen2_moe_layer_types": {
        **_SMALL,
        "model_type": "qwen2_moe",
        "architectures": ["Qwen2MoeForCausalLM"],
        "num_hidden_layers": 3,
        "moe_intermediate_size": 12,
        "shared_expert_intermediate_size": 16,
        "num_experts": 3,
        "num_experts_per_tok": 2,
        "use_sliding_window": True,
        "sliding_window": 4,
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention"],
    },
}


def hf_decoders_2():
    """The ``hf_*`` entries of HF_DECODERS_2 (same protocol as ``hf_config_entries``)."""
    hf_config_entries(HF_DECODERS_2)


#: The class counted for each family's transformers default configuration (hfdefault_* entries)
HF_DEFAULT_ARCH = {
    "gpt_neox": "GPTNeoXForCausalLM",
    "opt": "OPTForCausalLM",
    "falcon": "FalconForCausalLM",
    "phi": "PhiForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
    "gemma3_text": "Gemma3ForCausalLM",
    "qwen2_moe": "Qwen2MoeForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM",
}


def hf_default_entries():
    """Full-size parameter counts (meta device) of each issue-34 decoder family's transformers
    default configuration, ``{"model_type": ...}`` and nothing else: the sizes its config class
    ships (GPT-NeoX-20B, OPT-125m, Falcon-7B, phi-1.5, Gemma-2-2B, Qwen1.5-MoE-A2.7B,
    DeepSeek-V3, ...), i.e. what a student pasting a bare model_type gets."""
    print("transformers default configurations (params only, meta device):")
    for mt, arch in HF_DEFAULT_ARCH.items():
        raw = {"model_type": mt, "architectures": [arch]}
        m = _hf_model(raw, META)
        add(
            f"hfdefault_{mt}",
            f"transformers.{arch}(AutoConfig.for_model({mt!r})), meta device",
            raw,
            n_params(m),
            None,
            None,
            note="params only: the family's default configuration at full size",
        )
        del m


# --------------------------------------------------------------------------- HF: more families
#: Families added for issue 34 (``mlsysim.hf`` encoders, ``mlsysim.hf_extra``): DistilBERT,
#: XLM-RoBERTa, a BERT / RoBERTa without its pooler (``add_pooling_layer=False``, a constructor
#: argument: ``kwargs``), ViT and CLIP's vision tower (at the config's image size and, with
#: ``interpolate_pos_encoding=True``, at another: ``kwargs["image_size"]``).
_ENC = {
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 37,
    "vocab_size": 97,
    "max_position_embeddings": 40,
}
_VIS = {
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 37,
}
HF_EXTRA_CONFIGS = {
    "distilbert_bare": (
        {
            "model_type": "distilbert",
            "architectures": ["DistilBertModel"],
            "dim": 48,
            "n_heads": 3,
            "n_layers": 2,
            "hidden_dim": 50,
            "vocab_size": 101,
            "max_position_embeddings": 30,
        },
        {},
    ),
    "distilbert_mlm_untied": (
        {
            "model_type": "distilbert",
            "architectures": ["DistilBertForMaskedLM"],
            "dim": 32,
            "n_heads": 4,
            "n_layers": 3,
            "hidden_dim": 41,
            "vocab_size": 89,
            "tie_word_embeddings": False,
            "activation": "relu",
        },
        {},
    ),
    "distilbert_mlm_sinusoidal": (
        {
            "model_type": "distilbert",
            "architectures": ["DistilBertForMaskedLM"],
            "dim": 32,
            "n_heads": 2,
            "n_layers": 1,
            "hidden_dim": 64,
            "vocab_size": 77,
            "max_position_embeddings": 20,
            "sinusoidal_pos_embds": True,
        },
        {},
    ),
    "distilbert_seqcls_aliases": (
        {
            "model_type": "distilbert",
            "architectures": ["DistilBertForSequenceClassification"],
            "hidden_size": 32,
            "num_attention_heads": 4,
            "num_hidden_layers": 2,
            "hidden_dim": 30,
            "vocab_size": 61,
            "num_labels": 5,
        },
        {},
    ),
    "xlm_roberta_bare": (
        {**_ENC, "model_type": "xlm-roberta", "type_vocab_size": 1, "pad_token_id": 1},
        {},
    ),
    "xlm_roberta_mlm_untied": (
        {
            **_ENC,
            "model_type": "xlm-roberta",
            "architectures": ["XLMRobertaForMaskedLM"],
            "tie_word_embeddings": False,
            "pad_token_id": 3,
        },
        {},
    ),
    "xlm_roberta_seqcls": (
        {
            **_ENC,
            "model_type": "xlm-roberta",
            "architectures": ["XLMRobertaForSequenceClassification"],
            "id2label": {"0": "a", "1": "b", "2": "c"},
        },
        {},
    ),
    "bert_no_pooler": (
        {**_ENC, "model_type": "bert", "architectures": ["BertModel"], "type_vocab_size": 3},
        {"add_pooling_layer": False},
    ),
    "roberta_no_pooler": (
        {**_ENC, "model_type": "roberta", "pad_token_id": 1},
        {"add_pooling_layer": False},
    ),
    "vit_bare": (
        {**_VIS, "model_type": "vit", "image_size": 32, "patch_size": 8},
        {},
    ),
    "vit_no_pooler_noqkvbias": (
        {
            **_VIS,
            "model_type": "vit",
            "architectures": ["ViTModel"],
            "image_size": 24,
            "patch_size": 6,
            "qkv_bias": False,
            "num_channels": 1,
        },
        {"add_pooling_layer": False},
    ),
    "vit_pooler_size_rect": (
        {
            **_VIS,
            "model_type": "vit",
            "architectures": ["ViTModel"],
            "image_size": [32, 48],
            "patch_size": [8, 16],
            "pooler_output_size": 20,
            "pooler_act": "relu",
        },
        {},
    ),
    "vit_imgcls": (
        {
            **_VIS,
            "model_type": "vit",
            "architectures": ["ViTForImageClassification"],
            "image_size": 32,
            "patch_size": 4,
            "num_labels": 10,
        },
        {},
    ),
    "vit_imgcls_interpolated": (
        {
            **_VIS,
            "model_type": "vit",
            "architectures": ["ViTForImageClassification"],
            "image_size": 32,
            "patch_size": 8,
            "num_labels": 7,
        },
        {"image_size": [48, 40]},
    ),
    "clip_vision": (
        {**_VIS, "model_type": "clip_vision_model", "image_size": 32, "patch_size": 8},
        {},
    ),
    "clip_vision_projection": (
        {
            **_VIS,
            "model_type": "clip_vision_model",
            "architectures": ["CLIPVisionModelWithProjection"],
            "image_size": 30,
            "patch_size": 7,
            "projection_dim": 24,
            "num_channels": 2,
        },
        {},
    ),
    "clip_vision_interpolated": (
        {**_VIS, "model_type": "clip_vision_model", "image_size": 32, "patch_size": 8},
        {"image_size": 56},
    ),
}

VISION = ("vit", "clip_vision_model")


def _hf_extra_model(raw: dict, kwargs: dict, device):
    """Like ``_hf_model``, with the bare class's constructor argument ``add_pooling_layer``."""
    init = {k: v for k, v in kwargs.items() if k == "add_pooling_layer"}
    if not init:
        return _hf_model(raw, device)
    kw = {k: v for k, v in raw.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(raw["model_type"], attn_implementation="eager", **kw)
    cls = raw.get("architectures", [MODEL_MAPPING_NAMES[raw["model_type"]]])[0]
    with device:
        m = getattr(transformers, cls)(cfg, **init)
    assert m.config._attn_implementation == "eager"
    return m.eval()


def _hw(size, default):
    if size is None:
        size = default
    return (size, size) if isinstance(size, int) else tuple(size)


def hf_extra_entries(configs: dict | None = None):
    print("transformers, more families (encoders, vision towers):")
    for name, (raw, kwargs) in (HF_EXTRA_CONFIGS if configs is None else configs).items():
        torch.manual_seed(0)
        m = _hf_extra_model(raw, kwargs, CPU)
        p = n_params(m)
        with torch.no_grad():
            if raw["model_type"] in VISION:
                h, w = _hw(kwargs.get("image_size"), raw["image_size"])
                x = torch.randn(1, m.config.num_channels, h, w)
                interp = "image_size" in kwargs
                fl, by = count_flops(lambda: m(pixel_values=x, interpolate_pos_encoding=interp))
                shape = [1, m.config.num_channels, h, w]
                id_ = f"hf_{name}_{h}x{w}"
            else:
                s = HF_SEQ
                ids = torch.randint(5, 50, (1, s))
                fl, by = count_flops(lambda: m(input_ids=ids))
                shape = [1, s]
                id_ = f"hf_{name}_s{s}"
        cls = type(m).__name__
        add(
            id_,
            f"transformers.{cls}(config{', **kwargs' if kwargs else ''}) from "
            "AutoConfig.for_model(**config), eager",
            raw,
            p,
            fl,
            shape,
            by,
            note="config is the raw config.json dict; kwargs (when present) are "
            "mlsysim.from_hf_config's keyword arguments: add_pooling_layer is passed to the "
            "class's constructor, image_size is the input run with interpolate_pos_encoding=True",
        )
        if kwargs:
            ENTRIES[-1]["kwargs"] = kwargs


_T5 = {"model_type": "t5", "d_model": 32, "d_kv": 8, "num_heads": 4, "num_layers": 2, "d_ff": 37}
_BART = {
    "model_type": "bart",
    "d_model": 32,
    "encoder_layers": 2,
    "decoder_layers": 1,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 2,
    "encoder_ffn_dim": 37,
    "decoder_ffn_dim": 29,
    "vocab_size": 97,
    "max_position_embeddings": 40,
}
HF_SEQ2SEQ_CONFIGS = {
    "t5_lm": ({**_T5, "architectures": ["T5ForConditionalGeneration"], "vocab_size": 97}, {}),
    "t5_bare_decoder_layers": (
        {**_T5, "vocab_size": 83, "num_decoder_layers": 3, "relative_attention_num_buckets": 16},
        {},
    ),
    # t5 v1.1 / flan-t5: gated-gelu, d_kv x heads != d_model, an "untied" head (transformers 5.25
    # ties it anyway: T5Config forces tie_word_embeddings=True)
    "t5_v11_gated_untied": (
        {
            **_T5,
            "architectures": ["T5ForConditionalGeneration"],
            "vocab_size": 89,
            "d_kv": 6,
            "num_heads": 3,
            "feed_forward_proj": "gated-gelu",
            "tie_word_embeddings": False,
        },
        {},
    ),
    "t5_gated_silu_source_len": (
        {
            **_T5,
            "architectures": ["T5ForConditionalGeneration"],
            "vocab_size": 71,
            "feed_forward_proj": "gated-silu",
            "num_decoder_layers": 1,
        },
        {"source_len": 7},
    ),
    "t5_encoder_model": ({**_T5, "architectures": ["T5EncoderModel"], "vocab_size": 61}, {}),
    "bart_lm": ({**_BART, "architectures": ["BartForConditionalGeneration"]}, {}),
    "bart_lm_untied_relu": (
        {
            **_BART,
            "architectures": ["BartForConditionalGeneration"],
            "tie_word_embeddings": False,
            "activation_function": "relu",
            "decoder_layers": 2,
        },
        {},
    ),
    "bart_bare_source_len": (
        {**_BART, "architectures": ["BartModel"], "decoder_attention_heads": 8},
        {"source_len": 20},
    ),
}


def _enc_dec_cache_bytes(cache) -> int:
    """Bytes of an EncoderDecoderCache: its self-attention and cross-attention key/value tensors."""
    return _cache_bytes(cache.self_attention_cache) + _cache_bytes(cache.cross_attention_cache)


def hf_seq2seq_entries(configs: dict | None = None):
    print("transformers encoder-decoder (T5, BART):")
    for name, (raw, kwargs) in (HF_SEQ2SEQ_CONFIGS if configs is None else configs).items():
        torch.manual_seed(0)
        m = _hf_model(raw, CPU)
        p = n_params(m)
        s = HF_SEQ
        src = kwargs.get("source_len", s)
        src_ids = torch.randint(5, 50, (1, src))
        tgt = torch.randint(5, 50, (1, s))
        extra = {}
        with torch.no_grad():
            if type(m).__name__ == "T5EncoderModel":
                fl, by = count_flops(lambda: m(input_ids=tgt))
            else:
                fl, by = count_flops(
                    lambda: m(input_ids=src_ids, decoder_input_ids=tgt, use_cache=False)
                )
                # generation: the encoder once, the decoder over S-1 target tokens (filling the
                # self- and cross-attention caches), then one step for the S-th
                enc = m.get_encoder()(input_ids=src_ids)
                out = m(encoder_outputs=enc, decoder_input_ids=tgt[:, : s - 1], use_cache=True)
                cache = out.past_key_values
                dfl, dby = count_flops(
                    lambda: m(
                        encoder_outputs=enc,
                        decoder_input_ids=tgt[:, s - 1 :],
                        past_key_values=cache,
                        use_cache=True,
                    )
                )
                extra = {
                    "decode_flops": dfl,
                    "decode_flops_by_op": dby,
                    "cache_seq_length": int(cache.get_seq_length()),
                    "cross_cache_seq_length": int(cache.cross_attention_cache.get_seq_length()),
                    "kv_cache_bytes_fp32": _enc_dec_cache_bytes(cache),
                    "self_kv_cache_bytes_fp32": _cache_bytes(cache.self_attention_cache),
                }
        add(
            f"hf_{name}_s{s}",
            f"transformers.{type(m).__name__} from AutoConfig.for_model(**config), eager",
            raw,
            p,
            fl,
            [1, s],
            by,
            note="config is the raw config.json dict; flops: one forward pass over source_len "
            "source tokens (kwargs; else S) and S target tokens (use_cache=False); decode_*: the "
            "encoder run once, the decoder over S-1 target tokens with the cache, then one step "
            "for the S-th (encoder not re-run); kv_cache_bytes_fp32: every key/value tensor of the "
            "EncoderDecoderCache (self-attention S tokens + cross-attention source_len tokens)",
        )
        ENTRIES[-1].update(extra)
        if kwargs:
            ENTRIES[-1]["kwargs"] = kwargs


_MAMBA = {"model_type": "mamba", "hidden_size": 32, "num_hidden_layers": 2, "vocab_size": 97}
HF_MAMBA_CONFIGS = {
    "mamba_lm": {**_MAMBA, "architectures": ["MambaForCausalLM"], "state_size": 8},
    "mamba_bare_biases_rank": {
        **_MAMBA,
        "architectures": ["MambaModel"],
        "use_bias": True,
        "use_conv_bias": False,
        "time_step_rank": 5,
        "conv_kernel": 3,
    },
    "mamba_lm_untied_expand3": {
        **_MAMBA,
        "architectures": ["MambaForCausalLM"],
        "hidden_size": 24,
        "num_hidden_layers": 3,
        "expand": 3,
        "state_size": 4,
        "conv_kernel": 5,
        "tie_word_embeddings": False,
    },
    "mamba_no_architectures": {**_MAMBA, "state_size": 6, "hidden_size": 40},
}


def _state_bytes(cache) -> int:
    """Bytes of a Mamba cache: every layer's conv and recurrent (SSM) state tensors."""
    total = 0
    for layer in cache.layers:
        for states in (layer.conv_states, layer.recurrent_states):
            for t in states.values():
                total += t.numel() * t.element_size()
    return total


def hf_mamba_entries(configs: dict | None = None):
    """Mamba on transformers' slow (non-CUDA) path. Run with grad enabled: under no_grad the
    FlopCounterMode module tracker trips over the mixer's kernel wrappers."""
    print("transformers Mamba (state-space):")
    for name, raw in (HF_MAMBA_CONFIGS if configs is None else configs).items():
        torch.manual_seed(0)
        if raw.get("architectures"):
            m = _hf_model(raw, CPU)
        else:  # a decoder without architectures: its *ForCausalLM (from_hf_config's rule)
            kw = {k: v for k, v in raw.items() if k != "model_type"}
            cfg = transformers.AutoConfig.for_model(raw["model_type"], **kw)
            m = transformers.AutoModelForCausalLM.from_config(cfg).eval()
        p = n_params(m)
        s = HF_SEQ
        ids = torch.randint(5, 50, (1, s))
        fl, by = count_flops(lambda: m(input_ids=ids, use_cache=False))
        cache = m(input_ids=ids[:, : s - 1], use_cache=True).past_key_values
        dfl, dby = count_flops(
            lambda: m(input_ids=ids[:, s - 1 :], past_key_values=cache, use_cache=True)
        )
        add(
            f"hf_{name}_s{s}",
            f"transformers.{type(m).__name__} from AutoConfig.for_model(**config), slow path "
            "(no CUDA kernels)",
            raw,
            p,
            fl,
            [1, s],
            by,
            note="config is the raw config.json dict; flops: one forward over S tokens "
            "(use_cache=False); decode_*: one step after a prompt of S-1 tokens; "
            "state_bytes_fp32: every conv and recurrent state tensor of the cache after that step "
            "(fixed size: no tensor grows with S)",
        )
        ENTRIES[-1].update(
            decode_flops=dfl,
            decode_flops_by_op=dby,
            state_bytes_fp32=_state_bytes(cache),
        )


# --------------------------------------------------------------------------- one field at a time
#: A base config per family and, per field from_hf_config reads that changes a count, the value a
#: variant gives it (only that field differs from the base). The base's sizes are pairwise
#: different (hidden 24, heads 4, KV heads 2, layers 3, MLP 40, vocab 101) and each flag has a
#: variant of its own, so a field read from another field's key counts another number on one
#: side of a pair (issue 38).
_FIELD_BASE = {
    "hidden_size": 24,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 3,
    "intermediate_size": 40,
    "vocab_size": 101,
    "max_position_embeddings": 64,
    "pad_token_id": 0,
}


_FIELD_SIZES = {
    "hidden_size": 32,  # (RoPE needs an even head_dim: 32 / 4)
    "num_hidden_layers": 2,
    "intermediate_size": 44,
    "vocab_size": 89,
}


_FIELD_DECODER = {
    **_FIELD_SIZES,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 10,
    "tie_word_embeddings": True,
}


HF_FIELD_PAIRS = {
    "gpt2": (
        {
            "model_type": "gpt2",
            "architectures": ["GPT2LMHeadModel"],
            "n_embd": 24,
            "n_layer": 3,
            "n_head": 4,
            "vocab_size": 101,
            "n_positions": 64,
        },
        {
            "n_embd": 28,
            "n_layer": 2,
            "n_inner": 40,
            "vocab_size": 89,
            "n_positions": 32,
            "tie_word_embeddings": False,
            "sliding_window": 5,
        },
    ),
    "bert": (
        {
            **{k: v for k, v in _FIELD_BASE.items() if k != "num_key_value_heads"},
            "model_type": "bert",
            "architectures": ["BertForMaskedLM"],
        },
        {
            **_FIELD_SIZES,
            "max_position_embeddings": 32,
            "type_vocab_size": 3,
            "tie_word_embeddings": False,
        },
    ),
    "roberta": (
        {
            **{k: v for k, v in _FIELD_BASE.items() if k != "num_key_value_heads"},
            "model_type": "roberta",
            "architectures": ["RobertaForMaskedLM"],
            "pad_token_id": 1,
        },
        {
            **_FIELD_SIZES,
            "max_position_embeddings": 32,
            "type_vocab_size": 1,
            "tie_word_embeddings": False,
        },
    ),
    "llama": (
        {**_FIELD_BASE, "model_type": "llama", "architectures": ["LlamaForCausalLM"]},
        {
            **_FIELD_DECODER,
            "attention_bias": True,
            "mlp_bias": True,
            "sliding_window": 5,
            "attention_chunk_size": 7,
        },
    ),
    "mistral": (
        {**_FIELD_BASE, "model_type": "mistral", "architectures": ["MistralForCausalLM"]},
        {**_FIELD_DECODER, "sliding_window": 5},
    ),
    "qwen2": (
        {
            **_FIELD_BASE,
            "model_type": "qwen2",
            "architectures": ["Qwen2ForCausalLM"],
            "use_sliding_window": True,
            "sliding_window": 5,
            "max_window_layers": 1,
        },
        {
            **_FIELD_DECODER,
            "use_sliding_window": False,
            "sliding_window": 7,
            "max_window_layers": 2,
        },
    ),
    "qwen3": (
        {
            **_FIELD_BASE,
            "model_type": "qwen3",
            "architectures": ["Qwen3ForCausalLM"],
            "head_dim": 10,
            "sliding_window": 5,
            "max_window_layers": 1,
        },
        {**_FIELD_DECODER, "head_dim": 6, "attention_bias": True, "use_sliding_window": True},
    ),
    "gemma": (
        {
            **_FIELD_BASE,
            "model_type": "gemma",
            "architectures": ["GemmaForCausalLM"],
            "head_dim": 10,
        },
        {
            **_FIELD_DECODER,
            "head_dim": 6,
            "tie_word_embeddings": False,
            "attention_bias": True,
            "sliding_window": 5,
        },
    ),
    "phi3": (
        {**_FIELD_BASE, "model_type": "phi3", "architectures": ["Phi3ForCausalLM"]},
        {**_FIELD_DECODER, "sliding_window": 5},
    ),
    "mixtral": (
        {
            **_FIELD_BASE,
            "model_type": "mixtral",
            "architectures": ["MixtralForCausalLM"],
            "num_local_experts": 4,
            "num_experts_per_tok": 2,
        },
        {**_FIELD_DECODER, "num_local_experts": 3, "num_experts_per_tok": 1, "sliding_window": 5},
    ),
}


#: issue 34's families (their fields from mlsysim/hf.py _spec / _decoder / _encoder): a field
#: that changes no count in transformers (a head count with head_dim derived, ALiBi, partial
#: rotary, soft-capping, expert grouping) has no pair; one a base makes dead (Falcon's
#: num_kv_heads and num_ln_in_parallel_attn need the new architecture, multi_query the old) is
#: varied where the base makes it live
_NO_KV = {k: v for k, v in _FIELD_BASE.items() if k != "num_key_value_heads"}
HF_FIELD_PAIRS_34 = {
    "gpt_neox": (
        {**_NO_KV, "model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"]},
        {**_FIELD_SIZES, "tie_word_embeddings": True, "attention_bias": False, "sliding_window": 5},
    ),
    "opt": (
        {
            **_NO_KV,
            "model_type": "opt",
            "architectures": ["OPTForCausalLM"],
            "ffn_dim": 40,
            "word_embed_proj_dim": 24,
        },
        {
            **{k: v for k, v in _FIELD_SIZES.items() if k != "intermediate_size"},
            "hidden_size": 28,
            "ffn_dim": 44,
            "max_position_embeddings": 32,
            "word_embed_proj_dim": 16,
            "enable_bias": False,
            "layer_norm_elementwise_affine": False,
            "do_layer_norm_before": False,
            "_remove_final_layer_norm": True,
            "tie_word_embeddings": False,
            "sliding_window": 5,
        },
    ),
    "falcon": (
        {
            **{k: v for k, v in _NO_KV.items() if k != "intermediate_size"},
            "model_type": "falcon",
            "architectures": ["FalconForCausalLM"],
        },
        {
            **{k: v for k, v in _FIELD_SIZES.items() if k != "intermediate_size"},
            "num_attention_heads": 2,
            "ffn_hidden_size": 44,
            "multi_query": False,
            "parallel_attn": False,
            "new_decoder_architecture": True,
            "bias": True,
            "tie_word_embeddings": False,
            "sliding_window": 5,
        },
    ),
    "falcon_new": (
        {
            **{k: v for k, v in _FIELD_BASE.items() if k != "intermediate_size"},
            "model_type": "falcon",
            "architectures": ["FalconForCausalLM"],
            "new_decoder_architecture": True,
            "num_kv_heads": 2,
        },
        {"num_kv_heads": 1, "num_ln_in_parallel_attn": 1},
    ),
    "phi": (
        {
            **_FIELD_BASE,
            "hidden_size": 32,
            "model_type": "phi",
            "architectures": ["PhiForCausalLM"],
        },
        {
            **{k: v for k, v in _FIELD_SIZES.items() if k != "hidden_size"},
            "hidden_size": 48,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "head_dim": 12,
            "tie_word_embeddings": True,
            "qk_layernorm": True,
            "sliding_window": 5,
        },
    ),
    "gemma2": (
        {
            **_FIELD_BASE,
            "model_type": "gemma2",
            "architectures": ["Gemma2ForCausalLM"],
            "head_dim": 10,
            "sliding_window": 5,
        },
        {
            **_FIELD_DECODER,
            "head_dim": 6,
            "tie_word_embeddings": False,
            "attention_bias": True,
            "sliding_window": 7,
        },
    ),
    "gemma3_text": (
        {
            **_FIELD_BASE,
            "model_type": "gemma3_text",
            "architectures": ["Gemma3ForCausalLM"],
            "head_dim": 10,
            "sliding_window": 5,
        },
        {
            **_FIELD_DECODER,
            "head_dim": 6,
            "tie_word_embeddings": False,
            "attention_bias": True,
            "sliding_window": 7,
            "sliding_window_pattern": 2,
        },
    ),
    "qwen2_moe": (
        {
            **_FIELD_BASE,
            "model_type": "qwen2_moe",
            "architectures": ["Qwen2MoeForCausalLM"],
            "num_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 16,
            "shared_expert_intermediate_size": 20,
            "mlp_only_layers": [1],
            "use_sliding_window": True,
            "sliding_window": 5,
            "max_window_layers": 1,
        },
        {
            **_FIELD_DECODER,
            "num_experts": 3,
            "num_experts_per_tok": 1,
            "moe_intermediate_size": 12,
            "shared_expert_intermediate_size": 28,
            "mlp_only_layers": [],
            "decoder_sparse_step": 2,
            "qkv_bias": False,
            "use_sliding_window": False,
            "sliding_window": 7,
            "max_window_layers": 3,
        },
    ),
    "qwen3_moe": (
        {
            **_FIELD_BASE,
            "model_type": "qwen3_moe",
            "architectures": ["Qwen3MoeForCausalLM"],
            "head_dim": 10,
            "num_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 16,
            "mlp_only_layers": [1],
            "use_sliding_window": True,
            "sliding_window": 5,
        },
        {
            **_FIELD_DECODER,
            "head_dim": 6,
            "attention_bias": True,
            "num_experts": 3,
            "num_experts_per_tok": 1,
            "moe_intermediate_size": 12,
            "mlp_only_layers": [],
            "decoder_sparse_step": 2,
            "use_sliding_window": False,
            "sliding_window": 7,
        },
    ),
    "deepseek_v3": (
        {
            **{k: v for k, v in _FIELD_BASE.items() if k != "num_key_value_heads"},
            "num_key_value_heads": 4,
            "model_type": "deepseek_v3",
            "architectures": ["DeepseekV3ForCausalLM"],
            "moe_intermediate_size": 16,
            "n_routed_experts": 8,
            "num_experts_per_tok": 2,
            "n_group": 2,
            "topk_group": 1,
            "n_shared_experts": 1,
            "first_k_dense_replace": 1,
            "q_lora_rank": 12,
            "kv_lora_rank": 10,
            "qk_nope_head_dim": 8,
            "qk_rope_head_dim": 4,
            "v_head_dim": 6,
        },
        {
            **_FIELD_SIZES,
            "moe_intermediate_size": 12,
            "n_routed_experts": 4,
            "num_experts_per_tok": 1,
            "n_shared_experts": 2,
            "first_k_dense_replace": 2,
            "q_lora_rank": None,
            "kv_lora_rank": 14,
            "qk_nope_head_dim": 6,
            "qk_rope_head_dim": 2,
            "v_head_dim": 10,
            "tie_word_embeddings": True,
            "attention_bias": True,
        },
    ),
    "distilbert": (
        {
            "model_type": "distilbert",
            "architectures": ["DistilBertForMaskedLM"],
            "dim": 24,
            "n_heads": 4,
            "n_layers": 3,
            "hidden_dim": 40,
            "vocab_size": 101,
            "max_position_embeddings": 64,
            "pad_token_id": 0,
        },
        {
            "dim": 32,
            "n_layers": 2,
            "hidden_dim": 44,
            "vocab_size": 89,
            "max_position_embeddings": 32,
            "tie_word_embeddings": False,
        },
    ),
    "xlm-roberta": (
        {
            **_NO_KV,
            "model_type": "xlm-roberta",
            "architectures": ["XLMRobertaForMaskedLM"],
            "pad_token_id": 1,
        },
        {
            **_FIELD_SIZES,
            "max_position_embeddings": 32,
            "type_vocab_size": 1,
            "tie_word_embeddings": False,
        },
    ),
}
HF_FIELD_PAIRS_34_OTHER = {
    "vit": (
        {
            "model_type": "vit",
            "architectures": ["ViTModel"],
            "hidden_size": 24,
            "num_attention_heads": 4,
            "num_hidden_layers": 3,
            "intermediate_size": 40,
            "image_size": 24,
            "patch_size": 6,
            "num_channels": 3,
        },
        {
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "intermediate_size": 44,
            "image_size": 30,
            "patch_size": 4,
            "num_channels": 2,
            "qkv_bias": False,
            "pooler_output_size": 20,
        },
    ),
    "clip_vision_model": (
        {
            "model_type": "clip_vision_model",
            "architectures": ["CLIPVisionModelWithProjection"],
            "hidden_size": 24,
            "num_attention_heads": 4,
            "num_hidden_layers": 3,
            "intermediate_size": 40,
            "image_size": 24,
            "patch_size": 6,
            "num_channels": 3,
            "projection_dim": 16,
        },
        {
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "intermediate_size": 44,
            "image_size": 30,
            "patch_size": 4,
            "num_channels": 2,
            "projection_dim": 20,
        },
    ),
    "t5": (
        {
            "model_type": "t5",
            "architectures": ["T5ForConditionalGeneration"],
            "d_model": 24,
            "d_kv": 6,
            "num_heads": 4,
            "num_layers": 2,
            "d_ff": 40,
            "vocab_size": 101,
            "relative_attention_num_buckets": 8,
        },
        {
            "d_model": 32,
            "d_kv": 8,
            "num_heads": 3,
            "num_layers": 3,
            "num_decoder_layers": 1,
            "d_ff": 44,
            "vocab_size": 89,
            "relative_attention_num_buckets": 16,
            "feed_forward_proj": "gated-gelu",
        },
    ),
    "bart": (
        {
            "model_type": "bart",
            "architectures": ["BartForConditionalGeneration"],
            "d_model": 24,
            "encoder_layers": 2,
            "decoder_layers": 3,
            "encoder_attention_heads": 4,
            "decoder_attention_heads": 2,
            "encoder_ffn_dim": 40,
            "decoder_ffn_dim": 36,
            "vocab_size": 101,
            "max_position_embeddings": 64,
        },
        {
            "d_model": 32,
            "encoder_layers": 1,
            "decoder_layers": 2,
            "encoder_ffn_dim": 44,
            "decoder_ffn_dim": 28,
            "vocab_size": 89,
            "max_position_embeddings": 32,
            "tie_word_embeddings": False,
        },
    ),
    "mamba": (
        {
            "model_type": "mamba",
            "architectures": ["MambaForCausalLM"],
            "hidden_size": 24,
            "num_hidden_layers": 3,
            "vocab_size": 101,
            "state_size": 8,
        },
        {
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "vocab_size": 89,
            "state_size": 6,
            "expand": 3,
            "conv_kernel": 3,
            "time_step_rank": 5,
            "use_bias": True,
            "use_conv_bias": False,
            "tie_word_embeddings": False,
        },
    ),
}
HF_FIELD_PAIRS = {**HF_FIELD_PAIRS, **HF_FIELD_PAIRS_34, **HF_FIELD_PAIRS_34_OTHER}


def _field_pairs_other(family: str, base: dict, fields: dict) -> None:
    """Vision towers, encoder-decoders and Mamba: each config measured as its family's own
    fixtures are (hf_extra_entries: an image; hf_seq2seq_entries: source and target tokens, the
    encoder-decoder cache; hf_mamba_entries: the conv and SSM state)."""
    mt = base["model_type"]
    base_id = None
    for field, value in [(None, None), *fields.items()]:
        raw = dict(base) if field is None else {**base, field: value}
        name = f"field_{family}_{'base' if field is None else field}"
        if mt in VISION:
            hf_extra_entries({name: (raw, {})})
        elif mt == "mamba":
            hf_mamba_entries({name: raw})
        else:
            hf_seq2seq_entries({name: (raw, {})})
        e = ENTRIES[-1]
        e["note"] += f"; the {family} base config" + (
            "" if field is None else f" with only {field} = {value!r} changed"
        )
        if field is None:
            base_id = e["id"]
        else:
            e["field_pair"] = {"family": mt, "field": field, "value": value, "base": base_id}


def hf_field_pairs(pairs=None):
    """``hf_field_<family>_base_s12`` and ``hf_field_<family>_<field>_s12``: the base config
    of each family and one variant per field (only that field differs), measured like
    ``hf_config_entries`` (params, prefill FLOPs, decode FLOPs, the cache's bytes). Each variant
    carries ``field_pair`` = {family, field, value, base}."""
    print("transformers, one field changed at a time:")
    s = HF_SEQ
    for family, (base, fields) in (pairs or HF_FIELD_PAIRS).items():
        if base["model_type"] in (*VISION, "t5", "bart", "mamba"):
            _field_pairs_other(family, base, fields)
            continue
        for field, value in [(None, None), *fields.items()]:
            raw = dict(base) if field is None else {**base, field: value}
            torch.manual_seed(0)
            m = _hf_model(raw, CPU)
            ids = torch.randint(5, 50, (1, s))
            extra = {}
            with torch.no_grad():
                if _is_encoder(m):
                    fl, by = count_flops(lambda m=m, ids=ids: m(input_ids=ids))
                else:
                    fl, by = count_flops(lambda m=m, ids=ids: m(input_ids=ids, use_cache=False))
                    out = m(input_ids=ids[:, : s - 1], use_cache=True)
                    cache = out.past_key_values
                    dfl, dby = count_flops(
                        lambda m=m, ids=ids, cache=cache: m(
                            input_ids=ids[:, s - 1 :], past_key_values=cache, use_cache=True
                        )
                    )
                    extra = {
                        "decode_flops": dfl,
                        "decode_flops_by_op": dby,
                        "cache_seq_length": int(cache.get_seq_length()),
                        "kv_cache_bytes_fp32": _cache_bytes(cache),
                    }
            name = "base" if field is None else field
            add(
                f"hf_field_{family}_{name}_s{s}",
                f"transformers.{raw['architectures'][0]} from AutoConfig.for_model(**config), "
                f"eager; transformers {transformers.__version__}, torch {torch.__version__}",
                raw,
                n_params(m),
                fl,
                [1, s],
                by,
                note=f"the {family} base config"
                + ("" if field is None else f" with only {field} = {value!r} changed")
                + "; decode_* and kv_cache_bytes_fp32 as in the other hf_* entries",
            )
            ENTRIES[-1].update(extra)
            if field is not None:
                ENTRIES[-1]["field_pair"] = {
                    "family": raw["model_type"],
                    "field": field,
                    "value": value,
                    "base": f"hf_field_{family}_base_s{s}",
                }
            del m


def shipped_config_entries():
    """Parameter counts (meta device) of mlsysim's shipped configurations."""
    print("shipped configs (params only, meta device):")
    cfg_dir = HERE.parent.parent / "mlsysim" / "configs"
    for path in sorted(cfg_dir.glob("*.json")):
        raw = json.loads(path.read_text())["config"]
        m = _hf_model(raw, META)
        add(
            f"shipped_{path.stem}",
            f"transformers.{raw['architectures'][0]}, mlsysim/configs/{path.name}",
            {"shipped": path.stem},
            n_params(m),
            None,
            None,
            note="params only",
        )
        del m


def variant_entries():
    print("torchvision variants:")
    for id_, arch, kw, shape in [
        ("resnext50_32x4d", "resnext50_32x4d", {}, [1, 3, 224, 224]),
        ("resnext101_64x4d", "resnext101_64x4d", {}, [1, 3, 224, 224]),
        ("wide_resnet50_2", "wide_resnet50_2", {}, [1, 3, 224, 224]),
        ("resnet50_h224_w320", "resnet50", {}, [1, 3, 224, 320]),
        ("resnet18_h160_w96", "resnet18", {}, [1, 3, 160, 96]),
        ("mobilenet_v2_h160_w224", "mobilenet_v2", {}, [1, 3, 160, 224]),
    ]:
        m = tv_model(arch, META, **kw)
        fl, by = tv_flops(m, shape, META)
        add(
            id_,
            f"torchvision.models.{arch}(weights=None)",
            {"arch": arch, "num_classes": 1000},
            n_params(m),
            fl,
            shape,
            by,
        )


# --------------------------------------------------------------------------- torchvision zoo
#: The families mlsysim.vision builds, each at its default size and at least one other input
#: size, class count (and batch): (id, arch, constructor kwargs, input shape)
ZOO = [
    ("tv_alexnet", "alexnet", {}, [1, 3, 224, 224]),
    ("tv_alexnet_h100_w300_c10_b2", "alexnet", {"num_classes": 10}, [2, 3, 100, 300]),
    *(
        (f"tv_{a}", a, {}, [1, 3, 224, 224])
        for a in [
            "vgg11",
            "vgg11_bn",
            "vgg13",
            "vgg13_bn",
            "vgg16",
            "vgg16_bn",
            "vgg19",
            "vgg19_bn",
        ]
    ),
    ("tv_vgg16_bn_h64_w96_c7", "vgg16_bn", {"num_classes": 7}, [1, 3, 64, 96]),
    *(
        (f"tv_{a}", a, {}, [1, 3, 224, 224])
        for a in ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]
    ),
    (
        "tv_vit_b_16_i384_c10_b2",
        "vit_b_16",
        {"image_size": 384, "num_classes": 10},
        [2, 3, 384, 384],
    ),
    ("tv_vit_l_32_i160_c5", "vit_l_32", {"image_size": 160, "num_classes": 5}, [1, 3, 160, 160]),
    *(
        (f"tv_{a}", a, {}, [1, 3, 224, 224])
        for a in ["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"]
    ),
    ("tv_convnext_tiny_h97_w161_c5", "convnext_tiny", {"num_classes": 5}, [1, 3, 97, 161]),
    *((f"tv_efficientnet_b{i}", f"efficientnet_b{i}", {}, [1, 3, 224, 224]) for i in range(8)),
    ("tv_efficientnet_b3_h150_w97_c10", "efficientnet_b3", {"num_classes": 10}, [1, 3, 150, 97]),
    ("tv_efficientnet_b4_r380", "efficientnet_b4", {}, [1, 3, 380, 380]),
    *(
        (f"tv_{a}", a, {}, [1, 3, 224, 224])
        for a in ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]
    ),
    (
        "tv_efficientnet_v2_s_r384_c100_b2",
        "efficientnet_v2_s",
        {"num_classes": 100},
        [2, 3, 384, 384],
    ),
    ("tv_mobilenet_v3_large", "mobilenet_v3_large", {}, [1, 3, 224, 224]),
    ("tv_mobilenet_v3_small", "mobilenet_v3_small", {}, [1, 3, 224, 224]),
    (
        "tv_mobilenet_v3_small_w0.75_h64_w200_c17_b2",
        "mobilenet_v3_small",
        {"width_mult": 0.75, "num_classes": 17},
        [2, 3, 64, 200],
    ),
    (
        "tv_mobilenet_v3_large_w1.37_r97_c17",
        "mobilenet_v3_large",
        {"width_mult": 1.37, "num_classes": 17},
        [1, 3, 97, 97],
    ),
    *(
        (f"tv_{a}", a, {}, [1, 3, 224, 224])
        for a in ["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]
    ),
    ("tv_swin_b_h100_w170_c10", "swin_b", {"num_classes": 10}, [1, 3, 100, 170]),
    ("tv_swin_v2_s_r97_c5_b2", "swin_v2_s", {"num_classes": 5}, [2, 3, 97, 97]),
    *(
        (f"tv_regnet_{v}", f"regnet_{v}", {}, [1, 3, 224, 224])
        for v in [
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
        ]
    ),
    ("tv_regnet_y_400mf_h97_w150_c3", "regnet_y_400mf", {"num_classes": 3}, [1, 3, 97, 150]),
    ("tv_regnet_x_8gf_r160_c10", "regnet_x_8gf", {"num_classes": 10}, [1, 3, 160, 160]),
    ("tv_inception_v3", "inception_v3", {}, [1, 3, 299, 299]),
    (
        "tv_inception_v3_noaux_h120_w200_c10",
        "inception_v3",
        {"aux_logits": False, "num_classes": 10},
        [1, 3, 120, 200],
    ),
    ("tv_inception_v3_r75_c10", "inception_v3", {"num_classes": 10}, [1, 3, 75, 75]),
    ("tv_googlenet", "googlenet", {}, [1, 3, 224, 224]),
    ("tv_googlenet_noaux", "googlenet", {"aux_logits": False}, [1, 3, 224, 224]),
    ("tv_googlenet_h97_w150_c10_b2", "googlenet", {"num_classes": 10}, [2, 3, 97, 150]),
]


def tv_zoo_model(arch, **kw):
    """torchvision ``arch(weights=None, **kw)`` on the meta device, in eval mode. RegNet's
    ``BlockParams.from_init_params`` quantizes widths with real tensors (``.tolist()``), so it
    runs on the CPU; Inception v3 and GoogLeNet are built with ``init_weights=False`` (their
    scipy-era init is slow and changes no count)."""
    import torchvision.models.regnet as regnet

    orig = regnet.BlockParams.from_init_params.__func__

    def on_cpu(cls, *a, **k):
        with torch.device("cpu"):
            return orig(cls, *a, **k)

    if arch in ("inception_v3", "googlenet"):
        kw = {"init_weights": False, **kw}
    regnet.BlockParams.from_init_params = classmethod(on_cpu)
    try:
        with META:
            m = getattr(torchvision.models, arch)(weights=None, **kw)
    finally:
        regnet.BlockParams.from_init_params = classmethod(orig)
    return m.eval()


def torchvision_zoo():
    """AlexNet, VGG (±BN), ViT, ConvNeXt, EfficientNet B0-B7 / V2, MobileNetV3, Swin v1/v2,
    RegNet X/Y, Inception v3 and GoogLeNet (mlsysim.vision), whole models on the meta device."""
    print("torchvision zoo:")
    for id_, arch, kw, shape in ZOO:
        m = tv_zoo_model(arch, **kw)
        fl, by = tv_flops(m, shape, META)
        add(
            id_,
            f"torchvision.models.{arch}(weights=None"
            + "".join(f", {k}={v!r}" for k, v in kw.items())
            + ")",
            {"arch": arch, "num_classes": kw.get("num_classes", 1000), "kwargs": kw},
            n_params(m),
            fl,
            shape,
            by,
            note="eval mode: the auxiliary classifiers hold params but run only in training"
            if arch in ("inception_v3", "googlenet") and kw.get("aux_logits", True)
            else None,
        )
        del m


# --------------------------------------------------------------------------- single layers
def layer_entry(id_, cls, kwargs, input_shape, make_call=None, flops=True, note=None):
    torch.manual_seed(0)
    m = cls(**kwargs).eval()
    fl = by = None
    if flops:
        x = torch.randn(*input_shape)
        call = make_call(m, x) if make_call else (lambda: m(x))
        fl, by = count_flops(call)
    src = f"torch.nn.{cls.__name__}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    add(id_, src, kwargs, n_params(m), fl, input_shape if flops else None, by, note)


def layer_entries():
    print("torch.nn layers:")
    L = layer_entry
    L("dense_784_128", nn.Linear, dict(in_features=784, out_features=128, bias=True), [1, 784])
    L(
        "dense_2048_2048_nobias",
        nn.Linear,
        dict(in_features=2048, out_features=2048, bias=False),
        [1, 2048],
    )
    L("dense_784_128_b32", nn.Linear, dict(in_features=784, out_features=128, bias=True), [32, 784])

    def conv(in_c, out_c, k, stride=1, padding=0, groups=1, bias=True):
        return dict(
            in_channels=in_c,
            out_channels=out_c,
            kernel_size=k,
            stride=stride,
            padding=padding,
            groups=groups,
            bias=bias,
        )

    L("conv_3_64_k3_224_p1", nn.Conv2d, conv(3, 64, 3, padding=1), [1, 3, 224, 224])
    L(
        "conv_64_64_k3_56_p1_nobias",
        nn.Conv2d,
        conv(64, 64, 3, padding=1, bias=False),
        [1, 64, 56, 56],
    )
    L(
        "conv_3_64_k7_224_s2_p3_nobias",
        nn.Conv2d,
        conv(3, 64, 7, stride=2, padding=3, bias=False),
        [1, 3, 224, 224],
    )
    L(
        "conv_dw_32_k3_112_s2_p1",
        nn.Conv2d,
        conv(32, 32, 3, stride=2, padding=1, groups=32, bias=False),
        [1, 32, 112, 112],
    )
    L("conv_32_64_k3_28_g4", nn.Conv2d, conv(32, 64, 3, groups=4), [1, 32, 28, 28])
    L("conv_64_128_k1_56", nn.Conv2d, conv(64, 128, 1), [1, 64, 56, 56])

    # Recurrent layers: batch_first=False, so input is [seq_len=10, batch=1, input_size].
    rnn_note = (
        "input [seq_len=10, batch=1, features]; FlopCounterMode counts the decomposed "
        "input-to-hidden and hidden-to-hidden matmuls (CPU, oneDNN off); gate math not counted"
    )
    L("rnn_100_128", nn.RNN, dict(input_size=100, hidden_size=128), [10, 1, 100], note=rnn_note)
    L("lstm_100_128", nn.LSTM, dict(input_size=100, hidden_size=128), [10, 1, 100], note=rnn_note)
    L("gru_100_128", nn.GRU, dict(input_size=100, hidden_size=128), [10, 1, 100], note=rnn_note)
    L(
        "lstm_100_128_l2_bi",
        nn.LSTM,
        dict(input_size=100, hidden_size=128, num_layers=2, bidirectional=True),
        [10, 1, 100],
        note=rnn_note,
    )

    L(
        "mha_768_12",
        nn.MultiheadAttention,
        dict(embed_dim=768, num_heads=12, batch_first=True),
        [1, 128, 768],
        make_call=lambda m, x: lambda: m(x, x, x, need_weights=False),
        note="self-attention q=k=v=x, need_weights=False, math SDPA; in/out projections + QK^T + AV",
    )
    L(
        "encoder_layer_768_12_3072",
        nn.TransformerEncoderLayer,
        dict(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True),
        [1, 128, 768],
        note="eval mode, grad enabled (no fused fast path), math SDPA",
    )

    # Bare SDPA (no parameters).
    for s in (512, 1024):
        shape = [1, 12, s, 64]
        torch.manual_seed(0)
        q, k, v = (torch.randn(*shape) for _ in range(3))
        fl, by = count_flops(lambda: F.scaled_dot_product_attention(q, k, v))
        add(
            f"sdpa_h12_s{s}_d64",
            "torch.nn.functional.scaled_dot_product_attention(q, k, v) [math backend]",
            {"batch": 1, "num_heads": 12, "seq_len": s, "head_dim": 64, "is_causal": False},
            0,
            fl,
            shape,
            by,
            note="input_shape is the shape of each of q, k, v",
        )

    L(
        "conv_16_32_k3_40x56_d2_p2",
        nn.Conv2d,
        dict(conv(16, 32, 3, padding=2), dilation=2),
        [1, 16, 40, 56],
    )
    L(
        "conv_8_8_k3_33x21_d3_s2_g2",
        nn.Conv2d,
        dict(conv(8, 8, 3, stride=2, groups=2), dilation=3),
        [1, 8, 33, 21],
    )
    L(
        "lstm_100_128_proj32_l2_bi",
        nn.LSTM,
        dict(input_size=100, hidden_size=128, num_layers=2, bidirectional=True, proj_size=32),
        [10, 1, 100],
        note=rnn_note,
    )
    L(
        "mha_cross_64_4_kdim32_vdim48",
        nn.MultiheadAttention,
        dict(embed_dim=64, num_heads=4, kdim=32, vdim=48, batch_first=True),
        [1, 10, 64],
        make_call=lambda m, x: (
            lambda: m(x, torch.randn(1, 50, 32), torch.randn(1, 50, 48), need_weights=False)
        ),
        note="cross-attention: query [1, 10, 64], key [1, 50, 32], value [1, 50, 48] (source length 50)",
    )
    ENTRIES[-1]["source_shape"] = [1, 50, 32]
    L(
        "mha_cross_64_8_src37",
        nn.MultiheadAttention,
        dict(embed_dim=64, num_heads=8, batch_first=True),
        [1, 5, 64],
        make_call=lambda m, x: (
            lambda: m(x, torch.randn(1, 37, 64), torch.randn(1, 37, 64), need_weights=False)
        ),
        note="cross-attention: query [1, 5, 64], key = value [1, 37, 64] (source length 37)",
    )
    ENTRIES[-1]["source_shape"] = [1, 37, 64]
    L(
        "encoder_layer_nobias_256_4_512",
        nn.TransformerEncoderLayer,
        dict(d_model=256, nhead=4, dim_feedforward=512, batch_first=True, bias=False),
        [1, 16, 256],
        note="bias=False: no bias in Linear layers nor LayerNorms; eval mode, grad enabled, math SDPA",
    )

    norm_note = "params only (FlopCounterMode counts 0 FLOPs for this op)"
    L(
        "embedding_30522_768",
        nn.Embedding,
        dict(num_embeddings=30522, embedding_dim=768),
        None,
        flops=False,
        note=norm_note,
    )
    L("layernorm_768", nn.LayerNorm, dict(normalized_shape=768), None, flops=False, note=norm_note)
    L(
        "batchnorm_64",
        nn.BatchNorm2d,
        dict(num_features=64),
        None,
        flops=False,
        note=norm_note + "; running_mean/var/num_batches_tracked are buffers, not parameters",
    )
    L("rmsnorm_768", nn.RMSNorm, dict(normalized_shape=768), None, flops=False, note=norm_note)

    # Sanity: the "params only" layers really are 0 FLOPs under FlopCounterMode.
    for m, x in [
        (nn.Embedding(30522, 768), torch.zeros(1, 128, dtype=torch.long)),
        (nn.LayerNorm(768), torch.randn(1, 128, 768)),
        (nn.BatchNorm2d(64).eval(), torch.randn(1, 64, 8, 8)),
        (nn.RMSNorm(768), torch.randn(1, 128, 768)),
    ]:
        assert count_flops(lambda: m(x))[0] == 0, m


# --------------------------------------------------------------------------- checks
EXPECTED = {
    "resnet50": (25_557_032, 8_178_368_512),
    "mobilenet_v2": (3_504_872, None),
    "gpt2_small_s128": (124_439_808, None),
    "bert_base_s128": (109_482_240, None),
    # torchvision's own weights metadata ('num_params', '_ops' in GMACs rounded to 3 decimals)
    "tv_vgg16": (138_357_544, None),
    "tv_vit_b_16": (86_567_656, None),
    "tv_inception_v3": (27_161_264, None),
    "tv_swin_v2_b": (87_930_848, None),
    "tv_googlenet_noaux": (6_624_904, None),
}


def main():
    crosscheck = "--no-crosscheck" not in sys.argv
    t0 = time.time()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    torchvision_entries()
    if crosscheck:  # real-weight CPU run must match the meta-device count
        torch.manual_seed(0)
        mr = tv_model("resnet18", CPU)
        flr, _ = tv_flops(mr, [1, 3, 224, 224], CPU)
        e = next(e for e in ENTRIES if e["id"] == "resnet18")
        assert (n_params(mr), flr) == (e["params"], e["flops"]), (n_params(mr), flr, e)
        CROSSCHECKED.append("resnet18")
    variant_entries()
    torchvision_zoo()
    hf_entries(crosscheck)
    hf_config_entries()
    hf_decoders_2()
    hf_default_entries()
    hf_extra_entries()
    hf_seq2seq_entries()
    hf_mamba_entries()
    hf_field_pairs()
    shipped_config_entries()
    layer_entries()

    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    by_id = {e["id"]: e for e in ENTRIES}
    for id_, (p, f) in EXPECTED.items():
        assert by_id[id_]["params"] == p, (id_, by_id[id_]["params"], p)
        if f is not None:
            assert by_id[id_]["flops"] == f, (id_, by_id[id_]["flops"], f)

    doc = {
        "generated_by": "tests/reference/regenerate.py",
        "versions": {
            "torch": torch.__version__,
            "torchvision": torchvision.__version__,
            "transformers": transformers.__version__,
            "python": platform.python_version(),
        },
        "convention": CONVENTION,
        "notes": [
            "Batch 1 unless input_shape says otherwise. flops = one forward pass.",
            "Whole models instantiated on the meta device; single layers on CPU with real tensors.",
            "FlopCounterMode run with SDPBackend.MATH and torch.backends.mkldnn.flags(enabled=False); "
            "HF models with attn_implementation='eager'.",
            "Causal LMs are charged the full SxS attention matmuls (masking does not reduce counted FLOPs).",
            "flops_by_op: per-aten-op breakdown of the total (mm/addmm/bmm/convolution).",
        ],
        "meta_vs_real_crosscheck": CROSSCHECKED,
        "entries": ENTRIES,
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT} ({len(ENTRIES)} entries) in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()

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
    return m.config.model_type in ("bert", "roberta")


def _cache_bytes(cache) -> int:
    total = 0
    for layer in cache.layers:
        for t in (layer.keys, layer.values):
            total += t.numel() * t.element_size()
    return total


def hf_config_entries():
    print("transformers from raw config dicts:")
    for name, raw in HF_CONFIGS.items():
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


def hf_field_pairs(pairs=None):
    """``hf_field_<family>_base_s12`` and ``hf_field_<family>_<field>_s12``: the base config
    of each family and one variant per field (only that field differs), measured like
    ``hf_config_entries`` (params, prefill FLOPs, decode FLOPs, the cache's bytes). Each variant
    carries ``field_pair`` = {family, field, value, base}."""
    print("transformers, one field changed at a time:")
    s = HF_SEQ
    for family, (base, fields) in (pairs or HF_FIELD_PAIRS).items():
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
                    "family": family,
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
    hf_entries(crosscheck)
    hf_config_entries()
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

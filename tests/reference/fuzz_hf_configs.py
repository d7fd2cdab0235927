#!/usr/bin/env python
"""Cross-check ``mlsysim.from_hf_config`` against transformers on random configurations that are
*not* in the fixture (every family, random sizes, head_dim != hidden/heads, GQA/MQA, biases,
tying, n_inner, type_vocab_size, sliding windows, experts, with and without ``architectures``).

For each: params, prefill FLOPs (FlopCounterMode), decode FLOPs at S after a prompt of S-1,
transformers' cache length (== S) and the bytes of its cache tensors. Needs the torch venv (it
imports mlsysim from this checkout too):

    /work/venv-gt/bin/python tests/reference/fuzz_hf_configs.py [seed] [count] [families]

``families``: a comma-separated list of model types to draw from (default: every family).

Exits non-zero on any mismatch. Not part of the normal test run (it needs torch).
"""

from __future__ import annotations

import random
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]
warnings.filterwarnings("ignore")

import torch  # noqa: E402

try:  # regenerate.py imports torchvision for its whole-model entries; these do not need it
    import torchvision  # noqa: F401
except ImportError:
    import types

    sys.modules["torchvision"] = types.ModuleType("torchvision")
import transformers  # noqa: E402
from regenerate import CPU, _cache_bytes, _hf_model, count_flops, n_params  # noqa: E402

from mlsysim.models import from_hf_config  # noqa: E402

transformers.logging.set_verbosity_error()
PREFIX = {
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
    "qwen2_moe": "Qwen2Moe",
    "qwen3_moe": "Qwen3Moe",
    "deepseek_v3": "DeepseekV3",
}
ARCH = {
    "gpt2": ["GPT2LMHeadModel", "GPT2Model", "GPT2ForSequenceClassification"],
    "bert": ["BertModel", "BertForMaskedLM", "BertForPreTraining", "BertForSequenceClassification"],
    "roberta": ["RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification"],
    **{
        k: [f"{p}ForCausalLM", f"{p}Model", f"{p}ForSequenceClassification"]
        for k, p in PREFIX.items()
    },
    "gemma3_text": ["Gemma3ForCausalLM", "Gemma3TextModel", "Gemma3TextForSequenceClassification"],
}
#: families whose head width is hidden_size / num_attention_heads (no head_dim field read)
NO_HEAD_DIM = ("gpt_neox", "opt", "falcon", "deepseek_v3")
ENCODERS = ("bert", "roberta")


def random_config(rng: random.Random, mt: str) -> dict:
    h = rng.choice([2, 4, 8])
    kv = rng.choice([k for k in (1, 2, 4, 8) if h % k == 0])
    hd = rng.choice([8, 16])
    c = {"model_type": mt, "pad_token_id": 0}
    if rng.random() < 0.8:
        c["architectures"] = [rng.choice(ARCH[mt])]
        if "Sequence" in c["architectures"][0] and rng.random() < 0.5:
            c["num_labels"] = rng.randint(1, 7)
    if mt == "gpt2":
        c.update(
            n_embd=h * hd,
            n_head=h,
            n_layer=rng.randint(1, 3),
            vocab_size=rng.randint(50, 300),
            n_positions=64,
            tie_word_embeddings=rng.random() < 0.5,
            activation_function=rng.choice(["gelu_new", "relu", "gelu"]),
        )
        if rng.random() < 0.5:
            c["n_inner"] = rng.randint(20, 100)
        return c
    if mt in ENCODERS:
        c.update(
            hidden_size=h * hd,
            num_attention_heads=h,
            num_hidden_layers=rng.randint(1, 3),
            intermediate_size=rng.randint(20, 100),
            vocab_size=rng.randint(50, 300),
            max_position_embeddings=40,
            type_vocab_size=rng.randint(1, 4),
            tie_word_embeddings=rng.random() < 0.5,
        )
        return c
    if mt in NEW_DECODERS:
        return _new_decoder_config(rng, mt, c, h, kv, hd)
    d = h * hd if rng.random() < 0.6 else rng.choice([32, 48, 64])
    c.update(
        hidden_size=d,
        num_attention_heads=h,
        num_key_value_heads=kv,
        num_hidden_layers=rng.randint(1, 4),
        intermediate_size=rng.randint(20, 100),
        vocab_size=rng.randint(50, 300),
        tie_word_embeddings=rng.random() < 0.5,
    )
    if d != h * hd or rng.random() < 0.5:
        c["head_dim"] = hd
    if mt in ("llama", "qwen3", "gemma"):
        c["attention_bias"] = rng.random() < 0.5
    if mt == "llama":
        c["mlp_bias"] = rng.random() < 0.5
    if mt in ("mistral", "phi3", "mixtral"):
        c["sliding_window"] = rng.choice([None, 3, 6, 9, 40])
    if mt in ("qwen2", "qwen3"):
        c.update(
            use_sliding_window=rng.random() < 0.5,
            sliding_window=rng.choice([4, 7, 30]),
            max_window_layers=rng.randint(0, 3),
        )
    if mt == "mixtral":
        e = rng.randint(2, 5)
        c.update(num_local_experts=e, num_experts_per_tok=rng.randint(1, e))
    return c


NEW_DECODERS = (
    "gpt_neox",
    "opt",
    "falcon",
    "phi",
    "gemma2",
    "gemma3_text",
    "qwen2_moe",
    "qwen3_moe",
    "deepseek_v3",
)


def _new_decoder_config(rng: random.Random, mt: str, c: dict, h: int, kv: int, hd: int) -> dict:
    """Issue 34's decoder families, each varying the fields that change its counts."""
    coin = lambda p=0.5: rng.random() < p  # noqa: E731
    layers = rng.randint(1, 4)
    d = h * hd
    c.update(
        hidden_size=d,
        num_attention_heads=h,
        num_hidden_layers=layers,
        vocab_size=rng.randint(50, 300),
        tie_word_embeddings=coin(),
    )
    ff = rng.randint(20, 100)
    if mt == "gpt_neox":
        c.update(intermediate_size=ff, attention_bias=coin(), use_parallel_residual=coin())
        c["hidden_act"] = rng.choice(["gelu", "relu", "gelu_new"])
    elif mt == "opt":
        c.update(
            ffn_dim=ff,
            max_position_embeddings=40,
            word_embed_proj_dim=rng.choice([d, d, 16, 24]),
            do_layer_norm_before=coin(0.7),
            enable_bias=coin(0.7),
            layer_norm_elementwise_affine=coin(0.8),
            activation_function=rng.choice(["relu", "gelu"]),
        )
    elif mt == "falcon":
        new = coin()
        c.update(
            new_decoder_architecture=new,
            multi_query=coin(),
            bias=coin(),
            alibi=coin(0.3),
            parallel_attn=True if new else coin(),
        )
        c["num_kv_heads"] = kv if new else h
        if new and coin(0.3):
            c["num_ln_in_parallel_attn"] = 1
        if coin():
            c["ffn_hidden_size"] = ff
    elif mt == "phi":
        c.update(intermediate_size=ff, num_key_value_heads=kv, qk_layernorm=coin(0.3))
        if not c["qk_layernorm"] and coin(0.3):
            c["head_dim"] = rng.choice([8, 12, 16])
        width = c.get("head_dim", hd)  # rotary dims (width x factor) must be even
        c["rope_parameters"] = {
            "rope_type": "default",
            "rope_theta": 10000.0,
            "partial_rotary_factor": rng.choice([0.25, 0.5, 1.0]) if width % 8 == 0 else 0.5,
        }
    elif mt in ("gemma2", "gemma3_text"):
        c.update(
            intermediate_size=ff,
            num_key_value_heads=kv,
            head_dim=rng.choice([8, 12, 16]),
            attention_bias=coin(),
            sliding_window=rng.choice([3, 5, 9, 40]),
        )
        if coin(0.3):
            c["layer_types"] = [
                rng.choice(["sliding_attention", "full_attention"]) for _ in range(layers)
            ]
        elif mt == "gemma3_text" and coin():
            c["sliding_window_pattern"] = rng.randint(1, 4)
        if coin(0.3):
            c["attn_logit_softcapping"] = None
        if coin(0.5):
            c["final_logit_softcapping"] = rng.choice([None, 30.0])
    elif mt in ("qwen2_moe", "qwen3_moe"):
        e = rng.randint(2, 6)
        c.update(
            intermediate_size=ff,
            num_key_value_heads=kv,
            moe_intermediate_size=rng.randint(8, 40),
            num_experts=e,
            num_experts_per_tok=rng.randint(1, e),
            decoder_sparse_step=rng.randint(1, 3),
            mlp_only_layers=rng.sample(range(layers), rng.randint(0, layers)),
            norm_topk_prob=coin(),
            use_sliding_window=coin(0.3),
            sliding_window=rng.choice([3, 5, 30]),
        )
        if mt == "qwen2_moe":
            c.update(
                shared_expert_intermediate_size=rng.randint(8, 40),
                qkv_bias=coin(),
                max_window_layers=rng.randint(0, 4),
            )
        else:
            c.update(attention_bias=coin())
            if coin():
                c["head_dim"] = rng.choice([8, 12, 16])
    elif mt == "deepseek_v3":
        groups = rng.choice([1, 2])
        e = groups * rng.randint(2, 4)
        c.update(
            num_key_value_heads=h,
            intermediate_size=ff,
            moe_intermediate_size=rng.randint(8, 30),
            n_routed_experts=e,
            num_experts_per_tok=rng.randint(1, e),
            n_group=groups,
            topk_group=rng.randint(1, groups),
            n_shared_experts=rng.randint(1, 2),
            first_k_dense_replace=rng.randint(0, layers),
            q_lora_rank=rng.choice([None, 8, 12]),
            kv_lora_rank=rng.choice([6, 10, 16]),
            qk_nope_head_dim=rng.choice([4, 8]),
            qk_rope_head_dim=rng.choice([2, 4]),
            v_head_dim=rng.choice([4, 6, 10]),
            attention_bias=coin(),
        )
        if coin(0.3):  # MLA's head widths are fields of their own: hidden_size need not divide
            c["hidden_size"] = rng.choice([30, 40, 44])
    return c


def torch_model(raw: dict):
    """The class in ``architectures``; without it, AutoModelForCausalLM for decoders and
    AutoModel for encoders (from_hf_config's documented choice)."""
    if raw.get("architectures") or raw["model_type"] in ENCODERS:
        return _hf_model(raw, CPU)
    kw = {k: v for k, v in raw.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(
        raw["model_type"], attn_implementation="eager", experts_implementation="eager", **kw
    )
    return transformers.AutoModelForCausalLM.from_config(cfg).eval()


def main() -> int:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    families = sys.argv[3].split(",") if len(sys.argv) > 3 else list(ARCH)
    rng = random.Random(seed)
    bad = 0
    for _ in range(count):
        mt = rng.choice(families)
        raw = random_config(rng, mt)
        torch.manual_seed(0)
        m = torch_model(raw)
        s = rng.randint(3, 14)
        ids = torch.randint(5, 40, (1, s))
        want = {"params": n_params(m)}
        seqcls = "Sequence" in raw.get("architectures", [""])[0]
        with torch.no_grad():
            if mt in ENCODERS or seqcls:
                want["flops"] = count_flops(lambda: m(input_ids=ids))[0]
            else:
                want["flops"] = count_flops(lambda: m(input_ids=ids, use_cache=False))[0]
                cache = m(input_ids=ids[:, : s - 1], use_cache=True).past_key_values
                want["decode_flops"] = count_flops(
                    lambda: m(input_ids=ids[:, s - 1 :], past_key_values=cache, use_cache=True)
                )[0]
                want["cache_len"] = int(cache.get_seq_length())
                want["kv_bytes"] = _cache_bytes(cache)
        ours = from_hf_config(raw)
        got = {"params": ours.params, "flops": ours.flops(seq_len=s)}
        if mt not in ENCODERS and not seqcls:
            got.update(
                decode_flops=ours.flops(seq_len=s, phase="decode"),
                cache_len=s,
                kv_bytes=ours.kv_cache_bytes(s, precision="fp32"),
            )
        diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        if diff:
            bad += 1
            print("MISMATCH", raw, diff)
    print(f"{count} random configurations (seed {seed}): {count - bad} exact, {bad} mismatched")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Cross-check ``mlsysim.from_hf_config`` against transformers on random configurations that are
*not* in the fixture (every family, random sizes, head_dim != hidden/heads, GQA/MQA, biases,
tying, n_inner, type_vocab_size, sliding windows, experts, with and without ``architectures``).

For each: params, prefill FLOPs (FlopCounterMode), decode FLOPs at S after a prompt of S-1,
transformers' cache length (== S) and the bytes of its cache tensors. Needs the torch venv (it
imports mlsysim from this checkout too):

    /work/venv-torch/bin/python tests/reference/fuzz_hf_configs.py [seed] [count]

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
}
ARCH = {
    "gpt2": ["GPT2LMHeadModel", "GPT2Model", "GPT2ForSequenceClassification"],
    "bert": ["BertModel", "BertForMaskedLM", "BertForPreTraining", "BertForSequenceClassification"],
    "roberta": ["RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification"],
    **{
        k: [f"{p}ForCausalLM", f"{p}Model", f"{p}ForSequenceClassification"]
        for k, p in PREFIX.items()
    },
}
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
    rng = random.Random(seed)
    bad = 0
    for _ in range(count):
        mt = rng.choice(list(ARCH))
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

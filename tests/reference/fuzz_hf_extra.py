#!/usr/bin/env python
"""Cross-check ``mlsysim.from_hf_config`` against transformers on random configurations of the
families added for issue 34 (not in the fixture): DistilBERT, XLM-RoBERTa, a BERT / RoBERTa /
XLM-R / ViT without its pooler (``add_pooling_layer=False``), ViT and CLIP's vision tower (at the
config's image size and at another one, ``interpolate_pos_encoding=True``), T5 and BART
(prefill over a source and a target, one decoder step, the EncoderDecoderCache's bytes, with and
without ``source_len``), and Mamba (prefill, one step, the bytes of its fixed state).

    /work/venv-gt/bin/python tests/reference/fuzz_hf_extra.py [seed] [count]

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
import transformers  # noqa: E402
from regenerate import (  # noqa: E402
    CPU,
    _cache_bytes,
    _hf_extra_model,
    _state_bytes,
    count_flops,
    n_params,
)

from mlsysim.models import from_hf_config  # noqa: E402

transformers.logging.set_verbosity_error()

ARCH = {
    "distilbert": [
        "DistilBertModel",
        "DistilBertForMaskedLM",
        "DistilBertForSequenceClassification",
    ],
    "xlm-roberta": [
        "XLMRobertaModel",
        "XLMRobertaForMaskedLM",
        "XLMRobertaForSequenceClassification",
    ],
    "bert": ["BertModel"],  # add_pooling_layer=False
    "roberta": ["RobertaModel"],  # add_pooling_layer=False
    "vit": ["ViTModel", "ViTForImageClassification"],
    "clip_vision_model": ["CLIPVisionModel", "CLIPVisionModelWithProjection"],
    "t5": ["T5Model", "T5ForConditionalGeneration", "T5EncoderModel"],
    "bart": ["BartModel", "BartForConditionalGeneration"],
    "mamba": ["MambaModel", "MambaForCausalLM"],
}
ACTS = ["gelu", "relu", "gelu_new", "silu"]


def random_config(rng: random.Random, mt: str) -> tuple[dict, dict]:
    """(raw config, from_hf_config keyword arguments)."""
    h = rng.choice([1, 2, 4])
    hd = rng.choice([4, 8])
    c: dict = {"model_type": mt}
    kw: dict = {}
    if rng.random() < 0.85:
        c["architectures"] = [rng.choice(ARCH[mt])]
    arch = c.get("architectures", [""])[0]
    if "Sequence" in arch or "ImageClassification" in arch:
        if rng.random() < 0.6:
            c["num_labels"] = rng.randint(1, 7)
    tie = rng.random() < 0.5
    if mt == "distilbert":
        c.update(
            dim=h * hd,
            n_heads=h,
            n_layers=rng.randint(1, 3),
            hidden_dim=rng.randint(8, 60),
            vocab_size=rng.randint(50, 200),
            max_position_embeddings=rng.randint(14, 40),
            activation=rng.choice(["gelu", "relu"]),
            tie_word_embeddings=tie,
            sinusoidal_pos_embds=rng.random() < 0.3,
        )
    elif mt in ("xlm-roberta", "bert", "roberta"):
        c.update(
            hidden_size=h * hd,
            num_attention_heads=h,
            num_hidden_layers=rng.randint(1, 3),
            intermediate_size=rng.randint(8, 60),
            vocab_size=rng.randint(50, 200),
            max_position_embeddings=40,
            type_vocab_size=rng.randint(1, 3),
            tie_word_embeddings=tie,
            hidden_act=rng.choice(ACTS),
            pad_token_id=rng.randint(0, 3),
        )
        if mt in ("bert", "roberta") or (arch.endswith("Model") and rng.random() < 0.5):
            kw["add_pooling_layer"] = False
    elif mt in ("vit", "clip_vision_model"):
        p = rng.choice([4, 6, 8])
        grid = rng.randint(1, 5)
        c.update(
            hidden_size=h * hd,
            num_attention_heads=h,
            num_hidden_layers=rng.randint(1, 3),
            intermediate_size=rng.randint(8, 60),
            num_channels=rng.randint(1, 3),
            image_size=p * grid + rng.randint(0, p - 1),  # not always a whole number of patches
            patch_size=p,
            hidden_act=rng.choice(ACTS),
        )
        if mt == "vit":
            c["qkv_bias"] = rng.random() < 0.5
            if rng.random() < 0.3:
                c["pooler_output_size"] = rng.randint(4, 40)
            if rng.random() < 0.3:
                c["pooler_act"] = rng.choice(["relu", "tanh"])
            if arch in ("ViTModel", "") and rng.random() < 0.4:
                kw["add_pooling_layer"] = False
        else:
            c["projection_dim"] = rng.randint(4, 40)
        if rng.random() < 0.4:
            kw["image_size"] = p * rng.randint(1, 7)
    elif mt == "t5":
        c.update(
            d_model=rng.choice([16, 24, 32]),
            d_kv=hd,
            num_heads=h,
            num_layers=rng.randint(1, 3),
            d_ff=rng.randint(8, 60),
            vocab_size=rng.randint(50, 200),
            relative_attention_num_buckets=rng.choice([8, 16, 32]),
            feed_forward_proj=rng.choice(["relu", "gated-gelu", "gated-silu", "gelu"]),
            tie_word_embeddings=tie,
        )
        if rng.random() < 0.5:
            c["num_decoder_layers"] = rng.randint(1, 3)
    elif mt == "bart":
        he, hdd = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
        c.update(
            d_model=16,
            encoder_layers=rng.randint(1, 3),
            decoder_layers=rng.randint(1, 3),
            encoder_attention_heads=he,
            decoder_attention_heads=hdd,
            encoder_ffn_dim=rng.randint(8, 60),
            decoder_ffn_dim=rng.randint(8, 60),
            vocab_size=rng.randint(50, 200),
            max_position_embeddings=rng.randint(20, 40),
            activation_function=rng.choice(ACTS),
            tie_word_embeddings=tie,
        )
    elif mt == "mamba":
        c.update(
            hidden_size=rng.choice([8, 16, 24, 40]),
            num_hidden_layers=rng.randint(1, 3),
            vocab_size=rng.randint(50, 200),
            state_size=rng.randint(2, 16),
            expand=rng.randint(1, 3),
            conv_kernel=rng.randint(2, 5),
            use_bias=rng.random() < 0.5,
            use_conv_bias=rng.random() < 0.5,
            tie_word_embeddings=tie,
        )
        if rng.random() < 0.4:
            c["time_step_rank"] = rng.randint(1, 8)
    if mt in ("t5", "bart") and arch != "T5EncoderModel" and rng.random() < 0.4:
        kw["source_len"] = rng.randint(1, 18)
    return c, kw


def torch_model(raw: dict, kw: dict):
    if raw["model_type"] == "mamba" and not raw.get("architectures"):
        cfg = transformers.AutoConfig.for_model(
            "mamba", **{k: v for k, v in raw.items() if k != "model_type"}
        )
        return transformers.AutoModelForCausalLM.from_config(cfg).eval()
    return _hf_extra_model(raw, kw, CPU)


def measure(m, raw: dict, kw: dict, s: int) -> dict:
    mt = raw["model_type"]
    name = type(m).__name__
    want = {"params": n_params(m)}
    if mt in ("vit", "clip_vision_model"):
        size = kw.get("image_size", raw["image_size"])
        x = torch.randn(1, m.config.num_channels, size, size)
        interp = "image_size" in kw
        want["flops"] = count_flops(lambda: m(pixel_values=x, interpolate_pos_encoding=interp))[0]
        return want
    ids = torch.randint(5, 40, (1, s))
    if mt == "mamba":
        want["flops"] = count_flops(lambda: m(input_ids=ids, use_cache=False))[0]
        cache = m(input_ids=ids[:, : s - 1], use_cache=True).past_key_values
        want["decode_flops"] = count_flops(
            lambda: m(input_ids=ids[:, s - 1 :], past_key_values=cache, use_cache=True)
        )[0]
        want["kv_bytes"] = _state_bytes(cache)
        return want
    if mt in ("t5", "bart"):
        if name == "T5EncoderModel":
            want["flops"] = count_flops(lambda: m(input_ids=ids))[0]
            return want
        src = torch.randint(5, 40, (1, kw.get("source_len", s)))
        with torch.no_grad():
            want["flops"] = count_flops(
                lambda: m(input_ids=src, decoder_input_ids=ids, use_cache=False)
            )[0]
            enc = m.get_encoder()(input_ids=src)
            cache = m(
                encoder_outputs=enc, decoder_input_ids=ids[:, : s - 1], use_cache=True
            ).past_key_values
            want["decode_flops"] = count_flops(
                lambda: m(
                    encoder_outputs=enc,
                    decoder_input_ids=ids[:, s - 1 :],
                    past_key_values=cache,
                    use_cache=True,
                )
            )[0]
        want["kv_bytes"] = _cache_bytes(cache.self_attention_cache) + _cache_bytes(
            cache.cross_attention_cache
        )
        return want
    with torch.no_grad():
        want["flops"] = count_flops(lambda: m(input_ids=ids))[0]
    return want


def main() -> int:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rng = random.Random(seed)
    bad = 0
    per_family: dict[str, list[int]] = {}
    for _ in range(count):
        mt = rng.choice(list(ARCH))
        raw, kw = random_config(rng, mt)
        torch.manual_seed(0)
        m = torch_model(raw, kw)
        s = rng.randint(2, 14)
        want = measure(m, raw, kw, s)
        ours = from_hf_config(raw, **kw)
        got = {"params": ours.params}
        got["flops"] = ours.flops(seq_len=s) if ours.is_lm else ours.flops()
        if "decode_flops" in want:
            got["decode_flops"] = ours.flops(seq_len=s, phase="decode")
            got["kv_bytes"] = ours.kv_cache_bytes(s, precision="fp32")
        diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        tally = per_family.setdefault(mt, [0, 0])
        tally[0] += 1
        if diff:
            bad += 1
            tally[1] += 1
            print("MISMATCH", raw, kw, s, diff)
    print(
        ", ".join(f"{mt} {n - b}/{n}" for mt, (n, b) in sorted(per_family.items())),
    )
    print(f"{count} random configurations (seed {seed}): {count - bad} exact, {bad} mismatched")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

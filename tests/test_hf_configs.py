"""``from_hf_config``: Hugging Face configurations counted as transformers counts them.

The ground truth is ``tests/reference/ground_truth.json`` (``hf_*`` entries: transformers 5.25
models built from the raw config dict and run under ``FlopCounterMode`` on CPU; ``shipped_*``:
parameter counts of the shipped configurations on the meta device). Params and prefill FLOPs of
every entry are asserted in ``test_ground_truth.py``; here: decode FLOPs, the KV cache in bytes,
the decode ``seq_len`` convention, each shipped configuration against its *published* count, and
the refusals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlsysim import Engine, Hardware
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim.hf import SUPPORTED_MODEL_TYPES, shipped_config

FIXTURE = json.loads((Path(__file__).parent / "reference" / "ground_truth.json").read_text())
HF = [e for e in FIXTURE["entries"] if e["id"].startswith("hf_")]
DECODERS = [e for e in HF if "kv_cache_bytes_fp32" in e]  # a decode step and a KV cache
STATE_SPACE = [e for e in HF if "state_bytes_fp32" in e]  # Mamba: a decode step, a fixed state
SHIPPED = M.shipped_configs()
ISSUE_34_DECODERS = (
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


def _ids(entries):
    return [e["id"] for e in entries]


def _model(entry) -> M.Model:
    """The entry's model: its raw config and from_hf_config's keyword arguments (``kwargs``:
    add_pooling_layer, image_size, source_len) when the fixture was measured with them."""
    return M.from_hf_config(entry["config"], **entry.get("kwargs", {}))


def test_fixture_covers_every_supported_family():
    families = {e["config"]["model_type"] for e in HF}
    assert families == set(SUPPORTED_MODEL_TYPES)
    shipped_families = {shipped_config(n)["config"]["model_type"] for n in SHIPPED}
    # no shipped config (yet) of these families: their fixtures are the small hf_* entries
    not_shipped = {"qwen3", "distilbert", "xlm-roberta", "vit", "clip_vision_model"}
    not_shipped |= {"t5", "bart", "mamba", *ISSUE_34_DECODERS}
    assert shipped_families == set(SUPPORTED_MODEL_TYPES) - not_shipped


@pytest.mark.parametrize("entry", DECODERS, ids=_ids(DECODERS))
def test_decode_flops_match_transformers(entry):
    """One step at seq_len=S after a prompt of S-1 tokens, FlopCounterMode on the real model
    (an encoder-decoder: the decoder's step; its encoder ran once, before the prompt)."""
    model = _model(entry)
    s = entry["input_shape"][1]
    assert model.flops(seq_len=s, phase="decode") == entry["decode_flops"]


@pytest.mark.parametrize("entry", DECODERS, ids=_ids(DECODERS))
def test_decode_seq_len_includes_the_new_token(entry):
    """transformers' cache holds S tokens after the step that mlsysim calls decode at seq_len=S,
    and mlsysim's decode attends to S keys (at most sliding_window on a sliding layer)."""
    s = entry["input_shape"][1]
    assert entry["cache_seq_length"] == s
    model = _model(entry)
    rows = model.rows(s, "decode")
    cores = [r.layer for r in rows if isinstance(r.layer, L.Attention)]
    if "cross_cache_seq_length" in entry:  # encoder-decoder: cross-attention to every source token
        src = entry.get("kwargs", {}).get("source_len", s)
        assert entry["cross_cache_seq_length"] == src
        cross = [r.layer for r in rows if r.name.endswith("cross_attn.sdpa")]
        assert [c.kv for c in cross] == [src] and cross[0].seq_len == 1
        cores = [r.layer for r in rows if r.name.endswith("self_attn.sdpa")]
        assert len(cores) == 1
    window = model.config.get("sliding_window")
    expected = {min(s, window) if window else s} if model.config.get("sliding_layers") else {s}
    if (
        model.config.get("sliding_layers")
        and model.config["sliding_layers"] < model.config["n_layers"]
    ):
        expected.add(s)
    assert {c.kv for c in cores} == expected
    assert all(c.seq_len == 1 for c in cores)


@pytest.mark.parametrize("entry", DECODERS, ids=_ids(DECODERS))
def test_kv_cache_bytes_match_transformers_cache_tensors(entry):
    model = _model(entry)
    s = entry["input_shape"][1]
    assert model.kv_cache_bytes(s, precision="fp32") == entry["kv_cache_bytes_fp32"]
    # bytes scale with the value width and the batch exactly
    assert (
        model.kv_cache_bytes(s, batch=3, precision="fp16") == 3 * entry["kv_cache_bytes_fp32"] // 2
    )


def test_sliding_window_caps_the_cache_at_window_minus_one():
    """Mistral-7B-v0.1 (sliding_window 4096): transformers keeps the last 4095 tokens per layer;
    2 (K, V) x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B per token."""
    m = M.from_shipped("mistral-7b-v0.1")
    per_token = 2 * 32 * 8 * 128 * 2
    assert m.kv_cache_bytes(1000) == 1000 * per_token
    assert m.kv_cache_bytes(32768) == 4095 * per_token
    # and a decode step beyond the window attends to 4096 keys, not 32768
    cores = [r.layer for r in m.rows(32768, "decode") if isinstance(r.layer, L.Attention)]
    assert {c.kv for c in cores} == {4096}


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_config_matches_its_published_parameter_count(name):
    entry = shipped_config(name)
    pub = entry["published_params"]
    params = M.from_shipped(name).params
    assert abs(params - pub["value"]) <= pub["rel_tol"] * pub["value"], (params, pub["text"])
    if "exact" in pub:
        assert params == pub["exact"]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_config_carries_its_source(name):
    entry = shipped_config(name)
    src = entry["source"]
    assert src["url"].startswith("https://huggingface.co/") and src["url"].endswith("/config.json")
    assert len(src["released"]) == 10 and src["released"][4] == "-"
    assert src["reference"] and entry["published_params"]["source"]
    assert entry["config"]["architectures"][0] in {
        "GPT2LMHeadModel",
        "BertForMaskedLM",
        "RobertaForMaskedLM",
        "LlamaForCausalLM",
        "MistralForCausalLM",
        "MixtralForCausalLM",
        "Qwen2ForCausalLM",
        "GemmaForCausalLM",
        "Phi3ForCausalLM",
    }


def test_mixtral_active_parameters_match_the_published_12_9b():
    """Mixtral: 46.7B stored, 12.9B used per token (router + 2 of 8 experts per layer)."""
    entry = shipped_config("mixtral-8x7b-v0.1")
    m = M.from_shipped("mixtral-8x7b-v0.1")
    pub = entry["published_active_params"]
    active = m.config["active_params"]
    assert abs(active - pub["value"]) <= pub["rel_tol"] * pub["value"]
    # the per-expert arithmetic, independently: 3 matrices of 4096 x 14336 per expert
    assert m.params - active == 32 * 6 * 3 * 4096 * 14336


def test_qwen25_non_embedding_count_matches_its_card():
    entry = shipped_config("qwen2.5-7b")
    m = M.from_shipped("qwen2.5-7b")
    cfg = entry["config"]
    non_embedding = m.params - 2 * cfg["vocab_size"] * cfg["hidden_size"]  # untied head
    pub = entry["published_non_embedding_params"]
    assert abs(non_embedding - pub["value"]) <= pub["rel_tol"] * pub["value"]


def test_llama2_7b_shipped_equals_the_llama_builder():
    """Two routes to one model give one number (the Models.Llama7B preset)."""
    m = M.from_shipped("llama-2-7b")
    assert m.params == M.Models.Llama7B.params == 6_738_415_616
    assert m.flops(seq_len=512) == M.Models.Llama7B.flops(seq_len=512)
    assert m.kv_cache_bytes(4096) == M.Models.Llama7B.kv_cache_bytes(4096)


def test_config_from_path_and_json_text_equal_the_dict(tmp_path):
    raw = shipped_config("gpt2")["config"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    counts = {M.from_hf_config(c).params for c in (raw, path, str(path), json.dumps(raw))}
    assert counts == {124_439_808}


def test_bare_flag_gives_the_bare_model():
    """bert-base-uncased names BertForMaskedLM (no pooler, MLM head); bare=True is BertModel
    (109,482,240, the fixture's bert_base entry)."""
    raw = shipped_config("bert-base-uncased")["config"]
    bare = M.from_hf_config(raw, bare=True)
    gt = next(e for e in FIXTURE["entries"] if e["id"] == "bert_base_s128")
    assert bare.params == gt["params"]
    assert bare.flops(seq_len=128) == gt["flops"]
    mlm = M.from_hf_config(raw)
    # MLM head adds transform (d^2 + d), LayerNorm (2d) and the decoder bias (V); drops the pooler
    d, v = 768, 30522
    assert mlm.params - bare.params == (d * d + d) + 2 * d + v - (d * d + d)


def test_encoder_refuses_decode_by_name():
    m = M.from_shipped("bert-base-uncased")
    with pytest.raises(ValueError, match="encoder.*prefill"):
        m.flops(seq_len=16, phase="decode")
    p = Engine.solve(m, Hardware.Cloud.H100, phase="prefill", seq_len=128)
    assert p.latency_s > 0 and p.kv_cache_bytes == 0


def test_moe_engine_profile_reads_only_routed_experts_when_decoding():
    m = M.from_shipped("mixtral-8x7b-v0.1")
    moe = next(r.layer for r in m.rows(1024, "decode") if isinstance(r.layer, L.MoE))
    assert moe.experts_read == 2 and moe.weight_elements < moe.params / 3
    prefill = next(r.layer for r in m.rows(1024, "prefill") if isinstance(r.layer, L.MoE))
    assert prefill.experts_read == 8


BASE = {
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 96,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "vocab_size": 100,
}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"model_type": "jamba"}, "model_type"),
        ({"model_type": "xlnet"}, "model_type"),
        ({"model_type": None}, "model_type"),
        ({"architectures": ["LlamaForTokenClassification"]}, "architectures"),
        ({"add_cross_attention": True}, "add_cross_attention"),
        ({"quantization_config": {"bits": 4}}, "quantization_config"),
        ({"hidden_act": "prelu"}, "hidden_act"),  # weights of its own: not modelled
        ({"hidden_act": "xielu"}, "hidden_act"),
        ({"per_layer_config": {"0": {"intermediate_size": 64}}}, "per_layer_config"),
        ({"hidden_size": "64"}, "hidden_size"),
        ({"hidden_size": True}, "hidden_size"),
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        ({"num_key_value_heads": 3}, "num_key_value_heads"),
        ({"hidden_size": 66}, "hidden_size"),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ({"layer_types": ["full_attention", "chunked_attention"]}, "layer_types"),
        ({"layer_types": ["sliding_attention", "full_attention"]}, "sliding_window"),
    ],
)
def test_unmodelled_or_bad_fields_are_refused_by_name(change, named):
    with pytest.raises(ValueError, match=named):
        M.from_hf_config({**BASE, **change})


def test_fields_transformers_5_no_longer_reads_change_nothing():
    """transformers 5 builds BERT's plain absolute embeddings whatever position_embedding_type
    says, and ignores pruned_heads (measured with 5.25: a RoBERTa with 'relative_key' has the
    11,244 parameters and 97,920 FLOPs of the plain one); mlsysim used to refuse both."""
    bert = shipped_config("bert-base-uncased")["config"]
    plain = M.from_hf_config(bert)
    for change in ({"position_embedding_type": "relative_key"}, {"pruned_heads": {"0": [1]}}):
        other = M.from_hf_config({**bert, **change})
        assert (other.params, other.flops(seq_len=16)) == (plain.params, plain.flops(seq_len=16))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "neither a JSON object nor a path"),
        ("/no/such/config.json", "neither a JSON object nor a path"),
        (42, "config must be a dict"),
        ('{"model_type": "gpt2", "n_embd": 10, "n_head": 3}', "n_head"),
    ],
)
def test_bad_config_input_gives_a_clear_message(config, message):
    with pytest.raises(ValueError, match=message):
        M.from_hf_config(config)


def test_head_dim_different_from_hidden_over_heads():
    """Gemma-7B: 16 heads of 256 on a 3072-wide model: q_proj is 3072 x 4096."""
    m = M.from_shipped("gemma-7b")
    q = next(r.layer for r in m.rows(8) if r.name == "layers.self_attn.q_proj")
    assert (q.in_features, q.out_features) == (3072, 16 * 256)
    sdpa = next(r.layer for r in m.rows(8) if isinstance(r.layer, L.Attention))
    assert sdpa.flops() == 2 * 2 * 8 * 8 * 16 * 256


def test_unknown_fields_are_ignored_like_transformers_does():
    """A key the transformers class does not read (n_ctx in GPT-2's config.json) changes nothing."""
    raw = shipped_config("gpt2")["config"]
    assert (
        M.from_hf_config({**raw, "n_ctx": 7, "some_new_key": 1}).params
        == M.from_hf_config(raw).params
    )


def test_a_config_object_with_to_dict_is_read_like_its_dict():
    """transformers' PretrainedConfig objects are read through their ``to_dict()``."""

    class FakeConfig:
        def to_dict(self):
            return dict(shipped_config("phi-3-mini-4k")["config"])

    assert M.from_hf_config(FakeConfig()).params == 3_821_079_552


def test_a_family_alias_reads_as_its_field_and_a_conflict_is_refused_by_name():
    """transformers' attribute_map: GPT-2's hidden_size is n_embd (and so on), Mixtral's
    num_experts is num_local_experts. mlsysim used to drop the alias and build the default
    768-wide GPT-2 (85.9 M parameters for a 3.7 k one)."""
    alias = {
        "model_type": "gpt2",
        "hidden_size": 16,
        "num_attention_heads": 2,
        "num_hidden_layers": 1,
        "max_position_embeddings": 12,
        "vocab_size": 13,
    }
    canonical = {
        "model_type": "gpt2",
        "n_embd": 16,
        "n_head": 2,
        "n_layer": 1,
        "n_positions": 12,
        "vocab_size": 13,
    }
    assert M.from_hf_config(alias).params == M.from_hf_config(canonical).params == 3712
    with pytest.raises(ValueError, match=r"config\['hidden_size'\]=16 and config\['n_embd'\]=8"):
        M.from_hf_config({**alias, "n_embd": 8})
    moe = {"model_type": "mixtral", "hidden_size": 32, "num_attention_heads": 4}
    moe |= {"num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 37}
    moe |= {"vocab_size": 97, "num_experts_per_tok": 1}
    three = M.from_hf_config({**moe, "num_experts": 3})
    assert three.params == M.from_hf_config({**moe, "num_local_experts": 3}).params == 34016


def test_a_sliding_window_on_any_decoder_windows_its_cache():
    """transformers' cache reads sliding_window (else attention_chunk_size) from any config: a
    Llama with one keeps only the window (fixtures hf_llama_sliding_window_s12 and kin hold
    transformers' own numbers); a window of 1 keeps everything, as transformers' slice does."""
    base = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 32}
    base |= {"num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2}
    base |= {"intermediate_size": 37, "vocab_size": 97}
    full = M.from_hf_config(base)
    for key in ("sliding_window", "attention_chunk_size"):
        windowed = M.from_hf_config({**base, key: 5})
        assert windowed.kv_cache_bytes(12, precision="fp32") == 2 * 2 * 16 * 4 * 4  # 4 = 5 - 1
        assert windowed.flops(12, phase="decode") < full.flops(12, phase="decode")
    one = M.from_hf_config({**base, "sliding_window": 1})
    assert one.kv_cache_bytes(12, precision="fp32") == full.kv_cache_bytes(12, precision="fp32")
    with pytest.raises(ValueError, match=r"num_labels.*got an integer of about 5,001 digits"):
        M.from_hf_config(
            {**base, "architectures": ["LlamaForSequenceClassification"], "num_labels": 10**5000}
        )


def test_deepseek_v3_counts_and_its_compressed_cache():
    """DeepSeek-V3 (transformers' DeepseekV3Config defaults are the released model's sizes):
    671B parameters (DeepSeek-AI, arXiv:2412.19437, 2024-12: "671B total parameters with 37B
    activated for each token"; transformers 5.25 on the meta device: 671,026,404,352, measured
    2026-12-06). Its cache keeps the 512 + 64 latent per token and layer, not the 128 heads x
    (192 + 128) keys and values attention expands it into."""
    entry = next(e for e in FIXTURE["entries"] if e["id"] == "hfdefault_deepseek_v3")
    m = M.from_hf_config(entry["config"])
    assert m.params == entry["params"]  # transformers on the meta device
    assert abs(m.params - 671e9) <= 0.001 * 671e9
    assert abs(m.config["active_params"] - 37e9) <= 0.03 * 37e9
    latent = 61 * (512 + 64) * 2  # bytes per token in bf16
    assert m.kv_cache_bytes(1000, precision="bf16") == 1000 * latent
    expanded = 61 * 128 * (192 + 128) * 2
    assert expanded // latent == 71


@pytest.mark.parametrize(
    "config, field",
    [
        (
            {"model_type": "falcon", "new_decoder_architecture": True, "parallel_attn": False},
            "parallel_attn",
        ),
        (
            {"model_type": "falcon", "multi_query": False, "num_kv_heads": 8},
            "num_kv_heads",
        ),
        ({"model_type": "phi", "qk_layernorm": True, "head_dim": 48}, "qk_layernorm"),
        (
            {"model_type": "deepseek_v3", "num_attention_heads": 16, "num_key_value_heads": 4},
            "num_key_value_heads",
        ),
        ({"model_type": "deepseek_v3", "n_group": 3}, "n_group"),
        ({"model_type": "gemma3_text", "use_bidirectional_attention": True}, "bidirectional"),
        ({"model_type": "qwen2_moe", "mlp_only_layers": "all"}, "mlp_only_layers"),
    ],
)
def test_issue_34_decoders_refuse_what_transformers_cannot_run_by_name(config, field):
    with pytest.raises(ValueError, match=field):
        M.from_hf_config(config)


def test_soft_capping_is_elementwise_work_not_flops():
    """Gemma 2's tanh soft-capping of every attention score and every logit: FlopCounterMode
    counts no elementwise op, so FLOPs (and the fixture) are the same with and without it; the
    tanh runs once per score (heads x S x S per layer) and once per logit (S x vocab)."""
    entry = next(e for e in HF if e["id"] == "hf_gemma2_alternating_s12")
    capped = M.from_hf_config(entry["config"])
    plain = M.from_hf_config(
        {**entry["config"], "attn_logit_softcapping": None, "final_logit_softcapping": None}
    )
    s, c = 12, entry["config"]
    assert capped.flops(seq_len=s) == plain.flops(seq_len=s) == entry["flops"]

    def elementwise(m):
        return sum(r.layer.elementwise_flops() * r.count for r in m.rows(s, "prefill"))

    tanh = L.Activation(kind="tanh", elements=1).elementwise_flops()
    scores = c["num_attention_heads"] * s * s * c["num_hidden_layers"]
    logits = s * c["vocab_size"]
    assert elementwise(capped) - elementwise(plain) == tanh * (scores + logits)


def test_add_pooling_layer_false_drops_exactly_the_pooler():
    """BertModel(config, add_pooling_layer=False) (how sentence-embedding checkpoints load) has
    no pooler: d^2 + d fewer parameters and 2 d^2 fewer FLOPs (the pooler reads one token); the
    fixtures hf_bert_no_pooler_s12 and hf_roberta_no_pooler_s12 hold transformers' own counts."""
    raw = shipped_config("bert-base-uncased")["config"]
    with_pooler = M.from_hf_config(raw, bare=True)
    without = M.from_hf_config(raw, bare=True, add_pooling_layer=False)
    d = 768
    assert with_pooler.params - without.params == d * d + d
    assert with_pooler.flops(seq_len=64) - without.flops(seq_len=64) == 2 * d * d
    assert without.config["architecture"] == "BertModel (add_pooling_layer=False)"
    assert M.from_hf_config(raw, bare=True, add_pooling_layer=True).params == with_pooler.params


@pytest.mark.parametrize(
    ("config", "kwargs", "named"),
    [
        # BertForMaskedLM builds its BertModel without a pooler; it takes no such argument
        ({"model_type": "bert", "architectures": ["BertForMaskedLM"]}, {}, "BertForMaskedLM"),
        ({"model_type": "distilbert"}, {}, "DistilBertModel"),
        ({"model_type": "gpt2"}, {}, "GPT2LMHeadModel"),
        ({"model_type": "bert"}, {"add_pooling_layer": "no"}, "add_pooling_layer"),
    ],
)
def test_add_pooling_layer_is_refused_where_the_class_does_not_take_it(config, kwargs, named):
    with pytest.raises(ValueError, match=named):
        M.from_hf_config(config, **({"add_pooling_layer": False} | kwargs))


def test_distilbert_reads_its_own_field_names_and_its_aliases():
    """DistilBERT's config stores dim / n_layers / n_heads / hidden_dim (hidden_size and kin are
    its attribute_map aliases); distilbert-base-uncased is 66,362,880 parameters (DistilBertModel,
    no pooler, no token types)."""
    base = M.from_hf_config({"model_type": "distilbert"})
    assert base.params == 66_362_880
    alias = {"model_type": "distilbert", "hidden_size": 64, "num_attention_heads": 4}
    canonical = {"model_type": "distilbert", "dim": 64, "n_heads": 4}
    assert M.from_hf_config(alias).params == M.from_hf_config(canonical).params
    with pytest.raises(ValueError, match=r"config\['n_heads'\]=5 must divide config\['dim'\]=64"):
        M.from_hf_config({**canonical, "n_heads": 5})
    with pytest.raises(ValueError, match="encoder"):
        base.flops(seq_len=8, phase="decode")


def test_vision_tower_counts_patches_plus_a_class_token():
    """ViT-B/16 at 224 px: 14 x 14 = 196 patches + [CLS] = 197 tokens; its patch embedding is a
    16x16 stride-16 convolution (3 x 768 x 256 MACs per patch). ViTForImageClassification with
    1,000 labels is 86,567,656 parameters (google/vit-base-patch16-224)."""
    raw = {"model_type": "vit", "architectures": ["ViTForImageClassification"], "num_labels": 1000}
    m = M.from_hf_config(raw)
    assert m.params == 86_567_656 and not m.is_lm
    assert m.config["tokens"] == 197
    conv = next(r.layer for r in m.rows() if isinstance(r.layer, L.Conv2d))
    assert conv.flops() == 2 * 196 * 768 * 3 * 16 * 16
    # another image size: transformers' interpolate_pos_encoding; same weights, more tokens
    big = M.from_hf_config(raw, image_size=384)
    assert big.params == m.params and big.config["tokens"] == 24 * 24 + 1
    assert big.flops() > 2.9 * m.flops()
    with pytest.raises(ValueError, match="seq_len"):
        m.flops(seq_len=197)


@pytest.mark.parametrize(
    ("config", "size", "named"),
    [
        ({"model_type": "llama"}, 224, "image_size=224 applies to the vision families"),
        ({"model_type": "vit"}, 0, "image_size must be an integer"),
        ({"model_type": "vit"}, (224, 224, 3), "image_size must be"),
        ({"model_type": "vit"}, 8, "smaller than one patch"),
        # transformers interpolates a square grid of square patches only
        ({"model_type": "vit", "image_size": [224, 160]}, 224, "square grid"),
        ({"model_type": "clip_vision_model"}, (224, 320), "square images only"),
    ],
)
def test_image_size_argument_is_checked_by_name(config, size, named):
    with pytest.raises(ValueError, match=named):
        M.from_hf_config(config, image_size=size)


def test_vision_configs_refuse_bad_fields_by_name():
    with pytest.raises(ValueError, match="patch_size"):
        M.from_hf_config({"model_type": "vit", "image_size": 8, "patch_size": 16})
    with pytest.raises(ValueError, match="image_size"):
        M.from_hf_config({"model_type": "vit", "image_size": [224, 224, 3]})
    with pytest.raises(ValueError, match="architectures"):
        M.from_hf_config({"model_type": "vit", "architectures": ["ViTForMaskedImageModeling"]})


def test_encoder_decoder_prefill_decode_and_cache_conventions():
    """t5-small (T5ForConditionalGeneration, 60,506,624 parameters; its LM head is tied to the
    token table, as transformers 5.25 always ties it): prefill at S runs the encoder over S
    source tokens and the decoder over S targets; a decode step runs neither the encoder nor
    the cross-attention K/V projections; the cache holds self- plus cross-attention K/V."""
    t5 = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"]}
    m = M.from_hf_config(t5)
    assert m.params == 60_506_624
    assert M.from_hf_config({**t5, "tie_word_embeddings": False}).params == m.params
    inner, layers = 8 * 64, 6
    per_token = 2 * inner * layers * 2 * 2  # K and V, self + cross, 2 bytes (fp16)
    assert m.kv_cache_bytes(100) == 100 * per_token
    fixed = M.from_hf_config(t5, source_len=40)  # 100 target tokens, 40 source tokens
    assert fixed.kv_cache_bytes(100) == 2 * inner * layers * (100 + 40) * 2
    names = {r.name for r in m.rows(16, "decode")}
    assert not any(n.startswith("encoder.") for n in names)
    assert "decoder.layer.cross_attn.k_proj" not in names
    assert "decoder.layer.cross_attn.k_proj" in {r.name for r in m.rows(16)}
    # the decode step grows with the target length (self-attention) and the source length
    assert fixed.flops(seq_len=64, phase="decode") > fixed.flops(seq_len=16, phase="decode")
    assert M.from_hf_config(t5, source_len=80).flops(seq_len=16, phase="decode") > fixed.flops(
        seq_len=16, phase="decode"
    )
    # the prefill's source is seq_len tokens unless source_len fixes it
    assert M.from_hf_config(t5, source_len=16).flops(seq_len=16) == m.flops(seq_len=16)


def test_bart_positions_and_refusals():
    """bart-large (BartForConditionalGeneration): 406,291,456 parameters (final_logits_bias is
    a buffer); 1,024 learned positions (+2 offset rows) bound seq_len and source_len."""
    bart = {"model_type": "bart", "architectures": ["BartForConditionalGeneration"]}
    m = M.from_hf_config(bart)
    assert m.params == 406_291_456
    with pytest.raises(ValueError, match="1024 learned positions"):
        m.flops(seq_len=1025)
    with pytest.raises(ValueError, match="source_len=2000 exceeds"):
        M.from_hf_config(bart, source_len=2000)
    with pytest.raises(ValueError, match="source_len=8 applies to the encoder-decoder"):
        M.from_hf_config({"model_type": "llama"}, source_len=8)
    with pytest.raises(ValueError, match="source_len"):
        M.from_hf_config(bart, source_len=0)
    with pytest.raises(ValueError, match="encoder_attention_heads"):
        M.from_hf_config({**bart, "encoder_attention_heads": 7})
    with pytest.raises(ValueError, match="feed_forward_proj"):
        M.from_hf_config({"model_type": "t5", "feed_forward_proj": "gelu-gated"})
    enc = M.from_hf_config({"model_type": "t5", "architectures": ["T5EncoderModel"]})
    assert enc.kv_cache_bytes(10) == 0
    with pytest.raises(ValueError, match="encoder"):
        enc.flops(seq_len=8, phase="decode")


@pytest.mark.parametrize("entry", STATE_SPACE, ids=_ids(STATE_SPACE))
def test_state_space_decode_and_state_match_transformers(entry):
    """Mamba on transformers' slow path: one decode step after S-1 tokens (FlopCounterMode) and
    the bytes of the cache's conv and recurrent state tensors after it; neither grows with S."""
    model = _model(entry)
    s = entry["input_shape"][1]
    assert model.flops(seq_len=s, phase="decode") == entry["decode_flops"]
    assert model.kv_cache_bytes(s, precision="fp32") == entry["state_bytes_fp32"]
    assert model.flops(seq_len=10 * s, phase="decode") == entry["decode_flops"]
    assert model.kv_cache_bytes(1000 * s, precision="fp32") == entry["state_bytes_fp32"]
    assert model.kv_cache_bytes(0) == 0


def test_mamba_state_is_fixed_where_a_kv_cache_grows():
    """mamba-130m (24 layers, d 768, expand 2, state 16, conv 4): 129,135,360 parameters; its
    state is 24 x 1,536 x (4 + 16) values = 1.47 MB in fp16 at any length, where a decoder's KV
    cache grows with every token; its prefill grows linearly in S (no S x S attention)."""
    m = M.from_hf_config({"model_type": "mamba", "num_hidden_layers": 24})
    assert m.params == 129_135_360 and m.config["architecture"] == "MambaForCausalLM"
    state = 24 * 1536 * (4 + 16) * 2
    assert m.kv_cache_bytes(1) == m.kv_cache_bytes(100_000) == state
    # prefill FLOPs: affine in S (the conv's causal padding adds conv_kernel - 1 outputs)
    f1, f2, f3 = (m.flops(seq_len=s) for s in (1000, 2000, 3000))
    assert f3 - f2 == f2 - f1 > 0
    scan = next(r.layer for r in m.rows(10) if r.name == "layers.mixer.scan")
    assert scan.params == 1536 * 16 + 1536 and scan.flops() == 2 * 10 * 1536 * 16
    with pytest.raises(ValueError, match="time_step_rank"):
        M.from_hf_config({"model_type": "mamba", "time_step_rank": "big"})


# --------------------------------------------------------------------------------------------
# One field at a time (issue 38): per family, a base config and one variant per count-changing
# field, only that field different (tests/reference/regenerate.py: hf_field_pairs)
# --------------------------------------------------------------------------------------------

PAIRS = [e for e in HF if "field_pair" in e]
BY_ID = {e["id"]: e for e in HF}
_SIZES = {"hidden_size", "num_hidden_layers", "intermediate_size", "vocab_size"}
_DECODER = _SIZES | {"num_attention_heads", "num_key_value_heads", "head_dim"}
_DECODER |= {"tie_word_embeddings", "sliding_window"}
#: every field from_hf_config reads that changes a count, per family (a field added to the
#: reader without a pair of its own fails here)
FIELDS = {
    "gpt2": {"n_embd", "n_layer", "n_inner", "vocab_size", "n_positions"}
    | {"tie_word_embeddings", "sliding_window"},
    "bert": _SIZES | {"max_position_embeddings", "type_vocab_size", "tie_word_embeddings"},
    "roberta": _SIZES | {"max_position_embeddings", "type_vocab_size", "tie_word_embeddings"},
    "llama": _DECODER | {"attention_bias", "mlp_bias", "attention_chunk_size"},
    "mistral": _DECODER,
    "qwen2": _DECODER | {"use_sliding_window", "max_window_layers"},
    "qwen3": _DECODER - {"sliding_window"} | {"attention_bias", "use_sliding_window"},
    "gemma": _DECODER | {"attention_bias"},
    "phi3": _DECODER,
    "mixtral": _DECODER | {"num_local_experts", "num_experts_per_tok"},
    # issue 34's families: a head count is no field of its own where head_dim is derived from
    # it (no count changes); Falcon's fields come from two bases (old and new architecture)
    "gpt_neox": _SIZES | {"tie_word_embeddings", "attention_bias", "sliding_window"},
    "opt": _SIZES - {"intermediate_size"}
    | {"ffn_dim", "max_position_embeddings", "word_embed_proj_dim", "enable_bias"}
    | {"layer_norm_elementwise_affine", "do_layer_norm_before", "_remove_final_layer_norm"}
    | {"tie_word_embeddings", "sliding_window"},
    "falcon": _SIZES - {"intermediate_size"}
    | {"num_attention_heads", "ffn_hidden_size", "multi_query", "parallel_attn", "bias"}
    | {"new_decoder_architecture", "num_kv_heads", "num_ln_in_parallel_attn"}
    | {"tie_word_embeddings", "sliding_window"},
    "phi": _DECODER | {"qk_layernorm"},
    "gemma2": _DECODER | {"attention_bias"},
    "gemma3_text": _DECODER | {"attention_bias", "sliding_window_pattern"},
    "qwen2_moe": _DECODER
    | {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "mlp_only_layers"}
    | {"shared_expert_intermediate_size", "decoder_sparse_step", "qkv_bias"}
    | {"use_sliding_window", "max_window_layers"},
    "qwen3_moe": _DECODER
    | {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "mlp_only_layers"}
    | {"decoder_sparse_step", "attention_bias", "use_sliding_window"},
    "deepseek_v3": _SIZES
    | {"moe_intermediate_size", "n_routed_experts", "num_experts_per_tok", "n_shared_experts"}
    | {"first_k_dense_replace", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim"}
    | {"qk_rope_head_dim", "v_head_dim", "tie_word_embeddings", "attention_bias"},
    "distilbert": {"dim", "n_layers", "hidden_dim", "vocab_size", "max_position_embeddings"}
    | {"tie_word_embeddings"},
    "xlm-roberta": _SIZES | {"max_position_embeddings", "type_vocab_size", "tie_word_embeddings"},
    "vit": {"hidden_size", "num_hidden_layers", "intermediate_size", "image_size", "patch_size"}
    | {"num_channels", "qkv_bias", "pooler_output_size"},
    "clip_vision_model": {"hidden_size", "num_hidden_layers", "intermediate_size"}
    | {"image_size", "patch_size", "num_channels", "projection_dim"},
    "t5": {"d_model", "d_kv", "num_heads", "num_layers", "num_decoder_layers", "d_ff"}
    | {"vocab_size", "relative_attention_num_buckets", "feed_forward_proj"},
    "bart": {"d_model", "encoder_layers", "decoder_layers", "encoder_ffn_dim", "decoder_ffn_dim"}
    | {"vocab_size", "max_position_embeddings", "tie_word_embeddings"},
    "mamba": {"hidden_size", "num_hidden_layers", "vocab_size", "state_size", "expand"}
    | {"conv_kernel", "time_step_rank", "use_bias", "use_conv_bias", "tie_word_embeddings"},
}


def _truth(e) -> tuple:
    cache = e.get("kv_cache_bytes_fp32", e.get("state_bytes_fp32"))  # Mamba: its fixed state
    return (e["params"], e["flops"], e.get("decode_flops"), cache)


def _counted(e) -> tuple:
    m = M.from_hf_config(e["config"])
    if not m.is_lm:  # a vision tower: one image of the config's image_size
        return (m.params, m.flops(), None, None)
    s = e["input_shape"][1]
    if "decode_flops" not in e:
        return (m.params, m.flops(seq_len=s), None, None)
    return (
        m.params,
        m.flops(seq_len=s),
        m.flops(seq_len=s, phase="decode"),
        m.kv_cache_bytes(s, precision="fp32"),
    )


def test_every_family_has_a_pair_for_every_count_changing_field():
    got: dict[str, set] = {}
    for e in PAIRS:
        got.setdefault(e["field_pair"]["family"], set()).add(e["field_pair"]["field"])
    assert got == FIELDS
    # every family from_hf_config reads, issue 34's sixteen included
    assert set(got) == set(SUPPORTED_MODEL_TYPES)


@pytest.mark.parametrize("entry", PAIRS, ids=_ids(PAIRS))
def test_a_field_changed_alone_changes_the_count_as_transformers_does(entry):
    """The variant differs from its base in that one field only, transformers counts another
    number for it (params, prefill or decode FLOPs, or the cache), and mlsysim counts both
    exactly: a field read from another key, or not read, counts the base's number or another."""
    pair = entry["field_pair"]
    base = BY_ID[pair["base"]]
    diff = {
        k
        for k in set(base["config"]) | set(entry["config"])
        if base["config"].get(k, "absent") != entry["config"].get(k, "absent")
    }
    assert diff == {pair["field"]}
    assert entry["config"][pair["field"]] == pair["value"]
    assert _truth(entry) != _truth(base)
    assert _counted(base) == _truth(base)
    assert _counted(entry) == _truth(entry)

"""``from_hf_config``: Hugging Face configurations counted as transformers counts them.

The ground truth is ``tests/reference/ground_truth.json`` (``hf_*`` entries: transformers 5.24
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
DECODERS = [e for e in HF if "decode_flops" in e]
SHIPPED = M.shipped_configs()


def _ids(entries):
    return [e["id"] for e in entries]


def test_fixture_covers_every_supported_family():
    families = {e["config"]["model_type"] for e in HF}
    assert families == set(SUPPORTED_MODEL_TYPES)
    shipped_families = {shipped_config(n)["config"]["model_type"] for n in SHIPPED}
    assert shipped_families == set(SUPPORTED_MODEL_TYPES) - {"qwen3"}


@pytest.mark.parametrize("entry", DECODERS, ids=_ids(DECODERS))
def test_decode_flops_match_transformers(entry):
    """One step at seq_len=S after a prompt of S-1 tokens, FlopCounterMode on the real model."""
    model = M.from_hf_config(entry["config"])
    s = entry["input_shape"][1]
    assert model.flops(seq_len=s, phase="decode") == entry["decode_flops"]


@pytest.mark.parametrize("entry", DECODERS, ids=_ids(DECODERS))
def test_decode_seq_len_includes_the_new_token(entry):
    """transformers' cache holds S tokens after the step that mlsysim calls decode at seq_len=S,
    and mlsysim's decode attends to S keys (at most sliding_window on a sliding layer)."""
    s = entry["input_shape"][1]
    assert entry["cache_seq_length"] == s
    model = M.from_hf_config(entry["config"])
    cores = [r.layer for r in model.rows(s, "decode") if isinstance(r.layer, L.Attention)]
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
    model = M.from_hf_config(entry["config"])
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
        ({"model_type": "t5"}, "model_type"),
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
}


def _truth(e) -> tuple:
    return (e["params"], e["flops"], e.get("decode_flops"), e.get("kv_cache_bytes_fp32"))


def _counted(e) -> tuple:
    m = M.from_hf_config(e["config"])
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

"""Bring your own model (labs/byom.py): the numbers its parts show, computed another way, and
bad pasted input shown as a sentence, never a traceback."""

from __future__ import annotations

import json

import marimo as mo
import pytest

from mlsysim import Engine, Hardware
from mlsysim import models as M
from mlsysim.labs.parts import byom as lab

import harness as h

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NOTEBOOK = h.ROOT / "labs" / "byom.py"


def _card(view, label):
    return next(c for c in view.cards if c.label == label)


def test_mixtral_does_not_fit_an_80gb_gpu_in_fp16():
    """46,702,792,704 params x 2 B = 93.4 GB of weights > 80 GB, though only 12.9B run per token."""
    v = lab.part_a("mixtral-8x7b-v0.1", "H100", "fp16")
    assert _card(v, "Fits on the NVIDIA H100 SXM5 80GB").value == "no"
    assert _card(v, "Weight memory").value == "93.4 GB"
    assert _card(v, "Parameters").fact.value == 46_702_792_704
    assert _card(v, "Active per token").value == "12.9 billion"
    # INT8 halves the weights to 46.7 GB: it fits, with the KV cache at 4,096 tokens
    assert (
        _card(
            lab.part_a("mixtral-8x7b-v0.1", "H100", "int8"), "Fits on the NVIDIA H100 SXM5 80GB"
        ).value
        == "yes"
    )


def test_llama3_decode_is_bound_by_the_ffn_weights():
    """Llama-3-8B decode, batch 1, FP16: the FFN holds 32 x 3 x 4096 x 14336 = 5.64e9 weights
    = 11.27 GB, read for 2 FLOPs each: 1 FLOP/B, far below the H100's sustained ridge of
    989.5 / 3.35 x 0.5 = 147.7 FLOP/B."""
    v = lab.part_b("llama-3-8b", "H100", "fp16", "decode")
    assert _card(v, "Binding group").value == "FFN / experts"
    assert _card(v, "Its intensity").value == "1.0 FLOP/B"
    assert "148 FLOP/B" in _card(v, "Its intensity").note
    assert "| FFN / experts | 11.3 billion | 11.3 GB |" in v.summary
    assert "memory-bound" in v.summary.split("\n")[0]
    # prefill of 2,048 tokens reuses each weight 2,048 times: the same group turns compute-bound
    p = lab.part_b("llama-3-8b", "H100", "fp16", "prefill")
    assert "compute-bound" in p.summary.split("\n")[0]


def test_decode_mfu_is_below_the_bandwidth_bound():
    """At 1 FLOP/B (2 FLOPs per 2-byte weight) an H100 can reach at most 3.35 TB/s x 1 FLOP/B
    = 3.35 TFLOP/s = 0.34% of its 989.5 TFLOP/s FP16 peak; launches and the KV cache only lower it."""
    v = lab.part_c("llama-3-8b", "H100", "fp16", 2048)
    decode = _card(v, "Decode MFU").fact.value
    prefill = _card(v, "Prefill MFU").fact.value
    bound = 3.35e12 / 989.5e12
    assert 0.5 * bound < decode <= bound * 1.01
    assert prefill > 40 * decode


def test_kv_cache_per_token_llama3_8b():
    """2 (K, V) x 32 layers x 8 KV heads x 128 head_dim x 2 B = 131,072 B per token."""
    v = lab.part_d("llama-3-8b", "H100", "fp16", 1)
    assert _card(v, "KV per token").fact.value == 2 * 32 * 8 * 128 * 2
    assert _card(v, "KV per token").value == "131.1 KB"
    # at the model's full 8,192 tokens and batch 1: 8,192 x 131,072 B = 1.07 GB
    assert _card(v, "KV at 8,192 tokens").fact.value == 8192 * 131_072


def test_largest_batch_is_the_edge_of_feasibility_and_halving_context_doubles_it():
    m = lab.get_model("llama-3-8b")
    best = lab.largest_batch(m, "H100", "fp16", 4096)

    def fits(b, s=4096):
        return Engine.solve(
            m, "H100", batch_size=b, precision="fp16", phase="decode", seq_len=s
        ).feasible

    assert fits(best) and not fits(best + 1)
    # independently: (80 GB - 16.06 GB of weights) / (536.9 MB of KV per sequence) ~ 119
    kv = 2 * 32 * 8 * 128 * 2 * 4096
    assert best <= (80e9 - m.weight_bytes("fp16")) // kv
    assert best >= 0.95 * (80e9 - m.weight_bytes("fp16")) // kv
    half = lab.largest_batch(m, "H100", "fp16", 2048)
    assert 1.9 < half / best <= 2.05
    v = lab.part_e("llama-3-8b", "H100", "fp16", 4096)
    assert _card(v, "Largest batch").value == f"{best:,} sequences"


def test_a_model_that_never_fits_reports_zero_not_an_error():
    v = lab.part_e("llama-2-70b", "iPhone15Pro", "fp16", 4096)
    assert _card(v, "Largest batch").value == "0"
    assert v.alert is not None


def test_encoder_parts_use_prefill():
    v = lab.part_c("bert-base-uncased", "H100", "fp16", 8192)
    assert "no decode phase" in v.summary and "512 tokens" in v.summary  # capped at 512 positions
    assert [c.label for c in v.cards] == ["Prefill latency", "Prefill MFU"]


def test_pasted_config_counts_like_the_shipped_one():
    key, err = lab.resolve(lab.PASTE, lab.EXAMPLE)
    assert err is None
    assert lab.get_model(key).params == M.from_shipped("qwen2.5-7b").params == 7_615_616_512
    # edit one field that changes a count: 4 -> 28 K/V heads (MHA) grows k_proj and v_proj
    raw = json.loads(lab.EXAMPLE)
    raw["num_key_value_heads"] = 28
    key2, err2 = lab.resolve(lab.PASTE, json.dumps(raw))
    assert err2 is None
    extra = 28 * 2 * (3584 * (28 - 4) * 128 + (28 - 4) * 128)  # weights + biases of k and v
    assert lab.get_model(key2).params - lab.get_model(key).params == extra


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Paste a config.json"),
        ("{not json", "not valid JSON"),
        ("[1, 2, 3]", "JSON object"),
        ('{"model_type": "jamba"}', "model_type"),
        ('{"model_type": "llama", "hidden_size": "big"}', "hidden_size"),
        ('{"model_type": "bert", "add_cross_attention": true}', "add_cross_attention"),
        ('{"model_type": "vit"}', "ViTModel reads one image"),
        ('{"model_type": "mamba"}', "MambaForCausalLM is a state-space model"),
    ],
)
def test_bad_pasted_config_is_a_sentence_in_the_notebook(text, says, tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    app = h.load_app(NOTEBOOK)
    widgets = h.run(app, unlock=True, path=NOTEBOOK).widgets()
    defs = {
        "source": h.with_value(widgets["source"], lab.PASTE),
        "config_text": mo.ui.text_area(value=text, label="config.json"),
    }
    r = h.run(app, defs=defs, unlock=True, path=NOTEBOOK)
    assert h.problems(r) == []
    assert "That input is not valid." in r.visible_text
    assert says in r.visible_text
    assert "Traceback" not in r.visible_text and not r.figures


def test_pasted_text_never_reaches_html_unescaped(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    raw = {**json.loads(lab.EXAMPLE), "_name_or_path": "<script>alert(1)</script>"}
    app = h.load_app(NOTEBOOK)
    widgets = h.run(app, unlock=True, path=NOTEBOOK).widgets()
    defs = {
        "source": h.with_value(widgets["source"], lab.PASTE),
        "config_text": mo.ui.text_area(value=json.dumps(raw), label="config.json"),
    }
    r = h.run(app, defs=defs, unlock=True, path=NOTEBOOK)
    assert h.problems(r) == [] and len(r.figures) >= 5
    html_out = "".join(mo.as_html(o).text for o in r.outputs if o is not None)
    assert "<script>alert(1)" not in html_out
    bad = {**raw, "model_type": "<b>x</b>"}
    defs["config_text"] = mo.ui.text_area(value=json.dumps(bad), label="config.json")
    r = h.run(app, defs=defs, unlock=True, path=NOTEBOOK)
    assert "<b>x</b>" not in "".join(mo.as_html(o).text for o in r.outputs if o is not None)


def test_every_shipped_model_runs_every_part_on_the_largest_device():
    dev = Hardware.get("H100")
    for key in lab.SHIPPED:
        for view in (
            lab.part_a(key, dev.key, "int8"),
            lab.part_b(key, dev.key, "int8", "decode"),
            lab.part_c(key, dev.key, "int8", 1024),
            lab.part_d(key, dev.key, "int8", 8),
            lab.part_e(key, dev.key, "int8", 2048),
        ):
            assert view.figure.data


@pytest.mark.parametrize(
    "config",
    [
        {
            "model_type": "llama",
            "hidden_size": 2**20,
            "num_attention_heads": 1,
            "intermediate_size": 2**24,
            "num_hidden_layers": 2**40,
            "vocab_size": 2**40,
            # the longest it can be counted at (2**40 is refused at load: test_hf_hostile.py)
            "max_position_embeddings": 2**16,
        },
        {
            "model_type": "mixtral",
            "hidden_size": 2**20,
            "num_attention_heads": 1,
            "num_key_value_heads": 1,
            "intermediate_size": 2**30,
            "num_hidden_layers": 10_000,
            "vocab_size": 2**30,
            "num_local_experts": 2**20,
            "num_experts_per_tok": 2**20,
        },
        {
            "model_type": "gpt2",
            "n_embd": 1,
            "n_head": 1,
            "n_layer": 1,
            "vocab_size": 1,
            "n_positions": 1,
        },
        {
            "model_type": "bert",
            "hidden_size": 1,
            "num_attention_heads": 1,
            "intermediate_size": 1,
            "num_hidden_layers": 1,
            "vocab_size": 1,
            "max_position_embeddings": 1,
            "type_vocab_size": 0,
        },
        {
            "model_type": "qwen2",
            "num_hidden_layers": 2**40,
            "use_sliding_window": True,
            "sliding_window": 1,
            "max_window_layers": 0,
        },
    ],
    ids=["huge-llama", "huge-moe", "tiny-gpt2", "tiny-bert", "qwen2-window-1"],
)
def test_extreme_pasted_configs_draw_finite_parts(config):
    """Sizes near the limits a config may take (2**40 per field): every part still draws finite
    numbers (no overflow, no hang); one past the limit is refused by name."""
    from test_parts import check_view

    key, err = lab.resolve(lab.PASTE, json.dumps(config))
    assert err is None, err
    for view in (
        lab.part_a(key, "H100", "fp16"),
        lab.part_b(key, "H100", "fp16", "decode"),
        lab.part_c(key, "iPhone15Pro", "int8", 8192),
        lab.part_d(key, "H100", "fp32", 64),
        lab.part_e(key, "H100", "fp16", 32768),
    ):
        check_view(view)
    _, err = lab.resolve(lab.PASTE, json.dumps({**config, "vocab_size": 2**40 + 1}))
    assert "vocab_size" in err and "2**40" in err


def test_a_config_whose_layers_exceed_every_size_is_a_sentence_not_a_traceback():
    """Each field in range, their product past what any layer takes (2**40 x 2,048 tokens, the
    default Llama context):
    resolve either builds it (every part then draws) or names the problem; it never raises."""
    from test_parts import check_view

    config = {
        "model_type": "llama",
        "hidden_size": 2**40,
        "num_attention_heads": 1,
        "intermediate_size": 2**40,
        "num_hidden_layers": 1,
        "vocab_size": 2**40,
    }
    key, err = lab.resolve(lab.PASTE, json.dumps(config))
    if err is not None:
        # refused at load by from_hf_config, naming the field and the length
        assert "own default sequence length (config['max_position_embeddings'] = 2,048)" in err
    else:
        check_view(lab.part_c(key, "H100", "fp16", 8192))
        check_view(lab.part_e(key, "H100", "fp16", 32768))


def test_sequence_classifier_runs_prefill_only():
    raw = {
        **json.loads(lab.EXAMPLE),
        "architectures": ["Qwen2ForSequenceClassification"],
        "num_labels": 3,
    }
    key, err = lab.resolve(lab.PASTE, json.dumps(raw))
    assert err is None
    v = lab.part_c(key, "H100", "fp16", 1024)
    assert [c.label for c in v.cards] == ["Prefill latency", "Prefill MFU"]


def test_pred_b_bert_is_launch_bound_on_the_h100_and_compute_bound_on_the_jetson():
    """PRED_B: BERT-base over 512 tokens, batch 1, FP16, eager. On the H100 (5 µs per launch) the
    pass is launch-bound and norms, activations and adds, the group with the most kernels, take
    30% of 1.27 ms; on the Jetson (15.04 TFLOP/s FP16, 989.5 / 15.04 = 66x below the H100's peak,
    20 µs per launch, 4x the H100's) the FFNs take 35% of 23.5 ms, compute-bound. Scores: 22%
    and 17%. (It once asked about Llama-3 8B's decode, 6.7's finding.)"""
    h = lab.part_b("bert-base-uncased", "H100", "fp16", "decode")  # an encoder: prefill only
    j = lab.part_b("bert-base-uncased", "JetsonOrinNX", "fp16", "decode")
    assert _card(h, "Binding group").value == "norms, activations, adds"
    assert _card(j, "Binding group").value == "FFN / experts"
    assert _card(h, "Binding group").note == "30% of the step"
    assert _card(j, "Binding group").note == "35% of the step"
    assert (_card(h, "Step latency").value, _card(j, "Step latency").value) == (
        "1.27 ms",
        "23.51 ms",
    )
    assert "| attention scores (QKᵀ, PV) |" in h.summary
    shares = {
        d: {g: t / p.latency_s for g, _, _, _, t in lab._grouped(p)}
        for d, p in (
            (
                d,
                lab._solve(
                    lab.get_model("bert-base-uncased"), d, "fp16", phase="prefill", seq_len=512
                ),
            )
            for d in ("H100", "JetsonOrinNX")
        )
    }
    scores = "attention scores (QKᵀ, PV)"
    assert (round(shares["H100"][scores], 2), round(shares["JetsonOrinNX"][scores], 2)) == (
        0.22,
        0.17,
    )
    assert round(989.5 / 15.04) == 66 and Hardware.get("JetsonOrinNX").dispatch_tax.m_as("us") == 20
    fb = " ".join(lab.PRED_B.feedback.values())
    for n in ("30% of 1.27 ms", "35% of 23.5 ms", "66×", "22%", "17%"):
        assert n in fb
    assert lab.PRED_B.answer == "split" and "BERT-base" in lab.PRED_B.question
    assert "5 µs" in lab.PRED_B.question and "20 µs" in lab.PRED_B.question  # the assumption


def test_part_b_says_when_the_model_does_not_fit():
    """Llama-2 70B in FP16: 68,976,648,192 params x 2 B = 138 GB of weights alone, more than an
    H100's 80 GB: Part B's step latency would be for a run that cannot happen, so it says so."""
    v = lab.part_b("llama-2-70b", "H100", "fp16", "decode")
    assert v.alert is not None and "Out of memory." in v.alert.text
    assert lab.part_b("llama-3-8b", "H100", "fp16", "decode").alert.text.count("Fits.") == 1


def test_pred_d_mistral_window_caps_its_cache():
    """PRED_D: Mistral-7B-v0.1's 4,096-token sliding window in all 32 layers caps its cache at
    4,095 tokens (transformers' cache): 2 x 32 x 8 x 128 x 2 B x 4,095 = 536.7 MB at 8K and at 32K;
    full attention would keep 32,768 x 131,072 B = 4.3 GB. (It once asked whether a full-attention
    cache is linear, 6.7's finding.) Part D shows the flat curve for Mistral."""
    m = lab.get_model("mistral-7b-v0.1")
    sizes = {m.kv_cache_bytes(s, 1, "fp16") for s in (8192, 32768)}
    assert sizes == {2 * 32 * 8 * 128 * 2 * 4095}
    from mlsysim.labs.components import fmt_bytes

    assert fmt_bytes(sizes.pop()) == "536.7 MB" and fmt_bytes(32768 * 131_072) == "4.3 GB"
    assert lab.PRED_D.answer == "same"
    for key in lab.PRED_D.options:
        assert "536.7 MB" in lab.PRED_D.feedback[key]
    v = lab.part_d("mistral-7b-v0.1", "H100", "fp16", 1)
    assert "sliding-window layers keep at most 4,095 tokens each" in v.summary


def test_pred_c_gqa_gains_more_from_batching():
    """PRED_C: decode at 2,048 tokens, H100, FP16. Batch 1: Llama-2 7B 0.21%, Llama-3 8B 0.23% MFU;
    batch 32: 2.71% against 5.25%. Llama-2 7B keeps 2 x 32 x 32 x 128 x 2 B = 524 KB per token
    (x 2,048 x 32 = 34.4 GB at batch 32, next to 13.5 GB of weights), Llama-3 8B 131 KB. The part's
    decode curve shows the same points."""
    from mlsysim.labs.components import fmt_bytes

    def mfu(name, b):
        m = lab.get_model(name)
        return lab._solve(m, "H100", "fp16", batch=b, phase="decode", seq_len=2048).mfu

    got = [f"{mfu(n, b):.2%}" for n in ("llama-2-7b", "llama-3-8b") for b in (1, 32)]
    assert got == ["0.21%", "2.71%", "0.23%", "5.25%"]
    m2 = lab.get_model("llama-2-7b")
    assert fmt_bytes(m2.kv_cache_bytes(2048, 32, "fp16")) == "34.4 GB"
    assert fmt_bytes(m2.weight_bytes("fp16")) == "13.5 GB"
    assert (
        m2.kv_cache_bytes(1, 1, "fp16") == 524_288
        and lab.get_model("llama-3-8b").kv_cache_bytes(1, 1, "fp16") == 131_072
    )
    fb = " ".join(lab.PRED_C.feedback.values())
    for n in got + ["34.4 GB", "13.5 GB", "524 KB against 131 KB"]:
        assert n in fb
    assert lab.PRED_C.answer == "gqa" and lab.C_PROMPT.value == 2048


def test_pred_e_the_larger_gqa_model_serves_more():
    """PRED_E: on the H100 in FP16 at 4,096 tokens, Phi-3 mini (7.6 GB of weights; 32 K/V heads of
    96: 393,216 B per token, its 2,047-token window keeps 2,046: 804.5 MB per sequence) fits 89
    sequences; Llama-3 8B (16.1 GB; 131,072 B per token: 536.9 MB) fits 118. (It once asked what
    halving the context does, 6.7's finding.)"""
    from mlsysim.labs.components import fmt_bytes

    phi, llama = lab.get_model("phi-3-mini-4k"), lab.get_model("llama-3-8b")
    assert phi.kv_cache_bytes(4096, 1, "fp16") == 393_216 * 2046
    assert fmt_bytes(phi.kv_cache_bytes(4096, 1, "fp16")) == "804.5 MB"
    assert fmt_bytes(llama.kv_cache_bytes(4096, 1, "fp16")) == "536.9 MB"
    assert (fmt_bytes(phi.weight_bytes("fp16")), fmt_bytes(llama.weight_bytes("fp16"))) == (
        "7.6 GB",
        "16.1 GB",
    )
    assert fmt_bytes(llama.weight_bytes("fp16") - phi.weight_bytes("fp16")) == "8.4 GB"
    nb = [lab.largest_batch(m, "H100", "fp16", 4096) for m in (phi, llama)]
    assert nb == [89, 118]
    assert (
        _card(lab.part_e("phi-3-mini-4k", "H100", "fp16", 4096), "Largest batch").value
        == "89 sequences"
    )
    assert (
        lab.PRED_E.answer == "llama" and "89 sequences against 118" in lab.PRED_E.feedback["llama"]
    )


def test_integer_precision_is_written_in_operations():
    """Llama-3 8B decoding on the H100 in INT8: the chart says OP/byte, so the cards, table and
    peek say OP/B too (2.0 OP/B: one multiply-add = 2 ops per 1-byte weight; ridge 1,979e12 x 0.5
    / 3.35e12 = 295 OP/B), and a dispatch-bound group is not compared with the ridge."""
    v = lab.part_b("llama-3-8b", "H100", "int8", "decode")
    text = v.summary + " ".join(v.peek) + " ".join(f"{c.value} {c.note}" for c in v.cards)
    assert "(2.0 vs 295 OP/B)" in v.summary and "FLOP/B" not in text
    assert "| layer group | matmul OPs | bytes | OP/B |" in v.summary
    assert "FLOP/B" not in " ".join(lab.part_c("llama-3-8b", "H100", "int8", 2048).peek)


def test_part_c_and_e_say_what_applies():
    """On the Jetson in FP16 at an 8,192-token prompt only one Llama-2 7B sequence fits, so there is
    no batching to raise MFU; Mistral-7B's 4,096-token window caps its cache at 8,192 tokens."""
    s = lab.part_c("llama-2-7b", "JetsonOrinNX", "fp16", 8192).summary
    assert "Only one sequence fits" in s and "at 1 sequences" not in s
    e = lab.part_e("mistral-7b-v0.1", "H100", "fp16", 8192).summary
    assert "keep at most 4,095 tokens each" in e
    assert "sliding-window" not in lab.part_e("llama-3-8b", "H100", "fp16", 8192).summary


def test_pred_a_is_the_case_part_a_shows_first():
    """Defect: PRED_A asked about the Jetson while Part A opened on the H100, so a green 'Fits.'
    showed under an answer 'No'. Now the question is the case Part A shows first (Llama-3 8B, FP16,
    H100, where it fits) and asks what must shrink for 16 GB: the weights, 16.06 GB of a 16.60 GB
    footprint (97%), since 2 x 32 x 8 x 128 x 4,096 x 2 B = 536.9 MB of KV and 540.7 KB of
    activations. On the Jetson that is 597.9 MB over 16 x 10^9 B; at 256 tokens still over; INT8
    (8.3 GB) fits."""
    from mlsysim.labs.components import fmt_bytes

    defaults = (lab.A_MODEL.value, lab.A_DEVICE.value, lab.A_PRECISION.value)
    assert defaults == ("llama-3-8b", "H100", "fp16")
    assert "Llama-3 8B in FP16 on the H100" in lab.PRED_A.question
    shown = lab.part_a(*defaults)
    fit = _card(shown, "Fits on the NVIDIA H100 SXM5 80GB")
    assert fit.value == "yes" and "room to spare" in lab.PRED_A.question
    assert shown.alert.text.count("Fits.") == 1
    m = lab.get_model("llama-3-8b")
    p = lab._solve(m, "H100", "fp16", seq_len=4096)
    assert round(p.weight_bytes / p.memory_footprint_bytes, 2) == 0.97
    assert (
        fmt_bytes(p.weight_bytes),
        fmt_bytes(p.kv_cache_bytes),
        fmt_bytes(p.activation_bytes),
    ) == (
        "16.1 GB",
        "536.9 MB",
        "540.7 KB",
    )
    cards = {c.label: c for c in lab.part_a("llama-3-8b", "JetsonOrinNX", "fp16").cards}
    assert cards["Fits on the NVIDIA Jetson Orin NX 16GB"].note == "597.9 MB over 16.0 GB"
    assert not lab._solve(m, "JetsonOrinNX", "fp16", seq_len=256).feasible
    int8 = lab._solve(m, "JetsonOrinNX", "int8", seq_len=4096)
    assert int8.feasible and fmt_bytes(int8.memory_footprint_bytes) == "8.3 GB"
    fb = lab.PRED_A.feedback["weights"]
    for n in (
        "16.6 GB",
        "16.1 GB",
        "97%",
        "536.9 MB",
        "540.7 KB",
        "597.9 MB",
        "8.3 GB",
        "16 × 10⁹ B",
    ):
        assert n in fb
    assert lab.PRED_A.answer == "weights"


@pytest.mark.parametrize("layers", [1, 80, 1500])
@pytest.mark.parametrize("device", ["H100", "iPhone15Pro", "MI325X", "CoralEdgeTPU"])
def test_part_a_memory_reads_for_any_model_on_any_device(layers, device):
    """Issue 35: on a linear axis scaled to 80 GB a small model's bars vanished, and the five
    device lines' labels were pushed off their lines (the iPhone's sat above the plot). Now the
    axis is bytes on a log scale spanning the footprint and the chosen device's capacity, one row
    per part of the footprint, and one labelled line, the chosen device's: from a 1-layer toy to
    a 2.9 TB 1,500-layer model every bar is inside the axis at two decades or less from its
    edge, and no label is cut off, struck or overlapping at the desktop, narrow or phone width."""
    import math

    from mlsysim.labs import charts, placement

    cfg = {
        "model_type": "llama",
        "hidden_size": 8192 if layers > 1 else 64,
        "num_attention_heads": 64 if layers > 1 else 4,
        "intermediate_size": 28672 if layers > 1 else 128,
        "num_hidden_layers": layers,
        "vocab_size": 32000 if layers > 1 else 100,
    }
    key, err = lab.resolve(lab.PASTE, json.dumps(cfg))
    assert err is None, err
    cap = Hardware.get(device).memory.capacity.m_as("B")
    for precision in ("fp32", "fp16", "int8"):
        view = lab.part_a(key, device, precision)
        spec = charts.finalize(view.figure).to_plotly_json()
        for width in placement.WIDTHS:
            assert placement.label_problems(spec["data"], spec["layout"], width) == [], width
        phone = charts.phone_variant(spec)  # what a phone draws (the site swaps it in)
        assert (
            placement.label_problems(phone["data"], phone["layout"], placement.PHONE_LABEL_PX) == []
        ), "phone"
        lines = [a["text"] for a in spec["layout"]["annotations"]]
        shown = lines[0].replace("<br>", " ") if len(lines) == 1 else lines
        assert charts.device_label(Hardware.get(device)) in shown, lines
        on_phone = [a["text"].replace("<br>", " ") for a in phone["layout"]["annotations"]]
        assert on_phone == [shown], on_phone  # the line keeps its name at 240 px
        ax = spec["layout"]["xaxis"]
        assert ax["type"] == "log"
        lo, hi = ax["range"]
        bars = spec["data"][0]
        assert bars["y"][-1] == "total"
        for v in (*bars["x"], cap):
            assert lo + 0.29 <= math.log10(v) <= hi - 0.29
        assert min(math.log10(v) for v in (*bars["x"], cap)) - lo <= 4.0
        assert all(t.endswith("B") for t in ax["ticktext"])  # byte ticks: "1 GB", "100 MB"


@pytest.mark.parametrize("device", [k for k in lab.DEVICES if k not in ("H100",)][::3])
def test_every_class_of_device_runs_every_part(device):
    """The picker offers every registry device by class; a device without a precision the
    student picked runs at one it lists, and a callout says which (never a traceback)."""
    from test_parts import check_view

    dev = Hardware.get(device)
    for precision in lab.PRECISIONS:
        used, note = lab.pick_precision(dev, precision)
        assert used in dev.compute.precisions
        assert (note is None) is (precision in dev.compute.precisions)
        view = lab.part_b("gpt2", device, precision, "decode")
        check_view(view)
        if note:
            assert "lists no " + precision.upper() in view.alert.text


def test_picker_groups_devices_by_class_then_your_own():
    groups = list(lab.DEVICE_CLASSES)
    assert groups == ["Datacenter", "Desk & laptop", "Edge", "Phone", "Tiny"]
    assert list(lab.DEVICE.options)[-1] == lab.CUSTOM
    assert set(lab.DEVICES) == set(Hardware.names())
    el = lab.DEVICE.widget()
    shown = list(el.options)
    assert shown[0].startswith("Datacenter · NVIDIA H100") and shown[-1].startswith("Yours · ")
    assert el.value == "H100"


@pytest.mark.parametrize(
    "text, needle",
    [
        (
            "memory: -3 GB\nbandwidth: 1 TB/s\nfp16: 10 TFLOP/s",
            "memory must be a finite quantity in [0",
        ),
        ("memory: 3 GB\nbandwidth: 1 TB\nfp16: 10 TFLOP/s", "bandwidth must have units of"),
        (
            "memory: 3 GB\nbandwidth: 1 TB/s\nfp17: 1 TFLOP/s",
            "'fp17' is not a device field; allowed",
        ),
        ("memory: 3 GB\nbandwidth: 1 TB/s\nfp16: 10", "fp16='10' needs a unit"),
        (
            "memory: 3 GB\nbandwidth: 0 TB/s\nfp16: 1 TFLOP/s",
            "bandwidth must be a finite quantity in [1",
        ),
        ("memory: 3 GB\nbandwidth: 1 TB/s", "no peak rate"),
        ("bandwidth: 1 TB/s\nfp16: 1 TFLOP/s", "memory is missing"),
        (
            "memory: 3 GB\nbandwidth: 1e400 TB/s\nfp16: 1 TFLOP/s",
            "bandwidth must be a finite quantity",
        ),
        ("memory 3 GB", "must read 'field: value'"),
        ("memory: 10**10**10 GB\nbandwidth: 1 TB/s\nfp16: 1 TFLOP/s", "no powers"),
    ],
)
def test_an_entered_device_is_validated_by_the_registry_rules(text, needle):
    """A student's own device: the same rules as the registry (``hardware._quantity``), an error
    that names the field and its allowed range or unit, shown as a callout, never raised."""
    key, err = lab.resolve_device(lab.CUSTOM, text)
    assert key is None and err.startswith("Your device: ") and needle in err, err


@pytest.mark.parametrize("model", ["gpt2", "mixtral-8x7b-v0.1"])
def test_part_a_names_every_pickable_device_on_a_phone(model):
    """The chosen device's line keeps its label, whole and clear of the bars, in the 240 px plot
    a phone draws, for each of the picker's devices (a line's label with no clear place is left to
    the legend and hover, and this line is in neither: unnamed, it would be a bare stroke)."""
    from mlsysim.labs import charts, placement

    devices = [k for group in lab.DEVICE_CLASSES.values() for k in group]
    assert len(devices) == len(set(devices)) >= 40
    for device in devices:
        spec = charts.finalize(lab.part_a(model, device, "fp16").figure).to_plotly_json()
        phone = charts.phone_variant(spec)
        problems = placement.label_problems(
            phone["data"], phone["layout"], placement.PHONE_LABEL_PX
        )
        assert problems == [], (device, problems)
        named = [a["text"].replace("<br>", " ") for a in phone["layout"]["annotations"]]
        assert len(named) == 1 and charts.device_label(Hardware.get(device)) in named[0], (
            device,
            named,
        )


def test_an_entered_device_runs_every_part_and_reaches_the_report():
    """A 24 GB / 936 GB/s card with FP16 71 TFLOP/s: Llama-3 8B's FP16 weights (16.1 GB) fit,
    and decode at batch 1 reads them at 936 GB/s: the step takes at least 16.06 GB / 936 GB/s =
    17.2 ms. The figures go into the report's design and the text box is restored on reload."""
    from test_parts import check_view

    text = "name: Lab card\nmemory: 24 GB\nbandwidth: 936 GB/s\nfp16: 71 TFLOP/s\n"
    key, err = lab.resolve_device(lab.CUSTOM, text)
    assert err is None and key.startswith("custom:")
    dev = lab.get_device(key)
    assert dev.memory.capacity.m_as("B") == 24e9 and dev.compute.peak("fp16").m_as("TFLOP/s") == 71
    a = lab.part_a("llama-3-8b", key, "fp16")
    assert _card(a, "Fits on the Lab card").value == "yes"
    b = lab.part_b("llama-3-8b", key, "fp16", "decode")
    step = _card(b, "Step latency").fact.value
    assert step >= 16.06e9 / 936e9
    for view in (
        a,
        b,
        lab.part_c("llama-3-8b", key, "fp16", 1024),
        lab.part_d("llama-3-8b", key, "fp16", 8),
        lab.part_e("llama-3-8b", key, "fp16", 2048),
    ):
        check_view(view)
    # INT8 is not listed: the parts run it at FP16 and say so
    assert "lists no INT8 rate" in lab.part_a("llama-3-8b", key, "int8").alert.text
    assert lab.device_design(lab.CUSTOM, text) == {
        "your device": "Lab card: 24 GB, 936.0 GB/s, FP16 71.0 TFLOP/s"
    }
    assert lab.device_design("H100", text) == {}
    # the picker's own "custom" entry (no figures entered yet) runs on the example
    check_view(lab.part_a("gpt2", lab.CUSTOM, "fp16"))


def test_an_entered_device_survives_a_reload_and_reaches_the_report(tmp_path):
    from mlsysim.labs import reports
    from mlsysim.labs.components import Saved
    from mlsysim.labs.state import DesignLedger

    text = "name: Lab card\nmemory: 24 GB\nbandwidth: 936 GB/s\nfp16: 71 TFLOP/s\n"
    ledger = DesignLedger(path=tmp_path / "ledger.json")
    ledger.save(
        chapter=lab.CHAPTER,
        design={"device": lab.CUSTOM, **lab.device_design(lab.CUSTOM, text)},
        answers={"A": "weights"},
        required=lab.PARTS,
        widgets={"DEVICE": lab.CUSTOM, "DEVICE_SPEC": text},
    )
    again = DesignLedger(path=tmp_path / "ledger.json").load()
    saved = Saved(again, lab)
    assert lab.DEVICE.widget(saved).value == lab.CUSTOM
    assert lab.DEVICE_SPEC.widget(saved).value == text
    rep = reports.build(again, lab)
    assert rep.synthesis.design["your device"].startswith("Lab card: 24 GB")
    assert "Lab card: 24 GB, 936.0 GB/s" in reports.to_markdown(rep)


def test_notebook_runs_on_an_entered_device_and_shows_a_bad_one_as_a_callout():
    """The page with "your own device" picked: good figures run every part; a negative memory is
    a callout naming the field and its range, the parts wait for a fix, and nothing raises."""
    app = h.load_app(NOTEBOOK)
    widgets = h.run(app, unlock=True, path=NOTEBOOK).widgets()
    good = "name: Lab card\nmemory: 24 GB\nbandwidth: 936 GB/s\nfp16: 71 TFLOP/s\n"
    defs = {
        "device": h.with_value(widgets["device"], lab.CUSTOM),
        "device_spec": mo.ui.text_area(value=good, label="device"),
    }
    r = h.run(app, defs=defs, unlock=True, path=NOTEBOOK)
    assert h.problems(r) == [] and len(r.figures) >= 5
    assert "Lab card" in r.visible_text
    defs["device_spec"] = mo.ui.text_area(value=good.replace("24 GB", "-24 GB"), label="device")
    r = h.run(app, defs=defs, unlock=True, path=NOTEBOOK)
    assert h.problems(r) == [] and len(r.figures) == 0
    assert "memory must be a finite quantity in [0" in r.visible_text
    assert "fix your device" in r.visible_text

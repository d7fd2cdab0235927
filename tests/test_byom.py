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
        ('{"model_type": "t5"}', "model_type"),
        ('{"model_type": "llama", "hidden_size": "big"}', "hidden_size"),
        ('{"model_type": "bert", "add_cross_attention": true}', "add_cross_attention"),
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


def test_pred_b_holds_for_the_model_its_stem_names():
    """PRED_B names Llama-3 8B (the default): decoding one token at batch 1 over 2,048 tokens on
    the H100, the FFN's weight matrices are the binding group (54% of 7.14 ms) at 1.0 FLOP/B
    (one multiply-add per FP16 weight = 2 FLOPs per 2 bytes), far below the 148 FLOP/B ridge.
    The stem once named no model, and GPT-2's norms, activations and adds group outweighs its
    weight groups on the H100."""
    assert "Llama-3 8B" in lab.PRED_B.question and lab.MODEL.value == "llama-3-8b"
    cards = {c.label: c for c in lab.part_b("llama-3-8b", "H100", "fp16", "decode").cards}
    assert cards["Binding group"].value == "FFN / experts"
    assert cards["Its intensity"].value == "1.0 FLOP/B"
    assert lab.PRED_B.answer == "weights"


def test_part_b_says_when_the_model_does_not_fit():
    """Llama-2 70B in FP16: 68,976,648,192 params x 2 B = 138 GB of weights alone, more than an
    H100's 80 GB: Part B's step latency would be for a run that cannot happen, so it says so."""
    v = lab.part_b("llama-2-70b", "H100", "fp16", "decode")
    assert v.alert is not None and "Out of memory." in v.alert.text
    assert lab.part_b("llama-3-8b", "H100", "fp16", "decode").alert.text.count("Fits.") == 1


def test_sliding_window_models_are_outside_pred_d():
    """PRED_D's 'linear' answer is for full attention: Mistral-7B-v0.1's 4,096-token sliding
    window caps its cache (536.9 MB per sequence at 4K, 8K and 32K tokens), so the stem says
    'full attention in every layer' and the 'const' feedback names the exception."""
    m = lab.get_model("mistral-7b-v0.1")
    sizes = {m.kv_cache_bytes(s, 1, "fp16") for s in (4096, 8192, 32768)}
    assert len(sizes) == 1
    assert "full attention in every layer" in lab.PRED_D.question
    assert "sliding-window" in lab.PRED_D.feedback["const"]


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


def test_pred_a_is_what_part_a_shows_on_the_jetson():
    """Llama-3 8B: 8,030,261,248 params x 2 B = 16.06 GB of FP16 weights + 2 x 32 x 8 x 128 x 4,096
    x 2 B = 536.9 MB of KV cache = 16.60 GB, 597.9 MB over the Jetson's 16 GB (feedback: 598 MB).
    Two tables of 128,256 x 4,096 = 1.05 billion of those parameters (untied head)."""
    cards = {c.label: c for c in lab.part_a("llama-3-8b", "JetsonOrinNX", "fp16").cards}
    fit = cards["Fits on the NVIDIA Jetson Orin NX 16GB"]
    assert (fit.value, fit.note) == ("no", "597.9 MB over 16.0 GB")
    assert lab.PRED_A.answer == "no" and "598 MB over" in lab.PRED_A.feedback["no"]
    assert round(2 * 128_256 * 4_096 / 1e9, 2) == 1.05


def test_pred_a_feedback_states_which_16_gb_it_counts():
    """Llama-3 8B in FP16 with 4,096 tokens of cache is 16.6 GB: over the Jetson's 16 GB as the
    registry counts it (16 x 10^9 B) by 598 MB, under the module's 16 GiB by 0.6 GB, which the CPU
    and operating system share; the feedback said '598 MB over the Jetson's 16 GB' without saying
    which (a reviewer: the answer then rests on the unit convention)."""
    from mlsysim.labs.components import fmt_bytes

    p = lab._solve(lab.get_model("llama-3-8b"), "JetsonOrinNX", "fp16", seq_len=4096)
    need = p.memory_footprint_bytes  # weights, KV cache and the (540 KB of) activations
    cap = Hardware.get("JetsonOrinNX").memory.capacity.m_as("B")
    assert cap == 16e9 < need < 16 * 2**30 and p.over.m_as("B") == need - cap
    text = lab.PRED_A.feedback["no"]
    assert f"{fmt_bytes(need - cap, 0)} over" in text and "16 × 10⁹ B" in text
    assert f"leave {fmt_bytes(16 * 2**30 - need, 0)} for the CPU" in text


@pytest.mark.parametrize("layers", [80, 150, 300, 1500])
@pytest.mark.parametrize("device", ["H100", "iPhone15Pro"])
def test_part_a_device_lines_stay_readable_for_a_model_far_past_every_device(layers, device):
    """A 70B-shaped config at 80..1,500 layers (0.16-2.9 TB in FP16): past four times the largest
    device every capacity line sits in the axis's first quarter, where their labels ran off the
    edge and over each other; then only the chosen device's line is drawn, and every label reads."""
    from mlsysim.labs import charts, placement

    cfg = {
        "model_type": "llama",
        "hidden_size": 8192,
        "num_attention_heads": 64,
        "intermediate_size": 28672,
        "num_hidden_layers": layers,
        "vocab_size": 32000,
    }
    key, err = lab.resolve(lab.PASTE, json.dumps(cfg))
    assert err is None, err
    for precision in ("fp32", "fp16", "int8"):
        view = lab.part_a(key, device, precision)
        spec = charts.finalize(view.figure).to_plotly_json()
        assert placement.label_problems(spec["data"], spec["layout"], 900.0) == []
        lines = [a["text"] for a in spec["layout"]["annotations"]]
        total = sum(t["x"][0] for t in spec["data"]) * 1e9
        crowded = total > 4 * max(Hardware.get(k).memory.capacity.m_as("B") for k in lab.DEVICES)
        assert len(lines) == (1 if crowded else len(lab.DEVICES)), lines

"""Trade-offs notebook (Figure 1 and D·A·M, the iron law, Table 7): the chapter's numbers.

Line refs are into ``shared/seeds/chapter06_network_architectures.txt``. Expected values are the
chapter's printed numbers or an independent recomputation (hand arithmetic from the layer
shapes); computed values go through ``mlsysim`` or the notebook's parts module.
"""

from __future__ import annotations

import itertools

import pytest

from mlsysim import Engine, Hardware, Models, table7
from mlsysim import accuracy as A
from mlsysim import layers as L
from mlsysim.labs.parts import s06_12_tradeoffs as lab

# ---------------------------------------------------------------------------------------------
# Part A: Figure 1, the frontier under another cost, D·A·M
# ---------------------------------------------------------------------------------------------


def test_part_a_premise_same_accuracy_8_7x_fewer_macs():
    """The question's premise: ResNet-18 69.758% vs MobileNetV2 ×0.75 69.8% top-1; 1.814 vs
    0.209 GMACs = 8.68×."""
    r18, mn = A.imagenet("ResNet18"), A.imagenet("MobileNetV2_075")
    assert abs(r18.top1 - mn.top1) < 0.1
    assert round(r18.published_gmacs / mn.published_gmacs, 1) == 8.7


def _kernels(key: str, device: str) -> int:
    p = Engine.solve(A.imagenet(key).model(), device, precision=lab.precision_for(device))
    return round(p.latency_dispatch_s / p.device.dispatch_tax.m_as("s"))


def test_part_a_answer_resnet18_answers_first_on_an_h100():
    """Batch 1, FP16, eager on the H100: both are launch-bound and ResNet-18 launches about half
    as many kernels (its 8 basic blocks vs MobileNetV2's 17 inverted residuals), so it answers
    first despite 8.7× the MACs (Systems Perspective 6.1, L513)."""
    lat = lab.engine_costs("H100", False)
    assert lat["ResNet18"][0] < lat["MobileNetV2_075"][0]
    assert lat["ResNet18"][2] == lat["MobileNetV2_075"][2] == "Dispatch"
    k18, kmn = _kernels("ResNet18", "H100"), _kernels("MobileNetV2_075", "H100")
    assert 1.8 < kmn / k18 < 2.6


def test_part_a_compute_bound_device_restores_the_mac_ordering():
    """On the camera trap's Cortex-A53 (2 GOPS INT8, L1508) compute binds every model, and the
    latency front is Figure 1's MobileNetV2 ladder again."""
    lat = lab.engine_costs("CortexA53Camera", False)
    assert all(v[2] == "Compute" for v in lat.values())
    assert lat["MobileNetV2_075"][0] < lat["ResNet18"][0]
    f = lab.cost_fn("latency", "CortexA53Camera", False)
    front = A.pareto_front(A.zoo_entries(), f, lambda k: A.imagenet(k).top1)
    assert front[:5] == [
        "MobileNetV2_035",
        "MobileNetV2_05",
        "MobileNetV2_075",
        "MobileNetV2",
        "MobileNetV2_14",
    ]


def test_part_a_cheapest_model_for_the_bar_depends_on_the_machine():
    top = lambda k: A.imagenet(k).top1  # noqa: E731
    by_macs = A.cheapest_meeting(list(A.IMAGENET), 69.5, lab.cost_fn("gmacs", "H100", False), top)
    by_h100 = A.cheapest_meeting(A.zoo_entries(), 69.5, lab.cost_fn("latency", "H100", False), top)
    assert (by_macs, by_h100) == ("MobileNetV2_075", "ResNet18")


def test_part_a_data_axis_same_cost_different_accuracy():
    """D of D·A·M: ResNet-50 with torchvision's 2021 recipe gains 4.7 points at identical cost."""
    v1, v2 = A.imagenet("ResNet50"), A.imagenet("ResNet50_V2")
    assert v1.model().macs() == v2.model().macs()
    assert round(v2.top1 - v1.top1, 1) == 4.7


def test_part_a_resnet50_below_front_and_8_2_gflop():
    """L62: ResNet-50 sits well below the frontier; Table 2: 8.2 GFLOP = 2 × 4.09 GMACs."""
    front = A.pareto_front(
        A.IMAGENET, lab.cost_fn("gmacs", "H100", False), lambda k: A.imagenet(k).top1
    )
    assert "ResNet50" not in front
    assert round(2 * A.imagenet("ResNet50").published_gmacs, 1) == 8.2


# ---------------------------------------------------------------------------------------------
# Part B: the iron law and its refinement
# ---------------------------------------------------------------------------------------------

GRID = list(
    itertools.product(
        ["ResNet50", "MobileNetV2", "GPT2", "GPT2_prefill"],
        ["H100", "A100", "JetsonOrinNX"],
        [1, 8, 256],
        [False, True],
    )
)


@pytest.mark.parametrize(("model", "device", "batch", "fused"), GRID)
def test_part_b_roofline_le_engine_le_iron_law(model, device, batch, fused):
    """max(Σc, Σm) ≤ Σ max(cᵢ, mᵢ) ≤ Σc + Σm, each plus the same L_lat (the answer to PRED_B)."""
    p = lab.iron_law_profile(model, device, batch, fused)
    eps = 1e-12
    assert p.roofline_s <= p.latency_s + eps
    assert p.latency_s <= p.iron_law_s + eps


def test_part_b_iron_law_terms_recomputed_from_totals():
    """D_vol/BW and O/(R_peak·η) from the profile's totals and the datasheet, by hand."""
    p = lab.iron_law_profile("ResNet50", "H100", 64, False)
    h = Hardware.get("H100")
    assert p.latency_memory_s == pytest.approx(p.bytes_moved / 3.35e12)
    assert p.latency_compute_s == pytest.approx(p.flops / (989.5e12 * 0.5))
    assert h.memory.bandwidth.m_as("TB/s") == pytest.approx(3.35)
    assert p.iron_law_s == pytest.approx(
        p.latency_memory_s + p.latency_compute_s + p.latency_dispatch_s
    )
    assert p.roofline_s < p.latency_s < p.iron_law_s  # batched ResNet-50 mixes bound layers


def test_part_b_gpt2xl_weight_read_0_9_ms():
    """L1117: GPT-2 XL's FP16 weights (3 GB) read in ≈0.9 ms on a data-center accelerator; the
    exact 3,115,222,400 B over the H100's 3.35 TB/s is 0.93 ms (3.0 GB gives 0.90)."""
    assert round(lab.weight_read_s("H100") * 1e3, 2) == 0.93
    assert round(3.0e9 / 3.35e12 * 1e3, 2) == 0.90


def test_part_b_launches_a_few_times_the_weight_read():
    """L1117: the weight read is 'a few times shorter than the time to launch the step's many
    small kernels'. Engine: 581 eager kernels × 5 µs = 2.905 ms ≈ 3.1× the 0.93 ms read."""
    p = lab.iron_law_profile("GPT2", "H100", 1, False)
    ratio = p.latency_dispatch_s / lab.weight_read_s("H100")
    assert 2 <= ratio <= 5
    assert p.bottleneck == "Dispatch"


# ---------------------------------------------------------------------------------------------
# Part C: Table 7 formulas vs exact counts
# ---------------------------------------------------------------------------------------------


def test_table7_conv_row_reproduces_the_worked_layer():
    """L435/L443: 3×3, 64→64 at 224²: 36,864 weights (147.5 KB FP32), 1.85 G MACs, 12.8 MB of
    FP32 output activations."""
    c = table7.chapter("conv", 64, 224, precision="fp32")
    assert c.params == 36_864 and c.params * 4 == 147_456
    assert c.macs == 1_849_688_064
    assert c.bytes == 12_845_056
    assert table7.exact("conv", 64, 224).macs == c.macs


def test_table7_transformer_macs_exact_weights_off_by_biases_and_norms():
    """4Sd² + 2S²d + 2Sd·d_ff is exact; 4d² + 2d·d_ff misses 9d + d_ff (the takeaways' 'about 1/d')."""
    d, s = 1600, 1024
    ch, ex = table7.chapter("transformer", d, s), table7.exact("transformer", d, s)
    assert ch.macs == ex.macs == 4 * s * d * d + 2 * s * s * d + 2 * s * d * 4 * d
    assert ex.params - ch.params == 9 * d + 4 * d
    assert (ex.params - ch.params) / ch.params < 0.001


def test_table7_attention_overtakes_dense_at_6d():
    """L1073: with d_ff = 4d, dense work 12Sd² equals attention 2S²d at S = 6d (9,600 tokens for
    GPT-2 XL)."""
    d = 1600
    blk = L.TransformerBlock(d_model=d, n_heads=25, d_ff=4 * d, seq_len=6 * d)
    attn = blk.attn.core.macs()
    assert attn == blk.macs() - attn == 2 * (6 * d) ** 2 * d
    assert 6 * d == 9600


def test_table7_decode_row_is_gpt2_xl_at_width_1600():
    """Table 7 decode row at d = 1,600 with 48 layers is the lighthouse: 1,557,611,200 weights,
    KV 2·N_L·d values per token = 307.2 KB FP16 (L1117), about one MAC per weight (3 GFLOP per
    token, Table 5)."""
    ch = table7.chapter("decode", 1600, 1)
    assert ch.params == Models.GPT2.params == 1_557_611_200
    per_token = table7.chapter("decode", 1600, 2).bytes - ch.bytes
    assert per_token == 307_200 == Models.GPT2.kv_cache_bytes_per_token("fp16")
    assert round(2 * ch.macs / 1e9, 1) == 3.1


def test_table7_decode_departs_by_cache_attention_and_head():
    """Exact decode MACs = blocks' matmuls + attention over S cached tokens (2·S·d per layer) +
    the tied LM head (50,257 × d); the chapter's 'about one per weight' counts the embeddings
    (tokens and 1,024 positions) as MACs instead. Recomputed by hand."""
    d, s, n = 1600, 1024, 48
    ex = table7.exact("decode", d, s)
    blocks = n * (4 * d * d + 2 * d * 4 * d + 2 * s * d)
    assert ex.macs == blocks + 50_257 * d


def test_table7_lstm_four_times_rnn_and_embedding_has_no_macs():
    """L707: an LSTM step is 4× the weights and MACs of a plain one, and 2× the state."""
    r, l4 = table7.chapter("rnn", 128, 10), table7.chapter("lstm", 128, 10)
    assert (l4.params, l4.macs, l4.bytes) == (4 * r.params, 4 * r.macs, 2 * r.bytes)
    assert table7.exact("lstm", 128, 10).macs == 4 * table7.exact("rnn", 128, 10).macs
    e = table7.exact("embedding", 128, 1, rows=100_000_000)
    assert (
        e.macs == 0
        and table7.chapter("embedding", 128, 1, 100_000_000, "fp32").bytes == 51_200_000_000
    )


@pytest.mark.parametrize("block", list(table7.BLOCKS))
def test_table7_every_row_within_its_stated_departure(block):
    """Every row's exact count is within 10% of the formula at GPT-2 XL's width (the decode row,
    the only one above 1%, departs by the attention over the cache and the LM head)."""
    ch, ex = table7.chapter(block, 1600, 512, 1000), table7.exact(block, 1600, 512, 1000)
    assert abs(ex.params - ch.params) <= 0.01 * ch.params
    if ch.macs:
        assert abs(ex.macs - ch.macs) <= (0.10 if block == "decode" else 0.0) * ch.macs


def test_table7_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="block="):
        table7.chapter("mamba", 64, 64)
    with pytest.raises(ValueError, match="width"):
        table7.exact("transformer", 100, 64)
    with pytest.raises(ValueError, match="length"):
        table7.exact("decode", 1600, 2048)
    with pytest.raises(ValueError, match="rows"):
        table7.chapter("embedding", 64, 1, 0)


def test_part_a_energy_axis_is_board_power_times_latency():
    """The energy axis is TDP × latency / batch (Profile.energy_per_sample_j). On the camera SoC
    (0.2 W) MobileNetV2 ×0.75 INT8 costs 0.2 W × its engine latency; the chapter's 41.8 mJ is
    200 mW × 209 ms of compute alone (L1518), and the engine adds memory and launch time on top
    (within 10%)."""
    cam = Hardware.get("CortexA53Camera")
    p = Engine.solve(A.imagenet("MobileNetV2_075").model(), cam, precision="int8")
    assert p.energy_per_sample_j == pytest.approx(cam.tdp.m_as("W") * p.latency_s)
    e = lab.engine_costs("CortexA53Camera", False)["MobileNetV2_075"][3]
    assert e == pytest.approx(p.energy_per_sample_j)
    assert round(0.2 * 0.209 * 1e3, 1) == 41.8
    assert 41.8e-3 <= e <= 41.8e-3 * 1.10
    p8 = Engine.solve(Models.ResNet50, "H100", batch_size=8)
    assert p8.energy_per_sample_j == pytest.approx(700 * p8.latency_s / 8)


# ---------------------------------------------------------------------------------------------
# Reviewer items: feasibility in Part B, the memory axis in Part A, PRED_B and PRED_C wording
# ---------------------------------------------------------------------------------------------


def test_part_b_batch_256_gpt2_decode_does_not_fit_and_says_so():
    """Reviewer item 1. KV cache per sequence 2 (K, V) x 48 layers x 1,600 x 1,024 tokens x 2 B =
    314,572,800 B; 256 sequences need 80.53 GB of cache on top of 3.12 GB of weights: 83.7 GB,
    3.7 GB over the H100's 80 GB. The engine's feasibility flips at batch 245 for decode
    (244 x 314.6 MB + 3.12 GB + activations < 80 GB) and 178 for the prefill on the H100 and A100,
    41 and 30 on the 16 GB Jetson."""
    kv = 2 * 48 * 1600 * 1024 * 2
    assert kv == 314_572_800
    p = lab.iron_law_profile("GPT2", "H100", 256, False)
    assert p.kv_cache_bytes == 256 * kv
    assert not p.feasible
    assert p.memory_footprint_bytes == pytest.approx(256 * kv + 3_115_222_400, rel=1e-3)

    def first_over(model, device):
        return next(
            b for b in range(1, 257) if not lab.iron_law_profile(model, device, b, False).feasible
        )

    assert (first_over("GPT2", "H100"), first_over("GPT2_prefill", "H100")) == (245, 178)
    assert (first_over("GPT2", "A100"), first_over("GPT2_prefill", "A100")) == (245, 178)
    assert (first_over("GPT2", "JetsonOrinNX"), first_over("GPT2_prefill", "JetsonOrinNX")) == (
        41,
        30,
    )
    assert 244 * kv + 3_115_222_400 < 80e9 < 245 * kv + 3_115_222_400

    v = lab.part_b("GPT2", "H100", 256, False)
    cards = {c.label: c for c in v.cards}
    assert (
        cards["Fits in memory"].value == "does not fit" and cards["Fits in memory"].status == "bad"
    )
    assert cards["Fits in memory"].note.startswith("over by 3.7 GB")
    assert cards["(2) Engine"].status == "bad" and "only if it fit" in cards["(2) Engine"].note
    assert v.summary.startswith("This batch does not fit")
    assert "Out of memory" in str(v.alert.text if hasattr(v.alert, "text") else v.alert)
    for device, model in (("JetsonOrinNX", "GPT2"), ("A100", "GPT2_prefill")):
        assert lab.part_b(model, device, 256, True).summary.startswith("This batch does not fit")


def test_part_b_fitting_setups_say_they_fit():
    v = lab.part_b("GPT2", "H100", 244, False)
    assert {c.label: c.value for c in v.cards}["Fits in memory"] == "yes"
    assert not v.summary.startswith("This batch does not fit")
    assert "Fits." in str(v.alert.text if hasattr(v.alert, "text") else v.alert)
    for model in ("ResNet50", "MobileNetV2"):
        assert lab.iron_law_profile(model, "JetsonOrinNX", 256, False).feasible


def test_part_a_memory_axis_is_the_same_front_on_every_device():
    """Reviewer item 7: weights + activations do not depend on the device: every FP16 device gives
    identical bytes and the INT8 camera SoC exactly half of each, so the front is the same
    everywhere; the text no longer says a binding term or that the front moves."""
    base = {k: v[1] for k, v in lab.engine_costs("H100", False).items()}
    fronts = set()
    for dev in lab.DEVICES:
        for fused in (False, True):
            t = {k: v[1] for k, v in lab.engine_costs(dev, fused).items()}
            scale = 0.5 if lab.precision_for(dev) == "int8" else 1.0
            assert all(t[k] == pytest.approx(scale * base[k]) for k in t)
            f = lab.cost_fn("memory", dev, fused)
            fronts.add(tuple(A.pareto_front(A.zoo_entries(), f, lambda k: A.imagenet(k).top1)))
            s = lab.part_a("memory", dev, 69.5, fused).summary
            assert "bound" not in s and "front moves" not in s and "same front" in s
    assert len(fronts) == 1


def test_pred_b_overlap_hides_only_the_smaller_term():
    """Reviewer item 9: PRED_B asks a behaviour question. GPT-2 XL on an H100, FP16, batch 1, eager:
    prefill (1,024 tokens) computes 7.09 ms, moves memory for 5.76 ms, launches 2.905 ms: iron law
    15.75 ms vs roofline max(7.09, 5.76) + 2.905 = 9.99 ms, 1.58x ('about 1.6x'). Decode: compute
    6.9 us ('7 us') vs memory 1.03 ms: iron law 3.939 vs roofline 3.932 ms, 0.18% apart ('0.2%',
    'within 1%')."""
    pre = lab.iron_law_profile("GPT2_prefill", "H100", 1, False)
    assert round(pre.iron_law_s / pre.roofline_s, 1) == 1.6
    assert (round(pre.latency_compute_s * 1e3, 2), round(pre.latency_memory_s * 1e3, 2)) == (
        7.09,
        5.76,
    )
    assert pre.roofline_s == pytest.approx(
        max(pre.latency_compute_s, pre.latency_memory_s) + pre.latency_dispatch_s
    )
    dec = lab.iron_law_profile("GPT2", "H100", 1, False)
    assert round(dec.latency_compute_s * 1e6) == 7 and round(dec.latency_memory_s * 1e3, 2) == 1.03
    assert dec.latency_compute_s < 0.01 * dec.latency_memory_s
    assert round(dec.latency_dispatch_s * 1e3, 1) == 2.9
    gap = dec.iron_law_s / dec.roofline_s - 1
    assert gap < 0.01 and f"{gap:.1%}" == "0.2%"
    assert lab.PRED_B.answer == "close"
    text = " ".join(lab.PRED_B.feedback.values())
    for n in ("7.09 ms", "5.76 ms", "7 µs", "1.03 ms", "0.2%", "2.9 ms"):
        assert n in text
    assert "1.6×" in lab.PRED_B.question
    assert not any(": " in o for o in lab.PRED_B.options.values())  # no option carries a reason


def test_pred_c_weights_off_by_about_one_over_d_over_the_whole_slider():
    """Reviewer item 8 (the takeaways say 'about 1/d'): the weight formula misses 9d + d_ff = 13d of 12d²: 13/(12d). At the slider's
    d = 64 that is 13/768 = 1.69% ('1.7%'), at 1,600 0.0677% ('0.07%'): not 'well under 1%'
    everywhere, but about 1/d everywhere."""
    for d in range(int(lab.C_WIDTH.start), int(lab.C_WIDTH.stop) + 1, int(lab.C_WIDTH.step)):
        ch, ex = table7.chapter("transformer", d, 64), table7.exact("transformer", d, 64)
        assert (ex.params - ch.params) / ch.params == pytest.approx(13 / (12 * d))
        assert 1 / d < (ex.params - ch.params) / ch.params < 1.1 / d
    assert f"{13 / (12 * 64):.1%}" == "1.7%" and f"{13 / (12 * 1600):.2%}" == "0.07%"
    assert f"{13 / (12 * 768):.2%}" == "0.14%"  # the 'both' feedback's d = 768


def test_pred_a_mac_ranking_survives_only_on_the_camera_soc():
    """PRED_A (issue 32: the H100 case was every earlier notebook's launch-bound finding): the
    cheapest model over a 69.5% bar by batch-1 latency, eager, each device's quoted precision and
    planning launch cost (5, 20, 50, 20 µs). ResNet-18 against MobileNetV2 x0.75: H100 359 µs vs
    777 µs, Jetson 2.17 vs 3.75 ms, iPhone 7.30 vs 9.10 ms (all launch-bound), camera SoC 1.82 s vs
    219 ms (compute-bound): Figure 1's pick survives only on the camera."""
    from mlsysim.labs.components import fmt_time

    top = lambda k: A.imagenet(k).top1  # noqa: E731
    picks, shown = {}, {}
    for dev in lab.DEVICES:
        f = lab.cost_fn("latency", dev, False)
        picks[dev] = A.cheapest_meeting(A.zoo_entries(), 69.5, f, top)
        shown[dev] = (fmt_time(f("ResNet18")), fmt_time(f("MobileNetV2_075")))
    assert picks == {
        "H100": "ResNet18",
        "JetsonOrinNX": "ResNet18",
        "iPhone15Pro": "ResNet18",
        "CortexA53Camera": "MobileNetV2_075",
    }
    assert shown == {
        "H100": ("359.23 µs", "777.36 µs"),
        "JetsonOrinNX": ("2.17 ms", "3.75 ms"),
        "iPhone15Pro": ("7.30 ms", "9.10 ms"),
        "CortexA53Camera": ("1.82 s", "219.29 ms"),
    }
    taxes = {d: Hardware.get(d).dispatch_tax.m_as("us") for d in lab.DEVICES}
    assert taxes == {"H100": 5, "JetsonOrinNX": 20, "iPhone15Pro": 50, "CortexA53Camera": 20}
    for d, us in taxes.items():
        name = {"H100": "H100", "JetsonOrinNX": "Jetson", "iPhone15Pro": "iPhone"}.get(d)
        assert f"{us:g} µs" in lab.PRED_A.question and (name is None or name in lab.PRED_A.question)
    fb = " ".join(lab.PRED_A.feedback.values())
    for n in ("359 µs", "777 µs", "2.17 ms", "3.75 ms", "7.30 ms", "9.10 ms", "1.82 s", "219 ms"):
        assert n in fb
    assert lab.PRED_A.answer == "camera" and lab.A_BAR.value == 69.5
    assert (lab.A_COST.value, lab.A_FUSED.value) == ("latency", False)  # the case the part shows


def test_pred_b_holds_across_the_launch_cost_range():
    """PRED_B states the 5 µs launch cost its 'about 1.6x' prefill premise rests on (1.81x with
    free launches, 1.31x at 20 µs, as the feedback says); the decode answer, within 1%, holds at
    both ends (0.67% and 0.05%)."""
    from mlsysim.engine import with_launch_cost

    def ratio(phase, us):
        p = Engine.solve(
            Models.GPT2,
            with_launch_cost("H100", us * 1e-6),
            batch_size=1,
            precision="fp16",
            phase=phase,
            seq_len=1024,
        )
        return p.iron_law_s / p.roofline_s

    assert [round(ratio("prefill", us), 1) for us in (0, 5, 20)] == [1.8, 1.6, 1.3]
    assert all(ratio("decode", us) - 1 < 0.01 for us in (0, 5, 20))
    assert "5 µs per launch" in lab.PRED_B.question
    assert "1.8× with free launches, 1.3× at 20 µs" in lab.PRED_B.feedback["close"]


def test_pred_c_decode_row_departs_linearly_with_the_cache():
    """PRED_C (issue 32: the old question recalled Table 7): the decode row's 'one MAC per weight'
    against the exact GPT-2 XL step: 1,555,124,800 MACs at 1 cached token (0.16% under: positions,
    biases and norms are weights without MACs), 1,712,257,600 at 1,024 (9.9% over), each token
    adding 2 x 1,600 x 48 = 153,600 MACs: linear in the cache."""
    d, n = 1600, 48
    off = {}
    for s in (1, 2, 512, 1024):
        ch, ex = table7.chapter("decode", d, s), table7.exact("decode", d, s)
        off[s] = (ex.macs - ch.macs) / ch.macs
        if s > 1:
            assert ex.macs - table7.exact("decode", d, s - 1).macs == 2 * d * n
    assert (f"{-off[1]:.2%}", f"{off[1024]:.1%}") == ("0.16%", "9.9%")
    assert table7.exact("decode", d, 1024).macs == 1_712_257_600
    fb = " ".join(lab.PRED_C.feedback.values())
    for x in ("0.16%", "9.9%", "1.71 against 1.56 billion", "2·S·d"):
        assert x in fb
    assert lab.PRED_C.answer == "grows" and lab.C_BLOCK.value == "decode"


def test_pred_a_feedback_names_each_regime_as_the_engine_splits_it():
    """The review found the feedback calling both networks launch-bound on the iPhone, where
    ResNet-18's time splits about evenly between launches (3.40 ms) and arithmetic (3.38 ms)."""
    from mlsysim import Engine
    from mlsysim import accuracy as acc

    def launch_share(key, dev):
        p = Engine.solve(acc.imagenet(key).model(), dev, batch_size=1, precision="fp16")
        return p.latency_dispatch_s / p.latency_s  # launches' share of the latency

    assert 0.4 < launch_share("ResNet18", "iPhone15Pro") < 0.6
    assert launch_share("MobileNetV2_075", "iPhone15Pro") > 0.7
    for dev in ("H100", "JetsonOrinNX"):
        assert launch_share("ResNet18", dev) > 0.6 and launch_share("MobileNetV2_075", dev) > 0.6
    text = lab.PRED_A.feedback["camera"] + lab.PRED_A.feedback["edge"]
    assert "splits about evenly between launches and arithmetic" in text


def test_part_a_names_alexnets_2012_result_beside_its_cost():
    """Row 9: AlexNet's 2012 entry (an ensemble of seven CNNs) won ILSVRC-2012 at 15.3% top-5
    error against 26.2% for the runner-up (Krizhevsky et al. 2012, abstract). The peek puts it
    beside the exact single model's 714,188,480 MACs (torchvision's 0.714 GMACs) and its
    retrained 56.5% top-1, so the two are not confused."""
    from mlsysim.published import ALEXNET_ILSVRC2012_TOP5

    won, second = ALEXNET_ILSVRC2012_TOP5
    assert (won.value, second.value, won.year) == (15.3, 26.2, 2012)
    alex = A.imagenet("AlexNet")
    assert alex.exact_model().macs() == 714_188_480
    assert round(alex.exact_model().macs() / 1e9, 3) == alex.published_gmacs
    peek = " ".join(lab.part_a("gmacs", "H100", 69.5, False).peek)
    assert "714,188,480 MACs" in peek and "single model 56.5% top-1" in peek
    assert "won ILSVRC-2012 at 15.3% top-5 error against 26.2% for the runner-up" in peek
    assert won.url in peek


# ---------------------------------------------------------------------------------------------
# Part D: War Story 6.1, the ensemble Netflix did not ship (L1442)
# ---------------------------------------------------------------------------------------------


def test_netflix_published_figures_agree_with_their_stated_improvements():
    """Each published RMSE against the improvement quoted beside it: the Grand Prize's 0.8567 is
    10.06% below Cinematch's test-set 0.9525; the shipped pair's 0.88 is 7.5% below the quiz-set
    0.9514; the 107-model blend's 8.43% puts it at 0.8712 on the quiz set."""
    from mlsysim import ensemble
    from mlsysim import published as pub

    quiz, test = (pub.NETFLIX_CINEMATCH_RMSE[k].value for k in ("quiz", "test"))
    assert (quiz, test) == (0.9514, 0.9525)
    grand = pub.NETFLIX_GRAND_PRIZE_2009
    assert round(ensemble.improvement_pct(grand["rmse"].value, test), 2) == 10.06
    assert grand["improvement_pct"].value == 10.06
    assert round(ensemble.improvement_pct(pub.NETFLIX_ADOPTED["blend"].value, quiz), 1) == 7.5
    st = {s.key: s for s in ensemble.stages()}
    assert [s.members for s in ensemble.stages()] == [1, 1, 2, 107]
    assert round(st["progress"].rmse, 4) == 0.8712
    # every figure carries its source and year
    for entry in [
        *pub.NETFLIX_CINEMATCH_RMSE.values(),
        *pub.NETFLIX_DATASET.values(),
        *pub.NETFLIX_PROGRESS_PRIZE_2007.values(),
        *pub.NETFLIX_ADOPTED.values(),
        *grand.values(),
    ]:
        assert entry.url.startswith("https://") and 2006 <= entry.year <= 2012


def test_ensemble_cost_is_the_sum_of_its_members_recounted_with_embedding_layers():
    """One member = a user row and a movie row gathered (mlsysim.layers.Embedding) and one
    dot product; a blend of n runs n members and n blend weights per prediction."""
    from mlsysim import ensemble

    users, movies, f = 480_189, 17_770, 64
    u = L.Embedding(num_embeddings=users, embedding_dim=f)
    m = L.Embedding(num_embeddings=movies, embedding_dim=f)
    one = ensemble.serve(1, f)
    assert one.macs == f and one.flops == 2 * f
    assert one.bytes_read == u.gather_bytes_per_lookup("fp32") + m.gather_bytes_per_lookup("fp32")
    assert one.resident_bytes == u.weight_bytes("fp32") + m.weight_bytes("fp32")
    for n in (2, 107, 500):
        s = ensemble.serve(n, f)
        assert s.macs == n * one.macs + n
        assert s.bytes_read == n * one.bytes_read + 4 * n
        assert s.resident_bytes == n * one.resident_bytes + 4 * n
    assert ensemble.serve(107, f, precision="fp16").bytes_read == 107 * (2 * f + 1) * 2
    # the cost ratio of two blends is their member ratio, whatever the member's size
    for f in (10, 50, 500):
        assert ensemble.serve(107, f).macs / ensemble.serve(2, f).macs == 53.5


@pytest.mark.parametrize(
    "kw,arg",
    [
        (dict(members=0, factors=50), "members"),
        (dict(members=2.5, factors=50), "members"),
        (dict(members=2, factors=0), "factors"),
        (dict(members=2, factors=50, users=0), "users"),
        (dict(members=2, factors=50, precision="fp13"), "precision"),
    ],
)
def test_ensemble_refuses_bad_input_naming_the_argument(kw, arg):
    from mlsysim import ensemble

    with pytest.raises(ValueError, match=arg):
        ensemble.serve(**kw)


def test_part_d_first_two_models_take_most_of_the_gain():
    """The answer: the SVD alone is 6.31% better than Cinematch, the shipped SVD + RBM pair 7.50%,
    the 107-model blend 8.43%: the pair takes 89% of the gain; the other 105 models add 0.93
    points for 53.5× the serving cost, and per MAC the second model bought over 100× what the
    last 105 did, at any member size."""
    n = lab.netflix(50)
    g = n["gain"]
    assert (round(g["svd"], 2), round(g["pair"], 2), round(g["progress"], 2)) == (6.31, 7.50, 8.43)
    assert round(n["pair_share"], 2) == 0.89
    assert round(g["progress"] - g["pair"], 2) == 0.93
    assert n["cost"] == {"svd": 50, "rbm": 50, "pair": 102, "progress": 5457}
    assert n["cost_ratio"] == 53.5
    for f in (10, 50, 500):
        assert 120 < lab.netflix(f)["per_mac_ratio"] < 140
    v = lab.part_d(50, 107)
    assert "the first two models take 7.50 of the 8.43 points" in v.summary
    assert "0.93 points for 53.5× the serving cost" in v.summary
    assert "10.06% on the test set" in v.summary


def test_part_d_chart_rmse_against_log_cost_with_the_chosen_blend_marked():
    v = lab.part_d(100, 300)
    fig = v.figure
    assert fig.layout.xaxis.type == "log"
    pts = next(t for t in fig.data if t.mode == "markers+text")
    assert list(pts.x) == [100, 100, 202, 10_807]
    assert [round(y, 4) for y in pts.y] == [0.8914, 0.899, 0.88, 0.8712]
    xs = [s.x0 for s in fig.layout.shapes if s.x0 == s.x1]
    assert 300 * 100 + 300 in xs  # the vertical line at the priced blend's MACs
    ys = {round(s.y0, 4) for s in fig.layout.shapes if s.y0 == s.y1}
    assert {0.9514, 0.8567} <= ys
    assert v.cards[3].value == "30,300 MACs"


# ---------------------------------------------------------------------------------------------
# Part E: the hardware of 2012 (longer edition L1234): AlexNet on two GTX 580s, not a CPU
# ---------------------------------------------------------------------------------------------


def test_historical_devices_match_their_datasheets_and_stay_out_of_the_catalogue():
    """GTX 580: 512 cores x 1,544 MHz x 2 (FMA) = 1,581.1 GFLOP/s FP32, 384-bit GDDR5 at 4,008
    MT/s = 192.4 GB/s, the paper's 3 GB card. Xeon E5-2690: 8 x 2.9 GHz x 16 FLOP/cycle (one
    8-wide AVX add + one 8-wide multiply) = 371.2 GFLOP/s, 4 x DDR3-1600 = 51.2 GB/s."""
    from mlsysim import catalogue, history

    gtx, cpu = history.GTX580, history.XEON_E5_2690
    assert gtx.compute.peak_flops.m_as("GFLOP/s") == pytest.approx(512 * 1.544 * 2, abs=0.05)
    assert gtx.memory.bandwidth.m_as("GB/s") == pytest.approx(384 / 8 * 4.008, abs=0.05)
    assert gtx.memory.capacity.m_as("GB") == 3
    assert cpu.compute.peak_flops.m_as("GFLOP/s") == pytest.approx(8 * 2.9 * 16)
    assert cpu.memory.bandwidth.m_as("GB/s") == pytest.approx(4 * 1600e6 * 8 / 1e9)
    for dev, year in ((gtx, 2010), (cpu, 2012)):
        assert dev.provenance.url.startswith("https://") and dev.provenance.date.year == year
        assert dev.key not in Hardware.names() and dev.key not in catalogue.CATALOGUE
    assert gtx.provenance.notes.count("1,581.1") == 1 and "371.2" in cpu.provenance.notes


def test_alexnet_training_work_and_days_recomputed():
    """3 x 1,428,376,960 FLOPs x 1.2 M images x 90 epochs = 4.628 x 10^17 FLOPs: 14.43 days on
    the Xeon at peak, 3.39 on one GTX 580, 1.69 on two, 1.92 hours on an H100 (FP32 67 TFLOP/s);
    the paper's 5-6 days on two cards are 28-34% of their peak."""
    from mlsysim import history, vision

    m = vision.alexnet()
    assert m.flops() == 2 * 714_188_480
    work = history.training_flops(m, 1_200_000, 90)
    assert work == 3 * 1_428_376_960 * 1_200_000 * 90 == 462_794_135_040_000_000
    t = lab.alexnet_training(90)
    assert t["work"] == work
    days = {k: round(v, 2) for k, v in t["peak_days"].items()}
    assert days == {"cpu": 14.43, "gtx1": 3.39, "gtx2": 1.69, "h100": 0.08}
    assert work / 67e12 / 3600 == pytest.approx(1.92, abs=0.01)
    assert t["cpu_over_pair"] == pytest.approx(2 * 1581.1 / 371.2)
    assert tuple(round(e, 2) for e in t["paper_eff"]) == (0.28, 0.34)
    # at 30% of peak: the pair 5.6 days, inside the paper's five to six; the Xeon 48 days
    assert 5 < t["peak_days"]["gtx2"] / 0.3 < 6 and round(t["peak_days"]["cpu"] / 0.3) == 48
    # the engine's roofline agrees the work is compute-bound at batch 128 on both chips
    assert lab.alexnet_bound("GTX580", 128) == lab.alexnet_bound("XeonE5_2690", 128) == "Compute"


def test_alexnet_training_state_against_the_3gb_card():
    """FP32 SGD with momentum: 3 x 61,100,840 x 4 B = 733.2 MB, plus the input and every layer's
    output stored at batch 128 (1,235,432 values per image x 128 x 4 B = 632.5 MB): 1.37 GB, 46%
    of 3 GB. Batch 512 passes the card (3.26 GB)."""
    from mlsysim import history, vision

    m = vision.alexnet()
    rows = m.rows()
    per_image = 3 * 224 * 224 + sum(r.layer.output_elements for r in rows)
    assert per_image == 1_235_432
    st = history.training_state(m, 128)
    assert (st.weights, st.gradients, st.momentum) == (244_403_360,) * 3
    assert st.activations == per_image * 128 * 4 == 632_541_184
    assert st.total == 1_365_751_264
    assert history.training_state(m, 512).total > 3e9 > history.training_state(m, 384).total


@pytest.mark.parametrize(
    "call,arg",
    [
        (lambda h, m: h.training_flops(m, 0, 90), "images"),
        (lambda h, m: h.training_flops(m, 1000, 0), "epochs"),
        (lambda h, m: h.training_flops("alexnet", 1000, 1), "model"),
        (lambda h, m: h.training_state(m, 0), "batch"),
        (lambda h, m: h.training_seconds(10, "GTX580"), "device"),
        (lambda h, m: h.training_seconds(10, h.GTX580, efficiency=0), "efficiency"),
        (lambda h, m: h.implied_efficiency(10, h.GTX580, -1.0), "seconds"),
    ],
)
def test_history_refuses_bad_input_naming_the_argument(call, arg):
    from mlsysim import history, vision

    with pytest.raises(ValueError, match=arg):
        call(history, vision.alexnet())


def test_part_e_gpus_won_on_rate_and_the_state_fits_one_card_by_this_count():
    v = lab.part_e(30, 90, 128)
    assert (
        "the 2012 Xeon takes 48.1 days, one GTX 580 11.3 days, the paper's two 5.6 days"
        in v.summary
    )
    assert "an H100 in FP32 6.4 hours" in v.summary
    assert "8.5× the CPU's for the pair" in v.summary and "28%–34% of their peak" in v.summary
    assert "1.37 GB, 46% of one 3 GB card" in v.summary
    assert v.cards[3].status == "ok" and v.cards[0].value == "4.63 × 10¹⁷ FLOP"
    big = lab.part_e(30, 90, 512)
    assert big.cards[3].status == "bad" and "3.26 GB, 109% of one 3 GB card" in big.summary


def test_part_e_chart_days_on_a_log_axis_with_the_papers_days_marked():
    v = lab.part_e(50, 180, 128)
    fig = v.figure
    assert fig.layout.yaxis.type == "log"
    peak, at = fig.data
    assert [round(y, 2) for y in peak.y] == [28.86, 6.78, 3.39, 0.16]  # 180 epochs: twice 90
    assert [round(y, 2) for y in at.y] == [round(2 * y, 2) for y in peak.y]
    assert {round(s.y0, 2) for s in fig.layout.shapes if s.y0 == s.y1} == {5.5}

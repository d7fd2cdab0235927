"""Hostile input the table of tests/test_hostile_input.py does not reach (the review of
/tmp/review-hostile.md): integers too big for a float, unhashable names, valid-but-extreme
combinations, hostile content inside structures and callables, and ``mlsysim.labs``.

Each test fails on the code before the fix (a bare OverflowError / TypeError /
ZeroDivisionError / RecursionError, an inf or NaN, a negative count, unescaped HTML) and asserts
the fixed behaviour: a ValueError whose message names the argument, or a real, finite value.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from fractions import Fraction

import pytest

import mlsysim
from mlsysim import Engine, Hardware, Models, hf
from mlsysim import accuracy as ACC
from mlsysim import engine as E
from mlsysim import gradients as G
from mlsysim import hardware as HW
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim import order as O
from mlsysim import symmetry as S
from mlsysim import table7 as T7
from mlsysim.hf import from_hf_config

H100 = Hardware.Cloud.H100
HUGE = 10**400  # an int no float can hold


def _raises_naming(fn, *names: str) -> str:
    with pytest.raises(ValueError) as err:
        fn()
    msg = str(err.value)
    for name in names:
        assert name in msg, msg
    return msg


# --------------------------------------------------------------------------------------------
# 1. integers too large for a float: a ValueError naming the argument, never OverflowError
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [HUGE, -HUGE, Fraction(HUGE)])
@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("efficiency", lambda v: Engine.solve(Models.ResNet50, "H100", efficiency=v)),
        ("efficiency", lambda v: Engine.sweep(Models.ResNet50, "H100", efficiency=v)),
        ("intensity", lambda v: H100.attainable_flops(v)),
        ("efficiency", lambda v: H100.sustained_flops(efficiency=v)),
        ("n_bytes", lambda v: mlsysim.energy.access_energy(v)),
        ("z", lambda v: G.activation("tanh", v)),
        ("gain", lambda v: G.simulate(4, gain=v)),
        ("width_mult", lambda v: M.mobilenet_v2(width_mult=v)),
        ("seconds", lambda v: E.with_launch_cost("H100", v)),
        ("bar", lambda v: ACC.cheapest_meeting(["ResNet18"], v, lambda k: 1.0, lambda k: 1.0)),
        ("row[0]", lambda v: O.softmax([v])),
    ],
)
def test_huge_int_refused_by_name(name, call, v):
    _raises_naming(lambda: call(v), name)


def test_huge_quantities_refused_by_field():
    _raises_naming(lambda: HW.Memory(capacity=(HUGE, "B"), bandwidth=(1, "GB/s")), "capacity")
    _raises_naming(lambda: HW.PeakRate(dense=(HUGE, "TFLOP/s")), "dense")
    _raises_naming(lambda: HW.PeakRate(dense="1" + "0" * 400 + " TFLOP/s"), "dense")
    # valid quantities unchanged
    assert HW.PeakRate(dense="989.4 TFLOP/s").dense.m_as("TFLOP/s") == pytest.approx(989.4)
    assert HW.PeakRate(dense=(1, "TFLOP/s")).dense.m_as("FLOP/s") == 1e12


def test_quantity_expressions_and_long_strings_refused_fast():
    t0 = time.perf_counter()
    _raises_naming(lambda: HW.PeakRate(dense="10**10**10 TFLOP/s"), "dense", "no powers")
    _raises_naming(lambda: HW.PeakRate(dense="9^9^9 TFLOP/s"), "dense")
    _raises_naming(lambda: HW.PeakRate(dense="x" * 100_000), "dense", "at most 100")
    msg = _raises_naming(
        lambda: HW.Memory(capacity="1" * 200 + " B", bandwidth=(1, "GB/s")), "capacity"
    )
    assert len(msg) < 1000
    assert time.perf_counter() - t0 < 1.0


def test_labs_huge_int_refused_by_name():
    from mlsysim.labs import charts as C
    from mlsysim.labs import components as K

    _raises_naming(lambda: C.hline(C.figure("t", "x", "y"), HUGE, "x"), "y=")
    for fmt, name in _formatters(K):
        _raises_naming(lambda f=fmt: f(HUGE), name)
    _raises_naming(lambda: K.feasibility(HUGE, H100), "need_bytes")
    _raises_naming(lambda: C.memory_lines(C.figure("t", "x", "y"), [H100], scale=HUGE), "scale")
    _raises_naming(lambda: C.memory_lines(C.figure("t", "x", "y"), [H100], unit="parsecs"), "unit")


def test_labs_charts_with_huge_int_data_stay_finite():
    import plotly.graph_objects as go

    from mlsysim.labs import charts as C
    from mlsysim.labs import placement as P

    assert P.finite_number(HUGE) is False
    assert P.finite_number(2.5) is True
    f = C.figure("T", "x", "Bytes moved")
    f.add_trace(go.Scatter(x=[1, 2], y=[1, HUGE], name="s"))
    out = C.finalize(f)
    alt = C.text_alternative(out)
    assert alt.startswith("Chart: T.")
    j = out.layout.to_plotly_json()
    assert P.label_problems(list(out.to_plotly_json()["data"]), j, 600) == []


def test_pareto_front_cost_too_large_refused():
    _raises_naming(lambda: ACC.pareto_front(["a"], lambda k: HUGE, lambda k: 1.0), "cost")
    _raises_naming(lambda: ACC.pareto_front(["a"], lambda k: None, lambda k: 1.0), "cost")
    _raises_naming(lambda: ACC.pareto_front(["a"], lambda k: 1.0, lambda k: "abc"), "value")
    nan_cost = lambda k: math.nan if k == "a" else 1.0  # noqa: E731
    _raises_naming(lambda: ACC.cheapest_meeting(["a", "b"], 0, nan_cost, lambda k: 1.0), "cost")
    # valid rankings unchanged
    pts = {"a": (1, 50), "b": (2, 60), "c": (3, 55)}
    assert ACC.pareto_front(pts, lambda k: pts[k][0], lambda k: pts[k][1]) == ["a", "b"]
    assert ACC.cheapest_meeting(list(pts), 58, lambda k: pts[k][0], lambda k: pts[k][1]) == "b"


# --------------------------------------------------------------------------------------------
# 2. gradients: no inf/NaN for in-range arguments; an exploding (gain, depth) refused by name
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: G.simulate(depth=256, activation="linear", gain=10.0),
        lambda: G.simulate(depth=200, activation="linear", gain=10.0),
        lambda: G.simulate(
            depth=256, activation="relu", gain=10.0, residual=True, branch_scale=10.0
        ),
        lambda: G.bptt(steps=256, activation="linear", gain=10.0),
        lambda: G.bptt(steps=256, activation="linear", gain=10.0, additive=True, branch_scale=10.0),
        lambda: G.bptt(steps=256, activation="relu", gain=10.0),
    ],
)
def test_exploding_simulations_refused_by_gain_and_depth(call):
    msg = _raises_naming(call, "gain")
    assert "depth" in msg or "steps" in msg


def test_growth_bound_keeps_the_lesson_ranges():
    # the bound refuses what overflows (a ValueError naming gain and depth) ...
    _raises_naming(lambda: G.simulate(101, 16, "linear", 10.0), "gain=10", "depth=101")
    _raises_naming(lambda: G.bptt(101, 16, "linear", 10.0), "gain=10", "steps=101")
    # ... and keeps what the lessons' sliders reach: gain 2 over 64 layers (6.4), 200 steps (6.5)
    for flow in (
        G.simulate(64, 16, "relu", 2.0),
        G.simulate(64, 16, "linear", 2.0, residual=True),
        G.bptt(200, 16, "linear", 2.0),
        G.bptt(200, 16, "linear", 2.0, additive=True),
    ):
        assert all(map(math.isfinite, flow.grad_norms))
    assert G.simulate(50, 16, "linear", 1.1).first == pytest.approx(1.1**50, rel=1e-9)
    assert G.simulate(150, 16, "linear", 4.6).first == pytest.approx(4.6**150, rel=1e-6)


# --------------------------------------------------------------------------------------------
# 3. a too-long seq_len names seq_len and the real maximum; from_hf_config refuses by field
# --------------------------------------------------------------------------------------------


def test_long_prefill_names_seq_len_and_real_max():
    for call in (
        lambda: Engine.solve(Models.Llama7B, "H100", seq_len=2**30, phase="prefill"),
        lambda: Models.Llama7B.flops(1, 2**28),
        lambda: Engine.sweep(Models.Llama7B, "H100", seq_lens=[2**30], phase="prefill"),
    ):
        msg = _raises_naming(call, "seq_len", "Llama-2 7B", "allowed 1..")
        top = int(msg.split("allowed 1..")[1].split()[0])
        assert 2**26 < top < 2**27  # about 2**40 / d_ff
        Models.Llama7B.flops(1, top)  # the stated maximum works
        with pytest.raises(ValueError, match="seq_len"):
            Models.Llama7B.flops(1, top + 1)


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"model_type": "gpt2", "n_embd": 2**39, "n_head": 1}, "config['n_embd']"),
        (
            {
                "model_type": "llama",
                "num_attention_heads": 2**20,
                "head_dim": 2**21,
                "hidden_size": 4096,
                "num_key_value_heads": 1,
            },
            "config['head_dim']",
        ),
        ({"model_type": "phi3", "intermediate_size": 2**40}, "config['intermediate_size']"),
    ],
)
def test_from_hf_config_refuses_oversized_derived_layers(config, field):
    _raises_naming(lambda: from_hf_config(config), field)


def test_hf_model_too_wide_for_its_context_names_seq_len():
    # each size fits a layer, but n_embd x the default context (n_positions) does not: refused
    # at load (issue 33), naming the field, the length and the longest that can be counted
    cfg = {"model_type": "gpt2", "n_embd": 2**30, "n_head": 1, "n_inner": 1, "n_positions": 2**20}
    _raises_naming(
        lambda: from_hf_config(cfg), "config['n_positions'] = 1,048,576", "allowed 1..1024"
    )
    assert from_hf_config({**cfg, "n_positions": 1024}).flops(seq_len=1024) > 0


def test_width_check_keeps_every_shipped_config():
    _raises_naming(
        lambda: from_hf_config({"model_type": "gpt2", "n_embd": 2**39, "n_head": 1}),
        "3 x config['n_embd']",
    )
    for name in hf.shipped_configs():
        m = hf.from_shipped(name)
        assert m.flops() > 0 and m.params > 0


# --------------------------------------------------------------------------------------------
# 4. runaway sweeps
# --------------------------------------------------------------------------------------------


def test_endless_or_huge_sweep_refused_fast():
    t0 = time.perf_counter()
    _raises_naming(
        lambda: Engine.sweep(Models.ResNet50, "H100", batch_sizes=itertools.count(1)),
        "batch_sizes",
    )
    _raises_naming(
        lambda: Engine.sweep(Models.ResNet50, "H100", batch_sizes=range(1, 10**12)),
        "batch_sizes",
    )
    msg = _raises_naming(
        lambda: Engine.sweep(Models.ResNet50, "H100", batch_sizes=[1] * 999_999 + [0]),
        "batch_sizes",
    )
    assert len(msg) < 1000
    assert time.perf_counter() - t0 < 5.0


def test_big_pure_python_products_refused():
    a = [[1.0] * 256] * 256
    _raises_naming(lambda: O.matmul(a, a), "a and b")
    _raises_naming(lambda: S.conv2d_valid([[1.0] * 300] * 300, [[1.0] * 50] * 50), "kernel")


def test_log_axis_range_clamped():
    from mlsysim.labs import charts as C

    for r in ([0, 1e9], [-1, 400]):
        f = C.figure("t", "x", "Bytes", log_y=True)
        f.update_yaxes(range=r)
        out = C.finalize(f)
        assert all(math.isfinite(v) for v in out.layout.yaxis.tickvals)


# --------------------------------------------------------------------------------------------
# 5. deep nesting
# --------------------------------------------------------------------------------------------


def test_deeply_nested_sequential_refused_at_construction():
    s = L.Dense(in_features=2, out_features=2)
    with pytest.raises(ValueError, match="layers nest") as err:
        for _ in range(400):
            s = L.Sequential(layers=(s,))
    assert "layers" in str(err.value)
    s = L.Dense(in_features=2, out_features=2)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="layers hold"):
        for _ in range(5):
            s = L.Sequential(layers=(s,) * 100)
    assert time.perf_counter() - t0 < 5.0  # the refusal does not print a million leaves
    s = L.Dense(in_features=2, out_features=2)
    for _ in range(50):
        s = L.Sequential(layers=(s,))
    assert s.params == 6


def test_deeply_nested_json_refused():
    _raises_naming(
        lambda: from_hf_config('{"a":' + "[" * 100000 + "]" * 100000 + "}"),
        "config",
        "nested too deeply",
    )


# --------------------------------------------------------------------------------------------
# 6. unhashable names
# --------------------------------------------------------------------------------------------


def test_unhashable_names_refused_by_name():
    gpt2 = hf.shipped_config("gpt2")["config"]
    llama = hf.shipped_config("llama-2-7b")["config"]
    _raises_naming(lambda: from_hf_config({"model_type": ["gpt2"]}), "config['model_type']")
    _raises_naming(
        lambda: from_hf_config({**gpt2, "activation_function": ["gelu"]}),
        "config['activation_function']",
    )
    _raises_naming(
        lambda: from_hf_config({**llama, "hidden_act": {"a": 1}}), "config['hidden_act']"
    )
    _raises_naming(lambda: T7.chapter(["dense"], 64, 16), "block")
    _raises_naming(lambda: T7.exact({}, 64, 16), "block")
    _raises_naming(lambda: ACC.imagenet([]), "model")
    _raises_naming(lambda: ACC.language({}), "result")
    _raises_naming(lambda: ACC.pareto_front([[1]], lambda k: 1.0, lambda k: 1.0), "items")
    _raises_naming(lambda: mlsysim.energy.mac_energy(["fp16"]), "precision")


def test_labs_unhashable_names_refused_by_name():
    from mlsysim.labs import charts as C
    from mlsysim.labs import components as K

    _raises_naming(lambda: C.hline(C.figure("t", "x", "y"), 1.0, "x", position=["top"]), "position")
    _raises_naming(lambda: K.fact(["latency"], 5), "quantity")
    _raises_naming(lambda: K.Choice("c", {"a": "A"}, ["a"]), "value")
    opts, fb = {"a": "A", "b": "B"}, {"a": "yes", "b": "no"}
    _raises_naming(lambda: K.Prediction("q?", opts, ["a"], fb), "answer")
    _raises_naming(lambda: K.Prediction("q?", opts, "a", fb, kind=["predict"]), "kind")
    pred = K.Prediction("q?", opts, "a", fb)
    _raises_naming(lambda: pred.verdict_html(["b"]), "value")
    assert "Correct" in pred.verdict_html("a")[0]


# --------------------------------------------------------------------------------------------
# 7. ZeroDivisionError
# --------------------------------------------------------------------------------------------


def test_fully_masked_softmax_refused_by_name():
    _raises_naming(lambda: O.softmax([-math.inf, -math.inf]), "row", "masked")
    _raises_naming(lambda: O.softmax([-math.inf]), "row")
    assert O.softmax([-math.inf, 0.0]) == [0.0, 1.0]


def test_feasibility_on_zero_capacity():
    from mlsysim.labs import components as K

    zero = HW.Device.model_validate(
        {**dict(H100), "memory": HW.Memory(capacity=(0, "B"), bandwidth=(1, "GB/s"))}
    )
    oom = K.feasibility(1, zero)
    assert "Out of memory" in oom.text
    fits = K.feasibility(0, zero)
    assert "Fits" in fits.text
    assert "50.0%" in K.feasibility(40e9, H100).text


# --------------------------------------------------------------------------------------------
# 8. inf from finite inputs
# --------------------------------------------------------------------------------------------


def test_overflowing_products_refused_naming_inputs():
    d = L.Dense(in_features=2, out_features=1)
    _raises_naming(lambda: d.forward([1e308, 1e308], [[1e308], [1e308]]), "x and weights")
    _raises_naming(lambda: d.forward([1e308, 1e308], [[1e308], [-1e308]]), "x and weights")
    assert d.forward([1.0, 2.0], [[3.0], [4.0]]) == [11.0]
    _raises_naming(lambda: O.matmul([[1e308, 1e308]], [[1e308], [1e308]]), "a and b")
    big = [[1e200, 1e200]]
    col = [[1e200], [1e200]]
    _raises_naming(lambda: O.scores(big, col, col), "x")
    _raises_naming(lambda: O.self_attention(big, col, col, col), "x")
    _raises_naming(lambda: S.conv2d_valid([[1e308] * 3] * 3, [[1e308] * 2] * 2), "image")
    _raises_naming(lambda: S.max_abs_difference([[1e308]], [[-1e308]]), "a and b")
    assert S.global_average_pool([[1e308, 1e308]]) == pytest.approx(1e308)
    assert S.global_average_pool([[1.0, 2.0]]) == 1.5


# --------------------------------------------------------------------------------------------
# 9. a Model's callables
# --------------------------------------------------------------------------------------------


def _rows(s, p):
    return [M.Row("fc", L.Dense(in_features=4, out_features=4))]


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"kv_elements": lambda s: -5 * s}, "kv_elements"),
        ({"kv_elements": lambda s: float("inf")}, "kv_elements"),
        ({"kv_elements": lambda s: "x"}, "kv_elements"),
        ({"kv_per_token": lambda p: -1}, "kv_per_token"),
        ({"kv_per_token": lambda p: None}, "kv_per_token"),
    ],
)
def test_model_callables_checked(kw, name):
    m = M.Model("m", "t", _rows, is_lm=True, **kw)
    _raises_naming(lambda: m.kv_cache_bytes(10, 1), name)
    _raises_naming(lambda: Engine.solve(m, "H100", seq_len=10), name)


def test_model_build_must_return_rows():
    _raises_naming(lambda: M.Model("m", "t", lambda s, p: 5).params, "build")
    ok = M.Model("m", "t", _rows, is_lm=True, kv_elements=lambda s: 5 * s)
    assert ok.kv_cache_bytes(10, 1) == 100  # 50 elements x 2 bytes (fp16)


# --------------------------------------------------------------------------------------------
# 10. from_hf_config's other exits
# --------------------------------------------------------------------------------------------


def test_from_hf_config_bad_text_and_files(tmp_path):
    _raises_naming(lambda: from_hf_config("x" * 10000), "config=", "neither")
    _raises_naming(
        lambda: from_hf_config('{"model_type":"gpt2","n_embd":' + "9" * 5000 + "}"), "config"
    )
    bad = tmp_path / "bin.json"
    bad.write_bytes(b"\xff\xfe garbage")
    _raises_naming(lambda: from_hf_config(str(bad)), "config=", "UTF-8")
    gpt2 = hf.shipped_config("gpt2")["config"]
    msg = _raises_naming(lambda: from_hf_config({**gpt2, "n_embd": "768"}), "config['n_embd']")
    assert "'768'" in msg  # the string is shown as a string
    good = tmp_path / "config.json"
    good.write_text(json.dumps(gpt2))
    assert from_hf_config(str(good)).params == from_hf_config(gpt2).params


# --------------------------------------------------------------------------------------------
# 12. launch_cost_for_speedup
# --------------------------------------------------------------------------------------------


def test_unreachable_speedup_is_none():
    slow = Engine.solve(Models.GPT2Small, "H100")
    fast = Engine.solve(Models.GPT2Small, "H100", fused=True)
    assert E.launch_cost_for_speedup(slow, fast, 1.7e308) is None
    assert E.launch_cost_for_speedup(slow, fast, 1e300) is None


# --------------------------------------------------------------------------------------------
# 13-14. labs.components: tag allow-list; formatters refuse strings and check digits
# --------------------------------------------------------------------------------------------


def test_plain_tag_allow_list():
    from mlsysim.labs import components as K

    _raises_naming(lambda: K.plain("x", tag='span onclick="alert(1)"'), "tag")
    _raises_naming(lambda: K.plain("alert(1)", tag="script"), "tag")
    _raises_naming(lambda: K.plain("x", tag=["span"]), "tag")
    assert K.plain("<b>x</b>", tag="div").text.startswith("<div ")
    assert "&lt;b&gt;" in K.plain("<b>x</b>").text


def test_formatters_refuse_strings_and_bad_digits():
    from mlsysim.labs import components as K

    for fmt, name in _formatters(K):
        _raises_naming(lambda f=fmt: f("10"), name)
        _raises_naming(lambda f=fmt: f("abc"), name)
        _raises_naming(lambda f=fmt: f([1]), name)
        for digits in (2.5, -1, None, 10**6, True):
            _raises_naming(lambda f=fmt, d=digits: f(1234.5, digits=d), "digits")
    _raises_naming(lambda: K.fact("latency", "5"), "value")
    assert K.fmt_bytes(1234.5, digits=2) == "1.23 KB"
    assert K.fmt_bytes(-0.0) == "0 B"
    assert K.fmt_count(-0.0) == "0"
    assert K.fmt_time(0.0015) == "1.50 ms"
    assert K.fmt_ratio(2.5, 0) == "2×"


# --------------------------------------------------------------------------------------------
# 15. from_shipped
# --------------------------------------------------------------------------------------------


def test_from_shipped_label_and_name_clash():
    assert hf.from_shipped("gpt2", label="My GPT-2").name == "My GPT-2"
    assert hf.from_shipped(name="gpt2").name == hf.from_shipped("gpt2").name
    _raises_naming(lambda: hf.from_shipped("gpt2", name="My GPT-2"), "name")
    _raises_naming(lambda: hf.from_shipped("gpt2", label=5), "label")


def test_an_unknown_preset_or_device_attribute_is_a_named_error_and_hasattr_still_works():
    """Models.foo raised a ValueError that broke hasattr/getattr(default); Hardware.Cloud.h100 a
    bare AttributeError with no allowed names."""
    import pytest as _pytest

    from mlsysim import Hardware, Models

    assert hasattr(Models, "foo") is False and getattr(Models, "foo", None) is None
    assert hasattr(Hardware.Cloud, "h100") is False
    with _pytest.raises(ValueError, match=r"device='h100'.*allowed: H100"):
        Hardware.Cloud.h100  # noqa: B018
    with _pytest.raises(ValueError, match=r"model='foo' is not a preset; allowed"):
        Models.foo  # noqa: B018
    assert Models.ResNet50.name and Hardware.Cloud.H100.name


def test_pool_padding_past_half_the_window_is_refused_as_torch_does():
    """Pool2d(kernel 2, padding 5) gave a 7x7 output that was mostly padding; torch refuses
    padding > kernel_size / 2 ('pad should be at most half of effective kernel size')."""
    import pytest as _pytest
    from pydantic import ValidationError

    from mlsysim import layers as L

    with _pytest.raises((ValueError, ValidationError), match=r"padding=5 .*allowed: 0\.\.1"):
        L.Pool2d(channels=1, input_size=4, kernel_size=2, padding=5)
    assert L.Pool2d(channels=1, input_size=4, kernel_size=3, stride=1, padding=1).output_size == (
        4,
        4,
    )


def test_a_negative_zero_capacity_is_stored_as_zero():
    from mlsysim import hardware as HW

    mem = HW.Memory(capacity=(-0.0, "GB"), bandwidth=(1, "GB/s"))
    assert str(mem.capacity.magnitude) == "0" and mem.capacity.m_as("B") == 0


def test_a_list_id2label_is_refused_by_name_not_ignored():
    """A list id2label was silently ignored (the head got num_labels or 2 classes)."""
    import pytest as _pytest

    from mlsysim import hf

    cfg = {
        **hf.shipped_config("bert-base-uncased")["config"],
        "architectures": ["BertForSequenceClassification"],
    }
    assert hf.from_hf_config({**cfg, "id2label": {"0": "a", "1": "b", "2": "c"}}).params > 0
    with _pytest.raises(ValueError, match=r"config\['id2label'\] must be an object"):
        hf.from_hf_config({**cfg, "id2label": ["a", "b", "c"]})


def test_chart_helpers_name_a_bad_figure_device_title_or_width():
    """finalize(None), hline(None, 1), roofline('H100') and device_label('H100') were bare
    AttributeErrors; is_byte_title(5) a TypeError; label_problems(width='400') returned [] and
    wrap_words(width='3') / glue='(' raised TypeError / re.error."""
    import pytest as _pytest

    from mlsysim import Hardware
    from mlsysim.labs import charts as C
    from mlsysim.labs import placement as P

    for call in (
        lambda: C.finalize(None),
        lambda: C.hline(None, 1.0),
        lambda: C.text_alternative(5),
    ):
        with _pytest.raises(ValueError, match=r"fig must be a Plotly figure"):
            call()
    # a registry key is accepted where a device is expected, and named when it is not one
    assert C.device_label("H100") == C.device_label(Hardware.get("H100"))
    assert C.roofline("H100", "fp16", 0.5).layout.title.text
    with _pytest.raises(ValueError, match=r"allowed"):
        C.roofline("h100")
    with _pytest.raises(ValueError, match=r"dev must be a Device"):
        C.device_label(5)
    with _pytest.raises(ValueError, match=r"title must be text"):
        C.is_byte_title(5)
    assert C.is_count_title(None) is False
    fig = C.figure("t", "x", "y")
    j = fig.to_plotly_json()
    for w in ("400", float("nan"), float("inf"), -100, True):
        with _pytest.raises(ValueError, match=r"width must be a plot width"):
            P.label_problems(j["data"], j["layout"], w)
    for w in ("3", None, True, 0):
        with _pytest.raises(ValueError, match=r"width must be a whole number"):
            P.wrap_words("alpha beta gamma", w)
    with _pytest.raises(ValueError, match=r"glue must be a regular expression"):
        P.wrap_words("alpha beta gamma", 5, glue="(")
    assert P.wrap_words("alpha beta gamma", 10) == "alpha beta<br>gamma"


def _formatters(K):
    """Each number formatter of the kit with the name of its value argument."""
    return (
        (K.fmt_bytes, "n"),
        (K.fmt_count, "n"),
        (K.fmt_time, "seconds"),
        (K.fmt_rate, "flops_per_s"),
        (K.fmt_flops, "n"),
        (K.fmt_ratio, "x"),
    )


def test_a_kv_cache_past_learned_positions_is_refused_by_name():
    """GPT-2's cache was priced at any length although its 1,024 learned positions stop it there
    (transformers raises an index error past n_positions; the rows already refused seq_len):
    kv_cache_bytes now names seq_len and the allowed range, for the built-in lighthouse and for a
    shipped HF config alike. A model with rotary positions has no limit of its own. The chapter's
    Figure 14 extrapolates GPT-2 XL's shape to 256K tokens: shape_beyond_positions() says so."""
    xl = Models.GPT2XL
    assert xl.max_seq_len == 1024
    full = xl.kv_cache_bytes(1024)
    assert full == 1024 * xl.kv_cache_bytes_per_token()
    for m in (xl, hf.from_shipped("gpt2")):
        with pytest.raises(ValueError, match=r"seq_len=1025 exceeds .*allowed: 0\.\.1024"):
            m.kv_cache_bytes(1025)
    shape = xl.shape_beyond_positions()
    assert shape.name == "GPT-2 XL shape" and shape.max_seq_len is None
    assert shape.kv_cache_bytes(262_144) == 256 * full
    assert shape.weight_bytes("fp16") == xl.weight_bytes("fp16")
    assert xl.max_seq_len == 1024  # the original is unchanged
    assert Models.Llama7B.max_seq_len is None
    assert Models.Llama7B.kv_cache_bytes(100_000) > 0


def test_ranking_an_endless_iterator_is_refused_by_name():
    """``pareto_front(itertools.count(), ...)`` read items until memory ran out (MemoryError after
    ~4 s, or the process killed): at most ``MAX_ITEMS`` keys are read, then ``items`` is named."""
    import itertools

    from mlsysim import accuracy

    for fn, args in (
        (accuracy.pareto_front, (lambda k: 1.0, lambda k: 1.0)),
        (accuracy.cheapest_meeting, (0.0, lambda k: 1.0, lambda k: 1.0)),
    ):
        with pytest.raises(ValueError, match="items must hold at most 100,000 keys"):
            fn(itertools.count(), *args)

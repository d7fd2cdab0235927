"""One number per quantity, across the whole suite (issue 10).

Every part of every notebook is rendered at its default widget values. Each card that shows a
named quantity carries a ``Fact`` (quantity + the settings it depends on: model, device, batch,
precision, efficiency, phase, seq_len, fused). Two checks:

1. the same fact key shows the same value in every part of every notebook;
2. where the context names a registry model and device, the value is recomputed here through the
   core's one public function for that quantity (not through the part), so a part that derates
   twice, counts reuse in FLOPs or mislabels a sustained ridge as the peak one fails.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import pytest

import mlsysim.labs.parts as parts_pkg
from mlsysim import Engine, Hardware, Models
from mlsysim.engine import weight_only_intensity, weight_reuse
from mlsysim.labs.components import Choice, Fact, Slider, Toggle

MODULES = sorted(m.name for m in pkgutil.iter_modules(parts_pkg.__path__))


def _default_views():
    """(module, function name, View) for every part and synthesis at its defaults."""
    for m in MODULES:
        mod = importlib.import_module(f"mlsysim.labs.parts.{m}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__:
                continue
            if name.startswith("part_") and len(name) == 6:
                letter = name[-1].upper()
            elif name == "synthesis":
                letter = "S"
            else:
                continue
            args = []
            for p in inspect.signature(fn).parameters:
                spec = getattr(mod, f"{letter}_{p.upper()}")
                assert isinstance(spec, Slider | Choice | Toggle)
                args.append(spec.value)
            yield m, name, fn(*args)


@pytest.fixture(scope="module")
def facts() -> list[tuple[str, Fact]]:
    out = []
    for m, name, view in _default_views():
        out += [(f"{m}.{name}", f) for f in view.all_facts()]
    return out


def _ctx(f: Fact) -> dict[str, str]:
    return dict(f.context)


def _num(v: str | None, cast=int):
    return None if v is None else cast(v)


def _profile(c: dict[str, str]):
    return Engine.solve(
        Models.get(c["model"]),
        c["device"],
        batch_size=_num(c.get("batch")) or 1,
        precision=c.get("precision", "fp16"),
        efficiency=_num(c.get("efficiency"), float) or 0.5,
        phase=c.get("phase"),
        seq_len=_num(c.get("seq_len")),
        fused=c.get("fused") == "True",
    )


def _recompute(f: Fact) -> float | None:
    """The core's own value for a fact, or None when its context names no registry model/device."""
    c = _ctx(f)
    model_ok = c.get("model") in Models.names()
    device_ok = c.get("device") in {d.key for d in Hardware.all()}
    q = f.quantity
    if q in ("ridge_peak", "ridge_sustained", "sustained_rate") and device_ok:
        dev = Hardware.get(c["device"])
        prec = c.get("precision")
        if q == "ridge_peak":
            return dev.ridge_point(prec).m_as("FLOP/B")
        eff = _num(c.get("efficiency"), float) or 1.0
        if q == "ridge_sustained":
            return dev.sustained_ridge_point(prec, eff).m_as("FLOP/B")
        return dev.sustained_flops(prec, eff)
    if q in ("score_bytes", "held_score_bytes"):  # one layer's attention scores, all heads
        from mlsysim import layers as L

        att = L.Attention(
            d_model=int(c["heads"]), n_heads=int(c["heads"]), seq_len=int(c["seq_len"])
        )
        return getattr(att, q)(1, c["precision"])
    if not model_ok:
        return None
    model = Models.get(c["model"])
    if q == "params":
        return model.params
    if q == "weight_bytes":
        return model.weight_bytes(c.get("precision", "fp16"))
    if q == "weight_reuse":
        return weight_reuse(
            model, _num(c.get("batch")) or 1, _num(c.get("seq_len")), c.get("phase")
        )
    if q == "weight_only_intensity":
        return weight_only_intensity(
            model,
            c.get("precision", "fp32"),
            _num(c.get("batch")) or 1,
            _num(c.get("seq_len")),
            c.get("phase"),
        )
    if q == "flops":
        return model.flops(_num(c.get("batch")) or 1, _num(c.get("seq_len")), c.get("phase"))
    if q == "kv_cache_bytes" and "seq_len" in c:
        return model.kv_cache_bytes(
            int(c["seq_len"]), _num(c.get("batch")) or 1, c.get("precision", "fp16")
        )
    if q in ("latency", "mfu", "intensity", "footprint") and device_ok:
        p = _profile(c)
        return {
            "latency": p.latency_s,
            "mfu": p.mfu,
            "intensity": p.arithmetic_intensity.m_as("FLOP/B"),
            "footprint": p.memory_footprint_bytes,
        }[q]
    return None


def test_parts_tag_the_quantities_they_show(facts):
    """The check below is only as strong as the tagging: the suite's parts tag named quantities."""
    tagged = {where.split(".")[0] for where, _ in facts}
    assert len(facts) >= 10, f"only {len(facts)} facts tagged across the suite"
    assert len(tagged) >= 3, f"facts tagged in only {sorted(tagged)}"


def test_same_quantity_same_value_everywhere(facts):
    seen: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for where, f in facts:
        seen[f.key].append((where, f.value))
    clashes = {
        k: v
        for k, v in seen.items()
        if any(abs(x - v[0][1]) > 1e-9 * max(abs(x), abs(v[0][1]), 1e-300) for _, x in v)
    }
    assert not clashes, "one quantity, several values:\n" + "\n".join(
        f"{k}: {v}" for k, v in clashes.items()
    )


def test_every_fact_matches_the_core(facts):
    wrong = []
    for where, f in facts:
        expect = _recompute(f)
        if expect is not None and abs(f.value - expect) > 1e-9 * max(abs(expect), 1e-300):
            wrong.append(f"{where}: {f.key} = {f.value!r}, the core says {expect!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("key", "shipped"), [("GPT2", "gpt2-xl"), ("GPT2Small", "gpt2")])
@pytest.mark.parametrize("device", ["H100", "A100", "JetsonOrinNX"])
def test_registry_gpt2_is_the_shipped_config(key, shipped, device):
    """The chapter's GPT-2 (Models.GPT2, used by 6.1, 6.7, 6.9, 6.12 and Lab 06) and bring-your-
    own-model's shipped Hugging Face config of the same model are one model: the same rows (HF's
    fused c_attn: 581 launches for GPT-2 XL, not 677 with separate Q, K, V), so the same latency
    in every notebook. They once differed by 12% (4.41 vs 3.93 ms decode on the H100)."""
    from mlsysim import hf

    reg, hub = Models.get(key), hf.from_shipped(shipped)
    assert reg.params == hub.params
    dev = Hardware.get(device)
    for phase, batch in (("decode", 1), ("decode", 8), ("prefill", 1)):
        a = Engine.solve(reg, dev, batch_size=batch, precision="fp16", phase=phase, seq_len=512)
        b = Engine.solve(hub, dev, batch_size=batch, precision="fp16", phase=phase, seq_len=512)
        assert (a.latency_s, a.flops, a.bytes_moved) == (b.latency_s, b.flops, b.bytes_moved)
        assert a.memory_footprint_bytes == b.memory_footprint_bytes


@pytest.mark.parametrize("seq,heads", [(4096, 12), (16384, 32), (131072, 32)])
def test_score_memory_is_one_number_in_lab06_and_6_6(seq, heads):
    """Lab 06 Part B and 6.6 Part B show the attention scores under the same names and the same
    convention (one copy; held = logits + probabilities, Attention.SCORE_COPIES): at the same
    context and heads both pages show the same two values, and held is twice one copy."""
    from mlsysim.labs.parts import lab06, s06_06_attention

    shown = {}
    for page, view in (
        ("lab06", lab06.part_b(seq, heads, False)),
        ("6.6", s06_06_attention.part_b(seq, heads, 32)),
    ):
        got = {f.quantity: (f.key, f.value) for f in view.all_facts()}
        assert {"score_bytes", "held_score_bytes"} <= set(got), (page, sorted(got))
        shown[page] = {q: got[q] for q in ("score_bytes", "held_score_bytes")}
        labels = {c.label for c in view.cards}
        from mlsysim.labs.vocab import LABELS

        for q in ("score_bytes", "held_score_bytes"):
            assert LABELS[q].capitalize() in labels, (page, labels)
    assert shown["lab06"] == shown["6.6"]
    one, held = shown["6.6"]["score_bytes"][1], shown["6.6"]["held_score_bytes"][1]
    assert one == heads * seq * seq * 2 and held == 2 * one

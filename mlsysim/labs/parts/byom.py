"""Bring your own model: any Hugging Face ``config.json`` on any device, each part a plain
function of its widget values.

The model is a key: a shipped configuration (``mlsysim/configs``) or a pasted config registered
by :func:`resolve`. Every number comes from ``mlsysim`` (``from_hf_config``, ``Engine``,
``Hardware``); this module only picks inputs, draws the chart and writes the sentence.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, memory_lines, out_of_memory, roofline, vline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    TextBox,
    View,
    _callout,
    counted,
    fact,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_flops,
    fmt_rate,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, conditions, op_word

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
hf = lazy("mlsysim.hf")
M = lazy("mlsysim.models")

CHAPTER = "byom"
PARTS = ("A", "B", "C", "D", "E")

SHIPPED = tuple(hf.shipped_configs())
MODEL_LABELS = {n: hf.shipped_config(n)["source"]["model"] for n in SHIPPED}
PASTE = "paste"
#: Every registry device, grouped by class (datacenter, desk & laptop, edge, phone, tiny).
DEVICE_CLASSES = catalogue.grouped()
DEVICES = {k: v for group in DEVICE_CLASSES.values() for k, v in group.items()}
#: The picker's last entry: a device the student describes (``DEVICE_SPEC``).
CUSTOM = "custom"
CUSTOM_LABEL = "Your own device (enter its figures below)"
PRECISIONS = {
    "fp16": "FP16 (2 B)",
    "bf16": "BF16 (2 B)",
    "int8": "INT8 (1 B)",
    "fp32": "FP32 (4 B)",
}
EFFICIENCY = 0.5  # the engine's default share of peak a tuned kernel sustains
MAX_TEXT = 200_000  # characters of pasted config accepted

#: The notebook's model picker: a shipped configuration or "paste your own".
SOURCE = Choice(
    "Model",
    {**MODEL_LABELS, PASTE: "Paste my own config.json (box below)"},
    "llama-3-8b",
    dropdown=True,
)


class ModelChoice(Choice):
    """The model picker; a part's ``model`` argument also takes a pasted config's key
    (``resolve``)."""

    def check(self, name: str, v) -> str:
        if isinstance(v, str) and v in _PASTED:
            return v
        try:
            return super().check(name, v)
        except ValueError as e:
            raise ValueError(f"{e} (or a pasted config's key from resolve())") from None


class DeviceChoice(Choice):
    """The device picker: registry devices grouped by class, then "your own device". A part's
    ``device`` argument also takes an entered device's key (``resolve_device``)."""

    def check(self, name: str, v) -> str:
        if isinstance(v, str) and v in _CUSTOM:
            return v
        try:
            return super().check(name, v)
        except ValueError as e:
            raise ValueError(f"{e} (or an entered device's key from resolve_device())") from None

    def widget(self, saved=None):
        from ..components import _mo, _restored, clean_text

        klass = {k: c for c, group in DEVICE_CLASSES.items() for k in group}
        opts = {
            clean_text(f"{klass[k]} · {v}" if k in klass else f"Yours · {v}"): k
            for k, v in self.options.items()
        }
        key = self.restore(_restored(saved, self))
        shown = next(t for t, k in opts.items() if k == key)
        el = _mo().ui.dropdown(options=opts, value=shown, label=self.label, searchable=True)
        if saved is not None:
            saved.created(self, el)
        return el


MODEL = ModelChoice("Model", MODEL_LABELS, "llama-3-8b", dropdown=True)
DEVICE = DeviceChoice(
    "Device (by class: datacenter, desk & laptop, edge, phone, tiny)",
    {**DEVICES, CUSTOM: CUSTOM_LABEL},
    "H100",
    dropdown=True,
)

#: Fields of an entered device: its name, memory, bandwidth and a peak per precision.
DEVICE_FIELDS = {
    "name": "a name for the chart (text, at most 60 characters)",
    "memory": "memory capacity, e.g. 24 GB",
    "bandwidth": "memory bandwidth, e.g. 936 GB/s",
    **{
        p: f"{p.upper()} peak, e.g. {'100 TOP/s' if p.startswith('int') else '50 TFLOP/s'}"
        for p in ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4")
    },
}
DEVICE_EXAMPLE = (
    "name: My GPU\n"
    "memory: 24 GB\n"
    "bandwidth: 936 GB/s\n"
    "fp32: 35.6 TFLOP/s\n"
    "fp16: 71 TFLOP/s\n"
    "int8: 284 TOP/s\n"
)
DEVICE_SPEC = TextBox(
    "Your device, one figure a line (name, memory, bandwidth, then a dense peak per precision: "
    "fp64, fp32, tf32, fp16, bf16, fp8, int8, int4)",
    DEVICE_EXAMPLE,
    rows=7,
    max_length=2_000,
)
_CUSTOM: dict[str, object] = {}


def parse_device(text: str):
    """A ``Device`` from the lines of ``DEVICE_SPEC`` ("memory: 24 GB"), validated by the
    registry's own rules (``hardware._quantity``: a finite quantity of the right unit inside its
    range); a ValueError names the field, what it allows and an example."""
    import datetime as _dt

    from ...hardware import Compute, Device, Memory, PeakRate, Provenance, _quantity

    if not isinstance(text, str) or len(text) > DEVICE_SPEC.max_length:
        raise ValueError(f"the device text must be at most {DEVICE_SPEC.max_length:,} characters")
    fields: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or not value.strip():
            raise ValueError(
                f"line {n} ({line[:40]!r}) must read 'field: value', e.g. 'memory: 24 GB'"
            )
        if key not in DEVICE_FIELDS:
            raise ValueError(
                f"line {n}: {key[:30]!r} is not a device field; allowed: {', '.join(DEVICE_FIELDS)}"
            )
        if key in fields:
            raise ValueError(f"line {n}: {key} is given twice")
        fields[key] = value.strip()
    for need in ("memory", "bandwidth"):
        if need not in fields:
            raise ValueError(f"{need} is missing: add a line '{need}: ...' ({DEVICE_FIELDS[need]})")
    precisions = [
        p for p in DEVICE_FIELDS if p in fields and p not in ("name", "memory", "bandwidth")
    ]
    if not precisions:
        raise ValueError(
            "no peak rate: add at least one line such as 'fp16: 50 TFLOP/s' (allowed precisions: "
            "fp64, fp32, tf32, fp16, bf16, fp8, int8, int4)"
        )

    def q(field: str, dim: str):
        try:
            float(fields[field])
        except ValueError:
            pass
        else:
            raise ValueError(
                f"{field}={fields[field][:30]!r} needs a unit: write a number and a unit "
                f"({DEVICE_FIELDS[field]})"
            )
        try:
            return _quantity(fields[field], dim, field, positive=True)
        except ValueError as e:
            raise ValueError(f"{e} ({DEVICE_FIELDS[field]})") from None

    name = fields.get("name", "Your device")[:60].strip() or "Your device"
    rates = {p: PeakRate(dense=q(p, "[computation] / [time]")) for p in precisions}
    quoted = next(p for p in ("fp16", "bf16", "int8", "fp32", *precisions) if p in rates)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return Device(
        name=name,
        key=f"custom:{digest}",
        tier="Custom",
        memory=Memory(
            capacity=q("memory", "[information]"),
            bandwidth=q("bandwidth", "[information] / [time]"),
            kind="entered",
        ),
        compute=Compute(quoted_precision=quoted, precisions=rates),
        dispatch_tax=(5, "us"),
        dispatch_note="5 us per kernel: the registry's planning value for a discrete GPU.",
        tdp=(0, "W"),
        provenance=Provenance(
            document="Figures entered by the student",
            url="https://example.org/entered-by-the-student",
            date=_dt.date.today(),
        ),
    )


def resolve_device(choice: str, text: str) -> tuple[str | None, str | None]:
    """The device key the parts take (a registry key, or an entered device's registered key),
    or an error sentence for the student (field, allowed range, example). Never raises."""
    if choice != CUSTOM:
        if choice not in DEVICES:
            return None, f"device={str(choice)[:60]!r} is not in the picker"
        return choice, None
    try:
        dev = parse_device(text or "")
    except ValueError as e:
        return None, "Your device: " + " ".join(str(e).split())
    if dev.key not in _CUSTOM:
        if len(_CUSTOM) > 16:
            _CUSTOM.clear()
        _CUSTOM[dev.key] = dev
    return dev.key, None


def get_device(key: str):
    """The device a part runs on: a registry device, an entered one (``resolve_device``), or for
    ``CUSTOM`` itself the example in ``DEVICE_EXAMPLE``."""
    if key in _CUSTOM:
        return _CUSTOM[key]
    if key == CUSTOM:
        return _example_device()
    return HW.Hardware.get(key)


@lru_cache(maxsize=1)
def _example_device():
    return parse_device(DEVICE_EXAMPLE)


def device_summary(key: str) -> str:
    """One line for the report: an entered device's figures as the parts use them."""
    dev = get_device(key)
    peaks = ", ".join(f"{p.upper()} {r.dense:~P}" for p, r in dev.compute.precisions.items())
    return (
        f"{catalogue.short(dev.name)}: {dev.memory.capacity:~P}, {dev.memory.bandwidth:~P}, {peaks}"
    )


def device_design(choice: str, text: str) -> dict[str, str]:
    """The report's record of an entered device (``{"your device": its figures}``), or {} for a
    registry device or figures that do not validate (the page shows their error)."""
    key, err = resolve_device(choice, text) if choice == CUSTOM else (None, None)
    return {"your device": device_summary(key)} if key and not err else {}


#: A precision a device does not list falls back to one of the same width, else to its own.
_SAME_WIDTH = {"fp16": ("bf16",), "bf16": ("fp16",), "int8": ("fp8",)}


def pick_precision(dev, precision: str) -> tuple[str, str | None]:
    """``precision`` if ``dev`` lists a rate for it; else one of the same bytes a value, else the
    device's quoted precision, with the sentence that says so (shown as a callout)."""
    listed = dev.compute.precisions
    if precision in listed:
        return precision, None
    alt = next((a for a in _SAME_WIDTH.get(precision, ()) if a in listed), None)
    why = "the same bytes a value" if alt else "the precision its source quotes"
    alt = alt or dev.compute.quoted_precision
    return alt, (
        f"The {catalogue.short(dev.name)} lists no {precision.upper()} rate (its source gives "
        f"{', '.join(p.upper() for p in listed)}): these parts run it at {alt.upper()}, {why}."
    )


def _on_device(fn):
    """A part's ``device`` key becomes the Device it names and its ``precision`` one the device
    lists (``pick_precision``; the substitution shown above the part's own callout)."""

    @functools.wraps(fn)
    def run(model, device, precision, *rest):
        dev = get_device(device)
        used, note = pick_precision(dev, precision)
        view = fn(model, dev, used, *rest)
        if note:
            warn = _callout(html.escape(note), "warn")
            if view.alert is None:
                view.alert = warn
            else:
                from ..components import _mo

                view.alert = _mo().vstack([warn, view.alert])
        return view

    return run


PRECISION = Choice(
    "Precision (weights, activations and KV cache)", PRECISIONS, "fp16", dropdown=True
)
EXAMPLE = json.dumps(hf.shipped_config("qwen2.5-7b")["config"], indent=1)
CONFIG_TEXT = TextBox("config.json (replace this example with yours)", EXAMPLE, rows=12)

_PASTED: dict[str, M.Model] = {}


@lru_cache(maxsize=32)
def _shipped(name: str) -> M.Model:
    return hf.from_shipped(name)


def resolve(source: str, text: str) -> tuple[str | None, str | None]:
    """The model key the parts take (a shipped name, or a registered pasted config), or an error
    message for the student. Never raises for bad input."""
    if source != PASTE:
        if source not in MODEL_LABELS:
            return None, f"model={source!r} is not a shipped configuration"
        return source, None
    text = text or ""
    if not text.strip():
        return None, "Paste a config.json into the box, or pick a shipped model."
    if len(text) > MAX_TEXT:
        return (
            None,
            f"The pasted text is {len(text):,} characters; a config.json is far shorter (limit {MAX_TEXT:,}).",
        )
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        return (
            None,
            f"The pasted text is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}.",
        )
    if not isinstance(raw, dict):
        return None, "A config.json is a JSON object ({ ... }), not a list or a single value."
    key = "pasted:" + hashlib.sha256(text.encode()).hexdigest()[:12]
    if key not in _PASTED:
        try:
            arch = hf.from_hf_config(raw).config["architecture"]
            model = hf.from_hf_config(raw, name=f"your config ({arch})")
        except ValueError as e:
            return None, str(e)
        if model.family == "ssm":  # Mamba: a fixed-size state, no per-token cache
            return None, (
                f"{arch} is a state-space model: it keeps a fixed-size state (conv + SSM) instead "
                "of a KV cache that grows with every token, and this notebook's cache and batch "
                "parts assume the growing cache. Count it in Python with "
                "mlsysim.from_hf_config(config): kv_cache_bytes(S) is the same for every S."
            )
        if not model.is_lm:  # a vision tower (ViT, CLIP): one image, no tokens to vary
            return None, (
                f"{arch} reads one image, not a sequence of tokens: this notebook's parts vary "
                "the prompt and the generated tokens. Count it in Python with "
                "mlsysim.from_hf_config(config) (params, flops(), the layer table)."
            )
        # build the longest passes the parts run, so a size no layer accepts is reported here,
        # as a sentence naming the pass, and never inside a part
        passes = [(_context(model, C_PROMPT.stop), "prefill")]
        if _causal(model):
            passes.append((_context(model, E_CONTEXT.stop), "decode"))
        for seq, phase in passes:
            try:
                model.rows(seq, phase)
            except ValueError as e:
                inner = " ".join(line.strip() for line in str(e).splitlines()[:2])
                return None, (
                    f"This configuration is too large to model: a {phase} pass over "
                    f"{counted(seq, 'token')} builds a layer past mlsysim's limits ({inner})."
                )
        if len(_PASTED) > 16:
            _PASTED.clear()
        _PASTED[key] = model
    return key, None


def get_model(key: str) -> M.Model:
    if key in MODEL_LABELS:
        return _shipped(key)
    if key in _PASTED:
        return _PASTED[key]
    raise ValueError(f"model={key!r} is neither a shipped configuration nor a pasted one")


def _name(m: M.Model) -> str:
    return html.escape(m.name)


def _tag(key: str) -> str:
    return f"hf:{key}"


def _causal(m: M.Model) -> bool:
    """A model that decodes token by token with a KV cache (not an encoder or a classifier)."""
    return m.kv_cache_bytes(1, 1, "fp16") > 0


def _phase(m: M.Model) -> str:
    return "decode" if _causal(m) else "prefill"


def _context(m: M.Model, want: int) -> int:
    return max(1, min(int(want), m.config["context_length"]))


def model_cards(key: str) -> list[Card]:
    """The architecture as read from the config (no costs: those are the parts' answers)."""
    m = get_model(key)
    c = m.config
    heads = (
        f"{c['n_heads']} query, {c['kv_heads']} K/V"
        if c["kv_heads"] != c["n_heads"]
        else f"{c['n_heads']}"
    )
    cards = [
        Card("Class counted", c["architecture"], c["model_type"]),
        Card("Layers × width", f"{c['n_layers']} × {c['d_model']:,}", f"FFN {c['d_ff']:,}"),
        Card("Attention heads", heads, f"head_dim {c['head_dim']}"),
        Card("Vocabulary", f"{c['vocab_size']:,}", f"context {c['context_length']:,} tokens"),
    ]
    if "num_experts" in c:
        cards.append(
            Card(
                "Experts",
                f"{c['experts_per_token']} of {c['num_experts']} per token",
                "mixture of experts",
            )
        )
    return cards


def _fits_phrase(fits: dict[str, list[str]]) -> str:
    """'12 of 17 datacenter, 10 of 10 desk & laptop ... devices' (the picker's classes)."""
    n = sum(map(len, fits.values()))
    if not n:
        return "none of the picker's devices"
    parts = [f"{len(keys)} of {len(DEVICE_CLASSES[k])} {k.lower()}" for k, keys in fits.items()]
    return ", ".join(parts) + " devices"


def _solve(
    m: M.Model,
    device: str,
    precision: str,
    batch: int = 1,
    phase: str | None = None,
    seq_len: int | None = None,
):
    return E.Engine.solve(
        m,
        device,
        batch_size=batch,
        precision=precision,
        efficiency=EFFICIENCY,
        phase=phase or _phase(m),
        seq_len=seq_len,
    )


# ---------------------------------------------------------------------------------------------
# Part A: parameters and memory against the device
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "Part A opens on Llama-3 8B in FP16 on the H100: one user, a 4,096-token context, and room to "
        "spare. To move it to a 16 GB edge box (the Jetson Orin NX), which part of its memory has to "
        "shrink?"
    ),
    options={
        "weights": "The weights: at batch 1 they are nearly all of it",
        "kv": "The KV cache: a 4,096-token context is what overflows",
        "act": "The activations: a forward pass keeps every layer's outputs",
        "none": "None: 16 GB of FP16 weights just fits the 16 GB",
    },
    answer="weights",
    asks="regime",
    misconceptions={
        "kv": (
            "the context is what fills memory",
            "A long context is the memory cost, so a shorter one makes a model fit",
        ),
        "act": (
            "inference stores activations like training",
            "A forward pass keeps every layer's activations, as backpropagation does",
        ),
        "none": (
            "the weights are the whole footprint",
            "If the weights alone fit the memory, the model fits: nothing else needs room",
        ),
    },
    feedback={
        "weights": "On the H100 the footprint is 16.6 GB, and 16.1 GB of it, 97%, is the FP16 weights: the "
        "KV cache is 536.9 MB (GQA: 8 key/value heads for 32 query heads) and the activations of one decode "
        "step 540.7 KB. On the Jetson that is 597.9 MB over its 16 GB (16 × 10⁹ B, the registry's planning "
        "figure). INT8 halves the weights: 8.3 GB in all, which fits. Pick the Jetson, then INT8.",
        "kv": "At 4,096 tokens Llama-3 8B's cache is 536.9 MB, since its 32 query heads share 8 key/value "
        "heads. Cut the context to 256 tokens and the footprint is still over 16 GB: the 16.1 GB of weights "
        "alone do not fit.",
        "act": "Inference keeps only the activations in flight (540.7 KB for one decode step): nothing is "
        "stored for a backward pass. The weights, 16.1 GB, are what overflow the Jetson.",
        "none": "The name rounds down: Llama-3 8B has 8,030,261,248 parameters, 16.1 GB in FP16, already over "
        "the Jetson's 16 GB (16 × 10⁹ B) before the 536.9 MB of KV cache. The weights are what must shrink.",
    },
    reveals=("nearly all of it", "97%"),
)
A_MODEL, A_DEVICE, A_PRECISION = MODEL, DEVICE, PRECISION
CONTEXT_A = 4096  # the context the KV cache of part A is shown at (clipped to the model's)


@widget_args
@_on_device
def part_a(model: str, device: str, precision: str) -> View:
    import math

    import plotly.graph_objects as go

    m, dev = get_model(model), device
    ctx = _context(m, CONTEXT_A)
    p = _solve(m, dev, precision, seq_len=ctx)
    weights, kv, act = p.weight_bytes, p.kv_cache_bytes, p.activation_bytes
    cap = p.capacity_bytes
    # bytes on a log axis: a 100 MB encoder and a 93 GB mixture of experts both read against an
    # 8 GB phone or a 192 GB accelerator (on a linear axis scaled to 80 GB a small model's
    # bars were a pixel wide); one row per part of the footprint, each from the axis's edge
    rows = [("weights", weights), ("KV cache", kv), ("activations", act)]
    rows = [(n, v) for n, v in rows if v > 0] + [("total", p.memory_footprint_bytes)]
    fig = figure(
        f"{_name(m)}: memory at batch 1, {ctx:,}-token context ({precision.upper()})",
        "Memory (bytes, log scale)",
        "",
        log_x=True,
        height=300,
    )
    fig.add_trace(
        go.Bar(
            x=[v for _, v in rows],
            y=[n for n, _ in rows],
            orientation="h",
            name="footprint",
            showlegend=False,
        )
    )
    # one labelled line, the chosen device's capacity: the other devices' lines crowded the
    # axis, and their labels were pushed off their lines (one sat above the plot)
    name = device_label(dev)
    sized = name[-1:] == "B" and any(c.isdigit() for c in name[-6:])  # "... 80GB" already says it
    vline(fig, cap, name if sized else f"{name} ({fmt_bytes(cap)})", dash="solid")
    values = [v for _, v in rows] + [cap]
    lo, hi = math.log10(min(values)), math.log10(max(values))
    # three decades left of the line: room for its label above the plot at a phone's width
    lo = min(lo - 0.3, math.log10(cap) - 3.0)
    fig.update_xaxes(range=[math.floor(lo), math.ceil(hi + 0.3)])
    ctx_tags = dict(model=_tag(model), precision=precision)
    active = m.config.get("active_params")
    over = p.memory_footprint_bytes - cap
    cards = [
        Card(
            "Parameters",
            fmt_count(m.params),
            f"{m.config['architecture']}",
            fact=fact("params", m.params, model=_tag(model)),
        ),
        Card(
            "Active per token",
            fmt_count(active) if active else fmt_count(m.params),
            "router + routed experts" if active else "dense: every weight runs",
        ),
        Card(
            LABELS["weight_bytes"].capitalize(),
            fmt_bytes(weights),
            precision.upper(),
            fact=fact("weight_bytes", weights, **ctx_tags),
        ),
        Card(
            "Fits on the " + device_label(dev),
            "yes" if over <= 0 else "no",
            f"{fmt_bytes(-over)} to spare"
            if over <= 0
            else f"{fmt_bytes(over)} over {fmt_bytes(cap)}",
            "ok" if over <= 0 else "bad",
        ),
    ]
    need = p.memory_footprint_bytes
    fits = {
        klass: [k for k in group if need <= HW.Hardware.get(k).memory.capacity.m_as("B")]
        for klass, group in DEVICE_CLASSES.items()
    }
    summary = (
        f"{_name(m)} holds {fmt_count(m.params)} parameters: {fmt_bytes(weights)} of "
        f"{precision.upper()} weights"
        + (
            f", plus {fmt_bytes(kv)} of KV cache at {counted(ctx, 'token')}. "
            if _causal(m)
            else " (no KV cache). "
        )
        + f"At batch 1 it fits on {_fits_phrase(fits)}."
    )
    if active:
        summary += (
            f" Only {fmt_count(active)} parameters run per token, but all "
            f"{fmt_count(m.params)} must be resident."
        )
    peek = [
        f"weights   = params × bytes/value = {m.params:,} × {weights / m.params:g} B = {fmt_bytes(weights)}",
        # how it grows with the context is Part D's question: its formula is shown there
        f"KV cache  = {fmt_bytes(kv)} at {counted(ctx, 'token')} (keys and values of every layer)",
        f"footprint = weights + KV + activations = {fmt_bytes(p.memory_footprint_bytes)} vs {fmt_bytes(cap)}",
    ]
    return View(
        fig,
        cards,
        summary,
        "Memory footprint",
        peek,
        alert=feasibility(p.memory_footprint_bytes, dev, f"{m.name} at batch 1"),
    )


# ---------------------------------------------------------------------------------------------
# Part B: the per-layer roofline: which layer binds, and why
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "BERT-base, an encoder with no decode phase, reads one 512-token document at batch 1 in "
        "FP16 with eager kernels, at each device's planning launch cost (5 µs per kernel on the "
        "H100, 20 µs on the Jetson Orin NX). Part B sorts its layers into groups: attention "
        "projections, attention scores, FFNs, the head, embeddings, and the norms, activations "
        "and adds. Which group takes the largest share of the pass on each device?"
    ),
    options={
        "ffn_both": "The FFNs on both: they do most of the arithmetic",
        "split": "Norms, activations and adds on the H100, FFNs on the Jetson: the H100 waits on launches",
        "scores_both": "The attention scores on both: 512 × 512 is the quadratic part",
        "reverse": "FFNs on the H100, norms, activations and adds on the Jetson: its launches cost 4× more",
    },
    answer="split",
    asks="regime",
    misconceptions={
        "ffn_both": (
            "time follows FLOPs",
            "The layers that do the most arithmetic take the most time",
        ),
        "scores_both": (
            "attention's quadratic term dominates",
            "The S × S scores are the expensive part of any transformer pass",
        ),
        "reverse": (
            "a slower launch means launch-bound",
            "A device whose launches cost more is the one that waits on launches",
        ),
    },
    feedback={
        "ffn_both": "On the Jetson, yes (35% of 23.5 ms, compute-bound). On the H100 each FFN matmul over 512 "
        "tokens finishes in microseconds, so the pass is launch-bound: every kernel costs its 5 µs whatever "
        "it computes, and the group with the most kernels, norms, activations and adds, takes 30% of 1.27 ms.",
        "split": "On the H100 the whole pass (1.27 ms) is launch-bound: each group's time is its kernel count "
        "× 5 µs, and norms, activations and adds launch the most kernels (30%). The Jetson computes about 66× "
        "slower but launches only 4× slower, so its matmuls outlast their launches: the FFNs take 35% of "
        "23.5 ms, compute-bound. Pick BERT-base, then each device.",
        "scores_both": "At 512 tokens the scores are a minority of the arithmetic (S = 512 against d_ff = 3,072): "
        "they take 22% of the H100's pass, as launches, and 17% of the Jetson's, behind the FFNs and the "
        "projections.",
        "reverse": "A launch-bound device is one whose arithmetic is fast next to its launches. The Jetson's "
        "launches cost 4× the H100's, but its FP16 peak is 66× lower: there the matmuls, led by the FFNs "
        "(35%), outlast their launches, while the H100 waits on launches (norms and adds, 30%).",
    },
    reveals=("norms and adds on the H100",),
)
B_MODEL, B_DEVICE, B_PRECISION = MODEL, DEVICE, PRECISION
B_PHASE = Choice(
    "Phase", {"decode": "Decode (one new token)", "prefill": "Prefill (the prompt)"}, "decode"
)
CONTEXT_B = 2048

_GROUPS = (
    (
        "attention projections",
        ("q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "c_attn", "attn.c_proj", "attention."),
    ),
    ("attention scores (QKᵀ, PV)", ("sdpa",)),
    ("FFN / experts", ("mlp.", "moe", "intermediate", "output", "c_fc")),
    ("LM / MLM head", ("lm_head", "mlm.", "pooler", "nsp")),
    ("embeddings", ("embed",)),
)


def _group(name: str, kind: str) -> str:
    if kind in ("Attention",):
        return "attention scores (QKᵀ, PV)"
    for label, keys in _GROUPS:
        if kind in ("Dense", "MoE", "Embedding") and any(k in name for k in keys):
            return label
    return "norms, activations, adds"


def _grouped(p) -> list[tuple[str, float, float, str, float]]:
    """(group, flops, bytes, bound, time) summed over a profile's rows; a group's bound is the
    term (compute, memory, launches) that accounts for most of its time."""
    acc: dict[str, list[float]] = {}
    for t in p.layers:
        g = acc.setdefault(_group(t.name, t.type), [0.0] * 6)
        for i, v in enumerate((t.flops, t.bytes, t.t_compute, t.t_memory, t.t_dispatch, t.time)):
            g[i] += v
    out = []
    for k, (f, b, tc, tm, td, t) in acc.items():
        bound = "Dispatch" if td >= max(tc, tm) else "Compute" if tc >= tm else "Memory"
        out.append((k, f, b, bound, t))
    return sorted(out, key=lambda r: -r[4])


@widget_args
@_on_device
def part_b(model: str, device: str, precision: str, phase: str) -> View:
    m, dev = get_model(model), device
    ph = phase if _causal(m) else "prefill"
    ctx = _context(m, CONTEXT_B)
    p = _solve(m, device, precision, phase=ph, seq_len=ctx)
    groups = _grouped(p)
    points = [(g, f / b, f / t) for g, f, b, _, t in groups if f > 0 and b > 0 and t > 0]
    fig = roofline(
        dev,
        precision,
        EFFICIENCY,
        points=points,
        title=f"{_name(m)} {ph}, {counted(ctx, 'token')}: layer groups on the {device_label(dev)} roofline",
    )
    total = p.latency_s
    top = groups[0]
    bound = top[3]
    ridge = p.sustained_ridge_point
    op = op_word(precision)
    top_i = top[1] / top[2] if top[2] else 0.0
    rows = [
        f"| {g} | {fmt_count(f)} | {fmt_bytes(b)} | {(f / b if b else 0):,.1f} | {fmt_time(t)} | "
        f"{t / total:.0%} | {bound_phrase(bd)} |"
        for g, f, b, bd, t in groups
    ]
    table = "\n".join(
        [
            f"| layer group | matmul {op}s | bytes | {op}/B | time | share | bound |",
            "|---|---:|---:|---:|---:|---:|---|",
            *rows,
        ]
    )
    cards = [
        Card(
            "Step latency",
            fmt_time(total),
            f"{conditions(precision, False, 1, None, ph)}, {EFFICIENCY:.0%} of peak",
            fact=fact(
                "latency",
                total,
                model=_tag(model),
                device=device.key,
                precision=precision,
                batch=1,
                phase=ph,
                seq_len=ctx,
                efficiency=EFFICIENCY,
            ),
        ),
        Card("Binding group", top[0], f"{top[4] / total:.0%} of the step"),
        Card(
            "Its intensity",
            f"{top_i:,.1f} {op}/B",
            f"{LABELS['ridge_sustained']}: {ridge:,.0f} {op}/B",
        ),
        Card("Bottleneck", bound_phrase(p.bottleneck), "whole step"),
    ]
    why = {
        "Memory": "their intensity is below the ridge, so bytes, not FLOPs, set their time",
        "Compute": "their intensity is above the ridge, so the math units set their time",
        "Dispatch": "their kernels are so small that launching them costs more than running them",
    }[bound]
    slowest = sorted(p.layers, key=lambda t: -t.time)[:6]
    layer_rows = [
        f"| `{t.name}` | ×{t.count} | {t.type} | {t.intensity:,.1f} | {fmt_time(t.time)} | "
        f"{bound_phrase(t.bound)} |"
        for t in slowest
    ]
    layer_table = "\n".join(
        [
            f"| layer (all copies) | copies | type | {op}/B | time | bound |",
            "|---|---:|---|---:|---:|---|",
            *layer_rows,
        ]
    )
    summary = (
        f"{_name(m)} ({conditions(precision, False, 1, device_label(dev), ph)}): "
        f"**{top[0]}** take {top[4] / total:.0%} of the {ph} step and are "
        f"{bound_phrase(bound)}: {why}"
        + ("" if bound == "Dispatch" else f" ({top_i:,.1f} vs {ridge:,.0f} {op}/B)")
        + f".\n\n{table}\n\nThe engine counts matrix-product {op}s only (norms, activations and adds "
        f"are priced by their bytes and launches).\n\n"
        f"The six slowest layers:\n\n{layer_table}"
    )
    peek = [
        f"time(row) = max(FLOPs / (peak × {EFFICIENCY}), bytes / bandwidth) + kernels × launch",
        f"{LABELS['ridge_sustained']} = peak × efficiency / bandwidth = {ridge:,.1f} {op}/B on the {device_label(dev)} "
        f"in {precision.upper()}",
        f"{top[0]}: {fmt_count(top[1])} {op}s / {fmt_bytes(top[2])} = {top_i:,.2f} {op}/B",
    ]
    return View(
        fig,
        cards,
        summary,
        "Per-layer roofline",
        peek,
        alert=feasibility(
            p.memory_footprint_bytes, dev, f"{m.name} at {counted(ctx, 'token')}, batch 1"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Part C: prefill vs decode, latency and MFU
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Batching decode raises its MFU. On the H100 in FP16, at a 2,048-token context, compare a batch "
        "of 32 sequences of Llama-2 7B (32 key/value heads per layer) with one of Llama-3 8B (8 key/value "
        "heads shared by its 32 query heads). Whose decode MFU does batching raise more?"
    ),
    options={
        "same": "About the same: both amortize a similar weight read",
        "mha": "Llama-2 7B: its full heads do more arithmetic per byte",
        "gqa": "Llama-3 8B: a quarter of the cache per sequence",
        "neither": "Neither: a memory-bound step's MFU cannot rise",
    },
    answer="gqa",
    asks="behaviour",
    misconceptions={
        "same": (
            "batching amortizes only weights",
            "A batch shares the weight read, and nothing else a sequence reads matters",
        ),
        "mha": (
            "more heads, more math per byte",
            "Full multi-head attention does more arithmetic for each byte it reads",
        ),
        "neither": (
            "memory-bound means a fixed MFU",
            "A memory-bound step's share of peak is set by the model, whatever the batch",
        ),
    },
    feedback={
        "same": "The batch shares the weight read, but each sequence still reads its own KV cache every step. "
        "Llama-2 7B's cache is 4× larger per token, so at batch 32 its caches (34.4 GB) outweigh its 13.5 GB "
        "of weights and its MFU reaches 2.71%; Llama-3 8B's reach 5.25%.",
        "mha": "Attention over a cache does about one multiply-add per cached value it reads, with or without "
        "shared heads: more key/value heads mean more bytes for the same intensity. Llama-2 7B reaches 2.71% "
        "at batch 32, Llama-3 8B 5.25%.",
        "gqa": "At batch 1 both sit near 0.2% (0.21% and 0.23%): the weights dominate the bytes. A batch shares "
        "the weights but not the caches, and Llama-2 7B's cache is 4× larger per token (524 KB against 131 KB), "
        "so at batch 32 its bytes per token fall far less: 2.71% MFU against Llama-3 8B's 5.25%. Pick each "
        "model and read the decode curve at 32.",
        "neither": "Memory-bound still leaves room: a batch does 32 tokens of arithmetic per read of the "
        "shared weights, so MFU rises from about 0.2% at batch 1 to 2.71% (Llama-2 7B) and 5.25% (Llama-3 "
        "8B) at 32, still memory-bound.",
    },
    reveals=("a quarter of the cache", "5.25%"),
)
C_MODEL, C_DEVICE, C_PRECISION = MODEL, DEVICE, PRECISION
C_PROMPT = Slider("Prompt length (tokens)", 128, 8192, 2048, step=128)


def _pct(x: float) -> str:
    """A share of peak: two decimals below 1% (decode's 0.09% must not read as 0.1%)."""
    return f"{x:.2%}" if x < 0.01 else f"{x:.1%}"


@widget_args
@_on_device
def part_c(model: str, device: str, precision: str, prompt: int) -> View:
    import plotly.graph_objects as go

    m = get_model(model)
    s = _context(m, prompt)
    pre = _solve(m, device, precision, phase="prefill", seq_len=s)
    causal = _causal(m)
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    fig = figure(
        f"{_name(m)} on the {device_label(device)}: MFU vs batch",
        "Batch (sequences)",
        "MFU (share of peak)",
        log_x=True,
    )
    curves = {}
    if causal:
        dec = [_solve(m, device, precision, batch=b, phase="decode", seq_len=s) for b in batches]
        curves["decode (1 token/sequence)"] = dec
    pre_b = [_solve(m, device, precision, batch=b, phase="prefill", seq_len=s) for b in batches]
    curves[f"prefill ({counted(s, 'token')})"] = pre_b
    for name, runs in curves.items():  # only batches that fit: the rest never run
        fits = [(b, p) for b, p in zip(batches, runs, strict=True) if p.feasible]
        if not fits:
            continue
        fig.add_trace(
            go.Scatter(
                x=[b for b, _ in fits],
                y=[p.mfu for _, p in fits],
                name=name,
                mode="lines+markers",
            )
        )
    oom = sorted(
        {
            b
            for runs in curves.values()
            for b, p in zip(batches, runs, strict=True)
            if not p.feasible
        }
    )
    out_of_memory(fig, oom, [0.0] * len(oom))
    ctx = dict(
        model=_tag(model),
        device=device.key,
        precision=precision,
        batch=1,
        seq_len=s,
        efficiency=EFFICIENCY,
    )
    cards = [
        Card(
            "Prefill latency",
            fmt_time(pre.latency_s),
            f"{counted(s, 'token')}, batch 1",
            fact=fact("latency", pre.latency_s, phase="prefill", **ctx),
        ),
        Card(
            "Prefill MFU",
            f"{pre.mfu:.1%}",
            bound_phrase(pre.bottleneck),
            fact=fact("mfu", pre.mfu, phase="prefill", **ctx),
        ),
    ]
    where = conditions(precision, False, None, device_label(device))
    if causal:
        d1 = dec[0]
        cards += [
            Card(
                "Decode latency",
                fmt_time(d1.latency_s),
                f"one token at {s:,} of context",
                fact=fact("latency", d1.latency_s, phase="decode", **ctx),
            ),
            Card(
                "Decode MFU",
                _pct(d1.mfu),
                bound_phrase(d1.bottleneck),
                "warn",
                fact=fact("mfu", d1.mfu, phase="decode", **ctx),
            ),
        ]
        fit = [(b, p) for b, p in zip(batches, dec, strict=True) if p.feasible]
        summary = (
            f"{_name(m)} ({where}): prefill spends {fmt_time(pre.latency_s / s)} per prompt token at {pre.mfu:.0%} MFU; "
            f"decode spends {fmt_time(d1.latency_s)} per generated token at {_pct(d1.mfu)} MFU "
            f"({d1.latency_s / (pre.latency_s / s):,.0f}× more time per token). "
            + (
                f"Batching decode raises MFU to {_pct(fit[-1][1].mfu)} at {fit[-1][0]} sequences, the "
                "largest batch on this chart that fits."
                if fit and fit[-1][0] > 1
                else "Only one sequence fits this device's memory: batching cannot raise decode's MFU here."
                if fit
                else "No batch fits this device's memory: these are the times it would take if it did."
            )
        )
    else:
        summary = (
            f"{_name(m)} ({where}) has no decode phase (an encoder or a classifier: no KV cache). One pass over {counted(s, 'token')} takes "
            f"{fmt_time(pre.latency_s)} at {pre.mfu:.0%} MFU ({bound_phrase(pre.bottleneck)})."
        )
    peek = [
        f"MFU = {op_word(precision)}s / (latency × peak) = {fmt_flops(pre.flops, precision=precision)} / ({fmt_time(pre.latency_s)} × "
        f"{fmt_rate(pre.peak_flops_s, precision=precision)}) = {pre.mfu:.3f} (prefill)",
        f"prefill intensity = {pre.arithmetic_intensity.m_as('FLOP/B'):,.1f} {op_word(precision)}/B; "
        f"{LABELS['ridge_sustained']} = {pre.sustained_ridge_point:,.1f} {op_word(precision)}/B",
    ]
    if causal:
        peek.append(
            f"decode intensity = {dec[0].arithmetic_intensity.m_as('FLOP/B'):,.2f} {op_word(precision)}/B at batch 1"
        )
    return View(fig, cards, summary, "MFU", peek)


# ---------------------------------------------------------------------------------------------
# Part D: the KV cache against context length and capacity
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "Mistral 7B (v0.1) attends over a sliding window of 4,096 tokens in every layer, served "
        "with transformers' own cache. Going from an 8,192- to a 32,768-token context, its KV "
        "cache per sequence…"
    ),
    options={
        "four": "Grows about 4×: the window limits compute, not what is cached",
        "same": "Stays the same: each layer keeps only its window",
        "sixteen": "Grows about 16×: attention compares every pair of tokens",
        "slow": "Grows, but slowly: old tokens are compressed, not dropped",
    },
    answer="same",
    asks="direction",
    misconceptions={
        "four": (
            "a window limits only compute",
            "A sliding window saves arithmetic, but every token's keys and values are still kept",
        ),
        "sixteen": (
            "the cache is quadratic",
            "The KV cache grows with the square of the context, like the score matrix",
        ),
        "slow": (
            "old tokens are compressed",
            "Attention keeps a summary of tokens that fall out of its window",
        ),
    },
    feedback={
        "four": "A layer that never attends past its window has no use for older keys and values, so "
        "transformers' cache drops them: at most 4,095 tokens per layer, 536.7 MB per sequence at 8K and at "
        "32K. With full attention the 32K cache would be 4.3 GB.",
        "same": "Each layer attends to the last 4,096 tokens only, so its cache keeps at most 4,095 (the new "
        "token makes the window): 536.7 MB per sequence at 8,192 tokens and at 32,768. Full attention would "
        "keep all 32,768, 4.3 GB. Pick Mistral 7B: the KV curve flattens at the window.",
        "sixteen": "Only a prefill's score matrix is S × S; the cache stores one key and one value per token "
        "per layer, and a sliding window caps even that: 536.7 MB at 8K and at 32K.",
        "slow": "Nothing is summarized: a token that leaves every layer's window is dropped, so the cache "
        "stops growing at the window (536.7 MB per sequence at 8K and 32K).",
    },
    reveals=("keeps only its window", "flattens at the window"),
)
D_MODEL, D_DEVICE, D_PRECISION = MODEL, DEVICE, PRECISION
D_BATCH = Slider("Concurrent sequences (batch)", 1, 64, 1)


@widget_args
@_on_device
def part_d(model: str, device: str, precision: str, batch: int) -> View:
    import plotly.graph_objects as go

    m, dev, b = get_model(model), device, int(batch)
    top = m.config["context_length"]
    grid = sorted({min(top, 2**k) for k in range(7, 21)})
    weights = m.weight_bytes(precision)
    kv = [m.kv_cache_bytes(s, b, precision) for s in grid]
    fig = figure(
        f"{_name(m)}: memory vs context (batch {b}, {precision.upper()})",
        "Context (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(x=grid, y=[max(k, 1) for k in kv], name="KV cache", mode="lines+markers")
    )
    fig.add_trace(go.Scatter(x=grid, y=[weights] * len(grid), name="weights", mode="lines"))
    fig.add_trace(
        go.Scatter(x=grid, y=[weights + k for k in kv], name="weights + KV", mode="lines")
    )
    memory_lines(fig, [dev], unit="B")
    per_token = m.kv_cache_bytes(1, 1, precision)
    cap = dev.memory.capacity.m_as("B")
    room = cap - weights
    max_ctx = next(
        (s for s in reversed(grid) if weights + m.kv_cache_bytes(s, b, precision) <= cap), None
    )
    kv_top = kv[-1]
    cards = [
        Card(
            "KV per token",
            fmt_bytes(per_token),
            "all layers, one sequence",
            fact=fact(
                "kv_cache_bytes",
                per_token,
                model=_tag(model),
                precision=precision,
                batch=1,
                seq_len=1,
            ),
        ),
        Card(
            f"KV at {counted(top, 'token')}",
            fmt_bytes(kv_top),
            f"batch {b}",
            "bad" if weights + kv_top > cap else "ok",
            fact=fact(
                "kv_cache_bytes",
                kv_top,
                model=_tag(model),
                precision=precision,
                batch=b,
                seq_len=top,
            ),
        ),
        Card("Weights", fmt_bytes(weights), precision.upper()),
        Card(
            "Longest context that fits",
            f"{counted(max_ctx, 'token')}" if max_ctx else "none",
            f"longest tested length, on the {device_label(dev)}",
            "ok" if max_ctx == top else "warn" if max_ctx else "bad",
        ),
    ]
    if not _causal(m):  # an encoder keeps no cache: the KV cards would only print zeros
        cards = [c for c in cards if not c.label.startswith("KV ")]
        summary = (
            f"{_name(m)} keeps no KV cache (an encoder or a classifier), so only its weights count."
        )
    else:
        note = _window_clause(m)
        note = f"{note}, which bends the curve." if note else ""
        summary = (
            f"Each token adds {fmt_bytes(per_token)} per sequence; at {counted(top, 'token')} and batch {b} "
            f"the cache is {fmt_bytes(kv_top)} next to {fmt_bytes(weights)} of weights "
            f"({'over' if weights + kv_top > cap else 'within'} the {device_label(dev)}'s {fmt_bytes(cap)}).{note}"
        )
    c = m.config
    layers = c.get("decoder_layers") or c["n_layers"]  # an encoder-decoder: the decoder's
    pairs = 2 if "decoder_layers" in c else 1  # ... self- and cross-attention K/V per token
    kv_line = (
        (
            "KV/token = 2 × layers × kv_heads × head_dim × bytes = "
            if pairs == 1
            else "KV/token = 2 × 2 (self, cross: a source and a target token) × decoder layers × "
            "heads × head_dim × bytes = 2 × 2 × "
        )
        + f"{layers} × {c['kv_heads']} × {c['head_dim']} × "
        f"{per_token / max(1, 2 * pairs * layers * c['kv_heads'] * c['head_dim']):g} B"
        f" = {fmt_bytes(per_token)}"
        if per_token
        else "KV/token: none (an encoder keeps no cache between passes)"
    )
    peek = [
        kv_line,
        f"room for KV = capacity − weights = {fmt_bytes(cap)} − {fmt_bytes(weights)} = "
        f"{fmt_bytes(room) if room > 0 else 'none'}",
    ]
    return View(fig, cards, summary, "KV cache", peek)


# ---------------------------------------------------------------------------------------------
# Part E: the largest batch that fits at a chosen context
# ---------------------------------------------------------------------------------------------

PRED_E = Prediction(
    question=(
        "Phi-3 mini has under half of Llama-3 8B's parameters (3.8 against 8.0 billion). On the H100 in "
        "FP16, with 4,096 tokens per sequence, which model serves more sequences at once?"
    ),
    options={
        "phi_room": "Phi-3 mini: its smaller weights leave more room",
        "llama": "Llama-3 8B: each sequence keeps a smaller cache",
        "phi_cache": "Phi-3 mini: a smaller model keeps a smaller cache",
        "same": "About the same: both have 32 layers at 4,096 tokens",
    },
    answer="llama",
    asks="direction",
    misconceptions={
        "phi_room": (
            "the weights set the batch",
            "Whatever the weights leave free is what decides how many sequences fit",
        ),
        "phi_cache": (
            "the cache scales with the model",
            "A model with fewer parameters keeps fewer bytes of KV cache per token",
        ),
        "same": (
            "layers and context set the cache",
            "The KV cache depends on the depth and the context, not on the heads",
        ),
    },
    feedback={
        "phi_room": "Its 7.6 GB of weights do leave 8.4 GB more room than Llama-3 8B's 16.1 GB, but each "
        "Phi-3 mini sequence keeps 804.5 MB of cache against Llama-3's 536.9 MB, so 89 fit against 118.",
        "llama": "Phi-3 mini keeps a key and a value for each of its 32 heads (head_dim 96) per layer, Llama-3 "
        "8B for 8 shared heads (head_dim 128): 393 KB against 131 KB per token. Even with Phi-3's "
        "2,047-token window halving its cache, a sequence needs 804.5 MB against 536.9 MB, and the room its "
        "smaller weights leave does not make up for it: 89 sequences against 118.",
        "phi_cache": "The cache is set by layers × key/value heads × head_dim, not by the parameter count: "
        "Phi-3 mini has 32 full heads per layer, Llama-3 8B shares 8, so Phi-3 keeps 3× more per token "
        "(393 KB against 131 KB) and fits 89 sequences against 118.",
        "same": "Depth and context are the same, but the heads are not: 32 key/value heads of 96 against 8 of "
        "128, 3× the bytes per token. Phi-3 fits 89 sequences, Llama-3 8B 118.",
    },
    reveals=("89 sequences against 118", "118"),
)
E_MODEL, E_DEVICE, E_PRECISION = MODEL, DEVICE, PRECISION
E_CONTEXT = Slider("Context per sequence (tokens)", 256, 32768, 4096, step=256)
MAX_BATCH = 1 << 20


def largest_batch(m: M.Model, device: str, precision: str, seq_len: int) -> int:
    """The largest batch whose footprint (weights + KV cache + activations) fits the device at
    ``seq_len`` (``engine.max_batch``), at most ``MAX_BATCH``; 0 when not even one sequence fits."""
    return min(E.max_batch(m, device, precision, phase=_phase(m), seq_len=seq_len), MAX_BATCH)


def _window_clause(m: M.Model) -> str:
    """' Its N sliding-window layers keep at most W - 1 tokens each' (transformers' cache), or ''."""
    window, layers = m.config.get("sliding_window"), m.config.get("sliding_layers")
    if not (window and layers):
        return ""
    return f" Its {layers} sliding-window layers keep at most {window - 1:,} tokens each"


def _window_note(m: M.Model, s: int) -> str:
    """A sentence when ``s`` tokens pass the model's sliding window (its cache stops growing)."""
    clause, window = _window_clause(m), m.config.get("sliding_window")
    if not clause or s < window:
        return ""
    return f"{clause}, so past {counted(window, 'token')} a longer context adds nothing to them."


@widget_args
@_on_device
def part_e(model: str, device: str, precision: str, context: int) -> View:
    import plotly.graph_objects as go

    m, dev = get_model(model), device
    s = _context(m, context)
    best = largest_batch(m, device, precision, s)
    cap = dev.memory.capacity.m_as("B")
    top_b = max(2 * best, 8)
    bs = sorted({1, *[max(1, round(top_b * k / 16)) for k in range(1, 17)], max(best, 1)})
    profs = [_solve(m, device, precision, batch=b, seq_len=s) for b in bs]
    fig = figure(
        f"{_name(m)}: memory vs batch at {counted(s, 'token')}", "Batch (sequences)", "Bytes (GB)"
    )
    fig.add_trace(
        go.Scatter(x=bs, y=[p.weight_bytes / 1e9 for p in profs], name="weights", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=bs,
            y=[p.memory_footprint_bytes / 1e9 for p in profs],
            name="weights + KV + activations",
            mode="lines+markers",
        )
    )
    memory_lines(fig, [dev], unit="GB")
    if best:
        at = _solve(m, device, precision, batch=best, seq_len=s)
        fig.add_trace(
            go.Scatter(
                x=[best],
                y=[at.memory_footprint_bytes / 1e9],
                mode="markers",
                name="largest batch that fits",
                marker=dict(size=13, symbol="diamond"),
            )
        )
        per_seq = m.kv_cache_bytes(s, 1, precision)
        tokens_s = best / at.latency_s if _causal(m) else best * s / at.latency_s
        cards = [
            Card(
                "Largest batch",
                f"{counted(best, 'sequence')}",
                f"at {counted(s, 'token')} each",
                "ok",
            ),
            Card(
                "KV per sequence",
                fmt_bytes(per_seq),
                f"{counted(s, 'token')}",
                fact=fact(
                    "kv_cache_bytes",
                    per_seq,
                    model=_tag(model),
                    precision=precision,
                    batch=1,
                    seq_len=s,
                ),
            )
            if _causal(m)
            else Card(
                "Per sequence",
                fmt_bytes((at.memory_footprint_bytes - at.weight_bytes) / best),
                f"activations at {counted(s, 'token')} (no KV cache)",
            ),
            Card("Footprint there", fmt_bytes(at.memory_footprint_bytes), f"of {fmt_bytes(cap)}"),
            Card(
                "Throughput there",
                f"{tokens_s:,.0f} tokens/s",
                f"{_phase(m)}, {EFFICIENCY:.0%} of peak",
            ),
        ]
        summary = (
            f"At {counted(s, 'token')} per sequence the {device_label(dev)} holds {counted(best, 'sequence')} of {_name(m)} "
            f"in {precision.upper()}: the weights take {fmt_bytes(at.weight_bytes)} once, each "
            + (
                f"sequence adds {fmt_bytes(per_seq)} of KV cache." + _window_note(m, s)
                if _causal(m)
                else f"sequence adds {fmt_bytes((at.memory_footprint_bytes - at.weight_bytes) / best)} "
                "of activations (an encoder keeps no KV cache)."
            )
        )
        alert = None
    else:
        p1 = profs[0]
        cards = [
            Card("Largest batch", "0", "not even one sequence fits", "bad"),
            Card(
                "Footprint at batch 1",
                fmt_bytes(p1.memory_footprint_bytes),
                f"of {fmt_bytes(cap)}",
                "bad",
            ),
        ]
        summary = (
            f"{_name(m)} does not fit on the {device_label(dev)} even at batch 1 and {counted(s, 'token')}: "
            "pick a bigger device, a lower precision or a shorter context."
        )
        alert = feasibility(p1.memory_footprint_bytes, dev, f"{m.name} at batch 1")
    if s < int(context):
        summary += f" (The context is capped at the model's {counted(s, 'position')}.)"
    peek = [
        "batch_max = largest B with weights + B × (KV/sequence + activations/sequence) ≤ capacity",
        f"capacity = {fmt_bytes(cap)}; weights = {fmt_bytes(m.weight_bytes(precision))}",
    ]
    return View(fig, cards, summary, "Largest batch", peek, alert=alert)

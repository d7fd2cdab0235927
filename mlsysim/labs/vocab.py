"""One name per quantity: the label every notebook uses for each named quantity a student sees.

Physics lives in the core (the function named beside each label); this table only fixes the words,
so that "ridge point" means the same thing in 6.1, 6.9 and Lab 06, and the variant that includes
an efficiency factor always carries a different name.
"""

from __future__ import annotations

from types import MappingProxyType

#: key -> (label shown to students, the one core function that computes it, its unit)
QUANTITIES = MappingProxyType(
    {
        "ridge_peak": ("ridge point (peak)", "Device.ridge_point", "FLOP/B"),
        "ridge_sustained": (
            "sustained ridge point (× efficiency)",
            "Device.sustained_ridge_point",
            "FLOP/B",
        ),
        "sustained_rate": ("sustained rate", "Device.sustained_flops", "FLOP/s"),
        "weight_reuse": ("uses per weight (MACs ÷ parameters)", "engine.weight_reuse", "uses"),
        "weight_only_intensity": (
            "weight-only intensity",
            "engine.weight_only_intensity",
            "FLOP/B",
        ),
        "intensity": (
            "arithmetic intensity (weights + activations)",
            "Profile.arithmetic_intensity",
            "FLOP/B",
        ),
        "latency": ("latency", "Profile.latency_s", "s"),
        "mfu": ("MFU (share of peak)", "Profile.mfu", ""),
        "params": ("parameters", "Model.params", ""),
        "flops": ("FLOPs per inference", "Model.flops", "FLOP"),
        "weight_bytes": ("weight memory", "Model.weight_bytes", "B"),
        "kv_cache_bytes": ("KV-cache memory", "Model.kv_cache_bytes", "B"),
        "footprint": ("memory footprint", "Profile.memory_footprint_bytes", "B"),
        "energy": ("energy per inference", "energy", "J"),
        # attention scores, one layer, all heads: one copy is the chapter's figure; a materialized
        # layer holds two (logits and probabilities) live at once (Attention.SCORE_COPIES)
        "score_bytes": ("score matrix, one copy", "Attention.score_bytes", "B"),
        "held_score_bytes": (
            "scores held live (logits + probabilities)",
            "Attention.held_score_bytes",
            "B",
        ),
    }
)

#: key -> label, for sentences and cards
LABELS = MappingProxyType({k: v[0] for k, v in QUANTITIES.items()})

#: Engine bottleneck names as they appear mid-sentence (the engine returns capitalised names).
BOUND = MappingProxyType({"Compute": "compute", "Memory": "memory", "Dispatch": "launch"})


def bound_phrase(bottleneck: str) -> str:
    """'compute-bound', 'memory-bound' or 'launch-bound' (the engine's Dispatch term: kernel
    launch overhead, the chapter's word) for a sentence."""
    if not isinstance(bottleneck, str) or bottleneck not in BOUND:
        raise ValueError(f"bottleneck={bottleneck!r}; allowed: {', '.join(BOUND)}")
    return f"{BOUND[bottleneck]}-bound"


#: The engine's memory keys (``Profile.limiting_memory``) as a sentence names them.
MEMORY_NAMES = MappingProxyType({"memory": "memory", "flash": "flash", "sram": "SRAM"})


def memory_name(key: str) -> str:
    """'memory', 'flash' or 'SRAM' for the engine's ``limiting_memory`` key."""
    if not isinstance(key, str) or key not in MEMORY_NAMES:
        raise ValueError(f"memory key={key!r}; allowed: {', '.join(MEMORY_NAMES)}")
    return MEMORY_NAMES[key]


def op_word(precision: str | None) -> str:
    """'OP' for an integer precision ("int8", "int4"), else 'FLOP': vendors quote integer
    throughput in operations (TOPS), so every count, rate and intensity at that precision says
    OP, OP/s, OP/B. One MAC is two of either. ``precision`` is None (FLOP) or one of
    ``mlsysim.units.PRECISIONS``; anything else is a ValueError naming it."""
    if precision is None:
        return "FLOP"
    from ..units import PRECISIONS  # (plain data: no pint)

    if not isinstance(precision, str) or precision not in PRECISIONS:
        from .._check import _short

        raise ValueError(
            f"precision={_short(precision, 40)} is not a known precision; allowed: None, "
            f"{', '.join(PRECISIONS)}"
        )
    return "OP" if precision.startswith("int") else "FLOP"


#: the characters with a superscript form, and those forms
_SUPERSCRIPT_FROM, _SUPERSCRIPT_TO = "0123456789-−+()nkTtLid", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻⁺⁽⁾ⁿᵏᵀᵗᴸⁱᵈ"
_SUPERSCRIPT = str.maketrans(_SUPERSCRIPT_FROM, _SUPERSCRIPT_TO)


def superscript(exponent) -> str:
    """An exponent as superscript characters ("0.9" + superscript(50) reads 0.9⁵⁰), the one way
    the labs write a power: a caret ("0.9^50") is code, not text for a student. Digits, signs,
    brackets and the letters n, k, T, t, L, i, d have superscript forms; anything else is refused."""
    if isinstance(exponent, bool) or not isinstance(exponent, int | str):
        raise ValueError(
            f"exponent must be a whole number or text such as 'k' or '(S − t)', got {exponent!r}"[
                :200
            ]
        )
    text = str(exponent)
    missing = sorted({c for c in text if c not in _SUPERSCRIPT_FROM})
    if not text or missing:
        raise ValueError(
            f"exponent={text!r}: no superscript form for {missing or 'an empty exponent'}; "
            "allowed: digits, - − + ( ) and n k T t L i d"
        )
    return text.translate(_SUPERSCRIPT)


def conditions(
    precision: str | None = None,
    fused: bool | None = None,
    batch: int | None = None,
    device: str | None = None,
    phase: str | None = None,
) -> str:
    """The conditions a measured quantity depends on, in the same words on every card and in
    every sentence of the suite (issue 32: MobileNetV2's intensity is 3.5, 7.0 or 17.5 FLOP/B by
    precision and kernel fusion; a student meets each with its conditions named):
    ``conditions("fp16", fused=True, batch=1, device="NVIDIA H100")`` ->
    "FP16, compiled (fused kernels), batch 1, NVIDIA H100". Only the given ones are named."""
    out = []
    if precision is not None:
        out.append(str(precision).upper())
    if fused is not None:
        out.append("compiled (fused kernels)" if fused else "eager (one kernel per layer)")
    if phase is not None:
        out.append(str(phase))
    if batch is not None:
        out.append(f"batch {int(batch):,}")
    if device is not None:
        out.append(str(device))
    return ", ".join(out)

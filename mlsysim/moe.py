"""Gating and mixture of experts: the chapter's shared building block that routes each token to a
few of many feed-forward experts (§6.9.3, Table 11; Jacobs et al. 1991, Shazeer et al. 2017).

A new core module rather than a row of ``layers.py`` (another branch was adding an MoE layer
there; if it lands, this module should count through it). Every expert and the router are
``layers.Dense`` layers, so parameter and MAC counts come from the one dense formula.

What the module computes, for one MoE feed-forward layer of ``n_experts`` experts, ``top_k``
routed per token:

* parameters of all experts (capacity) vs parameters a token uses (active) and its MACs;
* ``experts_touched(tokens)``: experts a step of T tokens reads under uniform routing,
  E·(1 − (1 − k/E)^T): 2 of 8 at batch 1, nearly all 8 at batch 32, so the weight bytes a
  decode step reads grow toward the full layer while FLOPs per token stay at k experts;
* expert capacity ⌈c·T·k/E⌉ (capacity factor c), tokens dropped under a skewed router, and the
  step-time stretch max-load/mean-load when experts run in parallel on separate devices;
* all-to-all bytes per token under expert parallelism over N devices: 2·k·d·b·(N − 1)/N
  (dispatch to the experts and combine back; the remote share of the k copies).
"""

from __future__ import annotations

import datetime as _dt
import math
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from . import _check
from . import layers as L
from .hardware import Device, Hardware
from .units import bytes_per_value

__all__ = ["MoELayer", "MIXTRAL_8X7B", "MIXTRAL_SOURCE", "mixtral_params", "MixtralCounts"]

#: Most experts one MoE layer may have (``hot_loads`` lists one load per expert): 2**20, as many
#: as the largest published expert counts.
MAX_EXPERTS = 2**20
#: Largest capacity factor: at ``n_experts / top_k`` an expert already takes every assignment.
MAX_CAPACITY_FACTOR = 1e6


class MoELayer(_check.ValidatedCopy, BaseModel):
    """One mixture-of-experts feed-forward layer (token-choice top-k routing)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    d_model: PositiveInt
    d_ff: PositiveInt
    n_experts: PositiveInt
    top_k: PositiveInt
    ffn: Literal["swiglu", "gelu"] = "swiglu"

    @model_validator(mode="before")
    @classmethod
    def _check_fields(cls, data):
        # sizes are integers (no bools, strings, fractions), capped as the layers' are: d_model
        # and d_ff at 2**40 (the inner Dense layers' cap), n_experts at MAX_EXPERTS
        if isinstance(data, dict) and "n_experts" in data:
            n = _check.integer("n_experts", data["n_experts"], 1, MAX_EXPERTS)
            data = {**data, "n_experts": n}
        return _check.layer_fields(cls, data)

    @model_validator(mode="after")
    def _k(self):
        if self.top_k > self.n_experts:
            raise ValueError(f"top_k={self.top_k} must be <= n_experts={self.n_experts}")
        return self

    # -- counts from the dense layer model --
    @cached_property
    def expert_layers(self) -> tuple[L.Dense, ...]:
        d, f = self.d_model, self.d_ff
        if self.ffn == "swiglu":  # gate, up, down (Llama / Mixtral, no bias)
            return (
                L.Dense(in_features=d, out_features=f, bias=False),
                L.Dense(in_features=d, out_features=f, bias=False),
                L.Dense(in_features=f, out_features=d, bias=False),
            )
        return (L.Dense(in_features=d, out_features=f), L.Dense(in_features=f, out_features=d))

    @cached_property
    def router(self) -> L.Dense:
        return L.Dense(in_features=self.d_model, out_features=self.n_experts, bias=False)

    @property
    def expert_params(self) -> int:
        return sum(x.params for x in self.expert_layers)

    @property
    def params(self) -> int:
        """All experts plus the router: the layer's capacity."""
        return self.n_experts * self.expert_params + self.router.params

    @property
    def active_params(self) -> int:
        """What one token reads: its top-k experts plus the router."""
        return self.top_k * self.expert_params + self.router.params

    def macs_per_token(self) -> int:
        return self.top_k * sum(x.macs() for x in self.expert_layers) + self.router.macs()

    def dense_equivalent_macs(self) -> int:
        """MACs per token if every expert ran on every token (a dense layer of the same capacity)."""
        return self.n_experts * sum(x.macs() for x in self.expert_layers) + self.router.macs()

    # -- batching: which experts a step reads --
    def experts_touched(self, tokens: int) -> float:
        """Expected number of distinct experts T tokens route to, under uniform top-k routing:
        each token misses a given expert with probability 1 − k/E."""
        t = _count(tokens, "tokens")
        e, k = self.n_experts, self.top_k
        return e * (1.0 - (1.0 - k / e) ** t)

    def weight_bytes_read(self, tokens: int, precision: str = "fp16") -> float:
        """Expected expert + router weight bytes one step over T tokens reads (each touched
        expert once)."""
        b = bytes_per_value(precision)
        return (self.experts_touched(tokens) * self.expert_params + self.router.params) * float(b)

    def weight_read_s(self, tokens: int, device: Device | str, precision: str = "fp16") -> float:
        """The iron law's data term for those weights: bytes / the device's memory bandwidth."""
        if isinstance(device, str) and device not in Hardware.names():
            raise ValueError(
                f"device={_check._short(device, 200)} is not a known device; allowed: "
                f"{', '.join(Hardware.names())}"
            )
        _check.instance("device", device, (Device, str), "a Device or a device key")
        dev = _check.device_figures("device", Hardware.get(device))
        return self.weight_bytes_read(tokens, precision) / dev.memory.bandwidth.m_as("B/s")

    # -- capacity factor and load imbalance --
    def capacity(self, tokens: int, capacity_factor: float) -> int:
        """Expert capacity (slots per expert per step): ⌈c · T · k / E⌉ (Switch/GShard convention)."""
        t = _count(tokens, "tokens")
        c = _factor(capacity_factor)
        return math.ceil(c * t * self.top_k / self.n_experts)

    def hot_loads(self, tokens: int, hot_share: float) -> list[float]:
        """Assignments per expert when the hottest expert receives ``hot_share`` of the T·k
        assignments and the others split the rest evenly."""
        t = _count(tokens, "tokens")
        e = self.n_experts
        h = _share(hot_share, e)
        total = t * self.top_k
        rest = (1.0 - h) / (e - 1) if e > 1 else 0.0
        return [h * total] + [rest * total] * (e - 1)

    def dropped(self, tokens: int, capacity_factor: float, hot_share: float) -> float:
        """Assignments over capacity (dropped, or sent down the residual path), summed over experts."""
        cap = self.capacity(tokens, capacity_factor)
        return sum(max(0.0, x - cap) for x in self.hot_loads(tokens, hot_share))

    def step_stretch(self, tokens: int, capacity_factor: float, hot_share: float) -> float:
        """Time of a step with experts in parallel (one per device) over the balanced step's time:
        the busiest expert's processed assignments over the mean load. Capacity caps the stretch."""
        cap = self.capacity(tokens, capacity_factor)
        loads = self.hot_loads(tokens, hot_share)
        mean = sum(loads) / len(loads)
        return min(max(loads), cap) / mean

    # -- expert parallelism: all-to-all --
    def all_to_all_bytes_per_token(self, devices: int, precision: str = "fp16") -> float:
        """Dispatch + combine bytes per token with the experts spread over ``devices`` devices
        (1 to n_experts: each holds at least one whole expert): each of the k copies of the
        d-vector leaves its device with probability (N − 1)/N, and comes back."""
        n = _check._as_int(devices)
        if n is None or not 1 <= n <= self.n_experts:
            raise ValueError(
                f"devices must be in [1, n_experts] = [1, {self.n_experts}] (an integer: each "
                f"device holds at least one whole expert), got {_check._short(devices, 200)}"
            )
        return self.all_to_all_limit(precision) * (n - 1) / n

    def all_to_all_limit(self, precision: str = "fp16") -> float:
        """2·k·d·b: the bytes per token ``all_to_all_bytes_per_token`` approaches from below as the
        devices grow (every copy remote, out and back)."""
        return 2.0 * self.top_k * self.d_model * float(bytes_per_value(precision))


def _count(v, name: str) -> int:
    """A token count: an integer in [1, 2**40] (no bool, string, fraction or 10**400)."""
    return _check.integer(name, v, 1, _check.MAX_SIZE)


def _factor(c) -> float:
    return _check.real("capacity_factor", c, 0.0, MAX_CAPACITY_FACTOR, lo_open=True)


def _share(h, e: int) -> float:
    f = float(h) if _check.is_finite(h) else math.nan
    if not (1.0 / e - 1e-12 <= f <= 1.0):
        raise ValueError(
            f"hot_share must be a number in [1/n_experts, 1] = [{1 / e:.4g}, 1], got "
            f"{_check._short(h, 200)}"
        )
    return f


# --------------------------------------------------------------------------------------------
# Mixtral 8x7B (the chapter's MoE citation: Jiang et al. 2024)
# --------------------------------------------------------------------------------------------

MIXTRAL_SOURCE = {
    "document": "Jiang et al., Mixtral of Experts, arXiv:2401.04088 (Table 1: dim 4096, 32 layers, "
    "head_dim 128, hidden_dim 14336, 32 heads, 8 kv heads, vocab 32000, 8 experts, top-2); "
    "Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B used per token",
    "url": "https://arxiv.org/abs/2401.04088",
    "date": _dt.date(2024, 1, 8),
}

#: One Mixtral 8x7B MoE layer.
MIXTRAL_8X7B = MoELayer(d_model=4096, d_ff=14336, n_experts=8, top_k=2, ffn="swiglu")


class MixtralCounts(BaseModel):
    model_config = ConfigDict(frozen=True)
    total: int = Field(gt=0)
    active: int = Field(gt=0)


def mixtral_params(n_experts: int = 8, top_k: int = 2) -> MixtralCounts:
    """Whole-model total and per-token active parameters of Mixtral 8x7B (or the same model with
    another expert count / top-k): 32 layers of (GQA attention 4096 → 32 heads / 8 kv heads, two
    RMSNorms, one MoE layer), untied 32,000-row embedding and LM head, final RMSNorm."""
    n_experts = _check.integer("n_experts", n_experts, 1, _check.MAX_LAYERS)
    top_k = _check.integer("top_k", top_k, 1, n_experts)
    moe = MoELayer(**{**MIXTRAL_8X7B.model_dump(), "n_experts": n_experts, "top_k": top_k})
    d, n_layers, vocab = 4096, 32, 32000
    attn = L.MultiHeadAttention(d_model=d, n_heads=32, kv_heads=8, seq_len=1, bias=False)
    norms = 2 * L.RMSNorm(normalized_shape=d, elements=d).params
    shared = (
        n_layers * (attn.params + norms)
        + 2 * vocab * d
        + L.RMSNorm(normalized_shape=d, elements=d).params
    )
    return MixtralCounts(
        total=shared + n_layers * moe.params, active=shared + n_layers * moe.active_params
    )

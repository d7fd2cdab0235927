"""Energy per operation and per memory access (Horowitz, 45 nm, 0.9 V).

Source: M. Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014,
https://doi.org/10.1109/ISSCC.2014.6757323 (table of energy per operation). The chapter uses
FP32 multiply + add = 4.6 pJ and a 32-bit DRAM read = 640 pJ, so moving a weight from DRAM
costs ~139x the MAC that uses it. The 640 pJ is not in Horowitz's table (which gives DRAM as
1.3-2.6 nJ per 64 bits): it is the figure of S. Han et al., "Learning both weights and
connections for efficient neural networks", NeurIPS 2015, Table 1 (45 nm, citing Horowitz).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _check, units
from .units import bytes_per_value

if TYPE_CHECKING:
    from .units import Quantity

__all__ = [
    "OP_ENERGY_PJ",
    "ACCESS_ENERGY_PJ_PER_BYTE",
    "mac_energy",
    "access_energy",
    "move_vs_compute",
    "duty_cycle",
    "average_power",
]

#: picojoules per operation
OP_ENERGY_PJ: dict[str, float] = {
    "int8_add": 0.03,
    "int8_mult": 0.2,
    "int32_add": 0.1,
    "int32_mult": 3.1,
    "fp16_add": 0.4,
    "fp16_mult": 1.1,
    "fp32_add": 0.9,
    "fp32_mult": 3.7,
}

#: picojoules per byte read (Horowitz: 8 KB SRAM 10 pJ / 64 bit, 32 KB 20 pJ / 64 bit,
#: 1 MB 100 pJ / 64 bit, DRAM 1.3-2.6 nJ / 64 bit; the chapter's 640 pJ per 32-bit DRAM word)
ACCESS_ENERGY_PJ_PER_BYTE: dict[str, float] = {
    "sram_8kb": 10 / 8,
    "sram_32kb": 20 / 8,
    "sram_1mb": 100 / 8,
    "dram": 640 / 4,
}

_MAC_PRECISIONS = {
    "fp32": ("fp32_mult", "fp32_add"),
    "fp16": ("fp16_mult", "fp16_add"),
    "int8": ("int8_mult", "int32_add"),
}


def mac_energy(precision: str = "fp32") -> Quantity:
    """One multiply-accumulate (int8 accumulates in int32)."""
    if not isinstance(precision, str) or precision not in _MAC_PRECISIONS:
        raise ValueError(
            f"precision={precision!r} has no energy figure; allowed: {', '.join(_MAC_PRECISIONS)}"
        )
    mult, add = _MAC_PRECISIONS[precision]
    return units.Q_(OP_ENERGY_PJ[mult] + OP_ENERGY_PJ[add], "pJ")


def access_energy(n_bytes: float, level: str = "dram") -> Quantity:
    if not isinstance(level, str) or level not in ACCESS_ENERGY_PJ_PER_BYTE:
        raise ValueError(
            f"level={level!r} is unknown; allowed: {', '.join(ACCESS_ENERGY_PJ_PER_BYTE)}"
        )
    if n_bytes < 0:
        raise ValueError(f"n_bytes must be >= 0, got {n_bytes}")
    # + 0.0: a caller's -0.0 bytes is 0 pJ, not "-0.0 pJ"
    return units.Q_(n_bytes * ACCESS_ENERGY_PJ_PER_BYTE[level] + 0.0, "pJ")


def move_vs_compute(precision: str = "fp32", level: str = "dram", reuse: int = 1) -> float:
    """Energy to fetch one weight from ``level`` over the MAC that uses it, divided by how many
    times the fetched weight is reused (batch size, output positions). FP32 DRAM: 640/4.6 = 139x."""
    if reuse < 1:
        raise ValueError(f"reuse must be >= 1, got {reuse}")
    fetch = access_energy(float(bytes_per_value(precision)), level)
    return float((fetch / mac_energy(precision)).m_as("")) / reuse


def duty_cycle(busy_s: float, period_s: float) -> float:
    """The share of a period a device is busy: ``busy_s / period_s``, at most 1 (a device busy
    longer than the period is busy all of it). 100 inferences of 209 ms a day: 20.9 / 86,400."""
    return min(1.0, busy_s / period_s)


def average_power(active_w: float, idle_w: float, duty: float) -> float:
    """Average power over a duty cycle, in W: ``active_w x duty + idle_w x (1 - duty)``.

    Compare this, not a rated maximum (TDP) or an active draw alone, with an average budget
    ("~2 W average" from solar and battery): a device that is busy a small share of the day
    averages close to its idle draw, whatever its rating."""
    return active_w * duty + idle_w * (1.0 - duty)


# every argument checked by name (mlsysim._check): n_bytes finite >= 0, reuse an integer >= 1
_check.check_module(
    globals(),
    __all__,
    {
        "access_energy": {"n_bytes": (0.0, 1e300)},
        "move_vs_compute": {"reuse": (1, 2**62)},
        "duty_cycle": {"busy_s": (0.0, 1e300), "period_s": (1e-300, 1e300)},
        "average_power": {
            "active_w": (0.0, 1e300),
            "idle_w": (0.0, 1e300),
            "duty": (0.0, 1.0),
        },
    },
)

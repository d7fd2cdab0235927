"""One pint registry for the whole package.

Only the units mlsysim needs are defined (no default definition file is parsed), which keeps
``import mlsysim`` fast in Pyodide. Decimal prefixes (k, M, G, T, P) and binary prefixes
(Ki, Mi, Gi, Ti) are distinct, so ``1 GB == 10**9 B`` and ``1 GiB == 2**30 B`` exactly.

Conventions:
- ``flop`` is one floating-point (or integer) operation; 1 MAC = 2 FLOPs.
- ``byte`` (symbol ``B``) is 8 bits.
- ``param`` counts model parameters; ``dollar`` is US dollars.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pint

    ureg: pint.UnitRegistry
    Q_ = pint.Quantity
    Quantity = pint.Quantity

__all__ = ["ureg", "Q_", "Quantity", "BYTES_PER_VALUE", "bytes_per_value", "PRECISIONS"]

_DEFINITIONS = """
# decimal prefixes
pico- = 1e-12 = p-
nano- = 1e-9 = n-
micro- = 1e-6 = u- = µ-
milli- = 1e-3 = m-
kilo- = 1e3 = k-
mega- = 1e6 = M-
giga- = 1e9 = G-
tera- = 1e12 = T-
peta- = 1e15 = P-
exa- = 1e18 = E-
# binary prefixes
kibi- = 2**10 = Ki-
mebi- = 2**20 = Mi-
gibi- = 2**30 = Gi-
tebi- = 2**40 = Ti-

second = [time] = s = sec
minute = 60 * second = min
hour = 60 * minute = h
day = 24 * hour
byte = [information] = B = bytes
bit = byte / 8 = b = bits
flop = [computation] = FLOP = FLOPs = flops
op = flop = OP = OPs = ops
mac = 2 * flop = MAC = MACs
param = [parameter] = params
joule = [energy] = J
watt = joule / second = W
dollar = [currency] = USD
hertz = 1 / second = Hz
"""


def _build_registry() -> pint.UnitRegistry:
    import pint

    reg = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=False, cache_folder=None)
    for line in _DEFINITIONS.strip().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            reg.define(line)
    reg.formatter.default_format = "~P"
    return reg


def __getattr__(name: str):
    """``ureg``, ``Q_`` and ``Quantity`` are made on first use (PEP 562): the precision table
    below needs no pint, and a browser page's first run imports none."""
    if name not in ("ureg", "Q_", "Quantity"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _BUILDING:  # one registry even if two threads ask at once
        if "ureg" not in globals():
            import pint

            reg = _build_registry()
            pint.set_application_registry(reg)
            globals().update(ureg=reg, Q_=reg.Quantity, Quantity=reg.Quantity)
    return globals()[name]


_BUILDING = threading.Lock()

#: Bytes per stored value, per precision name. tf32 is stored in 32-bit words.
BYTES_PER_VALUE: dict[str, Fraction] = {
    "fp64": Fraction(8),
    "fp32": Fraction(4),
    "tf32": Fraction(4),
    "fp16": Fraction(2),
    "bf16": Fraction(2),
    "fp8": Fraction(1),
    "int8": Fraction(1),
    "int4": Fraction(1, 2),
}
PRECISIONS: tuple[str, ...] = tuple(BYTES_PER_VALUE)


def bytes_per_value(precision: str) -> Fraction:
    """Bytes per value for ``precision``; a clear error names the allowed values."""
    try:
        return BYTES_PER_VALUE[precision]
    except (KeyError, TypeError):
        raise ValueError(
            f"precision={precision!r} is not a known precision; allowed: {', '.join(PRECISIONS)}"
        ) from None

"""Which devices the hardware registry holds: each key's tier and human name, in the registry's
order, as plain data.

``mlsysim.hardware`` builds every ``Device`` from its entry here (its ``key``, ``tier`` and
``name``); the specs themselves (pint quantities, validated by pydantic, with provenance) live
there. This table needs neither, so a notebook can list the devices in a dropdown before the
cost models load (a browser page's first run imports neither pint nor pydantic).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Entry", "CATALOGUE", "RUNTIME_RESERVE_BYTES", "identity", "label", "labels"]


class Entry(NamedTuple):
    tier: str  # Cloud, Edge, Mobile, Tiny
    name: str


CATALOGUE: dict[str, Entry] = {
    "H100": Entry("Cloud", "NVIDIA H100 SXM5 80GB"),
    "A100": Entry("Cloud", "NVIDIA A100 SXM 80GB"),
    "A100_40GB": Entry("Cloud", "NVIDIA A100 SXM 40GB"),
    "JetsonOrinNX": Entry("Edge", "NVIDIA Jetson Orin NX 16GB"),
    "CortexA53Camera": Entry("Edge", "Camera-trap SoC (Arm Cortex-A53 @ 1.2 GHz, NEON)"),
    "iPhone15Pro": Entry("Mobile", "Apple iPhone 15 Pro (A17 Pro)"),
    "ArduinoNano33BLESense": Entry(
        "Tiny", "Arduino Nano 33 BLE Sense (nRF52840, Cortex-M4F @ 64 MHz)"
    ),
    "STM32H743": Entry("Tiny", "STMicroelectronics STM32H743 (Cortex-M7 @ 480 MHz)"),
}

#: The labs' planning reserve for the OS, the runtime and its workspace on a serving device:
#: 1 GB (10^9 B), an assumption, not a datasheet figure (``engine.max_batch`` takes it; 6.10 D's
#: slider starts there and 6.7 D's feedback uses it). Here, beside the device list, so a
#: notebook's widgets can read it before the cost models load.
RUNTIME_RESERVE_BYTES = 1e9


def _entry(key: str) -> Entry:
    entry = CATALOGUE.get(key) if isinstance(key, str) else None
    if entry is None:
        raise ValueError(
            f"key={key!r} is not a device of the registry; allowed: {', '.join(CATALOGUE)}"
        )
    return entry


def identity(key: str) -> dict[str, str]:
    """``key``, ``tier`` and ``name`` of a registry device, as ``Device`` fields."""
    entry = _entry(key)
    return {"key": key, "tier": entry.tier, "name": entry.name}


def short(name: str) -> str:
    """A device's human name without its parenthetical detail: "Apple iPhone 15 Pro".

    What ``re.sub(r"\\s*\\(.*\\)\\s*$", "", name).strip() or name`` gives, in one pass (that
    regular expression takes quadratic time on a long run of spaces or parentheses): a name
    ending in ")" loses everything from the first "(" on that line, with the spaces before it."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a device's name (text), got {type(name).__name__}")
    end = len(name.rstrip())
    if end and name[end - 1] == ")":
        first = name.find("(", name.rfind("\n", 0, end - 1) + 1, end - 1)
        if first != -1:
            return name[:first].strip() or name
    return name.strip() or name


def label(key: str) -> str:
    """The one name a registry device goes by in every notebook: its dropdown entry, its chart
    lines and its cards ("NVIDIA A100 SXM 40GB", "Apple iPhone 15 Pro")."""
    return short(_entry(key).name)


def labels(keys) -> dict[str, str]:
    """``{key: label(key)}`` for a list of registry keys, in its order: a device dropdown's
    options."""
    if not isinstance(keys, list | tuple) or not keys:
        raise ValueError(
            f"keys must be a non-empty list of registry keys, got {str(keys)[:60]!r}; "
            f"allowed keys: {', '.join(CATALOGUE)}"
        )
    return {key: label(key) for key in keys}

"""Which devices the hardware registry holds: each key's tier and human name, in the registry's
order, as plain data.

``mlsysim.hardware`` builds every ``Device`` from its entry here (its ``key``, ``tier`` and
``name``); the specs themselves (pint quantities, validated by pydantic, with provenance) live
there. This table needs neither, so a notebook can list the devices in a dropdown before the
cost models load (a browser page's first run imports neither pint nor pydantic).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "Entry",
    "TIERS",
    "CATALOGUE",
    "CHAPTER_DEVICES",
    "grouped",
    "RUNTIME_RESERVE_BYTES",
    "identity",
    "label",
    "labels",
]


class Entry(NamedTuple):
    tier: str  # Cloud, Desktop, Edge, Mobile, Tiny
    name: str


#: The device classes a student picks from, in order: registry tier -> the class's name on a page.
TIERS: dict[str, str] = {
    "Cloud": "Datacenter",
    "Desktop": "Desk & laptop",
    "Edge": "Edge",
    "Mobile": "Phone",
    "Tiny": "Tiny",
}


CATALOGUE: dict[str, Entry] = {
    "H100": Entry("Cloud", "NVIDIA H100 SXM5 80GB"),
    "A100": Entry("Cloud", "NVIDIA A100 SXM 80GB"),
    "A100_40GB": Entry("Cloud", "NVIDIA A100 SXM 40GB"),
    "H200": Entry("Cloud", "NVIDIA H200 SXM 141GB"),
    "B200": Entry("Cloud", "NVIDIA B200 (HGX) 180GB"),
    "H100_PCIe": Entry("Cloud", "NVIDIA H100 PCIe 80GB"),
    "A100_PCIe": Entry("Cloud", "NVIDIA A100 PCIe 80GB"),
    "V100": Entry("Cloud", "NVIDIA V100 SXM2 32GB"),
    "T4": Entry("Cloud", "NVIDIA T4 16GB"),
    "A10": Entry("Cloud", "NVIDIA A10 24GB"),
    "L4": Entry("Cloud", "NVIDIA L4 24GB"),
    "L40": Entry("Cloud", "NVIDIA L40 48GB"),
    "L40S": Entry("Cloud", "NVIDIA L40S 48GB"),
    "MI300X": Entry("Cloud", "AMD Instinct MI300X 192GB"),
    "MI325X": Entry("Cloud", "AMD Instinct MI325X 256GB"),
    "Gaudi3": Entry("Cloud", "Intel Gaudi 3 128GB (OAM)"),
    "TPUv4": Entry("Cloud", "Google Cloud TPU v4 (one chip)"),
    "RTX5090": Entry("Desktop", "NVIDIA GeForce RTX 5090 32GB"),
    "RTX4090": Entry("Desktop", "NVIDIA GeForce RTX 4090 24GB"),
    "RTX4070": Entry("Desktop", "NVIDIA GeForce RTX 4070 12GB"),
    "RTX3060": Entry("Desktop", "NVIDIA GeForce RTX 3060 12GB"),
    "DGXSpark": Entry("Desktop", "NVIDIA DGX Spark 128GB (GB10)"),
    "M1Max": Entry("Desktop", "Apple M1 Max 64GB (32-core GPU)"),
    "M1Ultra": Entry("Desktop", "Apple M1 Ultra 128GB (64-core GPU)"),
    "M2Max": Entry("Desktop", "Apple M2 Max 96GB (38-core GPU)"),
    "M2Ultra": Entry("Desktop", "Apple M2 Ultra 192GB (76-core GPU)"),
    "M4": Entry("Desktop", "Apple M4 32GB (Mac mini)"),
    "JetsonOrinNX": Entry("Edge", "NVIDIA Jetson Orin NX 16GB"),
    "CortexA53Camera": Entry("Edge", "Camera-trap SoC (Arm Cortex-A53 @ 1.2 GHz, NEON)"),
    "JetsonOrinNX8": Entry("Edge", "NVIDIA Jetson Orin NX 8GB"),
    "JetsonAGXOrin64": Entry("Edge", "NVIDIA Jetson AGX Orin 64GB"),
    "JetsonAGXOrin32": Entry("Edge", "NVIDIA Jetson AGX Orin 32GB"),
    "JetsonOrinNano8": Entry("Edge", "NVIDIA Jetson Orin Nano 8GB"),
    "JetsonOrinNanoSuper": Entry("Edge", "NVIDIA Jetson Orin Nano Super 8GB"),
    "JetsonOrinNano4": Entry("Edge", "NVIDIA Jetson Orin Nano 4GB"),
    "RaspberryPi5": Entry("Edge", "Raspberry Pi 5 8GB (Cortex-A76 @ 2.4 GHz)"),
    "CoralEdgeTPU": Entry("Edge", "Google Coral Edge TPU (Accelerator Module, PCIe)"),
    "iPhone15Pro": Entry("Mobile", "Apple iPhone 15 Pro (A17 Pro)"),
    "ArduinoNano33BLESense": Entry(
        "Tiny", "Arduino Nano 33 BLE Sense (nRF52840, Cortex-M4F @ 64 MHz)"
    ),
    "STM32H743": Entry("Tiny", "STMicroelectronics STM32H743 (Cortex-M7 @ 480 MHz)"),
}

#: The chapter's eight devices: the set a lesson that compares "every device" screens or draws
#: (6.1's device choices, 6.9's screen), so a chart stays readable as the registry grows.
CHAPTER_DEVICES: tuple[str, ...] = (
    "H100",
    "A100",
    "A100_40GB",
    "JetsonOrinNX",
    "CortexA53Camera",
    "iPhone15Pro",
    "ArduinoNano33BLESense",
    "STM32H743",
)

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


def grouped(keys=None) -> dict[str, dict[str, str]]:
    """``{class name: {key: label}}`` for registry keys (all of them by default), grouped by
    device class in ``TIERS`` order (datacenter, desk & laptop, edge, phone, tiny) and in the
    catalogue's order within a class; a class with none of ``keys`` is left out."""
    keys = list(CATALOGUE) if keys is None else list(labels(keys))
    out: dict[str, dict[str, str]] = {}
    for tier, name in TIERS.items():
        group = {k: label(k) for k in CATALOGUE if k in keys and CATALOGUE[k].tier == tier}
        if group:
            out[name] = group
    return out

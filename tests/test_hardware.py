"""The hardware registry against its datasheets.

Each registry value is checked in the unit the vendor quotes it in (magnitude *and* unit as
stored), so a silent unit change (GB -> GiB, TFLOP/s -> TOP/s) fails here. Figures are from the
documents each device's ``provenance`` names; derived peaks (cores x FLOP/clk x clock) are checked
against their derivation.
"""

from __future__ import annotations

import datetime as dt

import pytest

from mlsysim import DEVICES, Q_, Engine, Hardware, ureg
from mlsysim import layers as L
from mlsysim.units import PRECISIONS

H100 = Hardware.Cloud.H100
A100 = Hardware.Cloud.A100
ORIN = Hardware.Edge.JetsonOrinNX
IPHONE = Hardware.Mobile.iPhone15Pro
NANO = Hardware.Tiny.ArduinoNano33BLESense
STM32 = Hardware.Tiny.STM32H743

ALL = [H100, A100, ORIN, IPHONE, NANO, STM32]


def _get(dev, path: str):
    """'memory.capacity' or 'peak:fp16' / 'sparse:fp16' for the per-precision table."""
    if path.startswith(("peak:", "sparse:")):
        kind, prec = path.split(":")
        rate = dev.compute.precisions[prec]
        return rate.dense if kind == "peak" else rate.sparse
    obj = dev
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


# (device, field, datasheet value, datasheet unit, source note)
DATASHEET = [
    # NVIDIA H100 Tensor Core GPU datasheet, SXM5 column (sparse figures printed; dense = 1/2)
    (H100, "memory.capacity", 80, "GB", "80GB HBM3"),
    (H100, "memory.bandwidth", 3.35, "TB/s", "3.35TB/s"),
    (H100, "peak:fp64", 67, "TFLOP/s", "FP64 Tensor Core 67 TF"),
    (H100, "peak:fp32", 67, "TFLOP/s", "FP32 67 TF"),
    (H100, "peak:tf32", 494.5, "TFLOP/s", "TF32 989 TF (sparse)"),
    (H100, "sparse:tf32", 989, "TFLOP/s", "TF32 989 TF*"),
    (H100, "peak:fp16", 989.5, "TFLOP/s", "FP16 1,979 TF* / 2"),
    (H100, "sparse:fp16", 1979, "TFLOP/s", "FP16 1,979 TF*"),
    (H100, "peak:bf16", 989.5, "TFLOP/s", "BF16 1,979 TF* / 2"),
    (H100, "sparse:bf16", 1979, "TFLOP/s", "BF16 1,979 TF*"),
    (H100, "peak:fp8", 1979, "TFLOP/s", "FP8 3,958 TF* / 2"),
    (H100, "sparse:fp8", 3958, "TFLOP/s", "FP8 3,958 TF*"),
    (H100, "peak:int8", 1979, "TOP/s", "INT8 3,958 TOPS* / 2"),
    (H100, "sparse:int8", 3958, "TOP/s", "INT8 3,958 TOPS*"),
    (H100, "tdp", 700, "W", "Max TDP up to 700W"),
    # NVIDIA A100 datasheet, A100 80GB SXM column
    (A100, "memory.capacity", 80, "GB", "80GB HBM2e"),
    (A100, "memory.bandwidth", 2039, "GB/s", "2,039 GB/s"),
    (A100, "peak:fp64", 19.5, "TFLOP/s", "FP64 Tensor Core 19.5 TF"),
    (A100, "peak:fp32", 19.5, "TFLOP/s", "FP32 19.5 TF"),
    (A100, "peak:tf32", 156, "TFLOP/s", "TF32 156 | 312* TF"),
    (A100, "sparse:tf32", 312, "TFLOP/s", "TF32 312* TF"),
    (A100, "peak:fp16", 312, "TFLOP/s", "FP16 312 | 624* TF"),
    (A100, "sparse:fp16", 624, "TFLOP/s", "FP16 624* TF"),
    (A100, "peak:bf16", 312, "TFLOP/s", "BF16 312 | 624* TF"),
    (A100, "peak:int8", 624, "TOP/s", "INT8 624 | 1,248* TOPS"),
    (A100, "sparse:int8", 1248, "TOP/s", "INT8 1,248* TOPS"),
    (A100, "tdp", 400, "W", "Max TDP 400W"),
    # Jetson Orin NX 16GB data sheet (DS-10712-001)
    (ORIN, "memory.capacity", 16, "GB", "16GB 128-bit LPDDR5"),
    (ORIN, "memory.bandwidth", 102.4, "GB/s", "102.4 GB/s"),
    (ORIN, "peak:fp32", 1.88, "TFLOP/s", "1024 CUDA cores x 2 x 918 MHz"),
    (ORIN, "peak:fp16", 15.04, "TFLOP/s", "32 tensor cores x 512 x 918 MHz"),
    (ORIN, "sparse:fp16", 30.08, "TFLOP/s", "2x dense"),
    (ORIN, "peak:int8", 30.08, "TOP/s", "GPU-only INT8 dense"),
    (ORIN, "tdp", 25, "W", "10W - 25W"),
    # Apple newsroom (A17 Pro) + teardown figures
    (IPHONE, "memory.capacity", 8, "GB", "8 GB LPDDR5"),
    (IPHONE, "memory.bandwidth", 51.2, "GB/s", "LPDDR5-6400 x 64-bit"),
    (IPHONE, "peak:int8", 35, "TOP/s", "35 trillion operations per second"),
    (IPHONE, "peak:fp32", 2.147, "TFLOP/s", "6 cores x 128 ALUs x 2 x 1.398 GHz"),
    (IPHONE, "peak:fp16", 2.147, "TFLOP/s", "= FP32: no double-rate FP16 on Apple GPUs since A14"),
    (IPHONE, "tdp", 8, "W", "sustained SoC envelope"),
    # Nordic nRF52840 product specification / Arduino Nano 33 BLE Sense datasheet
    (NANO, "memory.capacity", 256, "KiB", "256 KB RAM (binary KB)"),
    (NANO, "memory.sram", 256, "KiB", "256 KB RAM"),
    (NANO, "memory.flash", 1, "MiB", "1 MB flash"),
    (NANO, "memory.bandwidth", 256, "MB/s", "32-bit bus x 64 MHz"),
    (NANO, "peak:fp32", 64, "MFLOP/s", "1 FLOP/cycle (VFMA.F32 takes 3, Cortex-M4 TRM) x 64 MHz"),
    (NANO, "peak:int8", 256, "MOP/s", "SMLAD 2 MACs/cycle x 64 MHz"),
    (NANO, "tdp", 0.015, "W", "~15 mW"),
    # ST DS12110 (STM32H743)
    (STM32, "memory.capacity", 1, "MiB", "1 MB RAM"),
    (STM32, "memory.sram", 1, "MiB", "1 MB RAM"),
    (STM32, "memory.flash", 2, "MiB", "2 MB flash"),
    (STM32, "memory.bandwidth", 1.92, "GB/s", "64-bit AXI x 240 MHz"),
    (STM32, "peak:fp32", 960, "MFLOP/s", "1 FMA/cycle x 480 MHz"),
    (STM32, "peak:int8", 1920, "MOP/s", "2 MACs/cycle x 480 MHz"),
    (STM32, "tdp", 0.5, "W", "~0.5 W"),
]


# The wider registry (issue 34): (key, field, datasheet value, unit, what the source prints).
# "*" marks a figure printed with sparsity; the dense rate stored is one half of it.
_WIDER = [
    ("H200", "memory.capacity", 141, "GB", "141GB HBM3e"),
    ("H200", "memory.bandwidth", 4.8, "TB/s", "4.8TB/s"),
    ("H200", "peak:fp16", 989.5, "TFLOP/s", "FP16 1,979 TF* / 2"),
    ("H200", "sparse:fp16", 1979, "TFLOP/s", "FP16 1,979 TF*"),
    ("H200", "peak:fp8", 1979, "TFLOP/s", "FP8 3,958 TF* / 2"),
    ("H200", "peak:int8", 1979, "TOP/s", "INT8 3,958 TOPS* / 2"),
    ("H200", "tdp", 700, "W", "up to 700W"),
    ("B200", "memory.capacity", 180, "GB", "1.4TB / 8 GPUs"),
    ("B200", "memory.bandwidth", 8, "TB/s", "64TB/s / 8 GPUs"),
    ("B200", "peak:fp16", 2.25, "PFLOP/s", "FP16 36 PF* / 8 / 2"),
    ("B200", "sparse:fp8", 9, "PFLOP/s", "FP8 72 PF* / 8"),
    ("B200", "peak:int8", 4.5, "POP/s", "INT8 72 POPS* / 8 / 2"),
    ("B200", "tdp", 1000, "W", "up to 1,000W per GPU"),
    ("H100_PCIe", "memory.bandwidth", 2, "TB/s", "2TB/s"),
    ("H100_PCIe", "peak:fp16", 756.5, "TFLOP/s", "FP16 1,513 TF* / 2"),
    ("H100_PCIe", "peak:fp64", 51, "TFLOP/s", "FP64 Tensor Core 51 TF"),
    ("H100_PCIe", "tdp", 350, "W", "300-350W"),
    ("A100_PCIe", "memory.bandwidth", 1935, "GB/s", "1,935 GB/s"),
    ("A100_PCIe", "peak:fp16", 312, "TFLOP/s", "FP16 312 TF"),
    ("A100_PCIe", "tdp", 300, "W", "300W"),
    ("V100", "memory.capacity", 32, "GB", "32GB HBM2"),
    ("V100", "memory.bandwidth", 900, "GB/s", "900GB/s"),
    ("V100", "peak:fp16", 125, "TFLOP/s", "Tensor 125 TF"),
    ("V100", "peak:fp32", 15.7, "TFLOP/s", "single precision 15.7 TF"),
    ("V100", "tdp", 300, "W", "300 W"),
    ("V100", "peak:fp64", 7.8, "TFLOP/s", "double precision 7.8 TF"),
    ("T4", "memory.bandwidth", 320, "GB/s", "320+ GB/s"),
    ("T4", "peak:fp16", 65, "TFLOP/s", "mixed precision 65 TF"),
    ("T4", "peak:int8", 130, "TOP/s", "INT8 130 TOPS"),
    ("T4", "peak:int4", 260, "TOP/s", "INT4 260 TOPS"),
    ("T4", "tdp", 70, "W", "70 W"),
    ("T4", "peak:fp32", 8.1, "TFLOP/s", "single precision 8.1 TF"),
    ("T4", "memory.capacity", 16, "GB", "16 GB GDDR6"),
    ("A10", "memory.bandwidth", 600, "GB/s", "600GB/s"),
    ("A10", "peak:fp16", 125, "TFLOP/s", "FP16 125 | 250* TF"),
    ("A10", "sparse:int8", 500, "TOP/s", "INT8 500* TOPS"),
    ("A10", "tdp", 150, "W", "150W"),
    ("A10", "peak:fp32", 31.2, "TFLOP/s", "FP32 31.2 TF"),
    ("A10", "peak:int8", 250, "TOP/s", "INT8 250 | 500* TOPS"),
    ("L4", "memory.capacity", 24, "GB", "24GB GDDR6"),
    ("L4", "memory.bandwidth", 300, "GB/s", "300GB/s"),
    ("L4", "peak:fp16", 121, "TFLOP/s", "FP16 242 TF* / 2"),
    ("L4", "peak:fp8", 242.5, "TFLOP/s", "FP8 485 TF* / 2"),
    ("L4", "peak:fp32", 30.3, "TFLOP/s", "FP32 30.3 TF"),
    ("L4", "tdp", 72, "W", "72W"),
    ("L4", "sparse:int8", 485, "TOP/s", "INT8 485* TOPS"),
    ("L4", "sparse:tf32", 120, "TFLOP/s", "TF32 120* TF"),
    ("L40", "peak:fp16", 181.05, "TFLOP/s", "FP16 181.05 | 362.1* TF"),
    ("L40", "sparse:bf16", 362.1, "TFLOP/s", "BF16 362.1* TF"),
    ("L40", "peak:int8", 362, "TOP/s", "INT8 362 | 724* TOPS"),
    ("L40", "memory.bandwidth", 864, "GB/s", "864GB/s"),
    ("L40", "tdp", 300, "W", "300W"),
    ("L40S", "peak:fp16", 362.05, "TFLOP/s", "FP16 362.05 | 733* TF"),
    ("L40S", "peak:fp8", 733, "TFLOP/s", "FP8 733 | 1,466* TF"),
    ("L40S", "peak:fp32", 91.6, "TFLOP/s", "FP32 91.6 TF"),
    ("L40S", "tdp", 350, "W", "350W"),
    ("L40S", "sparse:int8", 1466, "TOP/s", "INT8 733 | 1,466* TOPS"),
    ("MI300X", "memory.capacity", 192, "GB", "192GB HBM3"),
    ("MI300X", "memory.bandwidth", 5.3, "TB/s", "5.3TB/s"),
    ("MI300X", "peak:fp16", 1307.4, "TFLOP/s", "FP16 1,307.4 TF"),
    ("MI300X", "sparse:fp8", 5229.8, "TFLOP/s", "FP8 with sparsity 5,229.8 TF"),
    ("MI300X", "tdp", 750, "W", "750W"),
    ("MI300X", "peak:int8", 2614.9, "TOP/s", "INT8 2,614.9 TOPS"),
    ("MI325X", "memory.capacity", 256, "GB", "256GB HBM3E"),
    ("MI325X", "memory.bandwidth", 6, "TB/s", "6TB/s"),
    ("MI325X", "peak:fp8", 2614.9, "TFLOP/s", "FP8 2,614.9 TF"),
    ("MI325X", "tdp", 1000, "W", "1,000W"),
    ("Gaudi3", "memory.capacity", 128, "GB", "128GB HBM2e"),
    ("Gaudi3", "memory.bandwidth", 3.7, "TB/s", "3.7TB/s"),
    ("Gaudi3", "peak:bf16", 1835, "TFLOP/s", "BF16 MME 1,835 TF"),
    ("Gaudi3", "peak:fp8", 1835, "TFLOP/s", "FP8 MME 1,835 TF"),
    ("Gaudi3", "tdp", 900, "W", "900W (OAM)"),
    ("TPUv4", "memory.capacity", 32, "GiB", "32 GiB HBM2"),
    ("TPUv4", "memory.bandwidth", 1200, "GB/s", "1,200 GB/s"),
    ("TPUv4", "peak:bf16", 275, "TFLOP/s", "275 TFLOPS bf16"),
    ("TPUv4", "peak:int8", 275, "TOP/s", "275 TOPS int8"),
    ("TPUv4", "tdp", 192, "W", "192 W max"),
    ("RTX5090", "memory.capacity", 32, "GB", "32GB GDDR7"),
    ("RTX5090", "memory.bandwidth", 1792, "GB/s", "1,792 GB/s"),
    ("RTX5090", "sparse:int8", 1676, "TOP/s", "INT8 838 | 1,676* (3,352 FP4* / 2)"),
    ("RTX5090", "peak:int8", 838, "TOP/s", "INT8 838 dense (3,352 FP4* / 4)"),
    ("RTX5090", "peak:fp32", 104.8, "TFLOP/s", "104.8 shader TF"),
    ("RTX5090", "tdp", 575, "W", "575 W"),
    ("RTX4090", "memory.bandwidth", 1008, "GB/s", "1,008 GB/s"),
    ("RTX4090", "peak:fp16", 165.2, "TFLOP/s", "FP16 (FP32 acc.) 165.2 | 330.4*"),
    ("RTX4090", "peak:int8", 660.6, "TOP/s", "INT8 660.6 | 1,321.2*"),
    ("RTX4090", "peak:fp32", 82.6, "TFLOP/s", "FP32 82.6 TF"),
    ("RTX4090", "tdp", 450, "W", "450 W"),
    ("RTX4070", "memory.capacity", 12, "GB", "12GB GDDR6X"),
    ("RTX4070", "memory.bandwidth", 504, "GB/s", "192-bit x 21 Gbps"),
    ("RTX4070", "sparse:int8", 466, "TOP/s", "466 AI TOPS"),
    ("RTX4070", "peak:fp32", 29.1, "TFLOP/s", "5,888 cores x 2 x 2.475 GHz"),
    ("RTX4070", "tdp", 200, "W", "200 W"),
    ("RTX3060", "memory.bandwidth", 360, "GB/s", "192-bit x 15 Gbps"),
    ("RTX3060", "peak:fp32", 12.76, "TFLOP/s", "3,584 cores x 2 x 1.78 GHz"),
    ("RTX3060", "memory.capacity", 12, "GB", "12GB GDDR6"),
    ("RTX3060", "tdp", 170, "W", "170 W"),
    ("DGXSpark", "memory.capacity", 128, "GB", "128GB LPDDR5x"),
    ("DGXSpark", "memory.bandwidth", 273, "GB/s", "273 GB/s"),
    ("DGXSpark", "peak:fp32", 31, "TFLOP/s", "~31 TFLOPS FP32"),
    ("DGXSpark", "tdp", 240, "W", "240 W power supply"),
    ("M1Max", "memory.bandwidth", 400, "GB/s", "400GB/s"),
    ("M1Max", "peak:fp32", 10.4, "TFLOP/s", "10.4 teraflops"),
    ("M1Max", "peak:int8", 11, "TOP/s", "11 trillion operations per second"),
    ("M1Max", "tdp", 115, "W", "Mac Studio max 115 W"),
    ("M1Max", "memory.capacity", 64, "GB", "up to 64GB"),
    ("M1Ultra", "memory.bandwidth", 800, "GB/s", "800GB/s"),
    ("M1Ultra", "peak:fp32", 21, "TFLOP/s", "21 teraflops"),
    ("M1Ultra", "peak:int8", 22, "TOP/s", "22 trillion operations per second"),
    ("M1Ultra", "tdp", 215, "W", "Mac Studio max 215 W"),
    ("M2Max", "memory.capacity", 96, "GB", "up to 96GB"),
    ("M2Max", "peak:int8", 15.8, "TOP/s", "15.8 trillion operations per second"),
    ("M2Max", "tdp", 145, "W", "Mac Studio max 145 W"),
    ("M2Ultra", "memory.capacity", 192, "GB", "up to 192GB"),
    ("M2Ultra", "peak:fp32", 27.2, "TFLOP/s", "27.2 teraflops"),
    ("M2Ultra", "peak:int8", 31.6, "TOP/s", "31.6 trillion operations per second"),
    ("M2Ultra", "tdp", 295, "W", "Mac Studio max 295 W"),
    ("M4", "memory.bandwidth", 120, "GB/s", "120GB/s"),
    ("M4", "peak:int8", 38, "TOP/s", "38 trillion operations per second"),
    ("M4", "tdp", 65, "W", "Mac mini max 65 W"),
    ("JetsonOrinNX8", "peak:fp16", 12.5338, "TFLOP/s", "32 tensor cores x 512 x 765 MHz"),
    ("JetsonOrinNX8", "memory.bandwidth", 102, "GB/s", "'peak memory bandwidth of 102 GB/s'"),
    ("JetsonOrinNX8", "tdp", 20, "W", "10-20 W"),
    ("JetsonAGXOrin64", "peak:fp32", 5.3248, "TFLOP/s", "2048 cores x 2 x 1.3 GHz"),
    ("JetsonAGXOrin64", "sparse:int8", 170.3936, "TOP/s", "GPU 170 sparse TOPS"),
    ("JetsonAGXOrin64", "memory.bandwidth", 204.8, "GB/s", "204.8 GB/s"),
    ("JetsonAGXOrin64", "tdp", 60, "W", "15-60 W"),
    ("JetsonAGXOrin32", "peak:fp16", 26.923, "TFLOP/s", "56 tensor cores x 512 x 939 MHz"),
    ("JetsonAGXOrin32", "memory.bandwidth", 204.8, "GB/s", "up to 204.8 GB/s"),
    ("JetsonAGXOrin32", "tdp", 40, "W", "15-40 W"),
    ("JetsonOrinNano8", "sparse:int8", 40.96, "TOP/s", "40 TOPS (sparse)"),
    ("JetsonOrinNano8", "memory.bandwidth", 68, "GB/s", "68 GB/s"),
    ("JetsonOrinNano8", "tdp", 15, "W", "7-15 W"),
    ("JetsonOrinNanoSuper", "sparse:int8", 66.8468, "TOP/s", "67 TOPS (sparse)"),
    ("JetsonOrinNanoSuper", "memory.bandwidth", 102, "GB/s", "102 GB/s"),
    ("JetsonOrinNanoSuper", "tdp", 25, "W", "25 W"),
    ("JetsonOrinNano4", "peak:int8", 10.24, "TOP/s", "10 dense TOPS"),
    ("JetsonOrinNano4", "memory.bandwidth", 34, "GB/s", "34 GB/s"),
    ("JetsonOrinNano4", "tdp", 10, "W", "7-10 W"),
    ("RaspberryPi5", "memory.capacity", 8, "GB", "8GB LPDDR4X"),
    ("RaspberryPi5", "memory.bandwidth", 17.07, "GB/s", "32-bit x 4,267 MT/s"),
    ("RaspberryPi5", "peak:fp32", 153.6, "GFLOP/s", "4 cores x 16 FLOP x 2.4 GHz"),
    ("RaspberryPi5", "tdp", 25, "W", "5V/5A DC input = 25 W"),
    ("RaspberryPi5", "peak:int8", 614.4, "GOP/s", "4 cores x 2 pipes x 32 ops x 2.4 GHz"),
    ("CoralEdgeTPU", "peak:int8", 4, "TOP/s", "4 TOPS (int8)"),
    ("CoralEdgeTPU", "memory.capacity", 8, "MiB", "roughly 8 MB SRAM"),
    ("CoralEdgeTPU", "memory.bandwidth", 500, "MB/s", "PCIe Gen2 x1"),
    ("CoralEdgeTPU", "tdp", 2, "W", "4 TOPS using 2 watts"),
]
DATASHEET += [(Hardware.get(k), f, v, u, n) for k, f, v, u, n in _WIDER]


@pytest.mark.parametrize(
    "dev,field,value,unit,note",
    DATASHEET,
    ids=[f"{d.key}-{f}" for d, f, *_ in DATASHEET],
)
def test_datasheet_value_in_quoted_unit(dev, field, value, unit, note):
    q = _get(dev, field)
    assert q is not None, note
    assert q.units == ureg.Unit(unit), f"{field} stored in {q.units}, datasheet quotes {unit}"
    assert q.magnitude == value, note
    assert q.m_as(unit) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    "dev,tax_us",
    [(H100, 5), (A100, 5), (ORIN, 20), (IPHONE, 50), (NANO, 20), (STM32, 5)],
    ids=lambda v: getattr(v, "key", str(v)),
)
def test_dispatch_tax_and_note(dev, tax_us):
    assert dev.dispatch_tax.m_as("us") == pytest.approx(tax_us)
    assert len(dev.dispatch_note) > 20


@pytest.mark.parametrize(
    "derived,stored",
    [
        (1024 * 2 * 918e6, ORIN.compute.peak("fp32")),
        (32 * 512 * 918e6, ORIN.compute.peak("fp16")),
        (6 * 128 * 2 * 1.398e9, IPHONE.compute.peak("fp32")),
        (1 * 64e6, NANO.compute.peak("fp32")),
        (2 * 480e6, STM32.compute.peak("fp32")),
    ],
    ids=["orin-fp32", "orin-fp16", "a17-fp32", "nano-fp32", "stm32-fp32"],
)
def test_derived_peaks_match_derivation(derived, stored):
    assert stored.m_as("FLOP/s") == pytest.approx(derived, rel=2e-3)


@pytest.mark.parametrize(
    "key,gpu_sparse_tops",
    [
        # GPU-only sparse INT8 TOPS as the Jetson data sheets print them (module headline minus
        # the DLAs): AGX Orin 64GB "170 Sparse TOPS", AGX Orin 32GB "108 Sparse TOPS", Orin NX 8GB
        # 70 - 20 (one DLA), Orin Nano 8GB/4GB 40/20 (no DLA), Orin Nano Super 67
        ("JetsonAGXOrin64", 170),
        ("JetsonAGXOrin32", 108),
        ("JetsonOrinNX8", 50),
        ("JetsonOrinNano8", 40),
        ("JetsonOrinNano4", 20),
        ("JetsonOrinNanoSuper", 67),
    ],
)
def test_jetson_gpu_peaks_match_the_datasheet_gpu_tops(key, gpu_sparse_tops):
    """The Jetson GPU peaks are derived (tensor cores x 512 FLOP/clk x clock); the derivation must
    land on the GPU-only sparse INT8 TOPS each data sheet prints, to its rounding (the Orin Nano
    data sheet prints 32 x 512 x 4 x 0.625 GHz = 40.96 as "40": within 2.5%)."""
    rate = Hardware.get(key).compute.peak("int8", sparse=True).m_as("TOP/s")
    assert rate == pytest.approx(gpu_sparse_tops, rel=0.025)


@pytest.mark.parametrize(
    "derived_Bps,dev",
    [(6400e6 * 8, IPHONE), (4 * 64e6, NANO), (8 * 240e6, STM32), (128 / 8 * 6400e6, ORIN)],
    ids=["a17", "nano", "stm32", "orin"],
)
def test_derived_bandwidths(derived_Bps, dev):
    assert dev.memory.bandwidth.m_as("B/s") == pytest.approx(derived_Bps, rel=1e-12)


@pytest.mark.parametrize("dev", ALL, ids=lambda d: d.key)
def test_provenance(dev):
    p = dev.provenance
    assert len(p.document) >= 10
    assert p.url.startswith("https://")
    assert isinstance(p.date, dt.date)
    assert dt.date(2019, 1, 1) <= p.date <= dt.date.today()


@pytest.mark.parametrize("dev", ALL, ids=lambda d: d.key)
def test_peak_flops_is_dense(dev):
    quoted = dev.compute.precisions[dev.compute.quoted_precision]
    assert dev.compute.peak_flops == quoted.dense
    assert dev.compute.peak(dev.compute.quoted_precision) == quoted.dense
    if quoted.sparse is not None:
        assert dev.compute.peak_flops < quoted.sparse
        assert quoted.sparse == 2 * quoted.dense  # 2:4 structured sparsity


@pytest.mark.parametrize("dev", ALL, ids=lambda d: d.key)
def test_every_sparse_rate_is_twice_dense(dev):
    for rate in dev.compute.precisions.values():
        if rate.sparse is not None:
            assert rate.sparse.m_as("FLOP/s") == pytest.approx(2 * rate.dense.m_as("FLOP/s"))


@pytest.mark.parametrize("dev", ALL, ids=lambda d: d.key)
def test_engine_uses_dense_unless_sparse(dev):
    layer = L.Dense(in_features=64, out_features=64, tokens=64)
    for prec, rate in dev.compute.precisions.items():
        prof = Engine.solve(layer, dev, precision=prec)
        assert prof.peak_flops_s == rate.dense.m_as("FLOP/s")
        if rate.sparse is None:
            with pytest.raises(ValueError, match="sparse"):
                Engine.solve(layer, dev, precision=prec, sparse=True)
        else:
            sp = Engine.solve(layer, dev, precision=prec, sparse=True)
            assert sp.peak_flops_s == rate.sparse.m_as("FLOP/s")
            assert sp.latency_compute_s == pytest.approx(prof.latency_compute_s / 2)


def test_sweep_uses_dense_unless_sparse():
    layer = L.Dense(in_features=4096, out_features=4096, tokens=4096)
    dense = Engine.sweep(layer, H100, batch_sizes=[1, 8])
    sparse = Engine.sweep(layer, H100, batch_sizes=[1, 8], sparse=True)
    for d, s in zip(dense["compute_s"], sparse["compute_s"], strict=True):
        assert s == pytest.approx(d / 2)


UNLISTED = [(dev, p) for dev in ALL for p in PRECISIONS if p not in dev.compute.precisions]


@pytest.mark.parametrize("dev,precision", UNLISTED, ids=[f"{d.key}-{p}" for d, p in UNLISTED])
def test_unlisted_precision_names_allowed(dev, precision):
    with pytest.raises(ValueError, match="allowed") as err:
        dev.compute.peak(precision)
    msg = str(err.value)
    assert repr(precision) in msg
    for listed in dev.compute.precisions:
        assert listed in msg
    with pytest.raises(ValueError, match=f"precision={precision!r}"):
        Engine.solve(L.Dense(in_features=8, out_features=8), dev, precision=precision)


def test_the_named_unlisted_cases():
    """fp8 on the A100 and fp16 on the Arduino are not in their datasheets."""
    assert ("A100", "fp8") in {(d.key, p) for d, p in UNLISTED}
    assert ("ArduinoNano33BLESense", "fp16") in {(d.key, p) for d, p in UNLISTED}
    with pytest.raises(ValueError, match="bf16, fp16, fp32, fp64, int8, tf32"):
        A100.compute.peak("fp8")


def test_decimal_and_binary_units_are_distinct():
    assert Q_(80, "GB") != Q_(80, "GiB")
    assert Q_(80, "GB").m_as("B") == 80 * 10**9
    assert Q_(80, "GiB").m_as("B") == 80 * 2**30 == 85_899_345_920
    assert Q_(1, "KiB").m_as("B") == 1024 and Q_(1, "kB").m_as("B") == 1000
    assert Q_(1, "MiB").m_as("B") == 2**20 and Q_(1, "MB").m_as("B") == 10**6
    assert Q_(1, "TiB").m_as("B") == 2**40 and Q_(1, "TB").m_as("B") == 10**12
    assert H100.memory.capacity.m_as("B") == 80_000_000_000
    assert H100.memory.capacity < Q_(80, "GiB")
    assert NANO.memory.capacity.m_as("B") == 262_144
    assert STM32.memory.flash.m_as("B") == 2_097_152


def test_bit_and_byte():
    assert Q_(8, "bit").m_as("B") == 1
    assert Q_(1, "MAC").m_as("FLOP") == 2


def test_registry_lookup_paths_agree():
    assert [d.key for d in Hardware.all()] == list(DEVICES)
    for dev in ALL:
        assert Hardware.get(dev.key) is dev
        assert getattr(getattr(Hardware, dev.tier), dev.key) is dev
        assert DEVICES[dev.key] is dev
        assert Hardware.get(dev) is dev


def test_devices_are_frozen():
    with pytest.raises(ValueError):
        H100.tdp = Q_(1, "W")
    with pytest.raises(ValueError):
        H100.memory.capacity = Q_(1, "GB")


@pytest.mark.parametrize("dev", ALL, ids=lambda d: d.key)
def test_ridge_point_is_peak_over_bandwidth(dev):
    for prec, rate in dev.compute.precisions.items():
        expect = rate.dense.m_as("FLOP/s") / dev.memory.bandwidth.m_as("B/s")
        assert dev.ridge_point(prec).m_as("FLOP/B") == pytest.approx(expect, rel=1e-12)
        assert dev.sustained_ridge_point(prec, 0.5).m_as("FLOP/B") == pytest.approx(
            expect / 2, rel=1e-12
        )


def test_catalogue_lists_every_registry_device_in_order():
    """``mlsysim.catalogue`` (plain data a notebook's dropdown reads before pint loads) is where
    each device's key, tier and name come from; the registry holds exactly its devices, in its
    order."""
    from mlsysim.catalogue import CATALOGUE, label

    assert [(d.key, d.tier, d.name) for d in Hardware.all()] == [
        (k, e.tier, e.name) for k, e in CATALOGUE.items()
    ]
    assert label("H100") == "NVIDIA H100 SXM5 80GB"
    assert label("iPhone15Pro") == "Apple iPhone 15 Pro"  # the parenthetical detail dropped


def test_every_device_goes_by_one_name_in_every_notebook():
    """A device's dropdown entry is the name its chart lines and cards use (the registry's human
    name without its parenthetical detail): the lessons had offered the A100 as "A100 80 GB",
    "A100 80GB", "A100 (80 GB)", "Cloud: A100" and "A100 80 GB (2,039 GB/s)", with bandwidths
    typed by hand beside the registry's."""
    import importlib
    import pkgutil

    import mlsysim.labs.parts as parts
    from mlsysim.catalogue import CATALOGUE, label
    from mlsysim.labs.charts import device_label
    from mlsysim.labs.components import Choice

    for key in CATALOGUE:
        assert label(key) == device_label(Hardware.get(key))
    seen = 0
    for info in pkgutil.iter_modules(parts.__path__):
        mod = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for name, spec in vars(mod).items():
            if isinstance(spec, Choice) and any(k in CATALOGUE for k in spec.options):
                seen += 1
                # byom's picker ends with "your own device", which is not a registry device
                own = {getattr(mod, "CUSTOM", None)}
                keys = [k for k in spec.options if k not in own]
                assert all(k in CATALOGUE for k in keys), f"{info.name}.{name}"
                assert {k: spec.options[k] for k in keys} == {k: label(k) for k in keys}, (
                    f"{info.name}.{name}"
                )
    assert seen >= 30  # every lesson's device choices were found
    # titles, legends, cards and sentences name a device the same way ("Apple iPhone 15 Pro",
    # not "Apple iPhone 15 Pro (A17 Pro)" in one chart and the short name in the next)
    import re
    from pathlib import Path

    labs_dir = Path(parts.__file__).resolve().parent.parent
    raw = [
        f"{f.name}:{i}"
        for f in sorted(labs_dir.rglob("*.py"))
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\b(dev|device|mcu|d)\.name\b|\[.device.\]\.name\b", line)
        and "catalogue.short" not in line
        and "d.key.lower() not in d.name.lower()" not in line  # charts: keys vs names
    ]
    assert raw == [], f"a device named by its full registry name: {raw}"


def test_every_published_figure_carries_its_source_and_year():
    """Provenance: every published figure the lessons quote names its paper, the table or sentence,
    a URL and the year, and the year is the one its citation prints."""
    from mlsysim import published

    found = []
    for v in (getattr(published, n) for n in published.__all__):
        items = [v] if isinstance(v, published.Published) else []
        if isinstance(v, dict):
            # a dict of pairs (RESNET_CIFAR10) or of single figures (NETFLIX_*)
            vals = [x for val in v.values() for x in (val if isinstance(val, tuple) else (val,))]
            items = [p for p in vals if isinstance(p, published.Published)]
        if isinstance(v, tuple):
            items = [p for p in v if isinstance(p, published.Published)]
        found += items
    assert len(found) >= 8
    for p in found:
        assert str(p.year) in p.source and p.url.startswith("https://"), p
    with pytest.raises(ValueError, match="year"):
        published.Published(1.0, "x", "w", "s", "l", "https://x.org", 1066)


def test_registry_holds_forty_sourced_devices_by_class():
    """Issue 34: at least 40 devices, every class represented, each with a source document, an
    https URL, a date, a power basis and a launch cost with its note; dense and sparse apart
    (a sparse rate is exactly twice the dense one wherever a vendor prints one)."""
    from mlsysim.catalogue import TIERS, grouped

    devices = Hardware.all()
    assert len(devices) >= 40
    counts = {name: len(g) for name, g in grouped().items()}
    assert list(counts) == list(TIERS.values())
    assert counts["Datacenter"] >= 15 and counts["Desk & laptop"] >= 10 and counts["Edge"] >= 8
    keys_checked = {k for k, *_ in _WIDER}
    for dev in devices:
        p = dev.provenance
        assert len(p.document) > 10 and p.url.startswith("https://") and p.date.year >= 2019
        assert dev.power_basis in ("TDP", "typical", "active", "system", "supply"), dev.key
        assert dev.dispatch_note and dev.dispatch_tax.m_as("us") > 0
        for prec, rate in dev.compute.precisions.items():
            if rate.sparse is not None:
                # 2x as printed, to the vendor's rounding (the L40S datasheet prints BF16
                # "362.05 | 733*": 1.2% off an exact 2x)
                assert rate.sparse.m_as("FLOP/s") == pytest.approx(
                    2 * rate.dense.m_as("FLOP/s"), rel=0.015
                ), (dev.key, prec)
        if dev.key not in {d.key for d in ALL} | {"A100_40GB", "CortexA53Camera"}:
            assert dev.key in keys_checked, f"{dev.key}: no datasheet figure asserted"

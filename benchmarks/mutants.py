"""Mutation benchmark: hand-written plausible bugs, each planted alone, must fail a test.

Each mutant is one small edit of the kind a developer makes (a copy-pasted stride, an
off-by-one, a forgotten argument, a wrong threshold, swapped operands) in the layers, models,
engine, hardware registry, units, ledger, component kit or a lesson part. For every mutant the
script copies the tree once to a temporary directory, applies the edit, runs the tests that
cover the mutated module (``pytest -x``, so the first failure ends the run) and restores the
file. A mutant is **killed** when a test fails, **survived** when all pass.
``tests/test_wheel.py`` is never run: its byte-for-byte wheel check fails on any edit, comments
included, so it says nothing about behaviour.

    nice python benchmarks/mutants.py                 # all mutants, report at the end
    python benchmarks/mutants.py --check              # only check that every mutant applies
    python benchmarks/mutants.py --only engine-        # mutants whose id starts with a prefix
    python benchmarks/mutants.py --jobs 2             # run two mutants at a time

The score is reported in tests/README.md. Not part of ``.ci/run``: it takes minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT  # the tree mutated and tested (``--tree``: e.g. an older checkout, to compare suites)
COPY = ("mlsysim", "tests", "labs", "scripts", "pyproject.toml")
NEVER = "tests/test_wheel.py"

# ---- which tests cover which module (most targeted first: -x stops at the first failure) ----
LAYERS = [
    "test_traffic",
    "test_labels",
    "test_structure",
    "test_ground_truth",
    "test_properties",
    "test_chapter_numbers",
    "test_bad_input",
    "test_engine",
    "test_layer_flags",
]
MODELS = [
    "test_structure",
    "test_traffic",
    "test_ground_truth",
    "test_labels",
    "test_chapter_numbers",
    "test_properties",
    "test_engine",
]
ENGINE = [
    "test_labels",
    "test_traffic",
    "test_engine",
    "test_properties",
    "test_synthesis",
    "test_answer_keys",
    "test_engine_exact",
]
HARDWARE = [
    "test_energy",
    "test_hardware",
    "test_labels",
    "test_traffic",
    "test_synthesis",
    "test_engine",
]
UNITS = ["test_properties", "test_hardware", "test_traffic", "test_bad_input", "test_engine"]
LEDGER = ["test_ledger"]
KIT = [
    "test_kit",
    "test_escaping",
    "test_no_silent_failure",
    "test_synthesis",
    "test_lab06",
    "test_s06_09_choosing",
]
ENERGY = [
    "test_energy",
    "test_answer_keys",
    "test_s06_02_mlps",
    "test_s06_09_choosing",
    "test_s06_11_primitives",
    "test_chapter_numbers",
]


def part(mod: str) -> list[str]:
    return ["test_answer_keys", "test_synthesis", f"test_{mod}"]


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    why: str = ""


def M(id, file, old, new, tests, why=""):  # noqa: N802 (a table constructor)
    return Mutant(id, file, old, new, tuple(tests), why)


LY, MO, EN = "mlsysim/layers.py", "mlsysim/models.py", "mlsysim/engine.py"
HW, UN, ST, KT = (
    "mlsysim/hardware.py",
    "mlsysim/units.py",
    "mlsysim/labs/state.py",
    "mlsysim/labs/components.py",
)
P = "mlsysim/labs/parts/"

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ layers
    M(
        "layers-conv-col-stride",
        LY,
        "(w + 2 * pw - kw) // sw + 1)",
        "(w + 2 * pw - kw) // sh + 1)",
        LAYERS,
        "output width divided by the row stride (copy-paste)",
    ),
    M(
        "layers-conv-row-pad",
        LY,
        "return ((h + 2 * ph - kh) // sh + 1",
        "return ((h + 2 * pw - kh) // sh + 1",
        LAYERS,
        "row padding read from the column padding",
    ),
    M(
        "layers-conv-pad-once",
        LY,
        "return ((h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw)",
        "return ((h + ph - kh) // sh + 1, (w + pw - kw)",
        LAYERS,
        "padding counted on one side",
    ),
    M(
        "layers-conv-params-groups",
        LY,
        "w = self.out_channels * (self.in_channels // self.groups) * kh * kw",
        "w = self.out_channels * self.in_channels * kh * kw",
        LAYERS,
        "groups forgotten in params",
    ),
    M(
        "layers-conv-bias",
        LY,
        "        return w + (self.out_channels if self.bias else 0)",
        "        return w",
        LAYERS,
        "conv bias forgotten",
    ),
    M(
        "layers-conv-macs-groups",
        LY,
        "return ho * wo * self.out_channels * (self.in_channels // self.groups) * kh * kw",
        "return ho * wo * self.out_channels * self.in_channels * kh * kw",
        LAYERS,
        "groups forgotten in MACs",
    ),
    M(
        "layers-conv-input-w",
        LY,
        "        h, w = _pair(self.input_size)\n        return self.in_channels * h * w\n",
        "        h, w = _pair(self.input_size)\n        return self.in_channels * h * h\n",
        LAYERS,
        "input elements use the height twice",
    ),
    M(
        "layers-dense-bias-swap",
        LY,
        "return self.in_features * self.out_features + (self.out_features if self.bias else 0)",
        "return self.in_features * self.out_features + (self.in_features if self.bias else 0)",
        LAYERS,
        "bias sized by the input width",
    ),
    M(
        "layers-dense-tied",
        LY,
        "        if self.tied:\n            return self.out_features if self.bias else 0\n        return self.weight_elements",
        "        return self.weight_elements",
        LAYERS,
        "tied weights counted twice",
    ),
    M(
        "layers-dense-output-tokens",
        LY,
        "        return self.tokens * self.out_features\n",
        "        return self.out_features\n",
        LAYERS,
        "output of one token only",
    ),
    M(
        "layers-bn-buffers",
        LY,
        "return 4 * self.num_features",
        "return 2 * self.num_features",
        LAYERS,
        "BN running stats not read",
    ),
    M(
        "layers-binary-one-input",
        LY,
        "    @property\n    def input_elements(self) -> int:\n        return 2 * self.elements",
        "    @property\n    def input_elements(self) -> int:\n        return self.elements",
        LAYERS,
        "a binary add reads one input (fused-add skip input lost too)",
    ),
    M(
        "layers-rnn-stream-extra",
        LY,
        "return self.params + recurrent * (self.seq_len - 1)",
        "return self.params + recurrent * self.seq_len",
        LAYERS,
        "W_hh re-read one time too many",
    ),
    M(
        "layers-rnn-stream-dirs",
        LY,
        "        recurrent = (\n            (g * h * r + (r * h if self.proj_size else 0)) * self.num_layers * self.directions\n        )",
        "        recurrent = (g * h * r + (r * h if self.proj_size else 0)) * self.num_layers",
        LAYERS,
        "streamed weights forget the second direction",
    ),
    M(
        "layers-rnn-kernels",
        LY,
        "return self.num_layers * self.directions * (gemm + 2 * self.seq_len)",
        "return self.num_layers * self.directions * (gemm + self.seq_len)",
        LAYERS,
        "one kernel per step, not two",
    ),
    M(
        "layers-lstm-gates",
        LY,
        "class LSTM(_Recurrent):\n    GATES: ClassVar[int] = 4",
        "class LSTM(_Recurrent):\n    GATES: ClassVar[int] = 3",
        LAYERS,
        "LSTM with GRU's gate count",
    ),
    M(
        "layers-rnn-layer-inputs",
        LY,
        "[self.out_size * self.directions] * (self.num_layers - 1)",
        "[self.out_size] * (self.num_layers - 1)",
        LAYERS,
        "stacked bidirectional input width",
    ),
    M(
        "layers-attn-gqa-kv",
        LY,
        "        kv = self.kv * self.n_kv_heads * (self.d_head + self.d_v)\n",
        "        kv = self.kv * self.n_heads * (self.d_head + self.d_v)\n",
        LAYERS,
        "GQA reads the K/V of every query head",
    ),
    M(
        "layers-attn-scores-once",
        LY,
        "return 0 if self.flash else 4 * self.score_elements",
        "return 0 if self.flash else 2 * self.score_elements",
        LAYERS,
        "scores written and read once",
    ),
    M(
        "layers-attn-kernels",
        LY,
        "return 1 if self.flash else 3",
        "return 1",
        LAYERS,
        "materialized attention as one kernel",
    ),
    M(
        "layers-attn-decode-live",
        LY,
        "if self.kv_len is not None:  # decode",
        "if self.kv_len is None:  # decode",
        LAYERS,
        "inverted decode condition",
    ),
    M(
        "layers-mha-kproj",
        LY,
        '("k_proj", Dense(in_features=kd, out_features=kv_dim,',
        '("k_proj", Dense(in_features=kd, out_features=d,',
        LAYERS,
        "K projection not shrunk by GQA",
    ),
    M(
        "layers-emb-table-streamed",
        LY,
        "        # gathered rows + written output; the table itself is not streamed\n        return check_batch(batch) * (",
        "        # gathered rows + written output; the table itself is not streamed\n        return self.params + check_batch(batch) * (",
        LAYERS,
        "whole embedding table streamed",
    ),
    M(
        "layers-emb-pooling",
        LY,
        'return self.embedding_dim * (1 if self.pooling == "sum" else self.lookups)',
        'return self.embedding_dim * (self.lookups if self.pooling == "sum" else 1)',
        LAYERS,
        "pooling inverted",
    ),
    M(
        "layers-ln-affine",
        LY,
        "        if not self.elementwise_affine:\n            return 0\n        return self.normalized_shape * (2 if",
        "        return self.normalized_shape * (2 if",
        LAYERS,
        "LayerNorm's affine flag ignored",
    ),
    M(
        "layers-block-no-ffn-residual",
        LY,
        '                ("ffn_residual", ResidualAdd(elements=n)),\n                ("norm2"',
        '                ("norm2"',
        LAYERS + MODELS,
        "encoder block without its second residual add",
    ),
    M(
        "layers-pool-default-stride",
        LY,
        "(sh, sw) = _pair(self.stride if self.stride is not None else self.kernel_size)",
        "(sh, sw) = _pair(self.stride if self.stride is not None else 1)",
        LAYERS,
        "pool stride defaults to 1",
    ),
    M(
        "layers-dw-padding",
        LY,
        "pad = kernel_size // 2 if padding is None else padding",
        "pad = 0 if padding is None else padding",
        LAYERS + ["test_s06_03_cnns"],
        "depthwise pair loses 'same' padding",
    ),
    M(
        "layers-receptive-jump",
        LY,
        "return 1 + (k - 1) * (s**n - 1) // (s - 1)",
        "return 1 + (k - 1) * (s * n - 1) // (s - 1)",
        LAYERS + ["test_answer_keys", "test_s06_03_cnns"],
        "receptive-field jump grows by adding the stride, not multiplying",
    ),
    M(
        "layers-seq-live-sum",
        LY,
        "return max(layer.live_elements(batch) for _, layer in self._leaves)",
        "return sum(layer.live_elements(batch) for _, layer in self._leaves)",
        LAYERS + ["test_synthesis"],
        "peak live memory summed over layers",
    ),
    M(
        "layers-interaction-pairs",
        LY,
        "return self.num_vectors * (self.num_vectors - 1) // 2",
        "return self.num_vectors * (self.num_vectors + 1) // 2",
        LAYERS,
        "pairs include self-pairs",
    ),
    # ------------------------------------------------------------------ models
    M(
        "models-mnv2-residual-or",
        MO,
        "if stride == 1 and c_in == out:",
        "if stride == 1 or c_in == out:",
        MODELS,
        "residual add on the wrong MobileNetV2 blocks",
    ),
    M(
        "models-mnv2-expand-out",
        MO,
        "hidden = int(round(c_in * t))",
        "hidden = int(round(out * t))",
        MODELS,
        "expansion from the output width",
    ),
    M(
        "models-resnet-downsample",
        MO,
        "if stride != 1 or c_in != out:",
        "if stride != 1:",
        MODELS,
        "projection shortcut missing on layer1.0",
    ),
    M(
        "models-resnet-stride",
        MO,
        "stride = 2 if (i == 0 and stage > 1) else 1",
        "stride = 2 if i == 0 else 1",
        MODELS,
        "stage 1 downsampled too",
    ),
    M(
        "models-resnet-conv3-relu",
        MO,
        'net.conv_bn(f"{name}.conv3", out, 1, act=None)',
        'net.conv_bn(f"{name}.conv3", out, 1)',
        MODELS,
        "ReLU before the add",
    ),
    M(
        "models-kv-heads",
        MO,
        "return math.ceil(2 * n_layers * n_kv * d_head * bytes_per_value(precision))",
        "return math.ceil(2 * n_layers * n_heads * d_head * bytes_per_value(precision))",
        MODELS + ["test_answer_keys"],
        "KV cache sized by query heads",
    ),
    M(
        "models-gpt2-positions",
        MO,
        "        positions=max_position,",
        "        positions=max_position - 1,",
        MODELS,
        "one learned position short (off-by-one)",
    ),
    M(
        "models-llama-head",
        MO,
        'lm_head="tied" if tie_embeddings else "untied"',
        'lm_head="tied"',
        MODELS,
        "untied head treated as tied",
    ),
    M(
        "models-embed-add-count",
        MO,
        'rows.append(Row("embed.add", L.Elementwise(elements=tokens * d), n_sum))',
        'rows.append(Row("embed.add", L.Elementwise(elements=tokens * d)))',
        MODELS,
        "BERT's two embedding adds as one",
    ),
    M(
        "models-dlrm-interaction",
        MO,
        "L.FeatureInteraction(num_vectors=len(tables) + 1, dim=embedding_dim)",
        "L.FeatureInteraction(num_vectors=len(tables), dim=embedding_dim)",
        MODELS + ["test_s06_08_dlrm"],
        "dense vector left out of the interaction",
    ),
    M(
        "models-params-count",
        MO,
        "return sum(r.layer.params * r.count for r in self.rows(1 if self.is_lm else None))",
        "return sum(r.layer.params for r in self.rows(1 if self.is_lm else None))",
        MODELS,
        "row copies forgotten",
    ),
    M(
        "models-kv-batch",
        MO,
        "return batch * seq_len * per_token",
        "return seq_len * per_token",
        MODELS + ["test_answer_keys"],
        "batch forgotten in the KV cache",
    ),
    M(
        "models-decode-kvlen",
        MO,
        'kv_len = seq_len if phase == "decode" else None',
        'kv_len = seq_len - 1 if phase == "decode" else None',
        MODELS,
        "decode attends to one token fewer",
    ),
    M(
        "models-mnist-cnn-pool",
        MO,
        'Row("pool2", L.Pool2d(channels=64, input_size=14, kernel_size=2)),',
        'Row("pool2", L.Pool2d(channels=64, input_size=14, kernel_size=2, stride=1)),',
        MODELS,
        "second pool without stride",
    ),
    # ------------------------------------------------------------------ engine
    M(
        "engine-dispatch-vs-sum",
        EN,
        "if td_sum >= att_c and td_sum >= att_m and td_sum > 0:",
        "if td_sum >= att_c + att_m and td_sum > 0:",
        ENGINE,
        "dispatch compared with the sum",
    ),
    M(
        "engine-attr-swap",
        EN,
        "    fc = roof.pf[j]\n    wm, am = W - roof.pw[j], A - roof.pa[j]\n",
        "    fc = F - roof.pf[j]\n    wm, am = roof.pw[j], roof.pa[j]\n",
        ENGINE,
        "rows attributed to the wrong side of their roofline threshold (compute term given to memory-bound rows)",
    ),
    M(
        "engine-fused-skip",
        EN,
        'per_ex = lay.input_elements - lay.output_elements if tname == "ResidualAdd" else 0',
        "per_ex = 0",
        ENGINE,
        "a fused add stops reading its skip input",
    ),
    M(
        "engine-fused-kernels",
        EN,
        "            lay_k = 0\n",
        "            lay_k = lay.kernels\n",
        ENGINE,
        "fused epilogues still launch",
    ),
    M(
        "engine-efficiency",
        EN,
        "        rate = peak if sustained else peak * efficiency  # never derates a sustained rate\n        roof = ",
        "        rate = peak  # never derates a sustained rate\n        roof = ",
        ENGINE,
        "efficiency ignored",
    ),
    M(
        "engine-no-dispatch",
        EN,
        "return (att_c + att_m + td, flops / rate,",
        "return (att_c + att_m, flops / rate,",
        ENGINE,
        "launch time left out of latency",
    ),
    M(
        "engine-act-batch",
        EN,
        "activation_bytes=arr.live1 * B * b,",
        "activation_bytes=arr.live1 * b,",
        ENGINE,
        "activations not scaled by batch",
    ),
    M(
        "engine-feasible-strict",
        EN,
        "return all(v <= 0 for v in self._overflows().values())",
        "return all(v < 0 for v in self._overflows().values())",
        ENGINE,
        "an exact fit reported as OOM",
    ),
    M(
        "engine-sram-acts",
        EN,
        '"sram": self.activation_bytes + self.kv_cache_bytes - mem.sram.m_as("B"),',
        '"sram": self.kv_cache_bytes - mem.sram.m_as("B"),',
        ENGINE,
        "MCU activations not checked against SRAM",
    ),
    M(
        "engine-mfu-compute",
        EN,
        "        return self.flops / (self.latency_s * self.peak_flops_s) if self.latency_s > 0 else 0.0",
        "        return (\n            self.flops / (self.latency_compute_s * self.peak_flops_s) if self.latency_s > 0 else 0.0\n        )",
        ENGINE,
        "MFU over the compute term only",
    ),
    M(
        "engine-sweep-dispatch",
        EN,
        "lat = (att + td).tolist()",
        "lat = att.tolist()",
        ENGINE,
        "numpy sweep drops launches",
    ),
    M(
        "engine-row-bound-swap",
        EN,
        'return "Compute" if self.t_compute >= self.t_memory else "Memory"',
        'return "Memory" if self.t_compute >= self.t_memory else "Compute"',
        ENGINE,
        "row labels swapped",
    ),
    M(
        "engine-proxy-precision",
        EN,
        "wb = model.params * bytes_per_value(precision)",
        'wb = model.params * bytes_per_value("fp16")',
        ENGINE + ["test_s06_09_choosing"],
        "proxy ignores precision",
    ),
    M(
        "engine-decode-default",
        EN,
        '    elif phase is None:\n        phase = "decode"\n    return dev,',
        '    elif phase is None:\n        phase = "prefill"\n    return dev,',
        ENGINE,
        "LM default phase flipped",
    ),
    # ------------------------------------------------------------------ hardware
    M(
        "hw-h100-sparse-as-dense",
        HW,
        '"fp16": _rate(989.5, 1979),\n            "fp8": _rate(1979, 3958),\n            "int8": _rate(1979, 3958, unit="TOP/s"),\n        },\n    ),\n    dispatch_tax=(5, "us"),',
        '"fp16": _rate(1979, 1979),\n            "fp8": _rate(1979, 3958),\n            "int8": _rate(1979, 3958, unit="TOP/s"),\n        },\n    ),\n    dispatch_tax=(5, "us"),',
        HARDWARE,
        "sparse rate copied into dense",
    ),
    M(
        "hw-jetson-gib",
        HW,
        'memory=Memory(capacity=(16, "GB"), bandwidth=(102.4, "GB/s")',
        'memory=Memory(capacity=(16, "GiB"), bandwidth=(102.4, "GB/s")',
        HARDWARE,
        "GB vs GiB",
    ),
    M(
        "hw-a100-bw-copy",
        HW,
        'memory=Memory(capacity=(80, "GB"), bandwidth=(2039, "GB/s")',
        'memory=Memory(capacity=(80, "GB"), bandwidth=(1555, "GB/s")',
        HARDWARE,
        "40 GB part's bandwidth copied",
    ),
    M(
        "hw-ridge-efficiency",
        HW,
        "        rate = self.sustained_flops(precision, efficiency)\n        return Q_(rate",
        "        rate = self.sustained_flops(precision)\n        return Q_(rate",
        HARDWARE + ["test_s06_01_principles", "test_s06_02_mlps"],
        "sustained ridge ignores efficiency",
    ),
    M(
        "hw-sustained-derated",
        HW,
        "return rate if self.compute.is_sustained else rate * eff",
        "return rate * eff",
        HARDWARE + ["test_s06_09_choosing"],
        "an already-sustained rate derated again",
    ),
    M(
        "hw-sparse-flag",
        HW,
        "        if sparse:\n            if rate.sparse is None:",
        "        if not sparse:\n            if rate.sparse is None:",
        HARDWARE,
        "sparse flag inverted",
    ),
    M(
        "hw-h100-tax",
        HW,
        '    dispatch_tax=(5, "us"),\n    dispatch_note=_GPU_TAX_NOTE,\n    tdp=(700, "W"),',
        '    dispatch_tax=(5, "ms"),\n    dispatch_note=_GPU_TAX_NOTE,\n    tdp=(700, "W"),',
        HARDWARE,
        "µs typed as ms",
    ),
    # ------------------------------------------------------------------ units
    M(
        "units-bf16",
        UN,
        '    "bf16": Fraction(2),',
        '    "bf16": Fraction(4),',
        UNITS,
        "bf16 stored as 4 bytes",
    ),
    M(
        "units-int4",
        UN,
        '    "int4": Fraction(1, 2),',
        '    "int4": Fraction(1),',
        UNITS,
        "int4 as a full byte",
    ),
    M("units-gibi", UN, "gibi- = 2**30 = Gi-", "gibi- = 1e9 = Gi-", UNITS, "GiB equals GB"),
    M(
        "units-bit",
        UN,
        "bit = byte / 8 = b = bits",
        "bit = byte = b = bits",
        UNITS,
        "a bit is a byte",
    ),
    # ------------------------------------------------------------------ ledger
    M(
        "ledger-schema",
        ST,
        "        elif version != SCHEMA_VERSION:",
        "        elif version is None:",
        LEDGER,
        "future schema versions accepted",
    ),
    M(
        "ledger-no-bak",
        ST,
        "            os.replace(self.path, bak)\n",
        "            self.path.unlink()\n",
        LEDGER,
        "corrupt ledger deleted, not set aside",
    ),
    M(
        "ledger-none-answers",
        ST,
        "            if v is not None\n        }\n\n    def _make_update",
        "        }\n\n    def _make_update",
        LEDGER,
        "unanswered parts stored as 'None'",
    ),
    M(
        "ledger-foreign",
        ST,
        'if not isinstance(obj, dict) or obj.get("app") != "mlsysim":',
        "if not isinstance(obj, dict):",
        LEDGER,
        "foreign files accepted",
    ),
    M(
        "ledger-write-fail",
        ST,
        '                    return self._merge_and_write(update)\n            except OSError as e:\n                self.persistent = False\n                self._warn(\n                    f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "',
        '                    return self._merge_and_write(update)\n            except OSError as e:\n                self._warn(\n                    f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "',
        LEDGER,
        "keeps retrying an unwritable path",
    ),
    # ------------------------------------------------------------------ components
    M(
        "kit-feasibility-what",
        KT,
        "<strong>Fits.</strong> {_e(what)} needs",
        "<strong>Fits.</strong> {what} needs",
        KIT,
        "feasibility stops escaping its caption",
    ),
    M(
        "kit-feasibility-device",
        KT,
        "f\"{fmt_bytes(need - cap)} more than the {_e(catalogue.short(device.name))}'s",
        "f\"{fmt_bytes(need - cap)} more than the {catalogue.short(device.name)}'s",
        KIT,
        "OOM callout stops escaping the device name",
    ),
    M(
        "kit-card-value",
        KT,
        'f\'<div class="ms-value">{_e(c.value)}</div>',
        'f\'<div class="ms-value">{c.value}</div>',
        KIT,
        "card value unescaped",
    ),
    M(
        "kit-locked-note",
        KT,
        'f"Answer the prediction above to unlock {_e(what)}."',
        'f"Answer the prediction above to unlock {what}."',
        KIT,
        "locked note unescaped",
    ),
    M("kit-fmt-gb", KT, '(1e9, "GB")', '(2**30, "GB")', KIT, "GB formatted as GiB"),
    M(
        "kit-share",
        KT,
        'share = f"{need / cap:.1%} of"',
        'share = f"{cap / need:.1%} of"',
        KIT,
        "fit share inverted",
    ),
    M(
        "kit-error-note",
        KT,
        '    return _callout(\n        "<strong>That input is not valid.</strong> " + _e(" ".join(useful[-2:])), "danger"\n    )',
        '    return _callout("<strong>That input is not valid.</strong> " + " ".join(useful[-2:]), "danger")',
        KIT,
        "error note unescaped",
    ),
    # ------------------------------------------------------------------ lesson parts
    M(
        "lab06-pred-c",
        P + "lab06.py",
        'answer="10x",',
        'answer="2x",',
        part("lab06"),
        "wrong option marked",
    ),
    M(
        "lab06-synth-cap",
        P + "lab06.py",
        "            p.capacity_bytes,",
        "            16e9,",
        part("lab06"),
        "synthesis hard-codes the Jetson's capacity",
    ),
    M(
        "lab06-synth-tdp",
        P + "lab06.py",
        "    per_inf = p.energy_per_sample_j  #",
        "    per_inf = 25 * p.latency_s  #",
        part("lab06"),
        "energy card hard-codes one TDP",
    ),
    M(
        "69-pred-b",
        P + "s06_09_choosing.py",
        'answer="no_dlrm",',
        'answer="all",',
        part("s06_09_choosing"),
        "wrong option marked",
    ),
    M(
        "69-pred-a",
        P + "s06_09_choosing.py",
        'answer="dlrm",',
        'answer="all",',
        part("s06_09_choosing"),
        "wrong option marked",
    ),
    M(
        "69-throughput-util",
        P + "s06_09_choosing.py",
        "            sustained = dev.sustained_flops(\n                prec, float(util)\n            )  # never derates an already-sustained rate",
        "            sustained = dev.sustained_flops(prec, 1.0)  # never derates an already-sustained rate",
        part("s06_09_choosing"),
        "throughput gate ignores utilization",
    ),
    M(
        "69-power-gate",
        P + "s06_09_choosing.py",
        '"power": avg_w <= power_w,',
        '"power": 2.0 <= power_w,',
        part("s06_09_choosing"),
        "power gate hard-codes the camera budget",
    ),
    M(
        "69-training-copies",
        P + "s06_09_choosing.py",
        "TRAINING_COPIES = 4",
        "TRAINING_COPIES = 3",
        part("s06_09_choosing"),
        "Adam's second moment forgotten",
    ),
    M(
        "65-pred-d",
        P + "s06_05_rnns.py",
        'answer="attn_far",',
        'answer="attn_bit",',
        part("s06_05_rnns"),
        "wrong option marked",
    ),
    M(
        "66-pred-c",
        P + "s06_06_attention.py",
        'answer="far",',
        'answer="unlimited",',
        part("s06_06_attention"),
        "wrong option marked (the linear misconception)",
    ),
    M(
        "62-pred-b",
        P + "s06_02_mlps.py",
        '    },\n    answer="same",\n    feedback={\n        "up": "Size is not reuse.',
        '    },\n    answer="up",\n    feedback={\n        "up": "Size is not reuse.',
        part("s06_02_mlps"),
        "wrong option marked (more MACs, busier ALUs)",
    ),
    M(
        "68-pred-d",
        P + "s06_08_dlrm.py",
        'answer="grow",',
        'answer="fall",',
        part("s06_08_dlrm"),
        "wrong option marked (sharding shrinks all-to-all traffic)",
    ),
    M(
        "610-pred-d",
        P + "s06_10_fallacies.py",
        'answer="many",',
        'answer="2x",',
        part("s06_10_fallacies"),
        "wrong option marked (INT8 only doubles conversations)",
    ),
    M(
        "67-pred-c",
        P + "s06_07_transformers.py",
        '    answer="kv",\n    feedback=Deferred(_feedback_c),',
        '    answer="scores",\n    feedback=Deferred(_feedback_c),',
        part("s06_07_transformers"),
        "wrong option marked",
    ),
    # ------------------------------------------------------------------ energy, primitives
    M(
        "energy-fp32-mac",
        "mlsysim/energy.py",
        '"fp32_add": 0.9,',
        '"fp32_add": 0.0,',
        ENERGY,
        "MAC energy counts the multiply only",
    ),
    M(
        "energy-dram-word",
        "mlsysim/energy.py",
        '"dram": 640 / 4,',
        '"dram": 640 / 8,',
        ENERGY,
        "DRAM energy per 64-bit word",
    ),
    M(
        "prims-tree",
        "mlsysim/primitives.py",
        "return math.ceil(math.log2(n)) if tree else n - 1",
        "return math.floor(math.log2(n)) if tree else n - 1",
        ENERGY,
        "floor instead of ceil",
    ),
    M(
        "prims-serial",
        "mlsysim/primitives.py",
        "return math.ceil(math.log2(n)) if tree else n - 1",
        "return math.ceil(math.log2(n)) if tree else n",
        ENERGY,
        "serial chain off by one",
    ),
    # ------------------------------------------------------------------ issue 38: one per class
    # two paths to one number disagree (tests/test_differential.py)
    M(
        "r2-sweep-mfu-rate",
        EN,
        'out["mfu"] += [x / (t * peak) if t else 0.0 for x, t in zip(fl, lat, strict=True)]',
        'out["mfu"] += [x / (t * rate) if t else 0.0 for x, t in zip(fl, lat, strict=True)]',
        ["test_differential"] + ENGINE,
        "sweep's MFU over the derated rate (solve's over the peak)",
    ),
    M(
        "r2-sweep-bytes-ratio",
        EN,
        "nb, db = bpv.numerator, bpv.denominator",
        "nb, db = bpv.denominator, bpv.numerator",
        ["test_differential"] + ENGINE,
        "sweep's bytes per value inverted (solve's right)",
    ),
    # a boundary (max_batch to the byte)
    M(
        "r2-maxbatch-exact-fit",
        EN,
        "while n > 0 and n * per > room:",
        "while n > 0 and n * per >= room:",
        ["test_differential"] + ENGINE,
        "a batch that fits to the byte refused",
    ),
    M(
        "r2-maxbatch-one-fits",
        EN,
        "    if room < per:\n        return 0",
        "    if room <= per:\n        return 0",
        ["test_differential"] + ENGINE,
        "exactly one sample's room counted as none",
    ),
    # a config field read from another key (tests/test_hf_configs.py: one field at a time)
    M(
        "r2-hf-mlp-bias-key",
        "mlsysim/hf.py",
        'mlp_bias = c.bool("mlp_bias")',
        'mlp_bias = c.bool("attention_bias")',
        ["test_hf_configs", "test_ground_truth"],
        "Llama's mlp_bias read from attention_bias",
    ),
    M(
        "r2-hf-gemma-bias",
        "mlsysim/hf.py",
        'if mt in ("llama", "qwen3", "gemma", "gemma2", "gemma3_text", "qwen3_moe", "deepseek_v3"):',
        'if mt in ("llama", "qwen3", "gemma2", "gemma3_text", "qwen3_moe", "deepseek_v3"):',
        ["test_hf_configs", "test_ground_truth"],
        "Gemma's attention_bias not read",
    ),
    M(
        "r2-hf-window-layers-key",
        "mlsysim/hf.py",
        'inferred = max(0, n_layers - c.int("max_window_layers", minimum=0))',
        'inferred = max(0, n_layers - c.int("num_key_value_heads", minimum=0))',
        ["test_hf_configs", "test_ground_truth"],
        "Qwen's max_window_layers read from num_key_value_heads",
    ),
    # the same on issue 34's families
    M(
        "r3-hf-opt-final-norm",
        "mlsysim/hf.py",
        'c.bool("do_layer_norm_before") and not c.bool("_remove_final_layer_norm")',
        'c.bool("do_layer_norm_before")',
        ["test_hf_configs", "test_ground_truth"],
        "OPT's _remove_final_layer_norm not read",
    ),
    M(
        "r3-hf-falcon-ln-count",
        "mlsysim/hf.py",
        'n_ln = c.get("num_ln_in_parallel_attn")',
        "n_ln = None",
        ["test_hf_configs", "test_ground_truth"],
        "Falcon's num_ln_in_parallel_attn not read",
    ),
    M(
        "r3-hf-qwen2moe-window-layers",
        "mlsysim/hf.py",
        'below = min(n_layers, c.int("max_window_layers", minimum=0))',
        "below = n_layers",
        ["test_hf_configs", "test_ground_truth"],
        "Qwen2-MoE's max_window_layers not read",
    ),
    M(
        "r3-hf-vit-pooler-width",
        "mlsysim/hf_extra.py",
        'pool_dim = c.int("pooler_output_size") if vit and c.get("pooler_output_size") else d',
        "pool_dim = d",
        ["test_hf_configs", "test_ground_truth"],
        "ViT's pooler_output_size not read",
    ),
    M(
        "r3-hf-deepseek-shared",
        "mlsysim/hf.py",
        'shared = moe[2] * c.int("n_shared_experts", minimum=0)',
        "shared = moe[2]",
        ["test_hf_configs", "test_ground_truth"],
        "DeepSeek-V3's n_shared_experts not read (one shared expert)",
    ),
    M(
        "r3-hf-sparse-step",
        "mlsysim/hf.py",
        'step = c.int("decoder_sparse_step")',
        "step = 1",
        ["test_hf_configs", "test_ground_truth"],
        "Qwen-MoE's decoder_sparse_step not read",
    ),
    M(
        "r3-hf-opt-affine",
        "mlsysim/hf.py",
        's.norm_affine = c.bool("layer_norm_elementwise_affine")',
        "s.norm_affine = True",
        ["test_hf_configs", "test_ground_truth"],
        "OPT's layer_norm_elementwise_affine not read",
    ),
    # escaping weakened (tests/test_escaping_properties.py)
    M(
        "r2-escape-no-quote",
        KT,
        "return html.escape(clean_text(text), quote=True)",
        "return html.escape(clean_text(text), quote=False)",
        ["test_escaping_properties", "test_escaping"],
        "quotes left raw in attribute values",
    ),
    M(
        "r2-link-safe-anywhere",
        KT,
        'lambda m: "](" if _SAFE_URL.match(s, m.end()) else "]\\\\(", s)',
        'lambda m: "](" if _SAFE_URL.search(s, m.end()) else "]\\\\(", s)',
        ["test_escaping_properties", "test_escaping"],
        "a link kept when a safe URL appears anywhere after it",
    ),
    # a placement threshold (tests/test_placement_thresholds.py)
    M(
        "r2-markers-threshold",
        "mlsysim/labs/placement.py",
        'if len(t.get("x") or ()) < 20 else "lines"',
        'if len(t.get("x") or ()) <= 20 else "lines"',
        ["test_placement_thresholds", "test_placement"],
        "default markers drawn at 20 points too",
    ),
    M(
        "r2-text-alt-table",
        "mlsysim/labs/charts.py",
        "and len(xs) <= 8:",
        "and len(xs) < 8:",
        ["test_placement_thresholds", "test_labels"],
        "eight categories read as a range",
    ),
    # ledger and report semantics (tests/test_ledger_report_rules.py)
    M(
        "r2-ledger-required-stored",
        ST,
        "required=self.required or rec.required",
        "required=rec.required or self.required",
        ["test_ledger_report_rules", "test_ledger"],
        "a merge keeps the stored required list",
    ),
    M(
        "r2-report-key-unanswered",
        "mlsysim/labs/reports.py",
        "correct_option=clean_text(pred.answer)\n                if first is not None and not blind\n",
        "correct_option=clean_text(pred.answer)\n                if not blind\n",
        ["test_ledger_report_rules", "test_grading", "test_report_files"],
        "the answer key written for an unanswered question",
    ),
    M(
        "r2-csv-first-correct-final",
        "mlsysim/labs/reports.py",
        '1 for a in r.answers if a.kind == "prediction" and a.first_correct',
        '1 for a in r.answers if a.kind == "prediction" and a.final_correct',
        ["test_ledger_report_rules", "test_grading", "test_report_files"],
        "predictions_first_correct counts final answers",
    ),
]

#: Written after the first run's survivors had been answered with new tests, and run without
#: any further test changes: their kill rate is the honest estimate for unseen bugs.
HELD_OUT: list[Mutant] = [
    M(
        "ho-im2col-cout",
        LY,
        "return ho * wo * kh * kw * self.in_channels",
        "return ho * wo * kh * kw * self.out_channels",
        LAYERS + ["test_answer_keys", "test_s06_11_primitives"],
        "im2col sized by output channels",
    ),
    M(
        "ho-rmsnorm-params",
        LY,
        "return self.normalized_shape if self.elementwise_affine else 0",
        "return 2 * self.normalized_shape if self.elementwise_affine else 0",
        LAYERS,
        "RMSNorm with a LayerNorm bias",
    ),
    M(
        "ho-bn-params",
        LY,
        "return 2 * self.num_features if self.affine else 0",
        "return 4 * self.num_features if self.affine else 0",
        LAYERS,
        "running stats counted as parameters",
    ),
    M(
        "ho-attn-macs-half",
        LY,
        "return self.seq_len * self.kv * self.n_heads * (self.d_head + self.d_v)",
        "return self.seq_len * self.kv * self.n_heads * self.d_head",
        LAYERS,
        "PV product forgotten",
    ),
    M(
        "ho-swiglu-mul",
        LY,
        '("ffn_mul", Elementwise(op="mul", elements=s * f)),',
        '("ffn_mul", Elementwise(op="mul", elements=s * d)),',
        LAYERS + MODELS,
        "gate product sized by d_model",
    ),
    M(
        "ho-mnv2-last",
        MO,
        "last = _make_divisible(1280 * max(1.0, width_mult))",
        "last = _make_divisible(1280 * width_mult)",
        MODELS,
        "last conv narrowed below width 1",
    ),
    M("ho-bert-types", MO, "type_vocab=2,", "type_vocab=1,", MODELS, "one token type"),
    M(
        "ho-limiting-min",
        EN,
        "return max(o, key=o.get)",
        "return min(o, key=o.get)",
        ENGINE,
        "least-exceeded memory named",
    ),
    M(
        "ho-over-sum",
        EN,
        'return Q_(max(0.0, *self._overflows().values()), "B")',
        'return Q_(sum(self._overflows().values()), "B")',
        ENGINE,
        "negative overflow reported when it fits",
    ),
    M(
        "ho-profile-ridge",
        EN,
        'return self.peak_flops_s / self.device.memory.bandwidth.m_as("B/s")',
        'return self.peak_flops_s * self.efficiency / self.device.memory.bandwidth.m_as("B/s")',
        ENGINE,
        "peak ridge derated (the pre-merge definition)",
    ),
    M(
        "ho-roof-max",
        HW,
        "        return min(",
        "        return max(",
        HARDWARE + ["test_s06_01_principles"],
        "roofline takes the max",
    ),
    M(
        "ho-int8-acc",
        "mlsysim/energy.py",
        '    "int8": ("int8_mult", "int32_add"),',
        '    "int8": ("int8_mult", "int8_add"),',
        ENERGY,
        "int8 accumulates in int8",
    ),
    M(
        "ho-screen-runtime",
        P + "s06_09_choosing.py",
        '"screen": weights + act_b + RUNTIME_BUDGET_B,',
        '"screen": weights + act_b,',
        part("s06_09_choosing"),
        "runtime budget left out of the memory screen",
    ),
    M(
        "ho-ledger-done",
        "mlsysim/labs/records.py",
        "return sum(1 for p in self.required if self._has(p))",
        "return len(self.answers)",
        LEDGER,
        "progress counts answers to parts not required",
    ),
    M(
        "ho-systolic-util",
        "mlsysim/primitives.py",
        "return self.macs / (self.cycles * self.size**2)",
        "return self.macs / (self.cycles * self.size)",
        ENERGY,
        "array area as its side",
    ),
]


def _apply(text: str, m: Mutant) -> str:
    n = text.count(m.old)
    if n != 1:
        raise ValueError(
            f"{m.id}: the original text occurs {n} times in {m.file} (must be exactly once)"
        )
    out = text.replace(m.old, m.new)
    compile(out, m.file, "exec")
    return out


def check(chosen: list[Mutant] | None = None) -> list[str]:
    """What is wrong with the table: duplicate ids (all mutants), and for ``chosen`` (default:
    all) an edit that does not apply or a test file that does not exist."""
    problems = []
    ids = set()
    for m in MUTANTS + HELD_OUT:
        if m.id in ids:
            problems.append(f"duplicate id {m.id}")
        ids.add(m.id)
    for m in MUTANTS + HELD_OUT if chosen is None else chosen:
        try:
            _apply((ROOT / m.file).read_text(encoding="utf-8"), m)
        except (ValueError, SyntaxError) as e:
            problems.append(str(e))
        for t in m.tests:
            if not (ROOT / "tests" / f"{t}.py").exists():
                problems.append(f"{m.id}: no tests/{t}.py")
            if f"tests/{t}.py" == NEVER:
                problems.append(f"{m.id}: {NEVER} must not decide a kill")
    return problems


def _copy_tree(dst: Path) -> None:
    for name in COPY:
        src = SRC / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dst / name)


def _pytest(tree: Path, tests: tuple[str, ...], timeout: float) -> tuple[str, float, str]:
    files = [f"tests/{t}.py" for t in dict.fromkeys(tests) if (tree / "tests" / f"{t}.py").exists()]
    if not files:
        return "no tests", 0.0, ""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "--no-header",
        f"--ignore={NEVER}",
        *files,
    ]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, ""
    dt = time.perf_counter() - t0
    failed = [ln for ln in r.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    if r.returncode == 0:
        return "survived", dt, ""
    if r.returncode == 1:
        return "killed", dt, failed[0] if failed else ""
    return f"error(rc={r.returncode})", dt, (r.stdout + r.stderr)[-400:]


def run_one(m: Mutant, timeout: float) -> tuple[Mutant, str, float, str]:
    with tempfile.TemporaryDirectory(prefix="mlsysim-mutant-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree)
        path = tree / m.file
        path.write_text(_apply(path.read_text(encoding="utf-8"), m), encoding="utf-8")
        status, dt, detail = _pytest(tree, m.tests, timeout)
    return m, status, dt, detail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that every mutant applies")
    ap.add_argument(
        "--only",
        default="",
        help="run mutants whose id starts with one of these comma-separated prefixes",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    ap.add_argument("--held-out", action="store_true", help="run the held-out mutants instead")
    ap.add_argument(
        "--tree",
        type=Path,
        default=None,
        help="mutate and test another checkout (its own tests; mutants that do not apply are skipped)",
    )
    args = ap.parse_args(argv)
    global SRC
    if args.tree is not None:
        SRC = args.tree.resolve()

    prefixes = tuple(args.only.split(","))
    chosen = [m for m in (HELD_OUT if args.held_out else MUTANTS) if m.id.startswith(prefixes)]
    # --only checks the mutants it picks (a stale mutant elsewhere does not block a subset)
    problems = check(None if args.check or not args.only else chosen)
    if problems:
        print("\n".join(problems))
        return 2
    if args.check:
        print(f"{len(MUTANTS)} mutants and {len(HELD_OUT)} held-out mutants apply cleanly")
        return 0
    if SRC != ROOT:
        applies = [
            m for m in chosen if (SRC / m.file).read_text(encoding="utf-8").count(m.old) == 1
        ]
        print(f"{len(chosen) - len(applies)} mutants do not apply to {SRC} and are skipped")
        chosen = applies
    if not args.no_baseline:
        with tempfile.TemporaryDirectory(prefix="mlsysim-baseline-") as tmp:
            _copy_tree(Path(tmp))
            every = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
            status, dt, detail = _pytest(Path(tmp), every, args.timeout)
        print(f"baseline (unmutated, {len(every)} test files): {status} in {dt:.0f} s")
        if status != "survived":
            print(detail)
            print("the unmutated tree fails its tests: no mutant result would mean anything")
            return 2
    t0 = time.perf_counter()
    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for m, status, dt, detail in pool.map(lambda m: run_one(m, args.timeout), chosen):
            results.append((m, status))
            print(
                f"{status:9s} {dt:6.1f} s  {m.id:30s} {m.why}"
                + (f"   [{detail}]" if detail else ""),
                flush=True,
            )
    killed = sum(s in ("killed", "timeout") for _, s in results)
    survived = [m.id for m, s in results if s in ("survived", "no tests")]
    errors = [m.id for m, s in results if s.startswith("error")]
    n = len(results)
    print(
        f"\n{killed}/{n} killed ({100 * killed / n:.1f}%), {len(survived)} survived, {len(errors)} errors, "
        f"{time.perf_counter() - t0:.0f} s"
    )
    if survived:
        print("survived:", ", ".join(survived))
    if errors:
        print("errors:", ", ".join(errors))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate ``structure.json``: how many times each kind of module runs in one forward pass.

Parameter and FLOP counts cannot see structure that carries neither: a residual add on the wrong
block, a missing norm or activation. This script records, per torchvision / HuggingFace model of
mlsysim's zoo, built on the **meta device** (nothing is downloaded, no weights):

* ``calls``: forward calls per module class (forward hooks on every module, so a module reused
  three times, like torchvision's shared ``relu`` in a ResNet block, counts three times);
* ``adds``: additions of two tensors of equal shape (``torch.add``, ``+``, ``+=``), counted with
  a ``TorchFunctionMode``. For CNNs every such add is a skip connection. For transformers only
  adds of two hidden-state tensors ``[1, S, d_model]`` are counted (the residual adds and the
  embedding sums), which leaves out rotary embeddings, GELU's polynomial and mask adds;
* ``residual_blocks`` (MobileNetV2: blocks whose ``use_res_connect`` is set) and
  ``downsample_blocks`` (ResNet: blocks with a projection shortcut).

Run with the torch venv (torch 2.14, torchvision, transformers)::

    /work/venv-torch/bin/python tests/reference/regenerate_structure.py

The normal test run reads the JSON and never needs torch.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import torch
import torchvision
import transformers
from torch.overrides import TorchFunctionMode

OUT = Path(__file__).with_name("structure.json")
META = torch.device("meta")
ADD_NAMES = {"add", "add_", "__add__", "__iadd__", "__radd__"}


class AddCounter(TorchFunctionMode):
    def __init__(self, shape=None):
        super().__init__()
        self.shape = tuple(shape) if shape is not None else None
        self.n = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in ADD_NAMES and len(args) >= 2:
            a, b = args[0], args[1]
            if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape:
                if self.shape is None or tuple(a.shape) == self.shape:
                    self.n += 1
        return func(*args, **kwargs)


def structure(model: torch.nn.Module, run, add_shape=None) -> dict:
    calls: Counter = Counter()
    hooks = [
        m.register_forward_hook(lambda mod, _i, _o: calls.update([type(mod).__name__]))
        for m in model.modules()
        if m is not model
    ]
    counter = AddCounter(add_shape)
    with torch.no_grad(), counter:
        run()
    for h in hooks:
        h.remove()
    return {"calls": dict(sorted(calls.items())), "adds": counter.n}


def torchvision_entries() -> dict:
    out = {}
    x = torch.zeros(1, 3, 224, 224, device=META)
    for depth in (18, 34, 50, 101, 152):
        with META:
            m = getattr(torchvision.models, f"resnet{depth}")(weights=None).eval()
        downsample = [
            f"layer{s}.{i}"
            for s in range(1, 5)
            for i, blk in enumerate(getattr(m, f"layer{s}"))
            if blk.downsample is not None
        ]
        out[f"resnet{depth}"] = {
            "source": f"torchvision.models.resnet{depth}(weights=None)",
            "input_shape": [1, 3, 224, 224],
            **structure(m, lambda m=m: m(x)),
            "downsample_blocks": downsample,
        }
    for wm in (1.0, 0.75, 0.5):
        with META:
            m = torchvision.models.mobilenet_v2(weights=None, width_mult=wm).eval()
        out[f"mobilenet_v2_{wm:g}"] = {
            "source": f"torchvision.models.mobilenet_v2(weights=None, width_mult={wm})",
            "config": {"width_mult": wm},
            "input_shape": [1, 3, 224, 224],
            **structure(m, lambda m=m: m(x)),
            "residual_blocks": [
                f"features.{i}"
                for i, f in enumerate(m.features)
                if getattr(f, "use_res_connect", False)
            ],
        }
    return out


def hf_entries() -> dict:
    from transformers import (
        BertConfig,
        BertModel,
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
    )

    seq = 8
    specs = [
        ("gpt2_small", GPT2LMHeadModel, GPT2Config, {}),
        ("gpt2_xl", GPT2LMHeadModel, GPT2Config, dict(n_embd=1600, n_layer=48, n_head=25)),
        ("bert_base", BertModel, BertConfig, {}),
        (
            "llama_tiny",
            LlamaForCausalLM,
            LlamaConfig,
            dict(
                hidden_size=256,
                intermediate_size=688,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
                vocab_size=1000,
                tie_word_embeddings=False,
                attention_bias=False,
                mlp_bias=False,
            ),
        ),
    ]
    out = {}
    for key, mcls, ccls, kwargs in specs:
        cfg = ccls(attn_implementation="eager", **kwargs)
        with META:
            m = mcls(cfg).eval()
        d = cfg.hidden_size
        ids = torch.zeros(1, seq, dtype=torch.long, device=META)
        if mcls is BertModel:
            kw = {}
        else:
            kw = {
                "attention_mask": torch.ones(1, seq, dtype=torch.long, device=META),
                "use_cache": False,
            }
        kw_src = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        out[key] = {
            "source": f"transformers.{mcls.__name__}({ccls.__name__}({kw_src})), attn_implementation='eager'",
            "config": {"config_kwargs": kwargs, "n_layers": cfg.num_hidden_layers, "d_model": d},
            "input_shape": [1, seq],
            **structure(
                m, lambda m=m, ids=ids, kw=kw: m(input_ids=ids, **kw), add_shape=(1, seq, d)
            ),
        }
    return out


def main():
    data = {
        "_meta": {
            "generator": "tests/reference/regenerate_structure.py",
            "torch": torch.__version__,
            "torchvision": torchvision.__version__,
            "transformers": transformers.__version__,
            "device": "meta",
            "calls": "forward calls per module class (forward hooks; a reused module counts per call)",
            "adds": "tensor + tensor of equal shape (CNNs: any; transformers: hidden-state [1, S, d] only)",
        },
        **torchvision_entries(),
        **hf_entries(),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    for k, v in data.items():
        if not k.startswith("_"):
            print(f"{k:16s} adds={v['adds']:3d} {v['calls']}")


if __name__ == "__main__":
    main()

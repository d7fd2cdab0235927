"""Regenerate ``priors.json``: what PyTorch itself says about one layer of each family on the same
input (``mlsysim.priors``: section 6.9.4's hierarchy of priors).

For each case (``seq_len`` positions × ``features`` features, CNN kernel ``kernel``):

* ``params``: parameters of ``nn.Conv1d(c, c, k, padding=k // 2, bias=False)``,
  ``nn.RNN(c, c, bias=False)`` (Elman, tanh), ``nn.MultiheadAttention(c, 1, bias=False)``
  (self-attention, unmasked) and ``nn.Linear(n·c, n·c, bias=False)`` over the flattened sequence,
  built on the meta device;
* ``pairs`` (small cases only): the (output position, input position) pairs one layer relates,
  read from the Jacobian of the real layer at a random input with random weights (float64): a pair
  counts when any output feature at position i has a nonzero derivative with respect to any input
  feature at position j.

Run with the torch venv::

    /work/venv-gt/bin/python tests/reference/regenerate_priors.py

The normal test run reads the JSON and never needs torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn

OUT = Path(__file__).with_name("priors.json")
PARAM_CASES = [(256, 64, 3), (256, 64, 7), (1024, 16, 5), (8192, 64, 3), (64, 128, 3)]
PAIR_CASES = [(12, 2, 3), (12, 3, 5), (9, 2, 7)]


def layers(n: int, c: int, k: int, device=None):
    return {
        "cnn": nn.Conv1d(c, c, k, padding=k // 2, bias=False, device=device),
        "rnn": nn.RNN(c, c, bias=False, batch_first=True, device=device),
        "attention": nn.MultiheadAttention(c, 1, bias=False, batch_first=True, device=device),
        "mlp": nn.Linear(n * c, n * c, bias=False, device=device),
    }


def forward(family: str, layer, x):
    """x: (n, c) -> (n, c)."""
    n, c = x.shape
    if family == "cnn":
        return layer(x.T.unsqueeze(0))[0].T
    if family == "rnn":
        return layer(x.unsqueeze(0))[0][0]
    if family == "attention":
        q = x.unsqueeze(0)
        return layer(q, q, q, need_weights=False)[0][0]
    return layer(x.reshape(1, n * c)).reshape(n, c)


def pairs(family: str, n: int, c: int, k: int) -> int:
    torch.manual_seed(0)
    layer = layers(n, c, k)[family].double()
    x = torch.randn(n, c, dtype=torch.float64)
    jac = torch.autograd.functional.jacobian(lambda v: forward(family, layer, v), x)  # (n,c,n,c)
    linked = jac.abs().amax(dim=(1, 3)) > 0  # (output position, input position)
    return int(linked.sum())


def main() -> None:
    meta = torch.device("meta")
    out = {"torch": torch.__version__, "params": [], "pairs": []}
    for n, c, k in PARAM_CASES:
        counts = {
            f: sum(p.numel() for p in m.parameters()) for f, m in layers(n, c, k, meta).items()
        }
        out["params"].append({"seq_len": n, "features": c, "kernel": k, **counts})
    for n, c, k in PAIR_CASES:
        counts = {f: pairs(f, n, c, k) for f in ("cnn", "rnn", "attention", "mlp")}
        out["pairs"].append({"seq_len": n, "features": c, "kernel": k, **counts})
    OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

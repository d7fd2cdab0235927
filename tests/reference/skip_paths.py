"""Regenerate tests/reference/skip_paths.json: the gradient that reaches block 1 along the skip
path alone, measured with PyTorch autograd (not with mlsysim).

Run with the ground-truth venv (torch 2.14.1): ``/work/venv-gt/bin/python tests/reference/skip_paths.py``.

- ``postact``: the original ResNet block as an MLP, y = ReLU(x + BN(W2 ReLU(BN(W1 x)))), width
  256, batch 256 (BatchNorm in training mode, PyTorch's default Linear initialization), seeded,
  200 blocks. The skip path's Jacobian through one block is diag(1[sum > 0]), so the share of
  the output gradient that reaches block 1 along it after L blocks is the mean over
  (example, unit) of the product of the first L masks: ``share[L - 1]``. ``active[L - 1]`` is
  the share of sums that are positive in block L. ``autograd`` checks the share at a few depths
  by backpropagating a gradient of ones through the same network with every branch detached
  (so only the skip path carries gradient): x.grad.mean().
- ``highway``: y = H(x).detach() T + x (1 - T), T = sigmoid(W_T x + b_T) with W_T = 0 (the gate
  at its bias) and T detached: x.grad is (1 - sigmoid(b))^L in every unit.
- ``preact``: y = F(x).detach() + x: x.grad is exactly 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

OUT = Path(__file__).with_name("skip_paths.json")
WIDTH, BATCH, DEPTH, SEED = 256, 256, 200, 0
CHECK = (1, 10, 50, 200)


def _blocks(depth):
    torch.manual_seed(SEED)
    return [
        (
            torch.nn.Linear(WIDTH, WIDTH),
            torch.nn.BatchNorm1d(WIDTH),
            torch.nn.Linear(WIDTH, WIDTH),
            torch.nn.BatchNorm1d(WIDTH),
        )
        for _ in range(depth)
    ]


def _input():
    return torch.randn(BATCH, WIDTH, generator=torch.Generator().manual_seed(SEED + 1))


def postact():
    blocks = _blocks(DEPTH)
    x = _input()
    shares, active = [], []
    alive = torch.ones(BATCH, WIDTH)
    with torch.no_grad():
        h = x
        for w1, bn1, w2, bn2 in blocks:
            s = h + bn2(w2(torch.relu(bn1(w1(h)))))
            m = (s > 0).double()
            alive = alive * m
            shares.append(alive.mean().item())
            active.append(m.mean().item())
            h = torch.relu(s)
    autograd = {}
    for depth in CHECK:
        x0 = x.clone().requires_grad_(True)
        h = x0
        for w1, bn1, w2, bn2 in blocks[:depth]:
            f = bn2(w2(torch.relu(bn1(w1(h)))))
            h = torch.relu(h + f.detach())
        h.backward(torch.ones_like(h))
        autograd[str(depth)] = x0.grad.double().mean().item()
    return shares, active, autograd


def highway(bias=-2.0, depth=50):
    x = _input().requires_grad_(True)
    h = x
    torch.manual_seed(SEED)
    for _ in range(depth):
        H = torch.nn.Linear(WIDTH, WIDTH)
        gate = torch.nn.Linear(WIDTH, WIDTH)
        with torch.no_grad():
            gate.weight.zero_()
            gate.bias.fill_(bias)
        t = torch.sigmoid(gate(h)).detach()
        h = torch.relu(H(h)).detach() * t + h * (1 - t)
    h.backward(torch.ones_like(h))
    g = x.grad.double()
    return {"bias": bias, "depth": depth, "min": g.min().item(), "max": g.max().item()}


def preact(depth=50):
    x = _input().requires_grad_(True)
    h = x
    torch.manual_seed(SEED)
    for _ in range(depth):
        f = torch.nn.Linear(WIDTH, WIDTH)
        h = torch.relu(f(h)).detach() + h
    h.backward(torch.ones_like(h))
    g = x.grad.double()
    return {"depth": depth, "min": g.min().item(), "max": g.max().item()}


def main():
    shares, active, autograd = postact()
    out = {
        "generated_by": "tests/reference/skip_paths.py",
        "versions": {"torch": torch.__version__},
        "postact": {
            "width": WIDTH,
            "batch": BATCH,
            "seed": SEED,
            "share": [float(f"{v:.4g}") for v in shares],
            "active": [float(f"{v:.4g}") for v in active],
            "autograd": autograd,
        },
        "highway": highway(),
        "preact": preact(),
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

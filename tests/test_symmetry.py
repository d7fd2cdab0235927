"""mlsysim.symmetry against the chapter's Example 6.3 (section 6.3, Eqs. 4-5): the matrices below
are copied from the chapter's text, not computed by the module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlsysim import symmetry as Y

#: Example 6.3: f(x) for the edge at column 3 and f(T_2 x) for the edge moved to column 5.
CHAPTER_F_X = [[3, 0, -3, 0, 0]] * 5
CHAPTER_F_T2X = [[0, 0, 3, 0, -3]] * 5


def test_example_6_3_feature_maps():
    x = Y.EXAMPLE_IMAGE
    assert [r.index(1.0) for r in x] == [2] * 7  # column 3, counted from 1
    assert Y.conv2d_valid(x, Y.EXAMPLE_KERNEL) == CHAPTER_F_X
    t2x = Y.shift(x, 2)
    assert [r.index(1.0) for r in t2x] == [4] * 7  # "edge moved to column 5"
    assert Y.conv2d_valid(t2x, Y.EXAMPLE_KERNEL) == CHAPTER_F_T2X
    # Eq. 4: f(T x) = T f(x)
    assert Y.shift(Y.conv2d_valid(x, Y.EXAMPLE_KERNEL), 2) == CHAPTER_F_T2X


def test_dense_layer_is_not_equivariant_and_pooling_is_invariant():
    x = Y.EXAMPLE_IMAGE
    w = Y.dense_layer(49, 25, seed=1)
    fx, ftx = Y.dense_apply(x, w, (5, 5)), Y.dense_apply(Y.shift(x, 2), w, (5, 5))
    assert Y.max_abs_difference(ftx, Y.shift(fx, 2)) > 0.5
    # Eq. 5: ReLU + global average pooling of the conv map: one +3 per row, 5 rows, over 25
    # positions = 15 / 25 = 0.6, wherever the edge sits (while it stays inside the image).
    pooled = [
        Y.global_average_pool(Y.relu(Y.conv2d_valid(Y.shift(x, s), Y.EXAMPLE_KERNEL)))
        for s in range(5)
    ]
    assert pooled == [pytest.approx(5 * 3 / 25)] * 5


def test_equivariance_breaks_only_at_the_border():
    """An edge on the last column has only its +3 side in the valid map; shifting the image left
    brings the -3 side into view, which the shifted old map cannot have."""
    x = Y.edge_image(7, 6)
    fx = Y.conv2d_valid(x, Y.EXAMPLE_KERNEL)
    assert fx[0] == [0, 0, 0, 0, 3]
    ftx = Y.conv2d_valid(Y.shift(x, -2), Y.EXAMPLE_KERNEL)
    assert ftx[0] == [0, 0, 3, 0, -3]
    assert Y.max_abs_difference(ftx, Y.shift(fx, -2)) == 3


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="column"):
        Y.edge_image(7, 7)
    with pytest.raises(ValueError, match="kernel"):
        Y.conv2d_valid([[1.0]], Y.EXAMPLE_KERNEL)
    with pytest.raises(ValueError, match="dx"):
        Y.shift(Y.EXAMPLE_IMAGE, 1.5)
    with pytest.raises(ValueError, match="image"):
        Y.conv2d_valid([[1.0, float("nan"), 0.0]] * 3, Y.EXAMPLE_KERNEL)
    with pytest.raises(ValueError, match="weights"):
        Y.dense_apply(Y.EXAMPLE_IMAGE, Y.dense_layer(10, 25), (5, 5))
    with pytest.raises(ValueError, match="shapes"):
        Y.max_abs_difference([[0.0]], [[0.0, 1.0]])


# --------------------------------------------------------------------------------------------
# Rotations and the p4 group convolution (Cohen & Welling 2016), against PyTorch
# (tests/reference/p4.json, written by tests/reference/regenerate_p4.py)
# --------------------------------------------------------------------------------------------

P4 = json.loads((Path(__file__).parent / "reference" / "p4.json").read_text(encoding="utf-8"))


def test_rot90_matches_torch_rot90():
    for k in range(4):
        assert Y.rot90(P4["image"], k) == P4["rot90_image"][k]
    assert Y.rot90(P4["image"], -1) == P4["rot90_image"][3]  # clockwise = three turns
    assert Y.rot90(P4["image"], 4) == P4["image"]
    assert Y.rot90([[1.0, 2.0, 3.0]]) == [[3.0], [2.0], [1.0]]  # a 1x3 row turns into a column


def test_p4_and_plain_convolution_match_torch_conv2d():
    """The p4 maps of the turned image are torch's conv2d with the kernel in its four rotations;
    exact, the values are small integers."""
    for k in range(4):
        rx = P4["rot90_image"][k]
        assert Y.p4_conv2d_valid(rx, P4["kernel"]) == P4["p4"][k]
        assert Y.conv2d_valid(rx, P4["kernel"]) == P4["plain"][k]


def test_p4_is_rotation_equivariant_and_plain_conv_is_not():
    """Eq. 4 for the rotation group: p4(R^k x) = R^k P^k p4(x) exactly, on torch's own maps; the
    plain conv's map of the turned image is not the turned map (random kernel, k = 1, 2, 3)."""
    fx = P4["p4"][0]
    for k in range(4):
        assert Y.p4_rotate(fx, k) == P4["p4"][k]
        shown = [
            Y.max_abs_difference(a, b) for a, b in zip(P4["p4"][k], Y.p4_rotate(fx, k), strict=True)
        ]
        assert shown == [0, 0, 0, 0]
    for k in (1, 2, 3):
        turned = Y.rot90(P4["plain"][0], k)
        assert Y.max_abs_difference(P4["plain"][k], turned) > 0
        # turned in place, without moving channels, is not the p4 output either
        assert any(
            Y.max_abs_difference(a, Y.rot90(b, k)) > 0 for a, b in zip(P4["p4"][k], fx, strict=True)
        )


def test_p4_layer_costs_match_torch_flop_counter():
    """Same learned weights, 4x the MACs and output maps; MACs = torch's FLOPs / 2."""
    from mlsysim import layers as L

    plain = L.Conv2d(in_channels=1, out_channels=1, kernel_size=3, input_size=7, bias=False)
    big = L.Conv2d(
        in_channels=64, out_channels=64, kernel_size=3, input_size=224, padding=1, bias=False
    )
    flops = P4["flops"]
    assert 2 * plain.macs() == flops["plain_7x7"] == 450
    assert 2 * Y.p4_layer(plain).macs() == flops["p4_7x7"] == 1800
    assert 2 * big.macs() == flops["plain_64_224"]
    assert 2 * Y.p4_layer(big).macs() == flops["p4_64_224"] == 4 * flops["plain_64_224"]
    assert Y.p4_layer(big).output_elements == 4 * big.output_elements == 12_845_056
    assert big.params == 36_864  # the learned weights; the p4 layer runs 4 rotated copies


def test_rotation_bad_input_is_named():
    with pytest.raises(ValueError, match="k must be"):
        Y.rot90(P4["image"], 5)
    with pytest.raises(ValueError, match="k must be"):
        Y.rot90(P4["image"], 1.0)
    with pytest.raises(ValueError, match="maps"):
        Y.p4_rotate(P4["p4"][0][:3], 1)
    with pytest.raises(ValueError, match="layer"):
        Y.p4_layer("conv")
    with pytest.raises(ValueError, match="column"):
        Y.step_image(7, 0)

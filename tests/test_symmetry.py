"""mlsysim.symmetry against the chapter's Example 6.3 (section 6.3, Eqs. 4-5): the matrices below
are copied from the chapter's text, not computed by the module."""

from __future__ import annotations

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

"""mlsysim.order (issue 14: attention has no notion of order), checked against numpy and the
paper's formula."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mlsysim import order


def _np_attention(x, wq, wk, wv):
    x, wq, wk, wv = map(np.asarray, (x, wq, wk, wv))
    q, k, v = x @ wq, x @ wk, x @ wv
    s = q @ k.T / math.sqrt(k.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return p @ v


def test_self_attention_matches_numpy():
    rng = random.Random(3)
    x = order.random_matrix(6, 5, rng)
    wq, wk, wv = (order.random_matrix(5, 5, rng) for _ in range(3))
    assert np.allclose(
        order.self_attention(x, wq, wk, wv), _np_attention(x, wq, wk, wv), atol=1e-12
    )


def test_sinusoidal_positions_are_vaswanis():
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)) (d = 4):
    PE(1, 0) = sin 1, PE(1, 1) = cos 1, PE(1, 2) = sin(0.01), PE(1, 3) = cos(0.01); PE(0) = [0, 1, 0, 1]."""
    pe = order.sinusoidal_positions(3, 4)
    assert pe[0] == [0.0, 1.0, 0.0, 1.0]
    assert pe[1] == pytest.approx([math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])


@pytest.mark.parametrize("shift", [1, 2, 4])
def test_attention_is_permutation_equivariant_and_positions_break_it(shift):
    plain = order.order_experiment(n_tokens=5, d_model=4, shift=shift, positions=False)
    assert plain["max_diff"] < 1e-12
    assert plain["shuffled"] != plain["original"]  # the outputs moved with their tokens
    with_pe = order.order_experiment(n_tokens=5, d_model=4, shift=shift, positions=True)
    assert with_pe["max_diff"] > 1e-3


def test_equal_query_and_key_projections_make_scores_symmetric():
    """Why separate W_Q and W_K: with W_Q = W_K the score of i attending to j equals j to i."""
    rng = random.Random(1)
    x = order.random_matrix(4, 3, rng)
    w, w2 = order.random_matrix(3, 3, rng), order.random_matrix(3, 3, rng)
    s = order.scores(x, w, w)
    assert all(s[i][j] == pytest.approx(s[j][i]) for i in range(4) for j in range(4))
    s2 = order.scores(x, w, w2)
    assert any(abs(s2[i][j] - s2[j][i]) > 1e-6 for i in range(4) for j in range(4))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(n_tokens=1),
        dict(d_model=0),
        dict(shift=5),
        dict(shift=-1),
        dict(n_tokens=65),
        dict(shift=True),
    ],
)
def test_bad_input_names_the_argument(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        order.order_experiment(**kwargs)


def test_bad_matrices_are_refused():
    with pytest.raises(ValueError, match="inner dimensions"):
        order.matmul([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="finite"):
        order.matmul([[float("nan")]], [[1.0]])
    with pytest.raises(ValueError, match="permutation"):
        order.permute([[1.0], [2.0]], [0, 0])


def test_causal_mask_hides_later_tokens():
    """With the mask, editing the last token moves no earlier output (exactly 0); without it, every
    output moves. The masked row 0 is token 0's own value vector (softmax over one score)."""
    masked = order.causal_experiment(causal=True)
    open_ = order.causal_experiment(causal=False)
    assert masked["earlier_change"] == 0.0 and masked["last_change"] > 1e-3
    assert open_["earlier_change"] > 1e-3
    rng = random.Random(5)
    x = order.random_matrix(3, 2, rng)
    wq, wk, wv = (order.random_matrix(2, 2, rng) for _ in range(3))
    out = order.self_attention(x, wq, wk, wv, causal=True)
    assert out[0] == pytest.approx(order.matmul(x, wv)[0])
    ref = _np_attention(x[:2], wq, wk, wv)  # row 1 sees tokens 0 and 1 only
    assert out[1] == pytest.approx(list(ref[1]))


@pytest.mark.parametrize("arg", ["positions", "causal"])
@pytest.mark.parametrize("bad", [1, "yes", None, [True]])
def test_order_experiment_flags_are_booleans_named(arg, bad):
    """``positions`` was read as ``if positions:``: 1, 'yes' or a numpy array passed silently
    (an array raised numpy's 'truth value is ambiguous'); both flags now name themselves."""
    from mlsysim import order

    with pytest.raises(ValueError, match=f"{arg} must be True or False"):
        order.order_experiment(**{arg: bad})

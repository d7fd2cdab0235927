"""Serving an ensemble: what a blend of predictors costs per prediction (War Story 6.1).

Section 6.9.4: "Model selection must test both predictive fit and the resulting machine costs."
The Netflix Prize measured only the first. A blend's accuracy is published
(``mlsysim.published.NETFLIX_*``); its serving cost is computed here, on one convention:

- **Every member is priced as one matrix factorization** of ``factors`` latent factors (the
  "SVD" Netflix kept): a prediction for (user, movie) is the dot product of the user's and the
  movie's factor rows, ``factors`` MACs, reading ``2 × factors`` values; the member keeps a
  factor row for every user and every movie resident (``(users + movies) × factors`` values).
  Real members differ (an RBM or a neighbourhood model does more work per prediction, a bias
  model less), so the absolute figures are a convention; the ratio between two blends is the
  ratio of their member counts whatever ``factors`` is.
- **A linear blend** of ``n > 1`` members adds one weight per member: ``n`` MACs and ``n``
  values read per prediction (a single model has no blend).
- Serving cost is summed over the members: each one must run for every prediction.

1 MAC = 2 FLOPs; bytes at ``precision`` (FP32 by default, as the Prize's models were trained).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check
from .units import bytes_per_value

__all__ = [
    "Serving",
    "Stage",
    "serve",
    "stages",
    "improvement_pct",
    "MAX_MEMBERS",
    "MAX_FACTORS",
]

#: the most members ``serve`` prices (the Grand Prize blended "hundreds")
MAX_MEMBERS = 100_000
#: the most latent factors per member
MAX_FACTORS = 65_536


@dataclass(frozen=True)
class Serving:
    """Per-prediction cost of an ``members``-member blend."""

    members: int
    factors: int
    precision: str
    macs: int
    bytes_read: int
    resident_bytes: int

    @property
    def flops(self) -> int:
        return 2 * self.macs


def serve(
    members: int,
    factors: int,
    users: int | None = None,
    movies: int | None = None,
    precision: str = "fp32",
) -> Serving:
    """What one prediction of an ``members``-member blend costs, each member a matrix
    factorization of ``factors`` factors over ``users`` × ``movies`` (default: the Netflix Prize
    data set's 480,189 users and 17,770 movies)."""
    from .published import NETFLIX_DATASET

    n = _check.integer("members", members, 1, MAX_MEMBERS)
    f = _check.integer("factors", factors, 1, MAX_FACTORS)
    users = NETFLIX_DATASET["users"].value if users is None else users
    movies = NETFLIX_DATASET["movies"].value if movies is None else movies
    u = _check.integer("users", users, 1, 10**10)
    m = _check.integer("movies", movies, 1, 10**10)
    bpv = bytes_per_value(precision)
    blend = n if n > 1 else 0
    macs = n * f + blend
    values_read = n * 2 * f + blend
    resident = n * (u + m) * f + blend
    return Serving(n, f, precision, macs, int(values_read * bpv), int(resident * bpv))


def improvement_pct(rmse: float, baseline: float) -> float:
    """How far ``rmse`` is below ``baseline``, in percent of it (the Prize's score)."""
    b = _check.real("baseline", baseline, 0.0, 10.0, lo_open=True)
    r = _check.real("rmse", rmse, 0.0, 10.0)
    return (b - r) / b * 100.0


@dataclass(frozen=True)
class Stage:
    """One published point of the Prize's accuracy against the size of its blend."""

    key: str
    name: str
    members: int
    rmse: float
    note: str


def stages() -> tuple[Stage, ...]:
    """The published points, fewest members first. The 107-model blend's RMSE is derived from
    its published 8.43% against Cinematch's quiz-set 0.9514 (the leaderboard's convention)."""
    from .published import NETFLIX_ADOPTED, NETFLIX_CINEMATCH_RMSE, NETFLIX_PROGRESS_PRIZE_2007

    pp = NETFLIX_PROGRESS_PRIZE_2007
    quiz = NETFLIX_CINEMATCH_RMSE["quiz"].value
    return (
        Stage("svd", "SVD alone", 1, NETFLIX_ADOPTED["svd"].value, "published (blog, 2012)"),
        Stage("rbm", "RBM alone", 1, NETFLIX_ADOPTED["rbm"].value, "published (blog, 2012)"),
        Stage(
            "pair",
            "SVD + RBM blend (shipped)",
            2,
            NETFLIX_ADOPTED["blend"].value,
            "published (blog, 2012), two digits",
        ),
        Stage(
            "progress",
            "2007 Progress Prize blend",
            int(pp["algorithms"].value),
            quiz * (1 - pp["improvement_pct"].value / 100),
            "derived: 8.43% below Cinematch's 0.9514 (quiz set)",
        ),
    )

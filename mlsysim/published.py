"""Published measurements the lessons quote, each with its source (one place, so every notebook
shows the same figure with the same citation).

These are results the core cannot compute (accuracy after training, measured kernel speed-ups);
every entry names the paper, the table or sentence it comes from, a stable URL and the year it
was published (its date: these are papers, cited by year).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = [
    "Published",
    "RESNET_CIFAR10",
    "RMSNORM_RUNTIME_REDUCTION_PCT",
    "BATCHNORM_FEWER_STEPS",
    "ALEXNET_ILSVRC2012_TOP5",
    "FLASHATTENTION_SPEEDUP",
    "FLASHATTENTION_LONGER_SEQUENCES",
    "NETFLIX_CINEMATCH_RMSE",
    "NETFLIX_DATASET",
    "NETFLIX_PROGRESS_PRIZE_2007",
    "NETFLIX_ADOPTED",
    "NETFLIX_GRAND_PRIZE_2009",
    "HEAD_PRUNING",
]


@dataclass(frozen=True)
class Published:
    value: float | tuple[float, float]
    unit: str
    what: str
    source: str
    locator: str
    url: str
    year: int

    def __post_init__(self):
        v = self.value
        if isinstance(v, tuple):
            if len(v) != 2:
                raise ValueError(f"value must be a number or a (low, high) pair, got {v!r}")
            lo, hi = (_check.real(f"value[{i}]", x) for i, x in enumerate(v))
            if lo > hi:
                raise ValueError(f"value must be a (low, high) pair with low <= high, got {v!r}")
        else:
            _check.real("value", v)
        for name in ("unit", "what", "source", "locator", "url"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"{name} must be a non-empty string, got {getattr(self, name)!r}")
        if not self.url.startswith(("https://", "http://")):
            raise ValueError(f"url must start with https:// or http://, got {self.url!r}")
        _check.integer("year", self.year, 1900, 2100)

    @property
    def citation(self) -> str:
        return f"{self.source}, {self.locator}"


_HE2016 = "He, Zhang, Ren and Sun, 'Deep Residual Learning for Image Recognition', CVPR 2016"
_HE2016_URL = "https://arxiv.org/abs/1512.03385"

#: CIFAR-10 residual networks (He et al. 2016a, Table 6): depth -> (test error %, parameters).
#: The chapter (section 6.4): "a 56-layer residual network reached about 7.0 percent test error
#: against 8.8 percent for its 20-layer residual counterpart"; plain 56-layer nets did worse than
#: plain 20-layer ones (Fig. 6, given as curves only).
RESNET_CIFAR10 = {
    20: (
        Published(
            8.75, "%", "ResNet-20 test error, CIFAR-10", _HE2016, "Table 6", _HE2016_URL, 2016
        ),
        Published(0.27e6, "params", "ResNet-20 parameters", _HE2016, "Table 6", _HE2016_URL, 2016),
    ),
    56: (
        Published(
            6.97, "%", "ResNet-56 test error, CIFAR-10", _HE2016, "Table 6", _HE2016_URL, 2016
        ),
        Published(0.85e6, "params", "ResNet-56 parameters", _HE2016, "Table 6", _HE2016_URL, 2016),
    ),
}

#: Zhang and Sennrich 2019 (abstract): RMSNorm reduces running time by 7%-64% against LayerNorm
#: on the models they tested.
RMSNORM_RUNTIME_REDUCTION_PCT = Published(
    (7.0, 64.0),
    "%",
    "RMSNorm running-time reduction vs LayerNorm",
    "Zhang and Sennrich, 'Root Mean Square Layer Normalization', NeurIPS 2019",
    "abstract",
    "https://arxiv.org/abs/1910.07467",
    2019,
)

#: Ioffe and Szegedy 2015 (abstract): BatchNorm "achieves the same accuracy with 14 times fewer
#: training steps" on an ImageNet classifier.
BATCHNORM_FEWER_STEPS = Published(
    14.0,
    "x",
    "training steps saved by BatchNorm (ImageNet, same accuracy)",
    "Ioffe and Szegedy, 'Batch Normalization', ICML 2015",
    "abstract",
    "https://arxiv.org/abs/1502.03167",
    2015,
)

_KSH2012 = (
    "Krizhevsky, Sutskever and Hinton, 'ImageNet Classification with Deep Convolutional Neural "
    "Networks', NeurIPS 2012"
)
_KSH2012_URL = (
    "https://papers.nips.cc/paper/2012/hash/c399862d3b9d6b76c8436e924a68c45b-Abstract.html"
)

#: ILSVRC-2012 top-5 test error (Krizhevsky et al. 2012, abstract and Table 2): the winning entry
#: (an ensemble of seven CNNs, two of them pre-trained on the Fall 2011 release) against the
#: second-best entry. The chapter (section 6.1): "15.3% ... compared to 26.2%".
ALEXNET_ILSVRC2012_TOP5 = (
    Published(
        15.3,
        "%",
        "AlexNet ensemble top-5 test error, ILSVRC-2012",
        _KSH2012,
        "abstract, Table 2",
        _KSH2012_URL,
        2012,
    ),
    Published(
        26.2,
        "%",
        "second-best entry top-5 test error, ILSVRC-2012",
        _KSH2012,
        "abstract, Table 2",
        _KSH2012_URL,
        2012,
    ),
)

_DAO2022 = (
    "Dao, Fu, Ermon, Rudra and Re, 'FlashAttention: Fast and Memory-Efficient Exact Attention "
    "with IO-Awareness', NeurIPS 2022"
)
_DAO2022_URL = "https://arxiv.org/abs/2205.14135"

#: FlashAttention's measured gains as the chapter's longer edition reports them (footnote 33):
#: "2-4x wall-clock speedup" and "training on sequences 4-16x longer than standard attention".
#: The paper's own headline runs sit inside that range (abstract: 3x on GPT-2 at 1K tokens, 2.4x on
#: Long Range Arena at 1K-4K tokens, A100 GPUs, whole training runs, not the attention core alone).
FLASHATTENTION_SPEEDUP = Published(
    (2.0, 4.0),
    "x",
    "FlashAttention wall-clock speed-up over standard attention, measured",
    _DAO2022,
    "abstract and section 4; range as the chapter's longer edition gives it (footnote 33)",
    _DAO2022_URL,
    2022,
)
FLASHATTENTION_LONGER_SEQUENCES = Published(
    (4.0, 16.0),
    "x",
    "longer training sequences FlashAttention made possible, measured",
    _DAO2022,
    "section 4.2; range as the chapter's longer edition gives it (footnote 33)",
    _DAO2022_URL,
    2022,
)
# ---------------------------------------------------------------------------------------------
# The Netflix Prize (War Story 6.1, section 6.9.4): the accuracy an ensemble bought, and what
# Netflix kept. RMSE is root-mean-square error on a 1-5 star rating (lower is better); the Prize
# scored entries on a held-out "quiz" set (the public leaderboard) and a "test" set (the award),
# each against Netflix's own Cinematch on the same set.
# ---------------------------------------------------------------------------------------------

_BENNETT2007 = "Bennett and Lanning, 'The Netflix Prize', KDD Cup and Workshop 2007"
_BENNETT2007_URL = (
    "https://www.cs.uic.edu/~liub/KDD-cup-2007/proceedings/The-Netflix-Prize-Bennett.pdf"
)
_NETFLIX_BLOG = (
    "Amatriain and Basilico, 'Netflix Recommendations: Beyond the 5 stars (Part 1)', "
    "Netflix Technology Blog, 6 April 2012"
)
_NETFLIX_BLOG_URL = (
    "https://netflixtechblog.com/netflix-recommendations-beyond-the-5-stars-part-1-55838468f429"
)
_LEADERBOARD = "Netflix Prize leaderboard (final standings, September 2009)"
_LEADERBOARD_URL = "https://www.netflixprize.com/leaderboard.html"
_RULES = "Netflix Prize rules (2006)"
_RULES_URL = "https://www.netflixprize.com/rules.html"

#: Cinematch, the baseline every Prize entry was scored against: RMSE 0.9514 on the quiz set
#: (the leaderboard's reference line) and 0.9525 on the test set (the rules: the Grand Prize asked
#: for 10% below it).
NETFLIX_CINEMATCH_RMSE = {
    "quiz": Published(
        0.9514,
        "RMSE",
        "Cinematch RMSE, quiz set",
        _LEADERBOARD,
        "Cinematch score on the quiz subset",
        _LEADERBOARD_URL,
        2009,
    ),
    "test": Published(
        0.9525,
        "RMSE",
        "Cinematch RMSE, test set",
        _RULES,
        "the Grand Prize's 10% target on the test subset",
        _RULES_URL,
        2006,
    ),
}

#: The Prize's training data (Bennett and Lanning 2007): 100,480,507 ratings by 480,189 users of
#: 17,770 movies. The sizes of the user and movie factor tables a matrix factorization keeps.
NETFLIX_DATASET = {
    "ratings": Published(
        100_480_507,
        "ratings",
        "Netflix Prize training ratings",
        _BENNETT2007,
        "the data set's description",
        _BENNETT2007_URL,
        2007,
    ),
    "users": Published(
        480_189,
        "users",
        "Netflix Prize users",
        _BENNETT2007,
        "the data set's description",
        _BENNETT2007_URL,
        2007,
    ),
    "movies": Published(
        17_770,
        "movies",
        "Netflix Prize movies",
        _BENNETT2007,
        "the data set's description",
        _BENNETT2007_URL,
        2007,
    ),
}

#: The first Progress Prize (2007, team Korbell): 8.43% below Cinematch with a linear blend of
#: 107 algorithms (the blog: "more than 2000 hours of work ... the final combination of 107
#: algorithms"). The leaderboard's percentages are against Cinematch on the quiz set.
NETFLIX_PROGRESS_PRIZE_2007 = {
    "improvement_pct": Published(
        8.43,
        "%",
        "2007 Progress Prize improvement over Cinematch",
        _NETFLIX_BLOG,
        "opening section, on the Netflix Prize",
        _NETFLIX_BLOG_URL,
        2012,
    ),
    "algorithms": Published(
        107,
        "algorithms",
        "models blended for the 2007 Progress Prize",
        _NETFLIX_BLOG,
        "opening section, on the Netflix Prize",
        _NETFLIX_BLOG_URL,
        2012,
    ),
}

#: What Netflix put into production from that blend (the blog): the two best underlying
#: algorithms, matrix factorization ("SVD", RMSE 0.8914 alone) and a Restricted Boltzmann Machine
#: (RMSE 0.8990 alone), linearly blended to 0.88 (the blog gives two digits). The blog does not
#: name the split; its 0.88 is 7.5% below Cinematch's quiz-set 0.9514.
NETFLIX_ADOPTED = {
    "svd": Published(
        0.8914,
        "RMSE",
        "matrix factorization (SVD) alone",
        _NETFLIX_BLOG,
        "opening section, on the Netflix Prize",
        _NETFLIX_BLOG_URL,
        2012,
    ),
    "rbm": Published(
        0.8990,
        "RMSE",
        "Restricted Boltzmann Machine alone",
        _NETFLIX_BLOG,
        "opening section, on the Netflix Prize",
        _NETFLIX_BLOG_URL,
        2012,
    ),
    "blend": Published(
        0.88,
        "RMSE",
        "linear blend of SVD and RBM (put into production)",
        _NETFLIX_BLOG,
        "opening section, on the Netflix Prize",
        _NETFLIX_BLOG_URL,
        2012,
    ),
}

#: The Grand Prize (2009, BellKor's Pragmatic Chaos): test-set RMSE 0.8567, 10.06% below
#: Cinematch's test-set 0.9525, from a blend of "hundreds of predictive models" (the blog, which
#: gives no exact count); "the additional accuracy gains that we measured did not seem to justify
#: the engineering effort needed to bring them into a production environment".
NETFLIX_GRAND_PRIZE_2009 = {
    "rmse": Published(
        0.8567,
        "RMSE",
        "Grand Prize winner, test set",
        _LEADERBOARD,
        "BellKor's Pragmatic Chaos",
        _LEADERBOARD_URL,
        2009,
    ),
    "improvement_pct": Published(
        10.06,
        "%",
        "Grand Prize improvement over Cinematch, test set",
        _LEADERBOARD,
        "BellKor's Pragmatic Chaos",
        _LEADERBOARD_URL,
        2009,
    ),
}

_MICHEL2019 = "Michel, Levy and Neubig, 'Are Sixteen Heads Really Better than One?', NeurIPS 2019"
_MICHEL2019_URL = "https://arxiv.org/abs/1905.10650"

#: Head redundancy (Michel et al. 2019), BERT-base fine-tuned on MNLI, heads removed at test time
#: without retraining. The abstract: "a large percentage of attention heads can be removed at test
#: time without significantly impacting performance ... some layers can even be reduced to a single
#: head"; the introduction: the majority of heads must remain to avoid a catastrophic drop.
#: ``prunable_pct``: the share of BERT's heads pruned (greedily, by importance, across the whole
#: network) before accuracy drops noticeably (section 4, Figure 3: about 20% for the WMT model,
#: 40% for BERT). ``speedup_pct``: the measured inference speed-up (examples per second) with 50%
#: of BERT's heads pruned, at batch size 64, the largest of the batch sizes measured (section 4.3,
#: Table 4; smaller at smaller batches).
HEAD_PRUNING = {
    "prunable_pct": Published(
        40.0,
        "%",
        "share of BERT's heads pruned (whole network, by importance) before accuracy drops "
        "noticeably, MNLI",
        _MICHEL2019,
        "section 4.2, Figure 3",
        _MICHEL2019_URL,
        2019,
    ),
    "speedup_pct": Published(
        17.5,
        "%",
        "inference speed-up, 50% of BERT's heads pruned, batch size 64, measured",
        _MICHEL2019,
        "section 4.3, Table 4",
        _MICHEL2019_URL,
        2019,
    ),
}

"""Published accuracy: the other axis of every trade-off (the chapter's Figure 1, D·A·M phase 3).

mlsysim computes cost (parameters, MACs, bytes, seconds, joules); it cannot compute accuracy.
This module records *published* figures, each with the document, URL and date it comes from,
and the exact weights it belongs to (two training recipes of one architecture are two entries
with two names: ``ResNet50`` and ``ResNet50_V2``). All records are pydantic models, frozen.

* ``IMAGENET``: ImageNet-1k validation top-1 (and top-5) for the zoo's vision models
  (ResNet-18/34/50/101/152, MobileNetV2 at widths 0.35-1.4) and the other families the chapter's
  Figure 1 names (AlexNet, VGG, Inception, EfficientNet, ViT, Swin, ConvNeXt). Each also carries
  the *published* operation count in GMACs; for the zoo models ``entry.model()`` builds the same
  network in mlsysim, whose exact MAC count agrees with the published one (tests assert it).
  ``entry.exact_model()`` builds every network mlsysim has a builder for (``exact_entries()``:
  the zoo's and, through ``mlsysim.vision``, Figure 1's AlexNet, VGG-16, GoogLeNet, Inception
  v3, MobileNetV3, EfficientNet, ConvNeXt, Swin and ViT: every entry), so Figure 1 can set the
  exact count beside the published one.
* ``LANGUAGE``: one published benchmark per zoo language model (GPT-2 small and XL: zero-shot
  LAMBADA and WikiText-103; BERT-base: GLUE; Llama-2 7B: MMLU).
* ``pareto_front`` and ``cheapest_meeting``: the frontier of Figure 1 and the selection rule of
  the chapter's phase 2 (cheapest candidate that clears an accuracy bar), for any cost.

Conventions: accuracies are percentages on the stated split; GMACs are 1e9 multiply-accumulates
per image at the stated resolution (torchvision's ``_ops`` metadata is labelled GFLOPS but counts
MACs: ResNet-50's 4.089 equals its 4,089,184,256 MACs).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from . import _check
from .models import Model, mobilenet_v2, resnet

__all__ = [
    "Source",
    "ImageNetResult",
    "LanguageResult",
    "IMAGENET",
    "LANGUAGE",
    "FAMILIES",
    "imagenet",
    "language",
    "zoo_entries",
    "exact_entries",
    "pareto_front",
    "cheapest_meeting",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

#: Figure 1's six legend families (L72), in its order.
FAMILIES = ("legacy CNN", "dense CNN", "mobile", "EfficientNet", "modern CNN", "transformer")


class Source(BaseModel):
    """Where a published figure comes from."""

    model_config = _FROZEN
    document: str = Field(min_length=3)
    url: str = Field(pattern=r"^https?://")
    date: _dt.date
    notes: str = ""


class ImageNetResult(BaseModel):
    """Published ImageNet-1k accuracy of one set of weights, with its published cost."""

    model_config = _FROZEN
    key: str = Field(min_length=1)
    name: str = Field(min_length=1)
    family: Literal[
        "legacy CNN", "dense CNN", "mobile", "EfficientNet", "modern CNN", "transformer"
    ]
    weights: str = Field(min_length=3)
    top1: float = Field(gt=0, lt=100)
    top5: float | None = Field(default=None, gt=0, lt=100)
    resolution: int = Field(ge=32)
    published_gmacs: float = Field(gt=0)
    published_params: int = Field(gt=0)
    source: Source
    zoo: tuple[Literal["resnet", "mobilenet_v2"], float] | None = None
    #: the ``mlsysim.vision`` builder and its first argument (the variant) of a network outside
    #: the zoo, built at ``resolution``
    vision: (
        tuple[
            Literal[
                "alexnet",
                "vgg",
                "inception_v3",
                "mobilenet_v3",
                "efficientnet",
                "convnext",
                "swin",
                "vit",
                "googlenet",
            ],
            str | int | None,
        ]
        | None
    ) = None

    def exact_model(self) -> Model:
        """The same network built by mlsysim at ``resolution``: a zoo entry's ``model()``, or
        its ``mlsysim.vision`` builder (``exact_entries()`` lists the keys that have one)."""
        if self.zoo is not None:
            return self.model()
        if self.vision is None:
            raise ValueError(
                f"{self.key} has no mlsysim builder; allowed: {', '.join(exact_entries())}"
            )
        from . import vision

        builder, arg = self.vision
        kw = {"image_size" if builder == "vit" else "input_size": self.resolution}
        if builder == "googlenet":  # torchvision's GoogLeNet weights drop the auxiliary heads
            kw["aux_logits"] = False  # (Inception v3's keep theirs)
        return getattr(vision, builder)(*(() if arg is None else (arg,)), **kw)

    def model(self) -> Model:
        """The same network built by mlsysim (zoo entries only)."""
        if self.zoo is None:
            raise ValueError(
                f"{self.key} is not in the mlsysim zoo; allowed: {', '.join(zoo_entries())}"
            )
        builder, arg = self.zoo
        return (
            resnet(int(arg), self.resolution)
            if builder == "resnet"
            else mobilenet_v2(arg, self.resolution)
        )


class LanguageResult(BaseModel):
    """A published benchmark figure for a language model (one metric, one split)."""

    model_config = _FROZEN
    key: str = Field(min_length=1)
    name: str = Field(min_length=1)
    preset: str = Field(min_length=1)  # the mlsysim.models.Models preset with this architecture
    benchmark: str = Field(min_length=2)
    metric: Literal["accuracy", "perplexity", "score"]
    value: float = Field(gt=0)
    higher_is_better: bool
    setting: str = Field(min_length=3)
    source: Source


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------

_TV_DOCS = "https://docs.pytorch.org/vision/stable/models.html"
_TV = Source(
    document="torchvision model weights metadata (Weights.meta['_metrics']['ImageNet-1K'], '_ops', "
    "'num_params'); checked against the installed torchvision 0.29.1",
    url=_TV_DOCS,
    date=_dt.date(
        2022, 6, 28
    ),  # torchvision 0.13: the multi-weight API that publishes these fields
    notes="single 224-px center crop unless stated; '_ops' is labelled GFLOPS but counts MACs",
)
_SLIM = Source(
    document="Sandler et al., MobileNetV2 (CVPR 2018), arXiv:1801.04381; checkpoint table of "
    "tensorflow/models research/slim/nets/mobilenet/README.md (also in the Keras "
    "MobileNetV2 docstring)",
    url="https://github.com/tensorflow/models/blob/master/research/slim/nets/mobilenet/README.md",
    date=_dt.date(2018, 1, 13),
    notes="TF-slim checkpoints (1001 classes, so 'Parameters (M)' differs slightly from torchvision's "
    "1000-class count); MACs (M) agree with mlsysim's count to within 1 M",
)
_GPT2 = Source(
    document="Radford et al., Language Models are Unsupervised Multitask Learners (2019), Table 3 "
    "(zero-shot); the 117M row is reproduced on the openai-community/gpt2 model card",
    url="https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
    date=_dt.date(2019, 2, 14),
)
_BERT = Source(
    document="Devlin et al., BERT: Pre-training of Deep Bidirectional Transformers for Language "
    "Understanding (NAACL 2019), Table 1 (GLUE test server)",
    url="https://arxiv.org/abs/1810.04805",
    date=_dt.date(2019, 5, 24),
    notes="GLUE average over 8 tasks (WNLI excluded), BERT-BASE row",
)
_LLAMA2 = Source(
    document="Touvron et al., Llama 2: Open Foundation and Fine-Tuned Chat Models (2023), Table 3",
    url="https://arxiv.org/abs/2307.09288",
    date=_dt.date(2023, 7, 18),
    notes="pretrained base model, MMLU 5-shot",
)


def _tv(
    key,
    name,
    family,
    weights,
    top1,
    top5,
    gmacs,
    params,
    zoo=None,
    resolution=224,
    notes="",
    vision=None,
):
    src = _TV if not notes else _TV.model_copy(update={"notes": f"{_TV.notes}; {notes}"})
    return ImageNetResult(
        key=key,
        name=name,
        family=family,
        weights=f"torchvision {weights}",
        top1=top1,
        top5=top5,
        resolution=resolution,
        published_gmacs=gmacs,
        published_params=params,
        source=src,
        zoo=zoo,
        vision=vision,
    )


def _slim(width, top1, top5, mmacs, mparams):
    tag = f"{width:g}".replace(".", "")
    return ImageNetResult(
        key=f"MobileNetV2_{tag}",
        name=f"MobileNetV2 ×{width:g}",
        family="mobile",
        weights=f"TF-slim mobilenet_v2_{width:g}_224",
        top1=top1,
        top5=top5,
        resolution=224,
        published_gmacs=mmacs / 1000,
        published_params=round(mparams * 1e6),
        source=_SLIM,
        zoo=("mobilenet_v2", width),
    )


_ENTRIES = [
    # Figure 1's legacy CNNs (gray)
    _tv(
        "AlexNet",
        "AlexNet",
        "legacy CNN",
        "AlexNet_Weights.IMAGENET1K_V1",
        56.522,
        79.066,
        0.714,
        61_100_840,
        notes="torchvision's retrained single model; the 2012 paper's single-model top-1 error was 40.7%",
        vision=("alexnet", None),
    ),
    _tv(
        "VGG16",
        "VGG-16",
        "legacy CNN",
        "VGG16_Weights.IMAGENET1K_V1",
        71.592,
        90.382,
        15.47,
        138_357_544,
        vision=("vgg", 16),
    ),
    _tv(
        "GoogLeNet",
        "GoogLeNet (Inception v1)",
        "legacy CNN",
        "GoogLeNet_Weights.IMAGENET1K_V1",
        69.778,
        89.53,
        1.498,
        6_624_904,
        vision=("googlenet", None),
    ),
    _tv(
        "InceptionV3",
        "Inception-v3",
        "legacy CNN",
        "Inception_V3_Weights.IMAGENET1K_V1",
        77.294,
        93.45,
        5.713,
        27_161_264,
        resolution=299,
        notes="299-px crop",
        vision=("inception_v3", None),
    ),
    # dense CNNs (blue): the zoo's ResNets
    _tv(
        "ResNet18",
        "ResNet-18",
        "dense CNN",
        "ResNet18_Weights.IMAGENET1K_V1",
        69.758,
        89.078,
        1.814,
        11_689_512,
        zoo=("resnet", 18),
    ),
    _tv(
        "ResNet34",
        "ResNet-34",
        "dense CNN",
        "ResNet34_Weights.IMAGENET1K_V1",
        73.314,
        91.42,
        3.664,
        21_797_672,
        zoo=("resnet", 34),
    ),
    _tv(
        "ResNet50",
        "ResNet-50",
        "dense CNN",
        "ResNet50_Weights.IMAGENET1K_V1",
        76.13,
        92.862,
        4.089,
        25_557_032,
        zoo=("resnet", 50),
    ),
    _tv(
        "ResNet50_V2",
        "ResNet-50 (2021 recipe)",
        "dense CNN",
        "ResNet50_Weights.IMAGENET1K_V2",
        80.858,
        95.434,
        4.089,
        25_557_032,
        zoo=("resnet", 50),
        notes="same architecture and cost as ResNet50, newer training recipe (torchvision issue 3995); "
        "evaluated with a 232-px resize",
    ),
    _tv(
        "ResNet101",
        "ResNet-101",
        "dense CNN",
        "ResNet101_Weights.IMAGENET1K_V1",
        77.374,
        93.546,
        7.801,
        44_549_160,
        zoo=("resnet", 101),
    ),
    _tv(
        "ResNet152",
        "ResNet-152",
        "dense CNN",
        "ResNet152_Weights.IMAGENET1K_V1",
        78.312,
        94.046,
        11.514,
        60_192_808,
        zoo=("resnet", 152),
    ),
    # mobile (green): MobileNetV2 at its widths
    _slim(0.35, 60.3, 82.9, 59, 1.66),
    _slim(0.5, 65.4, 86.4, 97, 1.95),
    _slim(0.75, 69.8, 89.6, 209, 2.61),
    _tv(
        "MobileNetV2",
        "MobileNetV2",
        "mobile",
        "MobileNet_V2_Weights.IMAGENET1K_V1",
        71.878,
        90.286,
        0.301,
        3_504_872,
        zoo=("mobilenet_v2", 1.0),
    ),
    _slim(1.4, 75.0, 92.5, 582, 6.06),
    _tv(
        "MobileNetV3L",
        "MobileNetV3-Large",
        "mobile",
        "MobileNet_V3_Large_Weights.IMAGENET1K_V1",
        74.042,
        91.34,
        0.217,
        5_483_032,
        vision=("mobilenet_v3", "large"),
    ),
    # EfficientNet class (violet)
    _tv(
        "EfficientNetB0",
        "EfficientNet-B0",
        "EfficientNet",
        "EfficientNet_B0_Weights.IMAGENET1K_V1",
        77.692,
        93.532,
        0.386,
        5_288_548,
        vision=("efficientnet", "b0"),
    ),
    # modern CNN (orange)
    _tv(
        "ConvNeXtT",
        "ConvNeXt-T",
        "modern CNN",
        "ConvNeXt_Tiny_Weights.IMAGENET1K_V1",
        82.52,
        96.146,
        4.456,
        28_589_128,
        vision=("convnext", "tiny"),
    ),
    # transformers (red)
    _tv(
        "SwinT",
        "Swin-T",
        "transformer",
        "Swin_T_Weights.IMAGENET1K_V1",
        81.474,
        95.776,
        4.491,
        28_288_354,
        vision=("swin", "t"),
    ),
    _tv(
        "ViTB16",
        "ViT-B/16",
        "transformer",
        "ViT_B_16_Weights.IMAGENET1K_V1",
        81.072,
        95.318,
        17.564,
        86_567_656,
        notes="trained on ImageNet-1k only, 224 px",
        vision=("vit", "b_16"),
    ),
    _tv(
        "ViTB16_SWAG384",
        "ViT-B/16 @384 (SWAG pretraining)",
        "transformer",
        "ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1",
        85.304,
        97.65,
        55.484,
        86_859_496,
        resolution=384,
        notes="pretrained on 3.6 B weakly labelled Instagram images (SWAG), fine-tuned at 384 px: more data, "
        "not a different architecture",
        vision=("vit", "b_16"),
    ),
]

#: Every published ImageNet result, by key.
IMAGENET: dict[str, ImageNetResult] = {e.key: e for e in _ENTRIES}

_LM = [
    LanguageResult(
        key="GPT2Small_LAMBADA",
        name="GPT-2 small (117M/124M)",
        preset="GPT2Small",
        benchmark="LAMBADA",
        metric="accuracy",
        value=45.99,
        higher_is_better=True,
        setting="zero-shot",
        source=_GPT2,
    ),
    LanguageResult(
        key="GPT2Small_WikiText103",
        name="GPT-2 small (117M/124M)",
        preset="GPT2Small",
        benchmark="WikiText-103",
        metric="perplexity",
        value=37.50,
        higher_is_better=False,
        setting="zero-shot",
        source=_GPT2,
    ),
    LanguageResult(
        key="GPT2_LAMBADA",
        name="GPT-2 XL (1542M)",
        preset="GPT2",
        benchmark="LAMBADA",
        metric="accuracy",
        value=63.24,
        higher_is_better=True,
        setting="zero-shot",
        source=_GPT2,
    ),
    LanguageResult(
        key="GPT2_WikiText103",
        name="GPT-2 XL (1542M)",
        preset="GPT2",
        benchmark="WikiText-103",
        metric="perplexity",
        value=17.48,
        higher_is_better=False,
        setting="zero-shot",
        source=_GPT2,
    ),
    LanguageResult(
        key="BERTBase_GLUE",
        name="BERT-base",
        preset="BERTBase",
        benchmark="GLUE (test)",
        metric="score",
        value=79.6,
        higher_is_better=True,
        setting="fine-tuned per task",
        source=_BERT,
    ),
    LanguageResult(
        key="Llama7B_MMLU",
        name="Llama-2 7B",
        preset="Llama7B",
        benchmark="MMLU",
        metric="accuracy",
        value=45.3,
        higher_is_better=True,
        setting="5-shot",
        source=_LLAMA2,
    ),
]

#: Every published language-model result, by key.
LANGUAGE: dict[str, LanguageResult] = {e.key: e for e in _LM}


def imagenet(key: str) -> ImageNetResult:
    """One ImageNet result by key; an unknown key names the allowed ones."""
    if not isinstance(key, str) or key not in IMAGENET:
        raise ValueError(
            f"model={_check._short(key)} has no published ImageNet result here; allowed: {', '.join(IMAGENET)}"
        )
    return IMAGENET[key]


def language(key: str) -> LanguageResult:
    """One language-model result by key; an unknown key names the allowed ones."""
    if not isinstance(key, str) or key not in LANGUAGE:
        raise ValueError(
            f"result={_check._short(key)} is not recorded; allowed: {', '.join(LANGUAGE)}"
        )
    return LANGUAGE[key]


def zoo_entries() -> list[str]:
    """Keys of the ImageNet results of the zoo's ResNets and MobileNetV2 widths (the roster the
    lessons' engine axes cost)."""
    return [k for k, e in IMAGENET.items() if e.zoo is not None]


def exact_entries() -> list[str]:
    """Keys of every ImageNet result whose network mlsysim builds (``entry.exact_model()``):
    the zoo's and Figure 1's other networks through ``mlsysim.vision``."""
    return [k for k, e in IMAGENET.items() if e.zoo is not None or e.vision is not None]


#: Most items ``pareto_front`` and ``cheapest_meeting`` rank (each is scored by a function).
MAX_ITEMS = 100_000


def _check_ranking(items, cost, value) -> list:
    """``items``' distinct keys in order (each hashable), once ``cost`` and ``value`` are known to
    be functions."""
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise ValueError(f"items must be a list of keys, got {_check._short(items)}")
    for name, fn in (("cost", cost), ("value", value)):
        if not callable(fn):
            raise ValueError(f"{name} must be a function of a key, got {_check._short(fn)}")
    import itertools

    try:
        # at most MAX_ITEMS read: an endless iterator (itertools.count()) would never end
        keys = list(dict.fromkeys(itertools.islice(items, MAX_ITEMS + 1)))
        if len(keys) > MAX_ITEMS:
            raise ValueError(
                f"items must hold at most {MAX_ITEMS:,} keys, got more (or an endless iterator)"
            )
        return keys
    except TypeError:
        raise ValueError(
            f"items must be a list of keys (strings), got {_check._short(items)}"
        ) from None


def _score(name: str, fn: Callable, key, lo: float = -math.inf) -> float:
    """``fn(key)`` as a finite float >= ``lo``, or a ValueError naming ``name`` and the key."""
    v = fn(key)
    try:
        return _check.real(f"{name}({key!r})", v, lo)
    except ValueError:
        bound = "" if lo == -math.inf else f" >= {lo:g}"
        raise ValueError(
            f"{name} must return a finite number{bound} for every key; {name}({_check._short(key)}) "
            f"returned {_check._short(v)}"
        ) from None


def pareto_front(
    items: Iterable[str], cost: Callable[[str], float], value: Callable[[str], float]
) -> list[str]:
    """The items no other item beats on both axes (lower ``cost``, higher ``value``), cheapest first.

    An item is dominated when another costs no more and scores at least as well, strictly better
    on one of the two. This is the chapter's definition of Figure 1's frontier (L62)."""
    keys = _check_ranking(items, cost, value)
    if not keys:
        raise ValueError("items must not be empty")
    pts = {k: (_score("cost", cost, k, 0.0), _score("value", value, k)) for k in keys}
    front = [
        k
        for k, (c, v) in pts.items()
        if not any((c2 <= c and v2 >= v) and (c2 < c or v2 > v) for c2, v2 in pts.values())
    ]
    return sorted(front, key=lambda k: pts[k])


def cheapest_meeting(
    items: Sequence[str], bar: float, cost: Callable[[str], float], value: Callable[[str], float]
) -> str | None:
    """The cheapest item whose ``value`` is at least ``bar`` (ties: the higher value), or None
    when nothing clears the bar. The cheapest such item is always on the Pareto front."""
    keys = _check_ranking(items, cost, value)
    bar = _check.real("bar", bar, -math.inf)
    values = {k: _score("value", value, k) for k in keys}
    ok = [k for k in keys if values[k] >= bar]
    if not ok:
        return None
    costs = {k: _score("cost", cost, k, 0.0) for k in ok}  # only the items that clear the bar
    return min(ok, key=lambda k: (costs[k], -values[k]))

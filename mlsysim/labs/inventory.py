"""The chapter's concept inventory: twelve core concepts, two isomorphic items each, asked once
before the labs (``labs/s06_00_inventory_pre.py``) and once after Lab 06
(``labs/s06_14_inventory_post.py``), summarised for the instructor by Hake's normalized gain
(``mlsysim.labs.reports.inventory_summary``).

Isomorphic: the two items of a concept ask the same thing (behaviour, regime or direction) on a
different scenario (model, device, numbers), and their wrong options stand for the *same* named
misconceptions under the same option keys, so a distractor chosen before and one chosen after
can be compared.

Counterbalancing: which item of a pair a student meets first is decided by a seed derived from
the name or ID they enter (``seed_for``): SHA-256 of ``"mlsysim-inventory-v1"``, a NUL byte and
the name normalized (Unicode NFKC, case-folded, runs of whitespace made one space, trimmed); its
first 16 hex digits are the seed, and bit ``i`` of it picks item 1 (0) or item 2 (1) of concept
``i`` for the pre-test. No name entered: the empty name's seed (one fixed form; such a report
cannot be matched to its other half, and the class view counts it apart). Over a class each item is the pre-test item for about half the students
(tests/test_inventory.py: balanced over 1,000 generated names), so a pair's difference in
difficulty cancels out of the class's gain. An item the student has already answered keeps its
place (a name typed later never swaps a committed item), and the post-test asks the *other*
item of each pair: the one not answered in the pre-test where the ledger has it, else the seed's.

The pre-test shows no verdict, no feedback and no answer key, not even in instructor mode (the
pre-test must not teach the post-test); the post-test shows the student's own before and after
per concept, with the feedback of both items, once every post item is committed.

Every number a stem states is an input of the scenario; the answer of every item is derived from
the core in ``tests/test_inventory.py`` (the answer-key test of the labs, for the inventory).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from types import ModuleType

from .components import Misconception, Prediction

__all__ = [
    "Concept",
    "CONCEPTS",
    "PRE",
    "POST",
    "seed_for",
    "pre_items",
    "post_items",
    "item_key",
    "concept_of",
]

SEED_SALT = "mlsysim-inventory-v1"


@dataclass(frozen=True)
class Concept:
    """One concept of the inventory: a ``key`` (upper-case, the report's part name), a title,
    the statement a student should leave with, and its two isomorphic items."""

    key: str
    title: str
    statement: str
    items: tuple[Prediction, Prediction]

    def __post_init__(self):
        if not re.fullmatch(r"[A-Z][A-Z0-9]*", self.key):
            raise ValueError(f"key must be upper-case letters and digits, got {self.key!r}")
        if len(self.items) != 2 or not all(isinstance(p, Prediction) for p in self.items):
            raise ValueError(f"{self.key}: items must be two Predictions")


def _pair(
    key: str,
    title: str,
    statement: str,
    asks: str,
    traps: dict[str, Misconception],
    first: dict,
    second: dict,
) -> Concept:
    """A concept whose two items share ``asks`` and the misconceptions ``traps`` (wrong option
    key -> Misconception): each item dict gives question, options, answer, feedback, reveals."""
    items = tuple(
        Prediction(
            question=d["question"],
            options=d["options"],
            answer=d["answer"],
            feedback=d["feedback"],
            reveals=tuple(d.get("reveals", ())),
            asks=asks,
            misconceptions=traps,
        )
        for d in (first, second)
    )
    return Concept(key, title, statement, items)


_M = Misconception

# ---------------------------------------------------------------------------------------------
# The twelve concepts
# ---------------------------------------------------------------------------------------------

PRIOR = _pair(
    "PRIOR",
    "An inductive bias trades parameters for assumptions",
    "A convolution assumes locality and reuses one small filter at every position: it needs far "
    "fewer weights than a dense layer producing the same output.",
    "direction",
    {
        "same": _M(
            "same output, same weights",
            "Two layers that produce the same output size need about the same number of weights",
        ),
        "more": _M(
            "sliding costs weights",
            "A filter applied at every position needs its own weights at every position",
        ),
    },
    dict(
        question=(
            "A layer maps a 32×32 single-channel image to 16 feature maps of 32×32. You swap "
            "its dense weights for a 3×3 convolution with 16 filters. What happens to the "
            "number of weights?"
        ),
        options={
            "fewer": "It falls by orders of magnitude: one filter is reused",
            "same": "It stays about the same: the output keeps the same size",
            "more": "It grows: the filter needs weights at every position it visits",
        },
        answer="fewer",
        feedback={
            "fewer": "The dense layer gives every input pixel a weight to every output value; the "
            "convolution keeps one 3×3 filter per output map and slides it. The assumption "
            "(nearby pixels matter, the same pattern anywhere) replaces the weights.",
            "same": "The output size is the same, but the dense layer pays a weight for every "
            "(input, output) pair, the convolution one 3×3 filter per map, reused everywhere.",
            "more": "Sliding reuses the same filter at every position: that is weight sharing. "
            "The cost of sliding is arithmetic, not weights.",
        },
        reveals=("orders of magnitude",),
    ),
    dict(
        question=(
            "A keyword spotter reads a 49×10 spectrogram into 64 feature maps of the same size. "
            "Its designer swaps the dense front layer for a 3×3 convolution with 64 filters. "
            "What happens to the number of weights?"
        ),
        options={
            "fewer": "It falls by orders of magnitude: the filter is shared",
            "same": "It stays about the same: the feature maps keep their size",
            "more": "It grows: every position the filter visits needs its weights",
        },
        answer="fewer",
        feedback={
            "fewer": "One 3×3 filter per map, applied at all 490 positions, replaces a weight for "
            "every (input cell, output value) pair: locality and translation equivariance are "
            "assumptions that stand in for weights.",
            "same": "The maps keep their size, but a dense layer pays per (input, output) pair and "
            "the convolution per filter: the weights fall by orders of magnitude.",
            "more": "A convolution reuses one filter at every position (weight sharing); what "
            "grows with the positions is its arithmetic, not its weights.",
        },
        reveals=("the filter is shared",),
    ),
)

REGIME = _pair(
    "REGIME",
    "Memory-bound or compute-bound, and what moves a workload",
    "At batch one a dense layer reads every weight to use it once: its time is set by memory "
    "bandwidth, however large the layer; reuse (batching) moves it toward compute.",
    "regime",
    {
        "compute": _M(
            "a big layer is compute-bound",
            "A layer with millions of multiply-adds must be limited by the arithmetic",
        ),
        "balanced": _M(
            "the chip is balanced for any layer",
            "A GPU is built so that its memory keeps up with its arithmetic on any layer",
        ),
    },
    dict(
        question=(
            "A 4,096 × 4,096 FP16 dense layer serves one request at a time on an H100. Which "
            "resource sets its time?"
        ),
        options={
            "memory": "Memory bandwidth: each weight is read once to be used once",
            "compute": "Arithmetic: sixteen million multiply-adds is heavy work",
            "balanced": "Neither: the GPU keeps its memory and arithmetic in step",
        },
        answer="memory",
        feedback={
            "memory": "At batch one each 2-byte weight feeds one multiply-add: about 1 FLOP per "
            "byte, far below the H100's ridge point of hundreds of FLOPs per byte. Batching "
            "reuses each fetched weight and moves the layer toward compute.",
            "compute": "The multiply-adds are many, but the tensor cores finish them long before "
            "the weights arrive: what decides the regime is FLOPs per byte moved, not FLOPs.",
            "balanced": "A chip is balanced only at its ridge point (hundreds of FLOPs per byte "
            "on an H100); a batch-one dense layer does about one, so bandwidth binds.",
        },
        reveals=("each weight is read once",),
    ),
    dict(
        question=(
            "An 8,192 × 8,192 FP16 projection runs on an A100 for a single user, batch one. "
            "Which resource sets its time?"
        ),
        options={
            "memory": "Memory bandwidth: every weight is fetched to be used once",
            "compute": "Arithmetic: sixty-seven million multiply-adds dominate",
            "balanced": "Neither: the GPU's memory keeps pace with its arithmetic",
        },
        answer="memory",
        feedback={
            "memory": "One request uses each fetched weight once: about 1 FLOP per byte, against "
            "the A100's ridge of well over a hundred. Only reuse (a batch, several tokens at "
            "once) moves the projection toward compute.",
            "compute": "The arithmetic is large but the A100 does it far faster than it can read "
            "134 MB of weights: the regime follows FLOPs per byte, not the FLOP count.",
            "balanced": "The A100 is balanced only for work near its ridge point; at batch one "
            "the projection sits two orders of magnitude below it, bandwidth-bound.",
        },
        reveals=("fetched to be used once",),
    ),
)

BATCHING = _pair(
    "BATCHING",
    "Batching amortizes weights, not activations or caches",
    "A batch reads each weight once for every request in it: the weight traffic per request "
    "falls with the batch, while each request keeps its own activations and its own cache.",
    "behaviour",
    {
        "everything": _M(
            "batching shares everything",
            "Requests in a batch share all of their memory, so every cost per request falls",
        ),
        "nothing": _M(
            "a batch is just N requests",
            "A batch of N costs exactly N single requests: nothing per request changes",
        ),
    },
    dict(
        question=(
            "An image classifier on an A100 moves from serving requests one at a time to "
            "batches of 64. Per request, what happens to its weight traffic and its activation "
            "memory?"
        ),
        options={
            "weights": "Weight traffic falls about 64-fold: activations stay per image",
            "everything": "Both fall about 64-fold: the batch shares weights and feature maps",
            "nothing": "Neither changes: each request does all its own work",
        },
        answer="weights",
        feedback={
            "weights": "Each weight fetched from memory now feeds 64 requests, so its traffic per "
            "request falls 64-fold; each image still has its own feature maps, so activation "
            "memory grows with the batch.",
            "everything": "Feature maps belong to one image each: a batch of 64 holds 64 sets of "
            "them. Only the weights are read once for all.",
            "nothing": "The arithmetic per request is unchanged, but the weights are read once "
            "per batch instead of once per request: that traffic falls 64-fold.",
        },
        reveals=("activations stay per image",),
    ),
    dict(
        question=(
            "A chat model's server on an H100 decodes for 32 users in one batch instead of one "
            "user at a time. What happens to the weight reads per generated token, and to each "
            "user's KV cache?"
        ),
        options={
            "weights": "Weight reads fall about 32-fold: each user keeps their own cache",
            "everything": "Both fall about 32-fold: the users share the weights and one cache",
            "nothing": "Neither changes: each token still needs the whole model",
        },
        answer="weights",
        feedback={
            "weights": "Every decode step reads all the weights once and uses them for all 32 "
            "users: weight traffic per token falls 32-fold. Each user keeps their own KV cache, "
            "which grows with the batch.",
            "everything": "Each user's cache holds the keys and values of their own conversation: "
            "32 users hold 32 caches. Only the weights are shared by the batch.",
            "nothing": "Each token still needs the whole model's arithmetic, but the weights are "
            "read once for the 32 tokens of a step: that traffic falls 32-fold.",
        },
        reveals=("each user keeps their own cache",),
    ),
)

ATTENTION = _pair(
    "ATTENTION",
    "Attention's score memory grows with the square of the context",
    "Self-attention scores every token against every other: the score matrix has S × S entries "
    "per head, so doubling the context quadruples it.",
    "direction",
    {
        "linear": _M(
            "attention grows with length",
            "Attention's memory grows in proportion to the number of tokens",
        ),
        "fixed": _M(
            "width sets attention's size",
            "Attention's memory is fixed by the model's width and heads, not by the context",
        ),
    },
    dict(
        question=(
            "BERT-Base's input grows from 256 to 512 tokens. How does the memory of one "
            "layer's attention score matrix change?"
        ),
        options={
            "square": "It grows 4-fold: it scores every pair of tokens",
            "linear": "It doubles: there are twice as many tokens to score",
            "fixed": "It stays the same: the heads and width did not change",
        },
        answer="square",
        feedback={
            "square": "The scores form an S × S matrix per head: twice the tokens, twice the rows "
            "and twice the columns, four times the entries.",
            "linear": "The number of rows doubles, and so does the number of columns: each new "
            "token is scored against every token, old and new.",
            "fixed": "The width fixes the projections' weights; the score matrix is S × S per head "
            "and grows with the context, fourfold here.",
        },
        reveals=("scores every pair of tokens",),
    ),
    dict(
        question=(
            "A Llama-2 7B deployment raises its context from 1,024 to 4,096 tokens. How does "
            "the memory of one layer's attention score matrix change?"
        ),
        options={
            "square": "It grows 16-fold: it scores every pair of tokens",
            "linear": "It grows 4-fold: four times as many tokens to score",
            "fixed": "It stays the same: the model's width did not change",
        },
        answer="square",
        feedback={
            "square": "Four times the tokens gives four times the rows and four times the columns "
            "of the S × S score matrix: sixteen times the entries.",
            "linear": "Rows and columns both grow fourfold: every token is scored against every "
            "other, so the matrix grows 16-fold.",
            "fixed": "The width sets the weights; the scores are S × S per head and grow with the "
            "square of the context.",
        },
        reveals=("scores every pair of tokens",),
    ),
)

KVCACHE = _pair(
    "KVCACHE",
    "The KV cache grows with context × users",
    "Each user's cache holds keys and values for every token of their context in every layer: "
    "the total grows with the product of context and users (GQA shrinks the per-token share).",
    "direction",
    {
        "one": _M(
            "the cache follows one factor",
            "The KV cache grows with the context or with the users, not with their product",
        ),
        "fixed": _M(
            "the cache is part of the model",
            "The KV cache is sized by the model, like its weights, not by the load",
        ),
    },
    dict(
        question=(
            "A Llama-2 7B service doubles both its context length and its number of concurrent "
            "users. How does the total KV cache change?"
        ),
        options={
            "product": "It grows 4-fold: users and tokens both double",
            "one": "It doubles: the cache follows the longer context",
            "fixed": "It stays the same: the cache is sized by the model",
        },
        answer="product",
        feedback={
            "product": "The cache holds keys and values per token, per user, per layer: twice the "
            "tokens for twice the users is four times the cache. GQA would shrink each token's "
            "share, not this scaling.",
            "one": "Each of twice as many users now caches twice as many tokens: the product "
            "grows fourfold, not twofold.",
            "fixed": "The weights are fixed by the model; the cache is written by the load, one "
            "entry per token per user, and grows fourfold here.",
        },
        reveals=("users and tokens both double",),
    ),
    dict(
        question=(
            "A GPT-2 XL chat service now keeps three times as many conversations open, each "
            "three times as long. How does its total KV cache change?"
        ),
        options={
            "product": "It grows 9-fold: users and tokens both triple",
            "one": "It triples: the cache follows the longer context",
            "fixed": "It stays the same: the cache belongs to the model",
        },
        answer="product",
        feedback={
            "product": "Three times the conversations, each caching three times the tokens: "
            "3 × 3 = 9 times the keys and values.",
            "one": "The context triples and so does the number of users: the cache follows their "
            "product, ninefold.",
            "fixed": "The cache is filled by the load, one entry per token per user per layer: "
            "3 × 3 = 9 times as large.",
        },
        reveals=("users and tokens both triple",),
    ),
)

FLOPS = _pair(
    "FLOPS",
    "FLOPs are not latency",
    "A model with fewer FLOPs is not faster in proportion: many small layers are limited by "
    "memory and by kernel launches, which FLOPs do not count.",
    "behaviour",
    {
        "proportional": _M(
            "time follows FLOPs",
            "Latency is proportional to the number of floating-point operations",
        ),
        "more": _M(
            "fewer FLOPs save even more time",
            "A lighter model also moves less data, so it gains even more than its FLOPs",
        ),
    },
    dict(
        question=(
            "A keyword-spotting DS-CNN needs about 470× fewer FLOPs than ResNet-50. Served at "
            "batch one on an A100 in eager PyTorch, how much faster is it?"
        ),
        options={
            "less": "Far less than 470×: FLOPs do not set its time",
            "proportional": "About 470×: latency follows the FLOP count",
            "more": "More than 470×: it also reads far fewer bytes from memory",
        },
        answer="less",
        feedback={
            "less": "At batch one both networks spend most of their time launching kernels and "
            "reading weights, and the small model still launches a kernel per layer: it gains "
            "only a small fraction of the 470×.",
            "proportional": "FLOPs count arithmetic; at batch one on a GPU the arithmetic is a small "
            "share of the time, which goes to launches and memory traffic.",
            "more": "Its bytes shrink less than its FLOPs (depthwise layers do little arithmetic "
            "per byte), and its launches shrink far less still.",
        },
        reveals=("FLOPs do not set its time",),
    ),
    dict(
        question=(
            "On a Jetson Orin NX at batch one in eager PyTorch, a 3×3 convolution with 256 "
            "channels on a 14×14 map is replaced by its depthwise separable version, about 9× fewer FLOPs. How "
            "much faster does the layer run?"
        ),
        options={
            "less": "Far less than 9×: FLOPs do not set its time",
            "proportional": "About 9×: the time follows the FLOP count",
            "more": "More than 9×: it also reads far fewer bytes from memory",
        },
        answer="less",
        feedback={
            "less": "The depthwise separable version runs two kernels instead of one and does "
            "little arithmetic per byte: launches and memory set its time, so the FLOP saving "
            "shows only in part.",
            "proportional": "FLOPs count the arithmetic; a small layer at batch one spends most of "
            "its time launching kernels and moving bytes, which FLOPs do not count.",
            "more": "The split adds a kernel launch and its bytes fall less than its FLOPs: the "
            "gain is below 9×, not above.",
        },
        reveals=("FLOPs do not set its time",),
    ),
)

LAUNCH = _pair(
    "LAUNCH",
    "Launch overhead dominates small work at small batch",
    "A GPU pays a fixed cost to launch each kernel: a small model at batch one spends most of "
    "its time launching kernels, neither computing nor moving data.",
    "regime",
    {
        "compute": _M(
            "GPU time is arithmetic",
            "The time of a model on a GPU is the time of its floating-point operations",
        ),
        "memory": _M(
            "small models are bandwidth-bound",
            "A model too small to be compute-bound must be limited by memory bandwidth",
        ),
    },
    dict(
        question=(
            "A keyword-spotting CNN (several million multiply-adds) runs at batch one on an "
            "H100 in eager PyTorch. What takes most of its time?"
        ),
        options={
            "launch": "Launching kernels: each costs more than the layer's work",
            "compute": "Arithmetic: its convolutions do many multiply-adds",
            "memory": "Memory traffic: its weights stream from HBM",
        },
        answer="launch",
        feedback={
            "launch": "Its arithmetic and weight traffic each take well under a microsecond per "
            "layer on an H100, while every kernel launch costs about 5 µs: a small model at "
            "batch one is launch-bound. Fusing kernels or batching requests helps.",
            "compute": "Several million multiply-adds take the H100 a fraction of a microsecond; the "
            "launches take about 5 µs each.",
            "memory": "Its weights are a few hundred kilobytes, read in well under a "
            "microsecond at HBM speed; the launches take far longer.",
        },
        reveals=("costs more than the layer's work",),
    ),
    dict(
        question=(
            "A small two-convolution CNN classifies MNIST digits one at a time on an A100 in "
            "eager PyTorch. Where does most of its time go?"
        ),
        options={
            "launch": "Launching kernels: each launch outlasts the layer's work",
            "compute": "Arithmetic: the network does millions of multiply-adds",
            "memory": "Memory traffic: its weights stream from HBM",
        },
        answer="launch",
        feedback={
            "launch": "Each layer's arithmetic and bytes take a fraction of a microsecond on an "
            "A100; each launch about 5 µs. Batching requests or compiling the network into fewer "
            "kernels is what speeds it up.",
            "compute": "A few million multiply-adds are nothing for an A100: well under a "
            "microsecond in all, against about 5 µs per launch.",
            "memory": "Its weights are under a megabyte, read in under a microsecond at HBM "
            "speed; the launches dominate.",
        },
        reveals=("launch outlasts the layer's work",),
    ),
)

EMBEDDING = _pair(
    "EMBEDDING",
    "Embedding lookups are bandwidth, not FLOPs",
    "An embedding lookup reads a row of a table and does almost no arithmetic: recommendation "
    "models are limited by memory (bandwidth, then capacity), not by FLOPs.",
    "regime",
    {
        "compute": _M(
            "parameters mean FLOPs",
            "A model with billions of parameters must do billions of operations per query",
        ),
        "free": _M(
            "once it fits, it is fast",
            "A table that fits in memory costs nothing more to read from",
        ),
    },
    dict(
        question=(
            "A recommender's 10-million-row FP32 embedding table (64 values a row) sits in an "
            "A100's memory; each request pools 26 lookups, 4,096 requests a batch. Which "
            "resource sets the time of the lookups?"
        ),
        options={
            "bandwidth": "Memory bandwidth: each lookup reads a row and does no arithmetic",
            "compute": "Arithmetic: a table this large means heavy computation",
            "free": "Nothing much: a table in memory makes lookups nearly free",
        },
        answer="bandwidth",
        feedback={
            "bandwidth": "A lookup is a gather: it reads 64 values and multiplies nothing. With "
            "thousands of lookups per batch, the time is bytes over bandwidth; the FLOP count "
            "is zero.",
            "compute": "Parameters are not operations: a lookup reads one row of the table and "
            "adds nothing up but the pooling.",
            "free": "Fitting decides whether it runs at all; how fast then depends on the bytes "
            "read each batch and the memory's bandwidth.",
        },
        reveals=("reads a row and does no arithmetic",),
    ),
    dict(
        question=(
            "A news feed's 50-million-row FP16 item table (128 values a row) is on an H100; a "
            "batch of 8,192 users reads 40 rows each. Which resource sets the lookups' time?"
        ),
        options={
            "bandwidth": "Memory bandwidth: a lookup is a read with no arithmetic",
            "compute": "Arithmetic: so many parameters need heavy computation",
            "free": "Nothing much: in-memory reads are nearly free",
        },
        answer="bandwidth",
        feedback={
            "bandwidth": "Each of the batch's lookups gathers 128 values and computes nothing: "
            "the time is the bytes read over the H100's bandwidth.",
            "compute": "The table's size counts parameters, not operations; each lookup reads a "
            "row and does no multiply-add.",
            "free": "Fitting in memory makes the reads possible, not free: each batch still reads "
            "its rows at the memory's bandwidth.",
        },
        reveals=("read with no arithmetic",),
    ),
)

ENERGY = _pair(
    "ENERGY",
    "Moving data costs more energy than computing on it",
    "Reading a value from DRAM costs two to three orders of magnitude more energy than the "
    "multiply-add that uses it: energy follows data movement.",
    "behaviour",
    {
        "compute": _M(
            "energy is arithmetic",
            "The energy of a model is the energy of its multiply-adds; reads are cheap",
        ),
        "equal": _M(
            "an operation is an operation",
            "Reading a value and computing with it cost about the same energy",
        ),
    },
    dict(
        question=(
            "On a 45 nm chip, an FP32 multiply-add uses a weight read from DRAM. Which costs "
            "more energy: the read or the multiply-add?"
        ),
        options={
            "move": "The DRAM read, by far: moving data dominates",
            "compute": "The multiply-add: arithmetic is the costly part",
            "equal": "About the same: each is one operation",
        },
        answer="move",
        feedback={
            "move": "With the chapter's 45 nm figures, a 32-bit DRAM read costs over a hundred times the "
            "FP32 multiply-add that uses it. Reuse (batching, on-chip buffers) saves energy for "
            "the same reason it saves time.",
            "compute": "The multiply-add costs a few picojoules; the DRAM read hundreds: the "
            "arithmetic is the cheap part.",
            "equal": "A DRAM read drives off-chip wires and a memory array: it costs over a "
            "hundred multiply-adds.",
        },
        reveals=("moving data dominates",),
    ),
    dict(
        question=(
            "A battery sensor runs an INT8 model whose weights stream from DRAM at batch one. "
            "For one weight, which costs more energy: its DRAM read or its INT8 multiply-add?"
        ),
        options={
            "move": "The DRAM read, by far: data movement dominates",
            "compute": "The multiply-add: the arithmetic costs the energy",
            "equal": "About the same: one read, one operation",
        },
        answer="move",
        feedback={
            "move": "An INT8 multiply-add is a fraction of a picojoule; reading its byte from DRAM "
            "costs hundreds of times more. Quantizing shrinks the bytes, which is where the "
            "energy goes.",
            "compute": "INT8 arithmetic is the cheapest part of the chip's work; reading the "
            "weight from DRAM costs hundreds of multiply-adds.",
            "equal": "Off-chip reads cost far more than on-chip arithmetic: hundreds of INT8 "
            "multiply-adds per byte read.",
        },
        reveals=("data movement dominates",),
    ),
)

DEVICE = _pair(
    "DEVICE",
    "The device decides the architecture",
    "The same model meets different binding constraints on different devices: on small devices "
    "memory capacity decides first, before speed is even a question.",
    "regime",
    {
        "flops": _M(
            "FLOPs decide everywhere",
            "Whether a model deploys is decided by its FLOP count on every device",
        ),
        "portable": _M(
            "a good model runs anywhere",
            "A model that runs well on a big device runs everywhere, only slower",
        ),
    },
    dict(
        question=(
            "A team moves Llama-2 7B in FP16 from an H100 server onto an iPhone 15 Pro. What stops "
            "it first?"
        ),
        options={
            "memory": "Memory capacity: its weights do not fit the phone",
            "flops": "Arithmetic: the phone has far fewer FLOP/s",
            "portable": "Nothing: it runs, only more slowly",
        },
        answer="memory",
        feedback={
            "memory": "Seven billion FP16 weights are about 13.5 GB; the phone has 8 GB for "
            "everything. On the phone the first question is capacity; speed comes after "
            "quantizing or choosing a smaller model.",
            "flops": "Speed would matter only once it fits; its weights alone exceed the phone's "
            "memory.",
            "portable": "A model that does not fit does not run at all: the device's memory "
            "decides before its speed does.",
        },
        reveals=("do not fit the phone",),
    ),
    dict(
        question=(
            "A wake-word model built for a phone, 2 million INT8 weights, is moved to an "
            "Arduino Nano 33 BLE Sense. What stops it first?"
        ),
        options={
            "memory": "Memory capacity: its weights overflow the board's flash",
            "flops": "Arithmetic: the microcontroller is too slow for it",
            "portable": "Nothing: it runs, only more slowly",
        },
        answer="memory",
        feedback={
            "memory": "Two million INT8 weights are 2 MB; the board has 1 MiB of flash for its "
            "weights. On a microcontroller the memories decide first.",
            "flops": "Its speed would matter only once it fits; its weights alone are twice the "
            "board's flash.",
            "portable": "A model that does not fit the device's memory does not run at all: the "
            "device decides the architecture.",
        },
        reveals=("overflow the board's flash",),
    ),
)

WIDTH = _pair(
    "WIDTH",
    "Dense weights grow with the square of the width",
    "A dense layer connects every input to every output: widening both by k multiplies its "
    "weights by k², its activations only by k.",
    "direction",
    {
        "linear": _M(
            "weights grow like width",
            "A layer's weights grow in proportion to its width",
        ),
        "depth": _M(
            "depth sets the size",
            "Only adding layers adds parameters; wider layers cost little",
        ),
    },
    dict(
        question=(
            "Every hidden layer of a 1,024-wide MLP is made twice as wide (the hidden layers' "
            "inputs and outputs). How do those layers' weights change?"
        ),
        options={
            "square": "They grow 4-fold: inputs and outputs both double",
            "linear": "They double: twice the width means twice the weights",
            "depth": "Barely: the number of layers is unchanged",
        },
        answer="square",
        feedback={
            "square": "A dense layer has d_in × d_out weights: doubling both gives four times "
            "the weights, while its activations (d_in + d_out) only double.",
            "linear": "Width enters twice, once for the inputs and once for the outputs: the "
            "weights grow fourfold.",
            "depth": "Depth adds layers; width grows each layer's d_in × d_out: fourfold here.",
        },
        reveals=("inputs and outputs both double",),
    ),
    dict(
        question=(
            "A 256-wide MLP for tabular data has its hidden layers widened threefold. How do "
            "the weights of those hidden layers change?"
        ),
        options={
            "square": "They grow 9-fold: inputs and outputs both triple",
            "linear": "They triple: three times the width, three times the weights",
            "depth": "Barely: the network is no deeper",
        },
        answer="square",
        feedback={
            "square": "d_in × d_out with both tripled: nine times the weights, and only three "
            "times the activations.",
            "linear": "Both sides of each weight matrix triple: 3 × 3 = 9 times the weights.",
            "depth": "Width multiplies each layer's weight matrix on both sides: ninefold.",
        },
        reveals=("inputs and outputs both triple",),
    ),
)

RECURRENCE = _pair(
    "RECURRENCE",
    "A recurrence is a serial chain",
    "Each step of an RNN needs the previous step's state: its steps run one after another, so "
    "its time grows linearly with the sequence however parallel the hardware.",
    "direction",
    {
        "parallel": _M(
            "a GPU runs the steps at once",
            "A parallel processor runs all the time steps of an RNN simultaneously",
        ),
        "quadratic": _M(
            "sequences cost quadratically",
            "Every sequence model's cost grows with the square of its length, as attention's",
        ),
    },
    dict(
        question=(
            "An LSTM (256 hidden units) reads sequences at batch one on an H100. The "
            "sequences grow from 128 to 256 steps. How does its latency change?"
        ),
        options={
            "linear": "It about doubles: each step waits for the previous one",
            "parallel": "It stays about the same: the GPU runs the steps together",
            "quadratic": "It about quadruples: sequence models scale quadratically",
        },
        answer="linear",
        feedback={
            "linear": "Step t needs the hidden state of step t − 1: the steps form a chain, so "
            "twice the steps take about twice the time, however many cores the GPU has.",
            "parallel": "The GPU parallelizes within a step (the gate matrix products), not "
            "across steps: each needs the previous state.",
            "quadratic": "Attention's scores grow with the square of the length; a recurrence "
            "does the same work per step, so its time grows linearly.",
        },
        reveals=("waits for the previous one",),
    ),
    dict(
        question=(
            "A GRU (512 hidden units) reads audio at batch one on an A100; clips grow "
            "from 100 to 400 frames. How does its latency change?"
        ),
        options={
            "linear": "It grows about 4-fold: the steps run one after another",
            "parallel": "It stays about the same: the GPU runs the frames together",
            "quadratic": "It grows about 16-fold: sequence models scale quadratically",
        },
        answer="linear",
        feedback={
            "linear": "Each frame's step needs the previous hidden state: four times the frames, "
            "about four times the time.",
            "parallel": "The A100 parallelizes each step's matrix products; the steps themselves "
            "are a chain and cannot overlap.",
            "quadratic": "A recurrence does the same work per step; only attention's scores grow "
            "with the square of the length.",
        },
        reveals=("run one after another",),
    ),
)

#: The inventory, in the order the pre- and post-test ask it.
CONCEPTS: tuple[Concept, ...] = (
    PRIOR,
    REGIME,
    BATCHING,
    ATTENTION,
    KVCACHE,
    FLOPS,
    LAUNCH,
    EMBEDDING,
    ENERGY,
    DEVICE,
    WIDTH,
    RECURRENCE,
)
BY_KEY = {c.key: c for c in CONCEPTS}


def item_key(concept: str, index: int) -> str:
    """The report's key of item ``index`` (1 or 2) of a concept: ``"PRIOR_1"``."""
    return f"{concept}_{index}"


def concept_of(key: str) -> tuple[str, int] | None:
    """``"PRIOR_2"`` -> ``("PRIOR", 2)``; None for a key of no inventory item."""
    m = re.fullmatch(r"([A-Z][A-Z0-9]*)_([12])", key if isinstance(key, str) else "")
    return (m.group(1), int(m.group(2))) if m and m.group(1) in BY_KEY else None


def normalize_name(name: str) -> str:
    """How a name or ID is read for the seed: NFKC, case-folded, whitespace runs made one space,
    trimmed ("  Ada  LOVELACE " and "ada lovelace" give the same seed)."""
    if not isinstance(name, str):
        raise ValueError(f"name must be text, got {type(name).__name__}")
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def seed_for(name: str) -> str:
    """The student's counterbalancing seed: 16 hex digits of SHA-256 over the salt, a NUL and the
    normalized name (deterministic: the same on every machine, in the browser too)."""
    data = f"{SEED_SALT}\0{normalize_name(name)}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:16]


def _bits(seed: str) -> int:
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-f]{16}", seed):
        raise ValueError(f"seed must be 16 lower-case hex digits, got {seed!r}")
    return int(seed, 16)


def pre_items(seed: str, answered: dict[str, str] | None = None) -> dict[str, int]:
    """Concept key -> the item (1 or 2) of the pre-test: bit ``i`` of the seed for concept ``i``,
    unless the pre-test record already answers one of the pair (a committed item stays)."""
    bits = _bits(seed)
    out = {}
    for i, c in enumerate(CONCEPTS):
        done = [n for n in (1, 2) if (answered or {}).get(item_key(c.key, n))]
        out[c.key] = done[0] if done else 1 + ((bits >> i) & 1)
    return out


def post_items(
    seed: str, pre_answered: dict[str, str] | None = None, answered: dict[str, str] | None = None
) -> dict[str, int]:
    """Concept key -> the item of the post-test: the one the post-test already answered, else the
    other of the item answered in the pre-test record, else the other of the seed's."""
    bits = _bits(seed)
    out = {}
    for i, c in enumerate(CONCEPTS):
        mine = [n for n in (1, 2) if (answered or {}).get(item_key(c.key, n))]
        before = [n for n in (1, 2) if (pre_answered or {}).get(item_key(c.key, n))]
        if mine:
            out[c.key] = mine[0]
        elif before:
            out[c.key] = 3 - before[0]
        else:
            out[c.key] = 2 - ((bits >> i) & 1)
    return out


def _form(name: str, chapter: str, doc: str) -> ModuleType:
    """A lab-like module for the report machinery (``components.questions``, ``reports.build``,
    ``reports.regrade``): every item under its key, ``PARTS`` the concepts, ``PART_OF`` item key ->
    concept, ``INVENTORY`` true. Its source hash is this file's."""
    mod = ModuleType(f"mlsysim.labs.inventory.{name}", doc)
    mod.__file__ = __file__
    mod.CHAPTER = chapter
    mod.PARTS = tuple(c.key for c in CONCEPTS)
    mod.INVENTORY = name
    #: what the ledger requires: one item of each pair (``records.ChapterRecord``)
    mod.REQUIRED = tuple(f"{item_key(c.key, 1)}|{item_key(c.key, 2)}" for c in CONCEPTS)
    mod.PART_OF = {}
    for c in CONCEPTS:
        for n, item in enumerate(c.items, 1):
            setattr(mod, item_key(c.key, n), item)
            mod.PART_OF[item_key(c.key, n)] = c.key
    return mod


#: The pre-test and the post-test as the report machinery reads a lab (chapters of their own).
PRE = _form("pre", "6.0 inventory (before)", "The concept inventory, before the labs.")
POST = _form("post", "6.14 inventory (after)", "The concept inventory, after Lab 06.")
FORMS = {"pre": PRE, "post": POST}


# ---------------------------------------------------------------------------------------------
# In the notebooks
# ---------------------------------------------------------------------------------------------


def answered_in(ledger, form: ModuleType) -> dict[str, str]:
    """Item key -> the committed first answer the ledger holds for ``form`` (pre or post)."""
    rec = ledger.chapter(form.CHAPTER) if ledger is not None else None
    if rec is None:
        return {}
    return {k: a.first for k, a in rec.attempts.items() if a.first is not None}


def form_items(ledger, form: ModuleType, seed: str) -> dict[str, int]:
    """Concept -> item number this student is asked in ``form`` (see ``pre_items``/``post_items``)."""
    if form is PRE:
        return pre_items(seed, answered_in(ledger, PRE))
    return post_items(seed, answered_in(ledger, PRE), answered_in(ledger, POST))


def radio(form: ModuleType, concept: str, items: dict[str, int], saved):
    """The radio of ``concept``'s item in this student's form, its saved answer restored: asked
    as a question, never with a verdict in the pre-test."""
    return getattr(form, item_key(concept, items[concept])).radio(saved)


def question_heading(i: int) -> str:
    """'Question 3 of 12': a concept's title would give its answer away."""
    return f"### Question {i} of {len(CONCEPTS)}"


def before_after(ledger):
    """The post-test's closing view: per concept, the student's committed answer before and after,
    each with its verdict and feedback (the misconception named); a concept missing its pre-test
    answer says so."""
    import marimo as mo

    from .components import _callout, _e

    pre, post = answered_in(ledger, PRE), answered_in(ledger, POST)
    blocks, before_ok, after_ok, both = [], 0, 0, 0
    for i, c in enumerate(CONCEPTS, 1):
        halves = []
        for label, got in (("Before the labs", pre), ("After the labs", post)):
            n = next((n for n in (1, 2) if got.get(item_key(c.key, n))), None)
            if n is None:
                halves.append(
                    _callout(
                        f"<strong>{_e(label)}:</strong> not answered on this computer.", "neutral"
                    )
                )
                continue
            item = c.items[n - 1]
            body, kind = item.verdict_html(got[item_key(c.key, n)])
            halves.append(
                _callout(
                    f"<strong>{_e(label)}</strong> <em>{_e(item.question)}</em><br>{body}", kind
                )
            )
        p = next((pre[item_key(c.key, n)] for n in (1, 2) if item_key(c.key, n) in pre), None)
        q = next((post[item_key(c.key, n)] for n in (1, 2) if item_key(c.key, n) in post), None)
        if p is not None and q is not None:
            both += 1
            before_ok += p == c.items[0].answer
            after_ok += q == c.items[0].answer
        blocks.append(
            mo.vstack([mo.md(f"### {i}. {_e(c.title)}"), mo.md(_e(c.statement)), *halves])
        )
    if both:
        line = (
            f"On the {both} concepts you answered both times: {before_ok} right before the labs, "
            f"{after_ok} right after."
        )
    else:
        line = (
            "No pre-test answers are on this computer (taken elsewhere, or not taken): your "
            "instructor matches the two by the name or ID in your reports."
        )
    return mo.vstack([mo.md("## Your before and after"), mo.md(line), *blocks])

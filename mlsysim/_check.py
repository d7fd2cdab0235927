"""Argument checks shared by the whole public API (one rule, one message format).

- **Sizes** are integers: ``int``, a numpy integer, or a float with an integral value
  (``224.0``); bools, strings, fractional, NaN and infinite values are refused. Every size has a
  documented maximum so that no single call hangs or exhausts memory:
  ``MAX_SIZE`` for one dimension (features, channels, tokens, rows), ``MAX_LAYERS`` for a layer
  count or depth, ``MAX_BATCH`` for a batch.
- **Flags** are ``bool`` (or ``numpy.bool_``): ``sparse="no"`` and ``bias=1`` are refused.
- **Numbers** are finite reals in a stated range.

Every refusal is a ``ValueError`` whose message starts with the argument's name as the caller
wrote it and states the allowed range: ``num_classes must be an integer in [1, 2**40], got 0``.

How the API uses it (a new public function or field gets the rule the same way):

- **Layers** (pydantic): ``Layer``'s "before" validator (``layer_fields``) checks every field
  from its annotation: ``PositiveInt`` / ``int`` (with ``Field(ge=...)``) / ``Pair`` as sizes,
  ``bool`` as flags, ``float`` as finite numbers; ``num_layers`` is capped at ``MAX_LAYERS``.
- **Builders and helpers** (plain functions): ``check_module(globals(), __all__, ranges)`` at the
  end of a module wraps each public function with ``checked``: arguments checked from their
  annotations (``int``, ``bool``, ``float``, ``str``, ``Sequence[int]``, ``Literal``; a range per
  argument in ``ranges``), and a layer refused inside is reported with the function's arguments.
- **Anything else** calls ``integer(name, v, lo, hi)``, ``flag``, ``real``, ``choice`` directly
  (``Engine.solve`` and ``Engine.sweep`` through one ``engine._validate``).
"""

from __future__ import annotations

import itertools
import math
import operator
import sys
import types
import typing
from collections.abc import Callable, Iterable, Sequence

__all__ = [
    "MAX_SIZE",
    "MAX_LAYERS",
    "MAX_BATCH",
    "EFFICIENCY_MIN",
    "integer",
    "optional_integer",
    "flag",
    "real",
    "choice",
    "text",
    "pair",
    "integers",
    "layer_fields",
    "checked",
    "check_module",
]

#: Largest value of any one size (features, channels, tokens, table rows): 2**40 ~ 1.1e12.
MAX_SIZE = 2**40
#: Largest layer count, network depth or number of stacked layers.
MAX_LAYERS = 10_000
#: Largest batch (or number of sequences).
MAX_BATCH = 2**31
#: Smallest efficiency (fraction of peak) the engine accepts; below it latencies overflow.
EFFICIENCY_MIN = 1e-12

_BOUND_NAMES = {MAX_SIZE: "2**40", MAX_BATCH: "2**31", 2**62: "2**62", 2**20: "2**20"}


def _bound(v: int) -> str:
    return _BOUND_NAMES.get(v, f"{v:,}".replace(",", "_") if v >= 100_000 else str(v))


def _is_bool(v) -> bool:
    return isinstance(v, bool) or (
        type(v).__module__ == "numpy" and type(v).__name__ in ("bool", "bool_")
    )


def _as_int(v):
    """``v`` as a Python int when it is an integer value of a number type, else None."""
    if _is_bool(v) or isinstance(v, str | bytes):
        return None
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return int(v) if math.isfinite(v) and v.is_integer() else None
    try:  # numpy integers (and anything else that is an exact integer)
        return operator.index(v)
    except TypeError:
        pass
    if type(v).__module__ == "numpy" and hasattr(v, "is_integer"):  # numpy floats
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            return None
        return int(f) if math.isfinite(f) and f.is_integer() else None
    return None


def integer(name: str, v, lo: int = 1, hi: int = MAX_SIZE) -> int:
    """``v`` as a Python int in ``[lo, hi]``, or a ValueError naming ``name`` and the range."""
    i = _as_int(v)
    if i is None or not (lo <= i <= hi):
        raise ValueError(f"{name} must be an integer in [{lo}, {_bound(hi)}], got {_short(v, 200)}")
    return i


def optional_integer(name: str, v, lo: int = 1, hi: int = MAX_SIZE) -> int | None:
    if v is None:
        return None
    i = _as_int(v)
    if i is None or not (lo <= i <= hi):
        raise ValueError(
            f"{name} must be None or an integer in [{lo}, {_bound(hi)}], got {_short(v, 200)}"
        )
    return i


def flag(name: str, v) -> bool:
    if not _is_bool(v):
        raise ValueError(f"{name} must be True or False, got {_short(v, 200)}")
    return bool(v)


def is_finite(v) -> bool:
    """Whether ``v`` is a finite real number (not a bool, not a string); an integer too large for
    a float (``10**400``) is not finite here, and asking never raises."""
    if _is_bool(v) or isinstance(v, str | bytes) or v is None:
        return False
    try:
        return math.isfinite(v)
    except (TypeError, ValueError, OverflowError):
        return False


def real(name: str, v, lo: float = 0.0, hi: float = math.inf, *, lo_open: bool = False) -> float:
    """``v`` as a finite float in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``)."""
    ok = not _is_bool(v) and not isinstance(v, str | bytes)
    if ok:
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond 1.8e308
            ok = False
        else:
            ok = math.isfinite(f) and (f > lo if lo_open else f >= lo) and f <= hi
    if not ok:
        if lo == -math.inf and hi == math.inf:
            raise ValueError(f"{name} must be a finite number, got {_short(v, 200)}")
        left = "(" if lo_open else "["
        raise ValueError(
            f"{name} must be a finite number in {left}{lo:g}, {hi:g}], got {_short(v, 200)}"
        )
    return f


def instance(name: str, v, cls: type | tuple[type, ...], what: str = ""):
    """``v`` itself when it is an instance of ``cls``, else a ValueError naming ``name``."""
    if not isinstance(v, cls):
        kinds = cls if isinstance(cls, tuple) else (cls,)
        raise ValueError(
            f"{name} must be {what or ' or '.join('a ' + k.__name__ for k in kinds)}, got {_short(v, 200)}"
        )
    return v


def seed(name: str, v) -> int:
    """A random seed: an integer in [0, 2**63 - 1] (not a bool, a float or a string)."""
    return integer(name, v, 0, 2**63 - 1)


def vector(name: str, v, max_len: int = MAX_LAYERS) -> list[float]:
    """A non-empty list or tuple of finite numbers (not a string, not a bool), as floats."""
    if not isinstance(v, list | tuple) or not 1 <= len(v) <= max_len:
        raise ValueError(
            f"{name} must be a non-empty list of at most {max_len:,} finite numbers, got {_short(v, 200)}"
        )
    return [real(f"{name}[{i}]", x, -math.inf) for i, x in enumerate(v)]


def matrix(name: str, v, max_dim: int = MAX_LAYERS) -> list[list[float]]:
    """A non-empty rectangular list (or tuple) of rows of finite numbers, as a list of float rows."""
    if not isinstance(v, list | tuple) or not 1 <= len(v) <= max_dim:
        raise ValueError(
            f"{name} must be a non-empty list of at most {max_dim:,} rows, got {_short(v, 200)}"
        )
    rows = [vector(f"{name}[{i}]", r, max_dim) for i, r in enumerate(v)]
    if any(len(r) != len(rows[0]) for r in rows):
        raise ValueError(f"{name} must be rectangular: every row of length {len(rows[0])}")
    return rows


#: Most multiply-adds one pure-Python matrix product (``order``, ``symmetry``) may take: ~1 s.
MAX_WORK = 2**22


def work(what: str, n: int, names: str) -> None:
    """Refuse a pure-Python computation of more than ``MAX_WORK`` multiply-adds, naming the
    arguments (``names``) whose sizes set it."""
    if n > MAX_WORK:
        raise ValueError(
            f"{what} would take {n:,} multiply-adds; at most {MAX_WORK:,} (2**22): make {names} smaller"
        )


def finite_result(what: str, values, names: str):
    """``values`` (a float, or a list, or a list of lists of floats) when every number is finite;
    else a ValueError saying that the entries of ``names`` are too large (the result overflows
    a float, 1.8e308)."""
    flat = values if isinstance(values, list) else [values]
    for v in flat:
        if isinstance(v, list):
            ok = all(map(math.isfinite, v))
        else:
            ok = math.isfinite(v)
        if not ok:
            raise ValueError(
                f"{what} overflows a float (beyond 1.8e308): the entries of {names} are too large"
            )
    return values


def product(factors: dict[str, int], what: str, hi: int = MAX_SIZE) -> int:
    """The product of ``factors`` (argument name -> its value) when it is at most ``hi``; else a
    ValueError naming every argument, what the product sizes (``what``) and the range. A
    composite layer's fields are each in range, but an inner layer gets their product: it is
    refused here, by the composite's own names, not later by the inner layer's."""
    n = math.prod(factors.values())
    if n > hi:
        names = " x ".join(factors)
        shown = " x ".join(f"{k}={v}" for k, v in factors.items())
        raise ValueError(
            f"{names} must be in [1, {_bound(hi)}] ({what}), got {shown} = {n:,}: "
            f"make {' or '.join(factors)} smaller"
        )
    return n


def validated_copy(model, update, deep: bool = False):
    """``model.model_copy(update=update)`` with the update validated like constructor arguments
    (pydantic's ``model_copy`` skips validation: ``Dense(...).model_copy(update={"in_features":
    -5})`` would count -16 parameters) and no value cached from the old fields carried over."""
    if not isinstance(update, dict):
        raise ValueError(f"update must be a dict of field values, got {_short(update, 200)}")
    cls = type(model)
    data = {k: getattr(model, k) for k in model.model_fields_set}
    if deep:
        import copy

        data = copy.deepcopy(data)
    data.update(update)
    try:
        return cls.model_validate(data)
    except _validation_error() as exc:
        inner = "; ".join(_error_text(e) for e in exc.errors())
        raise ValueError(
            f"model_copy(update=...) would make an invalid {cls.__name__}: {inner}"
        ) from None


def _error_text(err: dict) -> str:
    """One pydantic error as text that names its field (``memory: Input should be ...``; a
    message of ours already names it: ``in_features must be ...``)."""
    msg = str(err.get("msg", "")).removeprefix("Value error, ")
    loc = ".".join(str(x) for x in err.get("loc", ()))
    return msg if not loc or msg.startswith(loc.split(".")[0]) else f"{loc}: {msg}"


class ValidatedCopy:
    """Mixin for a frozen pydantic model: ``model_copy(update=...)`` validates the update as the
    constructor does (``validated_copy``) instead of writing it in unchecked."""

    def model_copy(self, *, update=None, deep: bool = False):
        """A copy; the fields in ``update`` are validated as the constructor validates them."""
        if update is None:
            return super().model_copy(deep=deep)
        return validated_copy(self, update, deep)


#: Devices whose figures ``device_figures`` has checked (by id; the device itself is kept so that
#: a new device at a recycled address is checked again).
_CHECKED_DEVICES: dict[int, object] = {}


def device_figures(name: str, dev):
    """``dev`` (a ``hardware.Device``) when every figure the engine reads from it is in range:
    memory capacity, bandwidth, SRAM and flash, dispatch tax, TDP, and every peak rate, checked
    as ``Device(...)`` checks them. ``model_copy(update=...)`` validates (``ValidatedCopy``); a
    device built by pydantic's ``model_construct`` skips validation (``dispatch_tax=-1 s`` gave
    a negative latency, ``bandwidth=0`` a ZeroDivisionError); the error names ``name``'s field.
    Checked once per device object."""
    if _CHECKED_DEVICES.get(id(dev)) is dev:
        return dev
    from .hardware import RATE_BASES, Compute, Device, Memory, PeakRate, _quantity

    instance(name, dev, Device, "a Device or a device key")
    try:
        mem = instance(f"{name}.memory", dev.memory, Memory)
        _quantity(mem.capacity, "[information]", f"{name}.memory.capacity")
        _quantity(mem.bandwidth, "[information] / [time]", f"{name}.memory.bandwidth", True)
        for part in ("sram", "flash"):
            if getattr(mem, part) is not None:
                _quantity(getattr(mem, part), "[information]", f"{name}.memory.{part}")
        _quantity(dev.dispatch_tax, "[time]", f"{name}.dispatch_tax")
        _quantity(dev.tdp, "[energy] / [time]", f"{name}.tdp")
        comp = instance(f"{name}.compute", dev.compute, Compute)
        if comp.rate_basis not in RATE_BASES:
            raise ValueError(
                f"{name}.compute.rate_basis={_short(comp.rate_basis)} is not valid; allowed: "
                f"{', '.join(map(repr, RATE_BASES))}"
            )
        if not isinstance(comp.precisions, dict) or comp.quoted_precision not in comp.precisions:
            raise ValueError(
                f"{name}.compute.precisions must be a dict of PeakRate listing "
                f"quoted_precision={_short(comp.quoted_precision)}, got {_short(comp.precisions)}"
            )
        for p, rate in comp.precisions.items():
            field = f"{name}.compute.precisions[{p!r}]"
            instance(field, rate, PeakRate)
            _quantity(rate.dense, "[computation] / [time]", f"{field}.dense", True)
            if rate.sparse is not None:
                _quantity(rate.sparse, "[computation] / [time]", f"{field}.sparse", True)
    except ValueError as exc:
        raise ValueError(
            f"{exc} (a Device changed by model_copy(update=...) is not validated: build it with "
            "Device(...) or Device.model_validate)"
        ) from None
    if len(_CHECKED_DEVICES) > 256:
        _CHECKED_DEVICES.clear()
    _CHECKED_DEVICES[id(dev)] = dev
    return dev


def choice(name: str, v, allowed: Iterable):
    allowed = tuple(allowed)
    if not isinstance(v, str | type(None)) or v not in allowed:
        raise ValueError(
            f"{name}={_short(v, 200)} is not valid; allowed: {', '.join(map(repr, allowed))}"
        )
    return v


def text(name: str, v, optional: bool = False) -> str | None:
    if (v is None and optional) or isinstance(v, str):
        return v
    raise ValueError(
        f"{name} must be a string{' or None' if optional else ''}, got {_short(v, 200)}"
    )


def pair(
    name: str, v, lo: int = 1, hi: int = MAX_SIZE, allow_int: bool = True
) -> int | tuple[int, int]:
    """An int, or a (height, width) pair of ints, each in ``[lo, hi]`` (only the pair when
    ``allow_int`` is False)."""
    if not allow_int and not (isinstance(v, tuple | list) and len(v) == 2):
        raise ValueError(
            f"{name} must be a (height, width) pair of integers in [{lo}, {_bound(hi)}], got {_short(v, 200)}"
        )
    if isinstance(v, tuple | list) and len(v) == 2:
        a, b = _as_int(v[0]), _as_int(v[1])
        if a is None or b is None or not (lo <= a <= hi and lo <= b <= hi):
            raise ValueError(
                f"{name} must be an integer or a pair of integers in [{lo}, {_bound(hi)}], "
                f"got {_short(v, 200)}"
            )
        return (a, b)
    i = _as_int(v)
    if i is None or not (lo <= i <= hi):
        raise ValueError(
            f"{name} must be an integer or a pair of integers in [{lo}, {_bound(hi)}], got {_short(v, 200)}"
        )
    return i


def integers(
    name: str, v, lo: int = 1, hi: int = MAX_SIZE, min_len: int = 1, max_len: int = MAX_LAYERS
) -> list[int]:
    """A list or tuple of integers (not a string, not a set), each in ``[lo, hi]``."""
    if isinstance(v, str | bytes | dict | set | frozenset) or not isinstance(v, Iterable):
        raise ValueError(
            f"{name} must be a list of integers in [{lo}, {_bound(hi)}], got {_short(v, 200)}"
        )
    # at most max_len + 1 items are read: an endless iterator (itertools.count) or a huge range
    # is refused without being listed
    items = list(itertools.islice(v, max_len + 1))
    if not (min_len <= len(items) <= max_len):
        got = f"more than {max_len:,}" if len(items) > max_len else str(len(items))
        raise ValueError(f"{name} must list {min_len} to {max_len:,} integers, got {got}")
    out = []
    for i, x in enumerate(items):
        xi = _as_int(x)
        if xi is None or not (lo <= xi <= hi):
            raise ValueError(
                f"{name}[{i}] must be an integer in [{lo}, {_bound(hi)}], got {_short(x, 200)} "
                f"(in {name}={_short(v, 200)})"
            )
        out.append(xi)
    return out


# --------------------------------------------------------------------------------------------
# Pydantic layers: one "before" pass over the raw field values
# --------------------------------------------------------------------------------------------

#: Fields counted in layers rather than in elements: capped at MAX_LAYERS.
_LAYER_COUNT_FIELDS = frozenset({"num_layers", "n_layers", "depth"})

_SPECS: dict[type, dict[str, Callable]] = {}


def _lower_bound(metadata) -> int:
    lo = 0
    for m in metadata:
        if getattr(m, "gt", None) is not None:
            lo = max(lo, int(m.gt) + 1)
        if getattr(m, "ge", None) is not None:
            lo = max(lo, int(m.ge))
    return lo


def _members(ann) -> tuple[list[type], list, bool]:
    """(base types, constraint metadata, optional) of a field annotation's union members."""
    args = (
        typing.get_args(ann)
        if typing.get_origin(ann) in (typing.Union, types.UnionType)
        else (ann,)
    )
    bases, meta, optional = [], [], False
    for a in args:
        if a is type(None):
            optional = True
            continue
        if typing.get_origin(a) is typing.Annotated:
            meta.extend(a.__metadata__)
            a = typing.get_args(a)[0]
        bases.append(typing.get_origin(a) or a)
    return bases, meta, optional


def _pair_lower_bound(ann) -> int:
    """The lower bound of a ``tuple[...]`` member's elements in a field annotation (0 if none)."""
    args = (
        typing.get_args(ann)
        if typing.get_origin(ann) in (typing.Union, types.UnionType)
        else (ann,)
    )
    for a in args:
        if typing.get_origin(a) is tuple:
            return min(
                _lower_bound(e.__metadata__) if typing.get_origin(e) is typing.Annotated else 0
                for e in typing.get_args(a)
            )
    return 0


def _field_check(name: str, info) -> tuple | None:
    """(fast-path type, lo, hi, optional, is_pair, check) for one pydantic field, from its annotation, or
    None to leave the field to pydantic. Values of the fast-path type inside [lo, hi] (a plain
    ``int`` size, a ``bool`` flag) pass without a call."""
    bases, meta, optional = _members(info.annotation)
    lo = _lower_bound([*info.metadata, *meta])
    if tuple in bases:  # a pair's bound is on its elements (Pair: tuple[PositiveInt, PositiveInt])
        lo = max(lo, _pair_lower_bound(info.annotation))
    hi = MAX_LAYERS if name in _LAYER_COUNT_FIELDS else MAX_SIZE
    if bases == [bool]:
        return (bool, 0, 1, optional, False, lambda v: flag(name, v))
    if int in bases and set(bases) <= {int, tuple}:
        if tuple in bases:
            return (int, lo, hi, optional, True, lambda v: pair(name, v, lo, hi))
        return (int, lo, hi, optional, False, lambda v: integer(name, v, lo, hi))
    if float in bases and set(bases) <= {int, float}:
        return (None, 0, 0, optional, False, lambda v: real(name, v, -math.inf))
    return None


def layer_fields(cls, data):
    """A pydantic ``model_validator(mode="before")`` body: every size, flag and number field of
    ``cls`` is checked (and canonicalized to a Python int/bool/float) before pydantic's own
    validation, so ``Dense(in_features=True)`` and ``Dense(bias="no")`` are refused by name."""
    if not isinstance(data, dict):
        return data
    spec = _SPECS.get(cls)
    if spec is None:
        spec = {}
        for name, info in cls.model_fields.items():
            check = _field_check(name, info)
            if check is not None:
                spec[name] = check
        _SPECS[cls] = spec
    out = None
    for name, v in data.items():
        sp = spec.get(name)
        if sp is None:
            continue
        fast, lo, hi, optional, is_pair, check = sp
        if type(v) is fast and lo <= v <= hi or (v is None and optional):
            continue
        if (
            is_pair
            and type(v) is tuple
            and len(v) == 2
            and type(v[0]) is int is type(v[1])
            and (lo <= v[0] <= hi and lo <= v[1] <= hi)
        ):
            continue
        c = check(v)
        if c is not v:
            if out is None:
                out = dict(data)
            out[name] = c
    return data if out is None else out


# --------------------------------------------------------------------------------------------
# Plain functions (model builders): checks from the signature's annotations
# --------------------------------------------------------------------------------------------

#: Arguments counted in layers (capped at MAX_LAYERS rather than MAX_SIZE).
LAYER_COUNT_ARGS = frozenset({"n_layers", "num_layers", "depth", "ds_layers"})
#: Arguments for which 0 is a valid value (lower bound 0 rather than 1).
ZERO_OK_ARGS = frozenset({"padding", "seed"})


def _is_pair(ann) -> bool:
    args = [a for a in typing.get_args(ann) if a is not type(None)]
    return (
        len(args) == 1
        and typing.get_args(args[0]) == (int, int)
        or typing.get_args(ann) == (int, int)
    )


def _arg_check(name: str, ann, rng) -> Callable | None:
    if isinstance(ann, str):
        return None
    origin = typing.get_origin(ann)
    if origin is typing.Literal:
        allowed = typing.get_args(ann)
        return lambda v: choice(name, v, allowed)
    bases, meta, optional = _members(ann)
    lo, hi = rng or (
        0 if name in ZERO_OK_ARGS else 1,
        MAX_LAYERS if name in LAYER_COUNT_ARGS else MAX_SIZE,
    )
    if bases == [bool]:
        check = lambda v: flag(name, v)  # noqa: E731
    elif bases == [int]:
        check = lambda v: integer(name, v, lo, hi)  # noqa: E731
    elif set(bases) == {int, tuple}:
        check = lambda v: pair(name, v, lo, hi)  # noqa: E731
    elif bases == [tuple] and _is_pair(ann):
        check = lambda v: pair(name, v, lo, hi, allow_int=False)  # noqa: E731
    elif float in bases and set(bases) <= {int, float}:
        flo, fhi = rng or (-math.inf, math.inf)
        check = lambda v: real(name, v, flo, fhi)  # noqa: E731
    elif bases == [str]:
        check = lambda v: text(name, v)  # noqa: E731
    elif len(bases) == 1 and bases[0] in (list, tuple, Sequence, Iterable):
        check = lambda v: integers(name, v, lo, hi)  # noqa: E731
    else:
        return None
    if optional:
        return lambda v: v if v is None else check(v)
    return check


def _short(v, limit: int = 60) -> str:
    """``repr(v)`` cut to ``limit`` characters, for an error message; never raises (an integer
    too long to print, ``10**5000``, is described by its size; a broken ``__repr__`` by its type)."""
    try:
        r = repr(v)
    except (ValueError, TypeError, AttributeError, RecursionError):
        if isinstance(v, int):
            return f"an integer of about {int(v.bit_length() * 0.30103) + 1:,} digits"
        return f"a {type(v).__name__}"
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _argument_hints(fn: Callable) -> dict:
    """``fn``'s argument annotations, evaluated one by one: an annotation that cannot be
    evaluated here (a return type imported only for type checkers) leaves only itself out."""
    import inspect

    namespace = inspect.unwrap(fn).__globals__
    hints = {}
    for name, ann in inspect.get_annotations(fn).items():
        if name == "return":
            continue
        try:
            hints[name] = eval(ann, namespace) if isinstance(ann, str) else ann  # noqa: S307
        except (NameError, TypeError, AttributeError):
            continue
    return hints


class _NotRaised(Exception):
    """Stands for pydantic's ``ValidationError`` while pydantic is not imported."""


def _validation_error() -> type[Exception]:
    """pydantic's ``ValidationError``, without importing pydantic to name it: none can be raised
    before pydantic is imported (a notebook's first run in the browser imports none)."""
    pydantic = sys.modules.get("pydantic")
    return _NotRaised if pydantic is None else pydantic.ValidationError


def checked(fn: Callable, **ranges) -> Callable:
    """``fn`` with every argument checked against its annotation before it runs (``int``: a
    size in [1, MAX_SIZE], or ``ranges[name] = (lo, hi)``; ``bool``: a flag; ``float``: a finite
    number; ``Sequence[int]``: a list of sizes; ``Literal``: one of its values). A layer refused
    inside ``fn`` is reported as an error of ``fn``'s arguments, not of the inner layer."""
    import functools
    import inspect

    sig = inspect.signature(fn)
    # positional arguments map to these parameters without ``sig.bind`` (the fast path: a
    # public function called in an inner loop, e.g. ``activation`` per element in the browser,
    # where binding cost more than the function)
    params = list(sig.parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    plain = [p.name for p in params if p.kind in positional]
    least = sum(1 for p in params if p.kind in positional and p.default is p.empty)
    if any(p.kind is p.KEYWORD_ONLY and p.default is p.empty for p in params):
        least = len(plain) + 1  # a required keyword: never the fast path (bind names it)
    # (checks by name, checks by position), built on the first call (annotations may name
    # classes defined after the function) and published as one object: a call from another
    # thread sees both or neither
    table: tuple[dict[str, Callable], list[Callable | None]] | None = None

    def _table():
        nonlocal table
        if table is None:
            hints = _argument_hints(fn)
            by_name = {}
            for name in sig.parameters:
                c = _arg_check(name, hints.get(name, ""), ranges.get(name))
                if c is not None:
                    by_name[name] = c
            table = (by_name, [by_name.get(name) for name in plain])
        return table

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        checks, per_position = _table()
        if not kwargs and least <= len(args) <= len(plain):
            args = tuple(
                a if c is None else c(a)
                for a, c in zip(args, per_position[: len(args)], strict=True)
            )
            passed = None  # named only if a layer is refused (below)
        else:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise ValueError(f"{fn.__name__}: {exc}") from None
            for name, v in bound.arguments.items():
                c = checks.get(name)
                if c is not None:
                    bound.arguments[name] = c(v)
            args, kwargs, passed = bound.args, bound.kwargs, bound.arguments
        try:
            return fn(*args, **kwargs)
        except _validation_error() as exc:
            inner = "; ".join(
                str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors()
            )
            if passed is None:
                passed = dict(zip(plain, args, strict=False))
            shown = ", ".join(f"{k}={_short(v)}" for k, v in passed.items())
            raise ValueError(
                f"{fn.__name__}({shown}): these arguments build an invalid "
                f"{exc.title} layer ({inner})"
            ) from None

    wrapper.__wrapped_checks__ = True
    return wrapper


def check_module(namespace: dict, names, ranges: dict[str, dict[str, tuple]] | None = None) -> None:
    """Wrap every plain function listed in ``names`` (a module's ``__all__``) and defined in that
    module (re-exports are left to their own module) with ``checked``;
    ``ranges[function][argument] = (lo, hi)`` overrides the default range of one argument."""
    import inspect

    ranges = ranges or {}
    for key in names:
        fn = namespace.get(key)
        if (
            callable(fn)
            and not inspect.isclass(fn)
            and not getattr(fn, "__wrapped_checks__", False)
        ):
            inner = inspect.unwrap(fn)
            if inspect.isfunction(inner) and inner.__module__ == namespace.get("__name__"):
                namespace[key] = checked(fn, **ranges.get(key, {}))


class UnknownName(ValueError, AttributeError):
    """An unknown preset or device reached as an attribute (``Models.foo``, ``Hardware.Cloud.h100``):
    a ValueError listing the allowed names, and an AttributeError too, so that ``hasattr`` and
    ``getattr(obj, name, default)`` keep working."""

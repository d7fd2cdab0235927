"""mlsysim speed benchmark: import time, one Engine.solve, a 10,000-point sweep.

Run from anywhere: ``python benchmarks/bench.py``. Prints a table with each measurement and its
ratio to the goal (ratio < 1 means the goal is met).

The peer: the PyPI package of the same name, ``mlsysim==0.3.0``, installed in its own virtual
environment (it would shadow this package otherwise). ``--make-peer`` creates it with the
ordinary clients (``python -m venv`` and ``pip install mlsysim==0.3.0``) at ``--peer-venv``
(default ``$MLSYSIM_PEER_VENV`` or ``/work/venv-peer``). When that environment exists, the same
run measures the peer's import time and its warm ``Engine.solve`` of ResNet-50 on an H100 at
batch 8 (same timing loop, same machine, same minute) and prints the speed ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEER_VENV = Path(os.environ.get("MLSYSIM_PEER_VENV", "/work/venv-peer"))
PEER_VERSION = "0.3.0"
#: Speed goal against the peer: one warm Engine.solve at least this many times faster.
PEER_SPEEDUP_GOAL = 20.0

GOALS = {
    "import mlsysim": (0.5, "s"),
    "Engine.solve ResNet-50 / H100": (100.0, "us"),
    "Engine.sweep 10,000 batches": (50.0, "ms"),
    "part redraw (median of all parts)": (50.0, "ms"),
    "part redraw (slowest part)": (100.0, "ms"),
}

_IMPORT_SNIPPET = (
    "import time; t = time.perf_counter(); import mlsysim; print(time.perf_counter() - t)"
)


def import_time(
    python: str = sys.executable, cwd: Path = ROOT, runs: int = 5, extra_env: dict | None = None
) -> tuple[float, float]:
    """Median over ``runs`` fresh interpreters of (time inside ``import mlsysim``, whole
    process wall time), in seconds."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra_env or {})
    inside, wall = [], []
    for _ in range(runs):
        t0 = timeit.default_timer()
        out = subprocess.run(
            [python, "-c", _IMPORT_SNIPPET],
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        wall.append(timeit.default_timer() - t0)
        inside.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(inside), statistics.median(wall)


_SOLVE_SNIPPET = """
import sys, timeit
from mlsysim import Engine, Hardware, Models
model = getattr(Models, "Vision", Models)
model = getattr(model, "ResNet50")
hw = Hardware.Cloud.H100
Engine.solve(model, hw, batch_size=8)
times = timeit.repeat(lambda: Engine.solve(model, hw, batch_size=8), repeat={repeat},
                      number={number})
print(min(times) / {number} * 1e6)
"""


def make_peer(venv: Path = PEER_VENV) -> None:
    """Create ``venv`` with the PyPI ``mlsysim==0.3.0`` (pip, the ordinary client)."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"mlsysim=={PEER_VERSION}"],
        check=True,
    )


def peer_solve_time_us(python: str, repeat: int = 5, number: int = 200) -> float:
    """The peer's warm Engine.solve(ResNet-50, H100, batch 8), microseconds (same loop as
    ``solve_time_us``; fewer calls per repeat because each takes ~1 ms). The peer spells the
    preset ``Models.Vision.ResNet50``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [python, "-c", _SOLVE_SNIPPET.format(repeat=repeat, number=number)],
        cwd="/",
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def solve_time_us(repeat: int = 5, number: int = 2000) -> float:
    """Best-of-``repeat`` mean time of one warm Engine.solve(ResNet-50, H100), microseconds."""
    sys.path.insert(0, str(ROOT))
    from mlsysim import Engine, Hardware, Models

    model, hw = Models.ResNet50, Hardware.Cloud.H100
    Engine.solve(model, hw, batch_size=8)  # build rows and cached coefficients once
    times = timeit.repeat(
        lambda: Engine.solve(model, hw, batch_size=8), repeat=repeat, number=number
    )
    return min(times) / number * 1e6


def sweep_time_ms(points: int = 10_000, repeat: int = 5) -> tuple[float, bool]:
    """Median time of a ``points``-batch Engine.sweep of ResNet-50 on H100, milliseconds; and
    whether numpy was used."""
    sys.path.insert(0, str(ROOT))
    from mlsysim import Engine, Hardware, Models
    from mlsysim.engine import _numpy

    model, hw = Models.ResNet50, Hardware.Cloud.H100
    batches = list(range(1, points + 1))
    Engine.sweep(model, hw, batch_sizes=batches)  # warm
    times = timeit.repeat(
        lambda: Engine.sweep(model, hw, batch_sizes=batches), repeat=repeat, number=1
    )
    return statistics.median(times) * 1e3, _numpy() is not None


def redraw_times_ms() -> tuple[float, float, str]:
    """Every part of every notebook at its default widget values, warm (a slider drag re-runs
    exactly one of these): median and worst time in ms, and the slowest part."""
    import importlib
    import inspect
    import pkgutil

    import mlsysim.labs.parts as parts

    times = {}
    for info in pkgutil.iter_modules(parts.__path__):
        mod = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or not (
                name.startswith("part_") or name == "synthesis"
            ):
                continue
            letter = "S" if name == "synthesis" else name[-1].upper()
            args = [
                getattr(mod, f"{letter}_{p.upper()}").value
                for p in inspect.signature(fn).parameters
            ]
            fn(*args)  # warm: first builds of models are cached
            best = min(timeit.repeat(lambda fn=fn, args=args: fn(*args), number=1, repeat=3))
            times[f"{info.name}.{name}"] = best * 1e3
    ordered = sorted(times.values())
    worst = max(times, key=times.get)
    return statistics.median(ordered), times[worst], worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--peer-venv",
        type=Path,
        default=PEER_VENV,
        help="virtual environment holding the PyPI mlsysim==0.3.0",
    )
    parser.add_argument(
        "--make-peer",
        action="store_true",
        help="create --peer-venv with pip first when it does not exist",
    )
    args = parser.parse_args(argv)
    peer_python = args.peer_venv / "bin" / "python"
    if args.make_peer and not peer_python.exists():
        make_peer(args.peer_venv)

    imp_inside, imp_wall = import_time()
    solve_us = solve_time_us()
    sweep_ms, used_numpy = sweep_time_ms()
    redraw_med, redraw_max, slowest = redraw_times_ms()

    rows = [
        ("import mlsysim", imp_inside, "s", f"process wall {imp_wall:.3f} s"),
        ("Engine.solve ResNet-50 / H100", solve_us, "us", "warm, batch 8"),
        ("Engine.sweep 10,000 batches", sweep_ms, "ms", "numpy" if used_numpy else "pure Python"),
        ("part redraw (median of all parts)", redraw_med, "ms", "default widget values, warm"),
        ("part redraw (slowest part)", redraw_max, "ms", slowest),
    ]
    speedup = None
    if peer_python.exists():
        try:
            # cwd outside the repo so the local package cannot shadow the installed one
            peer_inside, peer_wall = import_time(str(peer_python), cwd=Path("/"))
            rows.append(
                (
                    "import mlsysim (PyPI 0.3.0 peer)",
                    peer_inside,
                    "s",
                    f"process wall {peer_wall:.3f} s",
                )
            )
            peer_us = peer_solve_time_us(str(peer_python))
            speedup = peer_us / solve_us
            rows.append(
                (
                    "Engine.solve ResNet-50 / H100 (PyPI 0.3.0 peer)",
                    peer_us,
                    "us",
                    f"warm, batch 8; this package is {speedup:.1f}x faster",
                )
            )
        except (subprocess.CalledProcessError, ValueError, IndexError) as exc:
            rows.append(("import mlsysim (PyPI 0.3.0 peer)", float("nan"), "s", f"failed: {exc}"))

    print(f"{'measurement':36} {'value':>12} {'goal':>10} {'ratio':>7}  note")
    print("-" * 86)
    for name, value, unit, note in rows:
        goal = GOALS.get(name.split(" (")[0] if "peer" in name else name)
        goal_s = f"{goal[0]:g} {goal[1]}" if goal else ""
        ratio = f"{value / goal[0]:.2f}" if goal else ""
        print(f"{name:36} {value:>9.3f} {unit:<2} {goal_s:>10} {ratio:>7}  {note}")
    print("\nratio = measured / goal; below 1.00 meets the goal.")
    if speedup is not None:
        verdict = "meets" if speedup >= PEER_SPEEDUP_GOAL else "misses"
        print(
            f"Engine.solve vs PyPI mlsysim {PEER_VERSION}: {speedup:.1f}x faster in this run "
            f"({verdict} the {PEER_SPEEDUP_GOAL:g}x goal)."
        )
    else:
        print(f"peer not measured: no {peer_python} (run with --make-peer to create it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Build wheels/mlsysim-<version>-py3-none-any.whl from the sources, reproducibly.

    python scripts/build_wheel.py [--out-dir wheels] [--check]

The browser labs (Pyodide) micropip-install this committed wheel, so it must always match the
sources: tests/test_wheel.py fails when it is stale.

Reproducible = byte-identical output for identical sources and build tools:
  * the package sources (pyproject.toml, README*, LICENSE*, mlsysim/ without caches) are copied
    into a fresh temp dir, so no stale build/ or *.egg-info in the work tree can leak in;
  * `python -m build --wheel --no-isolation` runs there with SOURCE_DATE_EPOCH fixed;
  * the zip is then rewritten with sorted entries, a fixed timestamp and fixed permissions
    (RECORD hashes only file contents, so it stays valid).
Older mlsysim-*.whl files in the output dir are removed.  Fails if the wheel is > 640 KB.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# all 15 lessons' text, every argument check and each part's widget check: 2.7 % of the
# page's 14 MB extra-fetch budget (raised from 360 KB, 2026-12-05, when the parts began checking
# their arguments against their widgets and the lessons grew by the reviewers' corrections;
# raised from 384 KB, 2026-12-06, when every wrong option of the 112 questions gained its named
# misconception and the question bank was rewritten to the rubric: +36 KB, 3.1 % of the budget)
# raised from 448 KB, 2026-12-06, for issue 34's families (15 Hugging Face model types,
# mlsysim.vision's ten torchvision families), 40 devices and the concept inventory: the wheel went
# from 402.6 to about 465 KB (+62 KB, 0.4 % of the page's 14 MB extra-fetch budget)
# raised from 512 KB, 2026-12-06, for issue 36's conceptual parts (priors, field risks, the Netflix
# ensemble, block optimizations, skip paths and three more questions): about +40 KB, 0.3 % of the
# budget; the lessons' text is most of the wheel (one copy, shared by every lab from the cache)
# raised from 576 KB, 2026-12-07, for the first parts' precomputed views (mlsysim.labs.first_views,
# issue 35: 218 KB of HTML, +27 KB zipped, 0.2 % of the budget), which show a first answer's chart
# without loading plotly, pint and pydantic first (~1.3 s of that chart's wait in Pyodide)
MAX_BYTES = 640 * 1024
SOURCE_DATE_EPOCH = 1704067200  # 2024-01-01T00:00:00Z, fixed on purpose
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info", ".*")


def project_version(root: Path = ROOT) -> str:
    return tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]


def wheel_name(version: str) -> str:
    return f"mlsysim-{version}-py3-none-any.whl"


def _normalize_zip(src: Path, dst: Path) -> None:
    """Rewrite a wheel with sorted entries, fixed timestamps and permissions."""
    with zipfile.ZipFile(src) as zin:
        names = [i.filename for i in zin.infolist() if not i.is_dir()]
        dist_info = [n for n in names if ".dist-info/" in n]
        # wheel convention: package files first, dist-info last, RECORD the very last entry
        ordered = sorted(n for n in names if n not in dist_info) + sorted(
            dist_info, key=lambda n: (n.endswith("/RECORD"), n)
        )
        with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as zout:
            for name in ordered:
                info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (0o100644 & 0xFFFF) << 16
                info.create_system = 3  # unix
                zout.writestr(info, zin.read(name), compresslevel=9)


def build(out_dir: Path = ROOT / "wheels", root: Path = ROOT, quiet: bool = False) -> Path:
    version = project_version(root)
    name = wheel_name(version)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mlsysim-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        shutil.copy2(root / "pyproject.toml", src / "pyproject.toml")
        for extra in sorted(root.glob("README*")) + sorted(root.glob("LICEN[CS]E*")):
            if extra.is_file():
                shutil.copy2(extra, src / extra.name)
        shutil.copytree(root / "mlsysim", src / "mlsysim", ignore=IGNORE)
        dist = Path(tmp) / "dist"
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(SOURCE_DATE_EPOCH), PYTHONHASHSEED="0")
        cmd = [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(dist),
            str(src),
        ]
        proc = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            hint = ""
            if (
                "Missing dependencies" in proc.stdout + proc.stderr
                or "No module named build" in proc.stderr
            ):
                hint = "\n  install the build tools: python -m pip install 'setuptools>=68' wheel build"
            raise SystemExit(f"wheel build failed (rc={proc.returncode}): {' '.join(cmd)}{hint}")
        built = dist / name
        if not built.exists():
            raise SystemExit(f"expected {name}, build produced {[p.name for p in dist.iterdir()]}")
        normalized = Path(tmp) / name
        _normalize_zip(built, normalized)
        size = normalized.stat().st_size
        if size > MAX_BYTES:
            raise SystemExit(
                f"wheel is {size} bytes > {MAX_BYTES} ({MAX_BYTES // 1024} KB) limit; not written"
            )
        for old in out_dir.glob("mlsysim-*.whl"):
            if old.name != name:
                old.unlink()
                if not quiet:
                    print(f"removed old wheel {old.name}")
        target = out_dir / name
        # write only when the bytes change, so mtimes stay put on no-op rebuilds
        data = normalized.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            tmp_target = target.with_suffix(".whl.tmp")
            tmp_target.write_bytes(data)
            tmp_target.replace(target)
    if not quiet:
        sha = hashlib.sha256(target.read_bytes()).hexdigest()
        print(
            f"{target.relative_to(root) if target.is_relative_to(root) else target}: "
            f"{size} bytes ({size / 1024:.1f} KB) sha256={sha[:16]}"
        )
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out-dir", type=Path, default=ROOT / "wheels")
    args = ap.parse_args(argv)
    build(args.out_dir.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

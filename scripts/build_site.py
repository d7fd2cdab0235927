#!/usr/bin/env python
"""Build the browser (WebAssembly) site of the labs.

    python scripts/build_site.py [--out site] [--labs-dir labs] [--offline-mirror [DIR]]
                                 [--cache-dir .browser-cache]

1. builds the mlsysim wheel (scripts/build_wheel.py -> wheels/mlsysim-<v>-py3-none-any.whl);
2. exports every labs/*.py (files starting with `_` skipped) with
   `marimo export html-wasm --mode run` into <out>/<stem>/   (needs `uv` on PATH);
3. copies the wheel next to every page: <out>/<stem>/wheels/<wheel> + wheels/mlsysim.json
   (the install rule: see README.md, 'Install rule');
4. writes <out>/index.html listing the labs in labs/README.md's order (title: first `# ` heading in an
   mo.md, else App(app_title=...), else the first heading, else the file name);
5. with --offline-mirror: builds a local Pyodide mirror (npm pyodide@<marimo's PYODIDE_VERSION>,
   pinned wasm/pure wheels from PyPI, a hand-built pyodide-lock.json, a PEP 503 simple/ index)
   in DIR (default <out>/_pyodide-mirror; a DIR outside <out> is symlinked in as
   <out>/_pyodide-mirror) and points every page at it through the <marimo-wasm> data-*
   attributes, so the site makes no request outside its own origin.  MathJax, which marimo's
   plotly renderer always loads from jsDelivr, is vendored from the npm tarball mathjax-full
   and the URL is rewritten inside each page's assets/*.js.
   Downloads are cached in --cache-dir (default $MLSYSIM_BROWSER_CACHE or .browser-cache).

Without --offline-mirror the pages use marimo's defaults (Pyodide from the jsDelivr CDN,
marimo's lockfile, PyPI) and only the mlsysim wheel is served by the site itself.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_wheel  # noqa: E402

#: Each page gets its own copy of the wheel in <page>/wheels/, plus a manifest (name, version,
#: file, sha256). The notebooks' boot cell installs <page>/wheels/<wheel>: the page URL is the
#: web worker's URL cut at "/assets/" (relative URLs resolve against the worker, not the page).
WHEEL_DIR = "wheels"
MANIFEST = "mlsysim.json"

MIRROR_NAME = "_pyodide-mirror"

# Pyodide version -> (wheel platform tag, python version, abi).  Must match marimo's PYODIDE_VERSION.
PYODIDE_ABI = {"314.0.0": ("pyemscripten_2026_0_wasm32", "3.14", "cp314")}

# Exact pins => the mirror is the same every time.  marimo-base is added with marimo's own version
# (it must equal the bundled frontend).  pydantic-core and msgspec are real wasm wheels on PyPI;
# the rest is pure Python.  PyYAML (needed by marimo-base) has no wasm wheel: it is repackaged
# from its pure-Python sources (PYYAML_VERSION).
WASM_WHEELS = [
    # marimo runtime in the worker
    "micropip==0.11.1",
    "msgspec==0.23.0",
    "markdown==3.11.3",
    "pymdown-extensions==11.0.2",
    "narwhals==2.29.0",
    "packaging==26.4",
    "docutils==0.23",
    "pygments==2.21.0",
    "jedi==0.20.1",
    "parso==0.8.7",
    "pyodide-http==0.2.2",
    "tomlkit==0.15.2",
    "python-multipart==0.0.34",
    "itsdangerous==2.2.0",
    # formatter bits some marimo code paths import
    "black==26.10.1",
    "click==8.5.1",
    "mypy-extensions==1.2.0",
    "pathspec==1.1.1",
    "pytokens==0.4.1",
    "platformdirs==4.14.9",
    # mlsysim's required deps (pyproject: pint, pydantic, plotly) and theirs
    "pydantic==2.14.4",
    "pydantic-core==2.50.5",
    "typing-extensions==4.16.0",
    "annotated-types==0.8.0",
    "typing-inspection==0.4.5",
    "pint==0.26.2",
    "flexcache==0.3",
    "flexparser==0.4",
    "plotly==7.1.0",
]
PYYAML_VERSION = "6.0.3"
PYODIDE_CORE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide.js",
]


def log(msg: str) -> None:
    print(f"[build_site] {msg}", flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-6000:] + "\n" + proc.stderr[-6000:] + "\n")
        raise SystemExit(f"command failed (rc={proc.returncode}): {' '.join(map(str, cmd))}")
    return proc


# ---------------------------------------------------------------- notebooks
def list_notebooks(labs_dir: Path) -> list[Path]:
    """In the order labs/README.md's map lists them (files it does not name go last, by name)."""
    found = sorted(p for p in labs_dir.glob("*.py") if not p.name.startswith("_"))
    readme = labs_dir / "README.md"
    listed = re.findall(r"`([\w.-]+\.py)`", readme.read_text(encoding="utf-8")) if readme.exists() else []
    rank = {name: i for i, name in reversed(list(enumerate(listed)))}
    return sorted(found, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def notebook_title(path: Path) -> str:
    """A level-1 markdown heading in an mo.md(...) string, else App(app_title=...), else the
    first markdown heading of any level, else the file name."""
    src = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(src)
    except SyntaxError:
        tree = None
    app_title = None
    headings: list[tuple[int, int, int, str]] = []  # (lineno, col, level, text)
    if tree is not None:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname == "App":
                for kw in node.keywords:
                    if kw.arg == "app_title" and isinstance(kw.value, ast.Constant):
                        app_title = str(kw.value.value).strip() or None
            if fname != "md" or not node.args:
                continue
            a = node.args[0]
            text = None
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                text = a.value
            elif isinstance(a, ast.JoinedStr):
                text = "".join(
                    v.value
                    for v in a.values
                    if isinstance(v, ast.Constant) and isinstance(v.value, str)
                )
            for line in (text or "").splitlines():
                m = re.match(r"\s*(#{1,6})\s+(.+?)\s*#*\s*$", line)
                if m:
                    clean = re.sub(r"[*_`]", "", m.group(2)).strip()
                    headings.append((node.lineno, node.col_offset, len(m.group(1)), clean))
    headings.sort()
    for *_, level, text in headings:
        if level == 1:
            return text
    if app_title:
        return app_title
    if headings:
        return headings[0][3]
    return path.stem.replace("_", " ").strip().capitalize()


def export_notebook(nb: Path, out_dir: Path) -> None:
    if shutil.which("uv") is None:
        raise SystemExit(
            "`marimo export html-wasm` needs `uv` on PATH: pip install uv "
            "(or run scripts/install_browser_deps.sh)"
        )
    if out_dir.exists():
        shutil.rmtree(out_dir)
    run(
        [
            sys.executable,
            "-m",
            "marimo",
            "export",
            "html-wasm",
            str(nb),
            "-o",
            str(out_dir),
            "--mode",
            "run",
            "-f",
        ],
        cwd=nb.parent,
    )
    if not (out_dir / "index.html").is_file():
        raise SystemExit(f"marimo export produced no index.html for {nb}")
    stray = out_dir / "CLAUDE.md"  # shipped inside marimo's _static; not part of the site
    if stray.exists():
        stray.unlink()


def place_wheel(wheel: Path, page_dir: Path, version: str) -> None:
    d = page_dir / WHEEL_DIR
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy2(wheel, d / wheel.name)
    manifest = {
        "name": "mlsysim",
        "version": version,
        "wheel": wheel.name,
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
    }
    (d / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def write_index(out: Path, labs: list[tuple[str, str]]) -> None:
    items = "\n".join(
        f'    <li><a href="./{html.escape(stem)}/">{html.escape(title)}</a></li>'
        for stem, title in labs
    )
    out.joinpath("index.html").write_text(
        f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>mlsysim labs</title>
  <style>
    body {{ font-family: system-ui, sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1rem; }}
    li {{ margin: .5rem 0; font-size: 1.1rem; }}
  </style>
</head>
<body>
  <h1>mlsysim labs</h1>
  <p>Interactive labs that run entirely in your browser (Python via WebAssembly).
     The first load of a lab takes a few seconds.</p>
  <ol>
{items}
  </ol>
</body>
</html>
""",
        encoding="utf-8",
    )


# ---------------------------------------------------------------- offline mirror
def pyodide_version() -> str:
    from marimo._pyodide.pyodide_constraints import PYODIDE_VERSION

    if PYODIDE_VERSION not in PYODIDE_ABI:
        raise SystemExit(
            f"marimo pins Pyodide {PYODIDE_VERSION}; scripts/build_site.py only knows "
            f"{sorted(PYODIDE_ABI)}: add its wheel tag to PYODIDE_ABI"
        )
    return PYODIDE_VERSION


def fetch_pyodide_core(cache: Path, version: str) -> Path:
    d = cache / f"npm-pyodide-{version}"
    pkg = d / "node_modules" / "pyodide"
    if all((pkg / f).is_file() for f in PYODIDE_CORE_FILES + ["pyodide-lock.json"]):
        return pkg
    if shutil.which("npm") is None:
        raise SystemExit(
            "npm is needed once to fetch the npm package pyodide (core); "
            "run scripts/install_browser_deps.sh"
        )
    d.mkdir(parents=True, exist_ok=True)
    (d / "package.json").write_text('{"private": true}\n')
    log(f"npm install pyodide@{version} -> {d}")
    run(
        [
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--silent",
            f"pyodide@{version}",
        ],
        cwd=d,
    )
    got = json.loads((pkg / "package.json").read_text())["version"]
    if got != version:
        raise SystemExit(f"npm gave pyodide {got}, need exactly {version}")
    return pkg


def _pure_pyyaml_wheel(cache: Path, dest: Path) -> None:
    """PyYAML has no wasm wheel on PyPI: repackage lib/yaml of its sdist as py3-none-any."""
    name = f"PyYAML-{PYYAML_VERSION}-py3-none-any.whl"
    if (dest / name).is_file():
        return
    sd = cache / "sdist"
    sd.mkdir(parents=True, exist_ok=True)
    tgz = sd / f"pyyaml-{PYYAML_VERSION}.tar.gz"
    if not tgz.is_file():
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary=:all:",
                "-d",
                str(sd),
                f"pyyaml=={PYYAML_VERSION}",
            ]
        )
    files: dict[str, bytes] = {}
    with tarfile.open(tgz) as tf:
        prefix = f"pyyaml-{PYYAML_VERSION}/lib/yaml/"
        for m in tf.getmembers():
            if m.isfile() and m.name.startswith(prefix) and m.name.endswith(".py"):
                files["yaml/" + m.name[len(prefix) :]] = tf.extractfile(m).read()
    di = f"PyYAML-{PYYAML_VERSION}.dist-info"
    files[f"{di}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: PyYAML\nVersion: {PYYAML_VERSION}\n"
        "Summary: pure-Python repackage of PyYAML for Pyodide\n"
    ).encode()
    files[f"{di}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: mlsysim-build-site\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{di}/top_level.txt"] = b"yaml\n"
    import base64

    record = []
    for n in sorted(files):
        h = base64.urlsafe_b64encode(hashlib.sha256(files[n]).digest()).rstrip(b"=").decode()
        record.append(f"{n},sha256={h},{len(files[n])}")
    record.append(f"{di}/RECORD,,")
    files[f"{di}/RECORD"] = ("\n".join(record) + "\n").encode()
    tmp = dest / (name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n in sorted(files, key=lambda n: (n.startswith(di), n.endswith("RECORD"), n)):
            info = zipfile.ZipInfo(n, date_time=build_wheel.ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            z.writestr(info, files[n])
    tmp.replace(dest / name)


def fetch_wasm_wheels(cache: Path, version: str) -> Path:
    import marimo

    platform, pyver, abi = PYODIDE_ABI[version]
    specs = sorted(WASM_WHEELS + [f"marimo-base=={marimo.__version__}"])
    key = hashlib.sha256(json.dumps([version, specs, PYYAML_VERSION]).encode()).hexdigest()[:12]
    d = cache / f"wasm-wheels-{version}-{key}"
    stamp = d / ".complete"
    if not stamp.is_file():
        d.mkdir(parents=True, exist_ok=True)
        log(f"pip download {len(specs)} wasm/pure wheels -> {d}")
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "--platform",
                platform,
                "--python-version",
                pyver,
                "--implementation",
                "cp",
                "--abi",
                abi,
                "-d",
                str(d),
                *specs,
            ]
        )
        _pure_pyyaml_wheel(cache, d)
        stamp.write_text("\n".join(specs) + "\n")
    return d


def _wheel_meta(w: Path):
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    env = {
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "python_version": "3.14",
        "python_full_version": "3.14.2",
        "implementation_name": "cpython",
        "platform_machine": "wasm32",
        "os_name": "posix",
        "platform_python_implementation": "CPython",
        "extra": "",
    }
    with zipfile.ZipFile(w) as z:
        names = z.namelist()
        di = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
        md = z.read(f"{di}/METADATA").decode("utf-8")
    name = re.search(r"^Name: (.+)$", md, re.M).group(1).strip()
    ver = re.search(r"^Version: (.+)$", md, re.M).group(1).strip()
    reqs = []
    for line in re.findall(r"^Requires-Dist: (.+)$", md, re.M):
        r = Requirement(line)
        if r.marker is None or r.marker.evaluate(env):
            reqs.append(canonicalize_name(r.name))
    tops = set()
    for n in names:
        t = n.split("/")[0]
        if t.endswith((".dist-info", ".data")):
            continue
        if t.endswith(".py"):
            t = t[:-3]
        elif "/" not in n:
            continue  # top-level non-python file
        if not t or t.startswith("__") or "." in t:
            continue
        if t.startswith("_") and t not in ("_yaml",):
            continue
        tops.add(t)
    return canonicalize_name(name), name, ver, sorted(set(reqs)), sorted(tops)


# marimo's plotly renderer always loads MathJax from jsDelivr (marimo 0.25.2: mathjax-full@3.2.2,
# es5/tex-mml-svg.min.js).  Offline, the page copies it from the npm tarball and rewrites the URL.
MATHJAX_CDN = re.compile(
    r"https://cdn\.jsdelivr\.net/npm/mathjax-full@([0-9][0-9.]*)/(es5/[\w./-]+)"
)
# besides the referenced component itself: what it may lazy-load (TeX autoload extensions, the
# context menu and its explorer); the 4 MB speech engine (sre/) is left out (menu opt-in only)
MATHJAX_KEEP = ("es5/input/tex/extensions/", "es5/ui/", "es5/a11y/")


def mathjax_refs(page: Path) -> dict[str, set[str]]:
    refs: dict[str, set[str]] = {}
    for js in sorted((page / "assets").glob("*.js")):
        for ver, path in MATHJAX_CDN.findall(js.read_text(encoding="utf-8", errors="replace")):
            refs.setdefault(ver, set()).add(path)
    return refs


def vendor_mathjax(mirror: Path, cache: Path, refs: dict[str, set[str]]) -> None:
    for ver, paths in sorted(refs.items()):
        d = cache / f"npm-mathjax-full-{ver}"
        tgz = d / f"mathjax-full-{ver}.tgz"
        if not tgz.is_file():
            if shutil.which("npm") is None:
                raise SystemExit("npm is needed once to fetch the npm package mathjax-full")
            d.mkdir(parents=True, exist_ok=True)
            log(f"npm pack mathjax-full@{ver} -> {d}")
            run(["npm", "pack", "--silent", f"mathjax-full@{ver}"], cwd=d)
        dest = mirror / f"mathjax-full@{ver}"
        wanted = {p.replace(".min.js", ".js"): p for p in paths}  # jsDelivr auto-minifies *.min.js;
        with tarfile.open(tgz) as tf:  # the npm files are minified already
            for m in tf.getmembers():
                rel = m.name.removeprefix("package/")
                if m.isfile() and (rel in wanted or rel.startswith(MATHJAX_KEEP)):
                    out = dest / wanted.get(rel, rel)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(tf.extractfile(m).read())
        for path in sorted(paths):
            if not (dest / path).is_file():
                raise SystemExit(
                    f"mathjax-full@{ver} has no {path} (marimo changed its MathJax URL?)"
                )
        log(f"vendored mathjax-full@{ver} ({', '.join(sorted(paths))})")


def build_mirror(mirror: Path, cache: Path, mathjax: dict[str, set[str]] | None = None) -> None:
    version = pyodide_version()
    core = fetch_pyodide_core(cache, version)
    wheel_dir = fetch_wasm_wheels(cache, version)
    if mirror.exists():
        shutil.rmtree(mirror)
    pyo = mirror / "pyodide"
    pyo.mkdir(parents=True)
    for f in PYODIDE_CORE_FILES:
        shutil.copy2(core / f, pyo / f)
    base_lock = json.loads((core / "pyodide-lock.json").read_text())
    metas = {}
    for w in sorted(wheel_dir.glob("*.whl")):
        shutil.copy2(w, pyo / w.name)
        key, name, ver, reqs, imports = _wheel_meta(w)
        metas[key] = (name, ver, w.name, reqs, imports, hashlib.sha256(w.read_bytes()).hexdigest())
    packages = {}
    for key in sorted(metas):
        name, ver, fname, reqs, imports, sha = metas[key]
        packages[key] = {
            "name": name,
            "version": ver,
            "file_name": fname,
            "install_dir": "site",
            "sha256": sha,
            "package_type": "package",
            "imports": imports,
            "depends": [r for r in reqs if r in metas],
            "unvendored_tests": False,
        }
        d = mirror / "simple" / key
        d.mkdir(parents=True, exist_ok=True)
        (d / "index.html").write_text(
            f'<!doctype html><html><body><a href="../../pyodide/{fname}#sha256={sha}">{fname}</a>'
            "</body></html>\n"
        )
    (mirror / "simple" / "index.html").write_text(
        "<!doctype html><html><body>\n"
        + "".join(f'<a href="{k}/">{k}</a>\n' for k in sorted(metas))
        + "</body></html>\n"
    )
    vendor_mathjax(mirror, cache, mathjax or {})
    lock = {"info": base_lock["info"], "packages": packages}
    (pyo / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    unresolved = {k: [r for r in m[3] if r not in metas] for k, m in metas.items()}
    unresolved = {k: v for k, v in unresolved.items() if v}
    if unresolved:
        log(f"note: deps not in the mirror (not needed in Pyodide or provided by it): {unresolved}")
    log(f"mirror: Pyodide {version} core + {len(packages)} wheels in {mirror}")


def point_page_at_mirror(page: Path, rel: str) -> None:
    """Set the <marimo-wasm> data-* attributes the marimo frontend reads (resolved vs. the page)."""
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    attrs = {
        "data-pyodide-index-url": f"{rel}/pyodide/",
        "data-pyodide-lockfile-url": f"{rel}/pyodide/pyodide-lock.json",
        "data-pypi-index-url": f"{rel}/simple/",
    }
    m = re.search(r"<marimo-wasm\b[^>]*>", s)
    if not m:
        raise SystemExit(f"{idx}: no <marimo-wasm> element (marimo export format changed?)")
    tag = m.group(0)
    for a in attrs:
        tag = re.sub(rf'\s{a}="[^"]*"', "", tag)
    tag = tag[:-1].rstrip() + "".join(f' {a}="{v}"' for a, v in attrs.items()) + ">"
    idx.write_text(s[: m.start()] + tag + s[m.end() :], encoding="utf-8")
    # MathJax: a <script src> resolved against the page, like the data-* URLs above
    for js in sorted((page / "assets").glob("*.js")):
        text = js.read_text(encoding="utf-8", errors="surrogateescape")
        new = MATHJAX_CDN.sub(lambda mm: f"{rel}/mathjax-full@{mm.group(1)}/{mm.group(2)}", text)
        if new != text:
            js.write_text(new, encoding="utf-8", errors="surrogateescape")


# ---------------------------------------------------------------- main
def build_site(out: Path, labs_dir: Path, offline_mirror: Path | None, cache: Path) -> dict:
    t0 = time.time()
    out.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel.build()
    version = build_wheel.project_version()
    notebooks = list_notebooks(labs_dir)
    if not notebooks:
        raise SystemExit(f"no notebooks in {labs_dir} (labs/*.py not starting with '_')")
    # remove pages of notebooks that no longer exist
    keep = {nb.stem for nb in notebooks} | {MIRROR_NAME}
    for child in out.iterdir():
        if child.is_dir() and child.name not in keep and (child / "index.html").exists():
            shutil.rmtree(child)
    labs = []
    for nb in notebooks:
        t = time.time()
        page = out / nb.stem
        export_notebook(nb, page)
        place_wheel(wheel, page, version)
        labs.append((nb.stem, notebook_title(nb)))
        log(f"exported {nb.name} -> {page.relative_to(out)}/ ({time.time() - t:.1f}s)")
    if offline_mirror is not None:
        link = out / MIRROR_NAME
        inside = offline_mirror == link
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists() and not inside:
            shutil.rmtree(link)
        mathjax: dict[str, set[str]] = {}
        for stem, _ in labs:
            for ver, paths in mathjax_refs(out / stem).items():
                mathjax.setdefault(ver, set()).update(paths)
        build_mirror(offline_mirror, cache, mathjax)
        if not inside:
            link.symlink_to(offline_mirror, target_is_directory=True)
        for stem, _ in labs:
            point_page_at_mirror(out / stem, f"../{MIRROR_NAME}")
    write_index(out, labs)
    info = {
        "out": str(out),
        "labs": [s for s, _ in labs],
        "wheel": wheel.name,
        "offline": offline_mirror is not None,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "site.json").write_text(json.dumps(info, indent=1) + "\n")
    log(f"site ready: {out} ({len(labs)} labs, {info['seconds']}s)")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, default=ROOT / "site")
    ap.add_argument(
        "--labs-dir", type=Path, default=Path(os.environ.get("MLSYSIM_LABS_DIR", ROOT / "labs"))
    )
    ap.add_argument(
        "--offline-mirror",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help=f"build a local Pyodide mirror in DIR (default <out>/{MIRROR_NAME})",
    )
    ap.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("MLSYSIM_BROWSER_CACHE", ROOT / ".browser-cache")),
    )
    a = ap.parse_args(argv)
    out = a.out.resolve()
    mirror = None
    if a.offline_mirror is not None:
        mirror = (out / MIRROR_NAME) if a.offline_mirror == "" else Path(a.offline_mirror).resolve()
    build_site(out, a.labs_dir.resolve(), mirror, a.cache_dir.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

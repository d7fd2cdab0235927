#!/usr/bin/env bash
# Idempotent install of what the real-browser WASM test (pytest -m browser tests/browser) needs
# on a fresh Debian machine that has only Python and pip.
#
#   - Debian's chromium at /usr/bin/chromium (apt).  We NEVER run `playwright install`:
#     Playwright drives the system chromium through executable_path, no browser download.
#   - pip: playwright (the Python driver only) and uv (`marimo export html-wasm` needs uv).
#   - node/npm: only to fetch the npm package pyodide@<marimo's PYODIDE_VERSION> for the
#     offline mirror (scripts/build_site.py --offline-mirror); installed from apt if missing.
#
# Exit status: 0 when everything is usable, non-zero with a message saying what is missing.
set -euo pipefail

log() { printf '[install_browser_deps] %s\n' "$*"; }
die() { printf '[install_browser_deps] ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ "$APT_UPDATED" = 0 ]; then
    $SUDO apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

# 1. chromium (Debian package; never a Playwright browser download)
if [ -x /usr/bin/chromium ]; then
  log "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo '?')"
else
  log "installing chromium from apt ..."
  apt_install chromium || true
  [ -x /usr/bin/chromium ] || die "chromium could not be installed (apt-get install chromium failed or no apt).
  The browser test needs Debian's /usr/bin/chromium; it never downloads a browser build.
  Skip it (pytest -m browser is opt-in) or install chromium by hand."
  log "chromium installed: $(/usr/bin/chromium --version 2>/dev/null || echo '?')"
fi

# 2. python packages: the playwright driver and uv (no `playwright install`!)
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null 2>&1 || PY=python
need_pip=()
"$PY" -c "import playwright.sync_api" 2>/dev/null || need_pip+=(playwright)
command -v uv >/dev/null 2>&1 || "$PY" -c "import uv" 2>/dev/null || need_pip+=(uv)
"$PY" -c "import marimo" 2>/dev/null || need_pip+=("marimo==0.25.2")
"$PY" -c "import build" 2>/dev/null || need_pip+=(build)
# scripts/build_wheel.py runs `python -m build --no-isolation`: pyproject needs setuptools>=68
"$PY" -c "import setuptools, wheel, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 68)" 2>/dev/null \
  || need_pip+=("setuptools>=68" wheel)
if [ ${#need_pip[@]} -gt 0 ]; then
  log "pip install ${need_pip[*]}"
  "$PY" -m pip install -q "${need_pip[@]}" || die "pip install ${need_pip[*]} failed"
else
  log "python packages present (playwright, uv, marimo, build, setuptools, wheel)"
fi
"$PY" -c "import playwright.sync_api" || die "playwright python package not importable"
command -v uv >/dev/null 2>&1 || die "uv not on PATH after pip install (marimo export html-wasm needs it)"

# 3. node/npm (fetches the npm package pyodide@314.0.0 into .browser-cache for the offline mirror)
if command -v npm >/dev/null 2>&1; then
  log "npm present: $(npm --version)"
else
  log "npm missing; installing nodejs+npm from apt ..."
  apt_install nodejs npm || true
  command -v npm >/dev/null 2>&1 || die "npm could not be installed; the offline Pyodide mirror needs the npm package pyodide"
fi

log "ok"

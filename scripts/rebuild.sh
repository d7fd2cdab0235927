#!/usr/bin/env bash
# Rebuild what students get after a change under mlsysim/ (a question, an option, feedback, a part):
# the first predictions' precomputed feedback (scripts/precompute_feedback.py), first parts'
# views (scripts/precompute_views.py) and first runs' markdown (scripts/precompute_markdown.py),
# the wheel the browser installs, then the browser site.
#   bash scripts/rebuild.sh                    # -> wheels/*.whl and site/
#   bash scripts/rebuild.sh --offline-mirror   # extra arguments go to scripts/build_site.py
set -euo pipefail
cd "$(dirname "$0")/.."
python scripts/precompute_feedback.py
python scripts/precompute_views.py
python scripts/precompute_markdown.py
python scripts/build_wheel.py
python scripts/build_site.py --out site "$@"

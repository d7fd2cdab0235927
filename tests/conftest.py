import os
import sys
import tempfile
from pathlib import Path

# tests import their helpers (harness.py) as top-level modules
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Every test's notebooks save to a ledger of their own, never to the user's
# (~/.local/share/mlsysim): a student's saved answers must not leak into a test run, nor a test
# run into a student's progress. Tests that need a fresh ledger still set their own.
os.environ["MLSYSIM_DATA_DIR"] = tempfile.mkdtemp(prefix="mlsysim-test-ledger-")

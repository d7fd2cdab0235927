"""The lab UI kit: ``style`` (palette, CSS, Plotly theme), ``components`` (predictions, cards,
messages, MathPeek, feasibility), ``charts`` (device lines, roofline), ``state`` (the design
ledger). Notebooks import what they show from here; the physics comes from ``mlsysim``."""

from . import browser as _browser

# in Pyodide: packages the page loads after the first question are loaded on first import
_browser.install()

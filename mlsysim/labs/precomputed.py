"""Feedback texts of the questions a student may answer before the page has loaded the core's
packages (a notebook's first prediction), made from the core by
``python scripts/precompute_feedback.py``; do not edit by hand. A question opts in with
``feedback=Deferred(make, precomputed="<lab>.<NAME>")`` (``mlsysim.labs.components.Deferred``),
and tests/test_precomputed_feedback.py fails when a text here differs from what ``make`` gives.
"""

FEEDBACK: dict[str, dict[str, str]] = {
    "s06_02_mlps.PRED_A": {
        "flash": "The weights grow with d × d, the activations with 2 × d: the flash runs out first, at width 1,025 (1,025² weights of 1 B each pass 1 MiB), while the activations would fill the SRAM only at width 131,073. A smaller memory is no constraint when what lives in it grows slowly.",
        "sram": "The SRAM is smaller, but it holds only the input and output, 2 × d bytes: it would fill at width 131,073. The flash holds d² weights and runs out at width 1,025.",
        "together": "Doubling the width doubles the activations (2 × d) but quadruples the weights (d²): the flash runs out at width 1,025, the SRAM would only at 131,073.",
    },
    "s06_03_cnns.PRED_A": {
        "step": "Each output value is one dot product over a 3×3×64 patch: 576 MACs wherever it sits, at any resolution. Four times the pixels is four times the output values, so both grow 4×: 1.8 billion to 7.4 billion MACs, 12.8 MB to 51.4 MB of FP32 output maps. Only the weights (36,864) stay put.",
        "macs": "The filter does not widen with the image: each output still sums the same 3×3×64 patch, 576 MACs. More pixels means more outputs, not dearer ones: both grow 4× (1.8 billion to 7.4 billion MACs).",
        "acts": "The filters stay, but they run at every output position: four times the positions is four times the MACs (1.8 billion to 7.4 billion), in step with the output maps (12.8 MB to 51.4 MB).",
        "maps": "Padding keeps each output map the size of its input, so the maps grow with the pixels: 12.8 MB to 51.4 MB in FP32, 4×, in step with the MACs (1.8 billion to 7.4 billion).",
    },
    "s06_08_dlrm.PRED_A": {
        "capacity": "100M × 128 × 4 B = 51.2 GB per table, 64% of the device; the pair needs 102.4 GB, 128% of 80 GB. Every row must be resident wherever lookups run, used or not, so the plan fails before speed is even asked about.",
        "compute": "The MLPs do nearly all the arithmetic, but they hold 9.4 MB; the tables hold 102.4 GB and do none. Arithmetic is not what stops this plan: the tables do not fit (128% of 80 GB).",
        "bandwidth": "Random row reads do make lookups bandwidth- and latency-bound, but only once the tables are in memory: here the pair (102.4 GB) is 128% of the device, so there is no speed to measure.",
        "none": "A table's cost is the memory it occupies, not the arithmetic a lookup does: 100M rows × 128 values × 4 B = 51.2 GB, and two of them need 102.4 GB, more than 80 GB.",
    },
}

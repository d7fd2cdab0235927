# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium", app_title="6.P Computational Primitives: lowering, arrays, memory, movement"
)


@app.cell
async def _():
    import importlib.util
    import sys

    # in the browser: the offline site's lockfile already loaded mlsysim (with pint and
    # pydantic); elsewhere install the wheel published with the site
    if sys.platform == "emscripten" and importlib.util.find_spec("mlsysim") is None:
        import micropip
        from js import location  # the worker script: <site>/assets/worker-*.js

        _site = str(location.href).rsplit("/assets/", 1)[0]
        await micropip.install(f"{_site}/wheels/mlsysim-0.1.0-py3-none-any.whl")
    import marimo as mo

    from mlsysim.labs import components as kit
    from mlsysim.labs.parts import s06_11_primitives as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Computational Primitives (longer edition)",
                "Computational Primitives",
                "Every architecture lowers to a few primitives: matrix multiply, sliding windows, "
                "memory accesses and data movement. Price each one: the buffer im2col costs, the cycles "
                "a systolic array idles, the energy of a fetch and the depth of a reduction.",
                [
                    "4 parts",
                    "about 25 minutes",
                    "im2col vs implicit GEMM",
                    "systolic arrays",
                    "access energy",
                    "broadcast, gather, reduce",
                ],
            ),
        ]
    )
    return


@app.cell
async def _(DesignLedger, kit, lab):
    unlocked = kit.unlock_requested()
    ledger = await DesignLedger().load_async()
    saved = kit.saved(ledger, lab)
    return ledger, saved, unlocked


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_a = lab.PRED_A.radio(saved)
    a_kernel = lab.A_KERNEL.widget(saved)
    a_size = lab.A_SIZE.widget(saved)
    a_stride = lab.A_STRIDE.widget(saved)
    a_channels = lab.A_CHANNELS.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · im2col vs implicit GEMM"),
            kit.message(
                "Ken Watanabe",
                "mobile runtime engineer",
                "Our convolution kernels call the GEMM library through im2col. Is that free, or does the "
                "lowering cost us memory we do not have on the phone?",
            ),
            mo.md(
                "Matrix multiply is the primitive hardware is built for, so a convolution is usually lowered "
                "to one. im2col unfolds every sliding-window position into a row of a patch matrix, then "
                "runs one GEMM against the stacked filters. Implicit GEMM computes the same product but "
                "assembles each patch tile on chip, so the patch matrix never exists in memory."
            ),
            pred_a,
        ]
    )
    return (a_channels, a_kernel, a_size, a_stride, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_channels, a_kernel, a_size, a_stride, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_kernel, a_size], justify="start", wrap=True),
            mo.hstack([a_stride, a_channels], justify="start", wrap=True),
            kit.show_part(
                lab.part_a, a_kernel.value, a_size.value, a_stride.value, a_channels.value
            ),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_a, saved, transfer_a, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    kit.transfer(lab.TRANSFER_A, transfer_a, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_b = lab.PRED_B.radio(saved)
    b_array = lab.B_ARRAY.widget(saved)
    b_rows = lab.B_ROWS.widget(saved)
    b_width = lab.B_WIDTH.widget(saved)
    b_double = lab.B_DOUBLE.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · The systolic array"),
            kit.message(
                "Dr. Ana Lima",
                "accelerator architect",
                "A TPU-style array does tens of thousands of multiply-accumulates per cycle. Why would it run "
                "a chatbot's single token so far below that?",
            ),
            mo.md(
                "A systolic array is a grid of MAC cells that pass operands to their neighbours every cycle, "
                "so each value fetched from memory is reused across a whole row or column of cells. In the "
                "weight-stationary design modelled here, a tile of weights is loaded into the grid and input "
                "rows stream through it; partial sums take a few cycles to cross the grid and leave it."
            ),
            pred_b,
        ]
    )
    return (b_array, b_double, b_rows, b_width, pred_b, transfer_b)


@app.cell
def _(b_array, b_double, b_rows, b_width, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_array, b_rows, b_width], justify="start", wrap=True),
            b_double,
            kit.show(lab.part_b(b_array.value, b_rows.value, b_width.value, b_double.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_b, saved, transfer_b, unlocked):
    mo.stop(kit.locked(pred_b, unlocked))
    kit.transfer(lab.TRANSFER_B, transfer_b, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_c = lab.PRED_C.radio(saved)
    c_pattern = lab.C_PATTERN.widget(saved)
    c_level = lab.C_LEVEL.widget(saved)
    c_precision = lab.C_PRECISION.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · What a memory access costs"),
            kit.message(
                "Sam Okoro",
                "firmware engineer",
                "We counted MACs to size the battery. Someone said the memory reads matter more. Do they?",
            ),
            mo.md(
                "Horowitz's 45 nm energy table prices an access by where the data lives, from a small SRAM "
                "next to the arithmetic to off-chip DRAM. Compare what programs with different access "
                "patterns and value types pay for each value they use."
            ),
            pred_c,
        ]
    )
    return (c_level, c_pattern, c_precision, pred_c, transfer_c)


@app.cell
def _(c_level, c_pattern, c_precision, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            c_pattern,
            mo.hstack([c_level, c_precision], justify="start", wrap=True),
            kit.show(lab.part_c(c_pattern.value, c_level.value, c_precision.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_c, saved, transfer_c, unlocked):
    mo.stop(kit.locked(pred_c, unlocked))
    kit.transfer(lab.TRANSFER_C, transfer_c, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_d = lab.PRED_D.radio(saved)
    d_seq = lab.D_SEQ.widget(saved)
    d_batch = lab.D_BATCH.widget(saved)
    d_head = lab.D_HEAD.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Broadcast, gather, reduce"),
            kit.message(
                "Yara Haddad",
                "distributed-training engineer",
                "Attention is just matrix multiplies, so what is all this talk about data movement?",
            ),
            mo.md(
                "Four patterns carry data between processing elements: broadcast (one value to many), "
                "scatter (different values to different places), gather (many values to one place) and "
                "reduction (many values combined into one). One attention head broadcasts its queries, "
                "gathers every key and value for each of them and reduces each score row in the softmax."
            ),
            pred_d,
        ]
    )
    return (d_batch, d_head, d_seq, pred_d, transfer_d)


@app.cell
def _(d_batch, d_head, d_seq, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_seq, d_batch, d_head], justify="start", wrap=True),
            kit.show(lab.part_d(d_seq.value, d_batch.value, d_head.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_d, saved, transfer_d, unlocked):
    mo.stop(kit.locked(pred_d, unlocked))
    kit.transfer(lab.TRANSFER_D, transfer_d, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, unlocked):
    mo.stop(*kit.until_answered([pred_a, pred_b, pred_c, pred_d], unlocked, "the takeaways"))
    mo.md("""
    ## Takeaways

    - Lowering a convolution to GEMM with im2col buys a mature matrix kernel at the price of a
      patch buffer up to K² times the input; implicit GEMM keeps the GEMM and drops the buffer.
    - A systolic array reuses operands in its grid, but only rows that stream through a weight
      tile do useful work: a single token leaves it almost idle, a batch fills it.
    - Where an operand lives sets its price per byte, and the access pattern sets how many
      bytes you pay for: a DRAM fetch costs far more than the MAC it feeds.
    - Attention's gathers and reductions grow with S²; a tree turns each row's reduction from
      a chain of S − 1 additions into log₂ S stages without saving any work.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_channels,
    a_kernel,
    a_size,
    a_stride,
    b_array,
    b_double,
    b_rows,
    b_width,
    c_level,
    c_pattern,
    c_precision,
    d_batch,
    d_head,
    d_seq,
    justification,
    kit,
    lab,
    ledger,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    saved,
    student,
    transfer_a,
    transfer_b,
    transfer_c,
    transfer_d,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            pred_a=pred_a,
            a_kernel=a_kernel,
            a_size=a_size,
            a_stride=a_stride,
            a_channels=a_channels,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_array=b_array,
            b_rows=b_rows,
            b_width=b_width,
            b_double=b_double,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_pattern=c_pattern,
            c_level=c_level,
            c_precision=c_precision,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_seq=d_seq,
            d_batch=d_batch,
            d_head=d_head,
            transfer_d=transfer_d,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "array": b_array.value,
            "rows": b_rows.value,
            "pattern": c_pattern.value,
            "level": c_level.value,
        },
    )
    return


if __name__ == "__main__":
    app.run()

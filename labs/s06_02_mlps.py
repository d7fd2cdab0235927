# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.2 MLPs: dense layers, GEMV vs GEMM, energy")


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
    from mlsysim.labs.parts import s06_02_mlps as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.2",
                "MLPs: Dense Pattern Processing",
                "A dense layer gives every input a weight to every output: count what that costs in "
                "memory, in bandwidth at batch one and in energy, and weigh two MNIST classifiers "
                "against each other, weight by weight; then see what universal approximation does and does not promise, and what data adds that width cannot.",
                [
                    "6 parts",
                    "about 35 minutes",
                    "d_in × d_out",
                    "GEMV vs GEMM",
                    "MNIST MLP vs CNN",
                    "move vs compute energy",
                    "width vs depth",
                    "width vs samples",
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
    a_d_in = lab.A_D_IN.widget(saved)
    a_d_out = lab.A_D_OUT.widget(saved)
    a_precision = lab.A_PRECISION.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · Widening a layer"),
            kit.message(
                "Jonas Weber",
                "ML engineer, fraud detection",
                "We are moving the fraud scorer onto a card terminal's microcontroller, and the team wants "
                "wider hidden layers. As we widen them, which of its memories do we run out of first?",
            ),
            mo.md(
                "Dense layers assume nothing about their input, so every one of the d_in inputs gets its "
                "own weight to every one of the d_out outputs. The chapter counts weights without "
                "biases. On a microcontroller a deployed model's weights live in flash and its "
                "activations in SRAM; the dashed lines are the flash of two microcontrollers."
            ),
            pred_a,
        ]
    )
    return (a_d_in, a_d_out, a_precision, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_d_in, a_d_out, a_precision, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_d_in, a_d_out, a_precision], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_d_in.value, a_d_out.value, a_precision.value),
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
    b_batch = lab.B_BATCH.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    b_precision = lab.B_PRECISION.widget(saved)
    b_width = lab.B_WIDTH.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · GEMV vs GEMM"),
            kit.message(
                "Aisha Bello",
                "inference engineer",
                "Our profiler flags one 2,048-wide FP32 layer serving single requests on an A100. "
                "How close to the GPU's peak should a layer that size get?",
            ),
            mo.md(
                "At batch one a dense layer is a matrix-vector product (GEMV); a batch of B requests "
                "turns it into a matrix-matrix product (GEMM) with one column per request. The chart "
                "places the layer on the device's roofline: the solid line is the engine's count "
                "(weights plus activations), the dashed line the chapter's weight-only proxy."
            ),
            pred_b,
        ]
    )
    return (b_batch, b_device, b_precision, b_width, pred_b, transfer_b)


@app.cell
def _(b_batch, b_device, b_precision, b_width, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_batch, b_width, b_precision], justify="start", wrap=True),
            b_device,
            kit.show(lab.part_b(b_batch.value, b_device.value, b_precision.value, b_width.value)),
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
    c_features = lab.C_FEATURES.widget(saved)
    c_kernel = lab.C_KERNEL.widget(saved)
    c_hidden = lab.C_HIDDEN.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Representation vs learnability"),
            kit.message(
                "Dr. Tomás Reyes",
                "instructor, intro to deep learning",
                "Two students built Example 6.1's digit classifiers, one an MLP, one a small CNN, and "
                "argue over which costs more memory to store. How would you settle it?",
            ),
            mo.md(
                "The universal approximation theorem says a wide MLP can represent the function; it does "
                "not say gradient descent will find it from finite data. The chart counts weights two "
                "ways: for each whole network, and for the first layer's feature detectors alone."
            ),
            pred_c,
        ]
    )
    return (c_features, c_hidden, c_kernel, pred_c, transfer_c)


@app.cell
def _(c_features, c_hidden, c_kernel, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_features, c_kernel, c_hidden], justify="start", wrap=True),
            kit.show(lab.part_c(c_features.value, c_kernel.value, c_hidden.value)),
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
    d_batch = lab.D_BATCH.widget(saved)
    d_level = lab.D_LEVEL.widget(saved)
    d_precision = lab.D_PRECISION.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Moving a weight vs using it"),
            kit.message(
                "Hannah Cho",
                "edge hardware lead",
                "The battery budget is set by the arithmetic, right? Our layer only does four million MACs.",
            ),
            mo.md(
                "With Horowitz's 45 nm energy table (picojoules per operation and per byte read), the "
                "chart sets the energy of fetching a weight against the energy of the MACs it feeds, "
                "for each place the weights can live."
            ),
            pred_d,
        ]
    )
    return (d_batch, d_level, d_precision, pred_d, transfer_d)


@app.cell
def _(d_batch, d_level, d_precision, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_batch, d_precision], justify="start", wrap=True),
            d_level,
            kit.show(lab.part_d(d_batch.value, d_level.value, d_precision.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_d, saved, transfer_d, unlocked):
    mo.stop(kit.locked(pred_d, unlocked))
    kit.transfer(lab.TRANSFER_D, transfer_d, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_e = lab.PRED_E.radio(saved)
    e_depth = lab.E_DEPTH.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · Wide or deep: what universal approximation leaves out"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "One hidden layer can approximate any continuous function, so why does anyone stack layers?",
            ),
            mo.md(
                "The target is a sawtooth: the tent map folded onto itself again and again, each folding "
                "doubling the teeth. Both networks below are built by hand to reproduce it exactly, and "
                "checked at every kink."
            ),
            pred_e,
        ]
    )
    return (e_depth, pred_e, transfer_e)


@app.cell
def _(e_depth, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            e_depth,
            kit.show(lab.part_e(e_depth.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_e, saved, transfer_e, unlocked):
    mo.stop(kit.locked(pred_e, unlocked))
    kit.transfer(lab.TRANSFER_E, transfer_e, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_f = lab.PRED_F.radio(saved)
    f_samples = lab.F_SAMPLES.widget(saved)
    transfer_f = lab.TRANSFER_F.radio(saved)
    mo.vstack(
        [
            mo.md("## Part F · Representing is not learning"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "If one wide layer can represent anything, can we make our model learn better just by "
                "making it wider, with the data we have?",
            ),
            mo.md(
                "A small experiment the engine runs exactly: one hidden layer of ReLU units, its first "
                "layer fixed on a grid, its output weights fitted to evenly spaced samples of a wave "
                "with 3 periods; the error is measured on the samples and between them."
            ),
            pred_f,
        ]
    )
    return (f_samples, pred_f, transfer_f)


@app.cell
def _(f_samples, kit, lab, mo, pred_f, saved, unlocked):
    mo.stop(kit.locked(pred_f, unlocked), kit.locked_note("Part F"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_F, pred_f, unlocked, saved),
            f_samples,
            kit.show(lab.part_f(f_samples.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_f, saved, transfer_f, unlocked):
    mo.stop(kit.locked(pred_f, unlocked))
    kit.transfer(lab.TRANSFER_F, transfer_f, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, pred_e, pred_f, unlocked):
    mo.stop(
        *kit.until_answered(
            [pred_a, pred_b, pred_c, pred_d, pred_e, pred_f], unlocked, "the takeaways"
        )
    )
    mo.md("""
    ## Takeaways

    - Dense weights grow as d_in × d_out, activations as d_in + d_out: widening a dense layer on
      a microcontroller fills its flash long before its SRAM, and the precision multiplies the
      bytes of both.
    - At batch one a dense layer is a GEMV that uses each fetched weight once, a few percent of
      a GPU's peak; batching turns it into a GEMM whose intensity grows with B until activation
      traffic takes over.
    - A prior's saving is per detector, not per network: the MNIST MLP has fewer weights than
      the small CNN, yet each convolutional detector needs 87× fewer than a dense one.
    - Fetching a weight from DRAM costs about 139× the MAC that uses it; reuse (batching,
      on-chip storage) cuts energy for the same reason it cuts time.
    - Universal approximation promises that a wide enough layer exists, not that it is small:
      a sawtooth costs one hidden layer a unit per kink, while a deep net pays two units per
      folding. Depth composes; that is why networks stack layers.
    - Representing is not learning: once a wide layer fits every sample, more width leaves its
      error between the samples where it was, and more samples lower it. The theorem is about
      existence; the data and the fitting decide what is learned.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_d_in,
    a_d_out,
    a_precision,
    b_batch,
    b_device,
    b_precision,
    b_width,
    c_features,
    c_hidden,
    c_kernel,
    d_batch,
    d_level,
    d_precision,
    e_depth,
    f_samples,
    justification,
    kit,
    lab,
    ledger,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    pred_e,
    pred_f,
    saved,
    student,
    transfer_a,
    transfer_b,
    transfer_c,
    transfer_d,
    transfer_e,
    transfer_f,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            pred_a=pred_a,
            a_d_in=a_d_in,
            a_d_out=a_d_out,
            a_precision=a_precision,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_batch=b_batch,
            b_device=b_device,
            b_precision=b_precision,
            b_width=b_width,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_features=c_features,
            c_kernel=c_kernel,
            c_hidden=c_hidden,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_batch=d_batch,
            d_level=d_level,
            d_precision=d_precision,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_depth=e_depth,
            transfer_e=transfer_e,
            pred_f=pred_f,
            f_samples=f_samples,
            transfer_f=transfer_f,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "device": b_device.value,
            "precision": b_precision.value,
            "batch": b_batch.value,
            "width": b_width.value,
        },
    )
    return


if __name__ == "__main__":
    app.run()

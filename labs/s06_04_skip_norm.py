# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.4 Skip Connections and Normalization")


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
    from mlsysim.labs.parts import s06_04_skip_norm as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.4",
                "Skip Connections and Normalization",
                "Watch gradients vanish and explode in a real deep network, see what the identity path and "
                "each normalization fix, count what the glue they add to every block costs, and follow "
                "the gradient along three kinds of skip path.",
                [
                    "4 parts",
                    "about 30 minutes",
                    "gradient flow",
                    "residual blocks",
                    "BatchNorm vs LayerNorm",
                    "the cost of glue ops",
                    "kernel fusion",
                    "pre-activation and highway blocks",
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
    a_depth = lab.A_DEPTH.widget(saved)
    a_activation = lab.A_ACTIVATION.widget(saved)
    a_gain = lab.A_GAIN.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · Gradients through depth"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "Our deeper model trains worse than the shallow one, even on the training set. "
                "Is it overfitting, or is something wrong with the gradients?",
            ),
            mo.md(
                "Backpropagation multiplies one factor per layer. The chart runs a real, seeded deep "
                "network forward and backward and plots the size of the gradient that reaches every "
                "layer, for a plain stack and for the same stack built from residual blocks."
            ),
            pred_a,
        ]
    )
    return (a_activation, a_depth, a_gain, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_activation, a_depth, a_gain, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_depth, a_gain], justify="start", wrap=True),
            a_activation,
            kit.show_part(lab.part_a, a_depth.value, a_activation.value, a_gain.value),
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
    b_positions = lab.B_POSITIONS.widget(saved)
    b_features = lab.B_FEATURES.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · Whose statistics?"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "We are adding a text assistant that answers one token at a time. Can it reuse the "
                "BatchNorm layers from our vision backbone?",
            ),
            mo.md(
                "Every normalization subtracts a mean and divides by a spread; they differ in which "
                "values those statistics come from: BatchNorm pools a channel across the batch and the "
                "feature map; LayerNorm and RMSNorm use one token's own features."
            ),
            pred_b,
        ]
    )
    return (b_batch, b_features, b_positions, pred_b, transfer_b)


@app.cell
def _(b_batch, b_features, b_positions, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_batch, b_features], justify="start", wrap=True),
            b_positions,
            kit.show(lab.part_b(b_batch.value, b_positions.value, b_features.value)),
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
    c_op = lab.C_OP.widget(saved)
    c_precision = lab.C_PRECISION.widget(saved)
    c_batch = lab.C_BATCH.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · What the glue costs the machine"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "The profiler shows thousands of tiny kernels between our convolutions: adds, "
                "norms, activations. They do almost no math. Why do they take so much time?",
            ),
            mo.md(
                "A residual add or a normalization sits between every pair of heavy layers. Compare "
                "its arithmetic intensity with the device's ridge, time it with the roofline engine, "
                "and see how much of ResNet-50 it costs with and without a compiled graph."
            ),
            pred_c,
        ]
    )
    return (c_batch, c_device, c_op, c_precision, pred_c, transfer_c)


@app.cell
def _(c_batch, c_device, c_op, c_precision, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_op, mo.vstack([c_precision, c_batch])], justify="start", wrap=True),
            c_device,
            kit.show(lab.part_c(c_op.value, c_precision.value, c_batch.value, c_device.value)),
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
    d_depth = lab.D_DEPTH.widget(saved)
    d_bias = lab.D_BIAS.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · What rides on the skip path"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "Our backbone uses the original ResNet block, with a ReLU after the add, and a colleague "
                "suggests gated highway layers instead. Does it matter what sits on the shortcut?",
            ),
            mo.md(
                "Part A followed the whole gradient. Here follow only the part that travels the skip "
                "path, block by block, back to the first block, for three blocks: the identity add of a "
                "pre-activation block, the original block's add followed by a ReLU, and a highway "
                "layer's learned carry gate."
            ),
            pred_d,
        ]
    )
    return (d_bias, d_depth, pred_d, transfer_d)


@app.cell
def _(d_bias, d_depth, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_depth, d_bias], justify="start", wrap=True),
            kit.show(lab.part_d(d_depth.value, d_bias.value)),
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

    - A plain stack multiplies one factor per layer, so gradients shrink or grow exponentially with
      depth; sigmoid's small derivative makes the shrinking unavoidable.
    - A residual block adds the identity to every factor, so the gradient keeps a direct path to
      the first layer.
    - BatchNorm's statistics depend on the batch and change between training and serving;
      LayerNorm and RMSNorm depend only on the token, which is why sequence models use them.
    - Adds and norms are memory-bound and pay a launch each; compilers fold and fuse them into the
      neighbouring convolutions, while the skip input still has to stay in memory.
    - Only an empty skip path is the identity: a ReLU after the add or a highway gate multiplies it
      by a factor below one in every block, and depth compounds that factor like a plain layer's
      gain. Pre-activation blocks move the ReLU inside F; the residual add also needs no gate
      weights, where a highway layer doubles its own.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_activation,
    a_depth,
    a_gain,
    b_batch,
    b_features,
    b_positions,
    c_batch,
    c_device,
    c_op,
    c_precision,
    d_bias,
    d_depth,
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
            a_depth=a_depth,
            a_activation=a_activation,
            a_gain=a_gain,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_batch=b_batch,
            b_positions=b_positions,
            b_features=b_features,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_op=c_op,
            c_precision=c_precision,
            c_batch=c_batch,
            c_device=c_device,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_depth=d_depth,
            d_bias=d_bias,
            transfer_d=transfer_d,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={"device": c_device.value, "precision": c_precision.value},
    )
    return


if __name__ == "__main__":
    app.run()

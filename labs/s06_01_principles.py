# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium", app_title="6.1 Architectural Principles: bias, families, intensity"
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
    from mlsysim.labs.parts import s06_01_principles as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.1",
                "Architectural Principles",
                "An architecture's inductive bias sets how many weights it learns, how often it reuses "
                "them and which resource runs out first: price each bias, then place the lighthouses "
                "against a real device's ridge point; then order the families by the strength of their prior.",
                [
                    "4 parts",
                    "about 35 minutes",
                    "inductive bias",
                    "Table 1 families",
                    "lighthouse roster",
                    "intensity spectrum",
                    "hierarchy of priors",
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
    a_resolution = lab.A_RESOLUTION.widget(saved)
    a_kernel = lab.A_KERNEL.widget(saved)
    a_channels = lab.A_CHANNELS.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · Inductive bias as a parameter budget"),
            kit.message(
                "Dr. Lena Okafor",
                "radiology ML lead",
                "Our intern flattened the 224×224 scans into a dense network because 'the universal "
                "approximation theorem says it can learn anything'. What does that choice cost per "
                "feature it has to learn?",
            ),
            mo.md(
                "An **inductive bias** is an assumption built into the architecture before training. A "
                "convolution assumes two things about images: nearby pixels matter together (locality) "
                "and a pattern means the same thing wherever it appears (sharing). Both assumptions "
                "remove weights. Compare one dense detector with one shared filter."
            ),
            pred_a,
        ]
    )
    return (a_channels, a_kernel, a_resolution, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_channels, a_kernel, a_resolution, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_resolution, a_kernel, a_channels], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_resolution.value, a_kernel.value, a_channels.value),
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
    b_family = lab.B_FAMILY.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    b_int8 = lab.B_INT8.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · Five families, five bottlenecks"),
            kit.message(
                "Marco Silva",
                "platform engineer",
                "If convolution saves that much, why not use the strongest bias for everything: "
                "our click logs, our sensor streams, our chat assistant?",
            ),
            mo.md(
                "Table 1 of the chapter pairs each family with the data structure its bias assumes and "
                "the resource it tends to exhaust. Pick a family and a device: the chart places the five "
                "lighthouse models (ResNet-50, GPT-2 XL, DLRM, MobileNetV2, KWS) by weight bytes and work "
                "per inference, and the dashed line is the device's memory."
            ),
            pred_b,
        ]
    )
    return (b_device, b_family, b_int8, pred_b, transfer_b)


@app.cell
def _(b_device, b_family, b_int8, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_family, b_device], justify="start", wrap=True),
            b_int8,
            kit.show(lab.part_b(b_family.value, b_device.value, b_int8.value)),
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
    c_device = lab.C_DEVICE.widget(saved)
    c_precision = lab.C_PRECISION.widget(saved)
    c_batch = lab.C_BATCH.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · The intensity spectrum"),
            kit.message(
                "Priya Raman",
                "capacity planner",
                "Our sizing sheet ranks models by FLOPs per weight byte and files everything above the "
                "ridge point as compute-bound. Can I plan accelerator time on that one number?",
            ),
            mo.md(
                "The chapter's weight-only proxy divides a model's FLOPs by its weight bytes: how many "
                "operations each fetched weight feeds. For one layer, the device's ridge point "
                "(peak ÷ bandwidth) splits the regimes: to its left the memory bus binds, to its right "
                "the arithmetic does. A model is many layers: the engine times each one, and a model's "
                "regime is where that time goes. Hollow markers are the engine's average over the "
                "fuller count, which adds activation traffic; a ✕ marks a model that does not fit the "
                "device at all, which is checked first."
            ),
            pred_c,
        ]
    )
    return (c_batch, c_device, c_precision, pred_c, transfer_c)


@app.cell
def _(c_batch, c_device, c_precision, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_precision, c_batch], justify="start", wrap=True),
            c_device,
            kit.show(lab.part_c(c_device.value, c_precision.value, c_batch.value)),
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
    d_length = lab.D_LENGTH.widget(saved)
    d_distance = lab.D_DISTANCE.widget(saved)
    d_kernel = lab.D_KERNEL.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · The hierarchy of priors"),
            kit.message(
                "Kwame Boateng",
                "sequence-modelling lead",
                "Section 6.9 ranks the families by how much they assume. Before we pick one for a "
                "sequence task, what does a stronger prior buy, and what does it take away?",
            ),
            mo.md(
                "Give the four families the same input, a sequence of positions with 64 features "
                "each, and one layer each that maps it to the same shape: a convolution along the "
                "positions, an Elman RNN, one self-attention layer, and one dense layer over the whole "
                "sequence. The engine counts the weights each must learn (no biases) and the pairs of "
                "positions each can relate, and asks whether one layer links the two positions the "
                "task depends on."
            ),
            pred_d,
        ]
    )
    return (d_distance, d_kernel, d_length, pred_d, transfer_d)


@app.cell
def _(d_distance, d_kernel, d_length, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_length, d_kernel], justify="start", wrap=True),
            d_distance,
            kit.show(lab.part_d(d_length.value, d_distance.value, d_kernel.value)),
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

    - An inductive bias is a budget decision: locality and sharing cut a detector's weights by
      the image area over the filter area, and each kept weight is reused at every position.
    - The bias only pays where the data has that structure (No Free Lunch): match the family to
      the data first, then ask which resource it exhausts.
    - The families exhaust different resources on one device. Convolutions reuse
      weights and lean on compute once batched at the chapter's FP32 (one image at a time,
      launches and feature maps can still bind, and a faster roof such as FP16 tensor cores moves
      the ridge beyond them); a decoded token streams every weight once and waits on bandwidth;
      embedding tables must first fit somewhere at all.
    - Capacity comes first: a model that does not fit has no side of the ridge.
    - The weight-only proxy ignores activation traffic: a compact CNN such as MobileNetV2 moves
      far more feature-map bytes than weight bytes, and its time goes to memory-bound layers.
      Batching raises the proxy without limit, the real intensity much less.
    - A model's regime is where its time goes, layer by layer, not its average intensity: at
      batch 1 in FP32 ResNet-50's average sits just left of the H100's ridge, yet most of its
      layer time is compute-bound, and launches take most of all.
    - The families run from CNNs through RNNs and attention to MLPs by the strength of their
      prior. Sharing weights across positions collapses the count, but among the sharing families
      what orders the prior is what one layer can relate: a convolution only its neighbours, an
      RNN only the past, attention every pair. A strong prior saves data and arithmetic on a matching task and excludes
      what a mismatched one needs.
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
    a_resolution,
    b_device,
    b_family,
    b_int8,
    c_batch,
    c_device,
    c_precision,
    d_distance,
    d_kernel,
    d_length,
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
            a_resolution=a_resolution,
            a_kernel=a_kernel,
            a_channels=a_channels,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_family=b_family,
            b_device=b_device,
            b_int8=b_int8,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_device=c_device,
            c_precision=c_precision,
            c_batch=c_batch,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_length=d_length,
            d_distance=d_distance,
            d_kernel=d_kernel,
            transfer_d=transfer_d,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={"device": c_device.value, "precision": c_precision.value, "batch": c_batch.value},
    )
    return


if __name__ == "__main__":
    app.run()

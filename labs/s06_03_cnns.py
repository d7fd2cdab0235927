# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.3 CNNs: Weight Sharing and Its Bill")


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
    from mlsysim.labs.parts import s06_03_cnns as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.3",
                "CNNs: Weight Sharing and Its Bill",
                "Sharing one small filter across every position changes what a layer costs; predict "
                "what grows with the image, how far a stack sees, what fewer FLOPs buy in time, and "
                "what a turned image does to a filter's map.",
                [
                    "6 parts + synthesis",
                    "about 40 minutes",
                    "weight sharing",
                    "receptive field",
                    "equivariance",
                    "rotations",
                    "depthwise separable",
                    "FLOPs vs speed",
                    "microcontrollers",
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
    a_channels = lab.A_CHANNELS.widget(saved)
    a_kernel = lab.A_KERNEL.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · One filter, every position"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "We want to run our detector at four times the camera resolution. Will the "
                "convolution layers still fit on chip, and what will each frame cost?",
            ),
            mo.md(
                "A convolution slides the same small filter over the whole feature map; a dense layer "
                "gives every input value its own weight to every output. Change the resolution, the "
                "channels and the kernel, and watch which of the layer's costs move."
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
            mo.hstack([a_resolution, a_channels, a_kernel], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_resolution.value, a_channels.value, a_kernel.value),
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
    b_kernel = lab.B_KERNEL.widget(saved)
    b_stride = lab.B_STRIDE.widget(saved)
    b_depth = lab.B_DEPTH.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · How far a stack can see"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "Each filter only looks at a tiny window. How many layers before a unit can see a "
                "whole animal?",
            ),
            mo.md(
                "A unit's receptive field is the patch of the input that can change it. The chart "
                "follows it through a stack of layers, with and without striding."
            ),
            pred_b,
        ]
    )
    return (b_depth, b_kernel, b_stride, pred_b, transfer_b)


@app.cell
def _(b_depth, b_kernel, b_stride, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_kernel, b_stride, b_depth], justify="start", wrap=True),
            kit.show(lab.part_b(b_kernel.value, b_stride.value, b_depth.value)),
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
    c_cout = lab.C_C_OUT.widget(saved)
    c_kernel = lab.C_KERNEL.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Splitting the convolution"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "The efficient-model paper says depthwise-separable layers are about an order of "
                "magnitude cheaper. Is that true for our layer widths?",
            ),
            mo.md(
                "A depthwise-separable layer filters each input channel on its own, then mixes "
                "channels with a pointwise layer. Compare its MACs with the standard convolution's."
            ),
            pred_c,
        ]
    )
    return (c_cout, c_kernel, pred_c, transfer_c)


@app.cell
def _(c_cout, c_kernel, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_cout, c_kernel], justify="start", wrap=True),
            kit.show(lab.part_c(c_cout.value, c_kernel.value)),
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
    d_device = lab.D_DEVICE.widget(saved)
    d_batch = lab.D_BATCH.widget(saved)
    d_fused = lab.D_FUSED.widget(saved)
    d_launch = lab.D_LAUNCH.widget(saved)
    d_efficiency = lab.D_EFFICIENCY.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Fewer FLOPs, how much faster?"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO, WildlifeVision",
                "We plan to swap ResNet-50 for MobileNetV2 on our GPU server to cut latency by an order "
                "of magnitude. Should the dashboard show it?",
            ),
            mo.md(
                "The roofline engine times every layer as the larger of its math and its memory "
                "traffic, plus one launch per kernel. Compare where each network's time goes, per "
                "device, batch size and execution mode."
            ),
            pred_d,
        ]
    )
    return (d_batch, d_device, d_efficiency, d_fused, d_launch, pred_d, transfer_d)


@app.cell
def _(d_batch, d_device, d_efficiency, d_fused, d_launch, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_batch, d_fused], justify="start", wrap=True),
            d_device,
            mo.hstack([d_launch, d_efficiency], justify="start", wrap=True),
            kit.show(
                lab.part_d(
                    d_device.value, d_batch.value, d_fused.value, d_launch.value, d_efficiency.value
                )
            ),
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
    e_column = lab.E_COLUMN.widget(saved)
    e_shift = lab.E_SHIFT.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · Shift the edge"),
            kit.message(
                "Dr. Lena Okafor",
                "radiology ML lead",
                "Our lesion detector must report where a lesion is, not only that there is one. "
                "Does it matter whether the first layer is a convolution or a dense layer?",
            ),
            mo.md(
                "Example 6.3 of the chapter: a 7×7 image with one vertical edge, a 3×3 vertical-edge "
                "filter, and a dense layer with the same number of outputs. Move the edge and compare "
                "each layer's output with a shifted copy of its old output."
            ),
            pred_e,
        ]
    )
    return (e_column, e_shift, pred_e, transfer_e)


@app.cell
def _(e_column, e_shift, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_column, e_shift], justify="start", wrap=True),
            kit.show(lab.part_e(e_column.value, e_shift.value)),
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
    f_rotation = lab.F_ROTATION.widget(saved)
    f_layer = lab.F_LAYER.widget(saved)
    transfer_f = lab.TRANSFER_F.radio(saved)
    mo.vstack(
        [
            mo.md("## Part F · Turn the edge"),
            kit.message(
                "Dr. Lena Okafor",
                "radiology ML lead",
                "A slide of tissue has no up or down: the scanner can put it in at any angle. "
                "Our convolutions follow a shifted lesion; do they follow a turned one?",
            ),
            mo.md(
                "The chapter names group-equivariant CNNs (Cohen and Welling 2016) for satellite and "
                "medical imagery, where orientation does not decide meaning. The smallest case, the "
                "p4 layer, applies each learned filter in its four 90° rotations. Turn a 7×7 image with a vertical "
                "step edge and compare a plain 3×3 edge filter's map and the p4 layer's four maps "
                "with turned copies of the old ones."
            ),
            pred_f,
        ]
    )
    return (f_layer, f_rotation, pred_f, transfer_f)


@app.cell
def _(f_layer, f_rotation, kit, lab, mo, pred_f, saved, unlocked):
    mo.stop(kit.locked(pred_f, unlocked), kit.locked_note("Part F"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_F, pred_f, unlocked, saved),
            mo.hstack([f_rotation, f_layer], justify="start", wrap=True),
            kit.show(lab.part_f(f_rotation.value, f_layer.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_f, saved, transfer_f, unlocked):
    mo.stop(kit.locked(pred_f, unlocked))
    kit.transfer(lab.TRANSFER_F, transfer_f, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Synthesis · Put the keyword spotter on a microcontroller

    The always-on wake-word model must live in a microcontroller's flash (weights) and SRAM
    (activations), next to the firmware. Choose the chip, the precision and how much memory the
    firmware keeps; the engine reports whether the rest is enough. Your choice is saved to your
    design ledger.
    """)
    return


@app.cell
def _(lab, saved):
    s_device = lab.S_DEVICE.widget(saved)
    s_precision = lab.S_PRECISION.widget(saved)
    s_flash_reserve = lab.S_FLASH_RESERVE.widget(saved)
    s_sram_reserve = lab.S_SRAM_RESERVE.widget(saved)
    return s_device, s_flash_reserve, s_precision, s_sram_reserve


@app.cell
def _(
    kit,
    lab,
    mo,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    pred_e,
    pred_f,
    s_device,
    s_flash_reserve,
    s_precision,
    s_sram_reserve,
    unlocked,
):
    mo.stop(
        *kit.until_answered(
            [pred_a, pred_b, pred_c, pred_d, pred_e, pred_f], unlocked, "the synthesis"
        )
    )
    mo.vstack(
        [
            mo.hstack([s_device, s_precision], justify="start", wrap=True),
            mo.hstack([s_flash_reserve, s_sram_reserve], justify="start", wrap=True),
            kit.show(
                lab.synthesis(
                    s_device.value, s_precision.value, s_flash_reserve.value, s_sram_reserve.value
                )
            ),
        ]
    )
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

    - Sharing one filter makes a convolution translation equivariant: shift the input and its map
      shifts with it (up to the border); pooling over positions then gives invariance.
    - It is not equivariant to rotations: a group convolution (p4) runs each filter in its four
      rotations, so a turned input turns its maps and moves them round the orientation channels,
      with the same learned weights and 4× the MACs and output maps.
    - Weight sharing makes a convolution's weights independent of resolution; its MACs, output
      maps and any im2col buffer still grow with the image area.
    - Receptive fields grow linearly with stride-one depth; downsampling buys reach with a coarser map.
    - The depthwise-separable saving approaches the kernel area only for wide layers.
    - FLOPs are work, not time: launches and low-intensity layers decide small-batch latency.
    - On a microcontroller, precision decides whether a model fits at all.
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
    b_depth,
    b_kernel,
    b_stride,
    c_cout,
    c_kernel,
    d_batch,
    d_device,
    d_efficiency,
    d_fused,
    d_launch,
    e_column,
    e_shift,
    f_layer,
    f_rotation,
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
    s_device,
    s_flash_reserve,
    s_precision,
    s_sram_reserve,
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
            a_resolution=a_resolution,
            a_channels=a_channels,
            a_kernel=a_kernel,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_kernel=b_kernel,
            b_stride=b_stride,
            b_depth=b_depth,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_cout=c_cout,
            c_kernel=c_kernel,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_device=d_device,
            d_batch=d_batch,
            d_fused=d_fused,
            d_launch=d_launch,
            d_efficiency=d_efficiency,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_column=e_column,
            e_shift=e_shift,
            transfer_e=transfer_e,
            pred_f=pred_f,
            f_rotation=f_rotation,
            f_layer=f_layer,
            transfer_f=transfer_f,
            s_device=s_device,
            s_precision=s_precision,
            s_flash_reserve=s_flash_reserve,
            s_sram_reserve=s_sram_reserve,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "device": s_device.value,
            "precision": s_precision.value,
            "flash_reserve_kib": s_flash_reserve.value,
            "sram_reserve_kib": s_sram_reserve.value,
        },
        synthesis=lab.synthesis,
        synthesis_args=(
            s_device.value,
            s_precision.value,
            s_flash_reserve.value,
            s_sram_reserve.value,
        ),
    )
    return


if __name__ == "__main__":
    app.run()

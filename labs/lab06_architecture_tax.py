# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Lab 06: The Architecture Tax")


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
    from mlsysim.labs.parts import lab06 as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Lab 06",
                "The Architecture Tax",
                "Every architecture choice sets a bill in parameters, memory, kernel launches and "
                "bandwidth. Predict each bill, then check it against the roofline engine.",
                [
                    "4 parts + synthesis",
                    "about 50 minutes",
                    "dense vs conv",
                    "quadratic attention",
                    "depth vs width",
                    "workload signatures",
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
    a_units = lab.A_UNITS.widget(saved)
    a_precision = lab.A_PRECISION.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · The cost of no structure"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "Next season we move the camera-trap model to 448×448 frames. Our first layer is a "
                "small convolution, and convolutions share their weights, so the bigger frames "
                "should cost us nothing there. Right?",
            ),
            pred_a,
        ]
    )
    return (a_precision, a_resolution, a_units, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_precision, a_resolution, a_units, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_resolution, a_units, a_precision], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_resolution.value, a_units.value, a_precision.value),
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
    b_seq = lab.B_SEQ.widget(saved)
    b_heads = lab.B_HEADS.widget(saved)
    b_flash = lab.B_FLASH.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · The quadratic wall"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "The paper uses 4K tokens of audio context; we need 128K for full recordings. "
                "Section 6.6 says the score matrix explodes. Does FlashAttention make 128K "
                "possible on one H100, or only faster?",
            ),
            pred_b,
        ]
    )
    return (b_flash, b_heads, b_seq, pred_b, transfer_b)


@app.cell
def _(b_flash, b_heads, b_seq, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_seq, b_heads, b_flash], justify="start", wrap=True),
            kit.show(lab.part_b(b_seq.value, b_heads.value, b_flash.value)),
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
    c_depth = lab.C_DEPTH.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    c_efficiency = lab.C_EFFICIENCY.widget(saved)
    c_launch = lab.C_LAUNCH.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Depth vs width"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "Two candidates do the same FLOPs, one deep and narrow, one shallow and wide. Same "
                "FLOPs should mean same speed, so do we even need to benchmark both?",
            ),
            pred_c,
        ]
    )
    return (c_depth, c_device, c_efficiency, c_launch, pred_c, transfer_c)


@app.cell
def _(c_depth, c_device, c_efficiency, c_launch, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_depth, c_efficiency], justify="start", wrap=True),
            c_launch,
            c_device,
            kit.show(lab.part_c(c_depth.value, c_device.value, c_efficiency.value, c_launch.value)),
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
    d_device = lab.D_DEVICE.widget(saved)
    d_fused = lab.D_FUSED.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Workload signatures"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO, WildlifeVision",
                "Our profiler shows very different GPU utilization for our CNNs and our transformer "
                "at batch 1. Which one should be the busiest?",
            ),
            pred_d,
        ]
    )
    return (d_batch, d_device, d_fused, pred_d, transfer_d)


@app.cell
def _(d_batch, d_device, d_fused, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_batch, d_fused], justify="start", wrap=True),
            d_device,
            kit.show(lab.part_d(d_batch.value, d_device.value, d_fused.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_d, saved, transfer_d, unlocked):
    mo.stop(kit.locked(pred_d, unlocked))
    kit.transfer(lab.TRANSFER_D, transfer_d, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Synthesis · Ship the camera trap

    Pick a model and a device for the chapter's wildlife camera and check it against the worked
    example's requirements: under 500 ms per frame, about 2 W average power (the device's listed
    power while it infers, an assumed idle draw between triggers, averaged over the day), 100 MB for weights
    within the device's RAM, and a daily energy budget for inference you set yourself. Your design
    is saved to your design ledger.
    """)
    return


@app.cell
def _(lab, saved):
    s_model = lab.S_MODEL.widget(saved)
    s_device = lab.S_DEVICE.widget(saved)
    s_per_day = lab.S_PER_DAY.widget(saved)
    s_energy = lab.S_ENERGY.widget(saved)
    return s_device, s_energy, s_model, s_per_day


@app.cell
def _(
    kit, lab, mo, pred_a, pred_b, pred_c, pred_d, s_device, s_energy, s_model, s_per_day, unlocked
):
    mo.stop(*kit.until_answered([pred_a, pred_b, pred_c, pred_d], unlocked, "the synthesis"))
    mo.vstack(
        [
            mo.hstack([s_model, s_device], justify="start"),
            mo.hstack([s_per_day, s_energy], justify="start", wrap=True),
            kit.show(lab.synthesis(s_model.value, s_device.value, s_per_day.value, s_energy.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_precision,
    a_resolution,
    a_units,
    b_flash,
    b_heads,
    b_seq,
    c_depth,
    c_device,
    c_efficiency,
    c_launch,
    d_batch,
    d_device,
    d_fused,
    justification,
    kit,
    lab,
    ledger,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    s_device,
    s_energy,
    s_model,
    s_per_day,
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
            a_units=a_units,
            a_precision=a_precision,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_seq=b_seq,
            b_heads=b_heads,
            b_flash=b_flash,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_depth=c_depth,
            c_device=c_device,
            c_efficiency=c_efficiency,
            c_launch=c_launch,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_batch=d_batch,
            d_device=d_device,
            d_fused=d_fused,
            transfer_d=transfer_d,
            s_model=s_model,
            s_device=s_device,
            s_per_day=s_per_day,
            s_energy=s_energy,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "model": s_model.value,
            "device": s_device.value,
            "per_day": s_per_day.value,
            "energy_budget_j_per_day": s_energy.value,
        },
        synthesis=lab.synthesis,
        synthesis_args=(s_model.value, s_device.value, s_per_day.value, s_energy.value),
    )
    return


if __name__ == "__main__":
    app.run()

# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.9 Comparing and Choosing Architectures")


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
    from mlsysim.labs.parts import s06_09_choosing as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.9",
                "Comparing and Choosing Architectures",
                "Put five workloads on one scale (intensity, bytes, energy), then let the budgets of a real "
                "device pick the architecture.",
                [
                    "5 parts + synthesis",
                    "about 30 minutes",
                    "intensity",
                    "workload memory",
                    "energy per operation",
                    "the camera trap",
                    "risks in the field",
                    "three-phase selection",
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
    a_batch = lab.A_BATCH.widget(saved)
    a_device = lab.A_DEVICE.widget(saved)
    a_fused = lab.A_FUSED.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · One scale for five workloads"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO, WildlifeVision",
                "Our vendor says batching raises every model's FLOPs per byte in step with the batch, "
                "since the weights are read once per batch. Does that hold once everything the chip "
                "moves is counted?",
            ),
            mo.md(
                "Arithmetic intensity (FLOPs per byte) puts every family on one axis. The chapter's Table 8 "
                "uses a quick proxy, FLOPs per byte of FP32 weights; the engine counts all traffic."
            ),
            pred_a,
        ]
    )
    return (a_batch, a_device, a_fused, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_batch, a_device, a_fused, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_batch, a_fused], justify="start", wrap=True),
            a_device,
            kit.show_part(lab.part_a, a_batch.value, a_device.value, a_fused.value),
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
    b_state = lab.B_STATE.widget(saved)
    b_requests = lab.B_REQUESTS.widget(saved)
    b_context = lab.B_CONTEXT.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · What each workload must hold"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "We sized our 80 GB serving card by each model's weights. Operations now wants 64 "
                "requests served at once. What else does the card have to hold?",
            ),
            mo.md(
                "Serving stores the weights once, in a narrow format, and each request brings its own state; "
                "training carries a gradient and two optimizer moments per FP32 weight. Switch between the "
                "columns of the chapter's Table 10."
            ),
            pred_b,
        ]
    )
    return (b_context, b_requests, b_state, pred_b, transfer_b)


@app.cell
def _(b_context, b_requests, b_state, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_state, mo.vstack([b_requests, b_context])], justify="start", wrap=True),
            kit.show(lab.part_b(b_state.value, b_requests.value, b_context.value)),
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
    c_batch = lab.C_BATCH.widget(saved)
    c_precision = lab.C_PRECISION.widget(saved)
    c_stage = lab.C_STAGE.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Where the energy goes"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "The battery team budgets our image model as pure arithmetic: convolutions reuse every "
                "weight, so fetching weights should cost next to nothing. Does it?",
            ),
            mo.md(
                "Energy per operation is not a property of the arithmetic units alone: count the "
                "energy of everything each model does per output, on one chip."
            ),
            pred_c,
        ]
    )
    return (c_batch, c_precision, c_stage, pred_c, transfer_c)


@app.cell
def _(c_batch, c_precision, c_stage, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_batch, c_precision, c_stage], justify="start", wrap=True),
            kit.show(lab.part_c(c_batch.value, c_precision.value, c_stage.value)),
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
    d_model = lab.D_MODEL.widget(saved)
    d_precision = lab.D_PRECISION.widget(saved)
    d_per_day = lab.D_PER_DAY.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · The camera trap, end to end"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "Offline camera traps, solar power, 50 species, under half a second per photo. The board "
                "is a Cortex-A53 with 512 MB. ResNet-50 is our best model: why not ship it? And what will "
                "actually drain the battery?",
            ),
            mo.md(
                "The chapter's worked example sizes candidates on a planning device, the registry's camera "
                "SoC: a sustained INT8 rate, an active power draw (an idle draw between triggers is a stated "
                "planning assumption), and a slice of its RAM set aside for weights. Compare the chapter's "
                "napkin estimate with the engine's, and the day's energy with the budget."
            ),
            pred_d,
        ]
    )
    return (d_model, d_per_day, d_precision, pred_d, transfer_d)


@app.cell
def _(d_model, d_per_day, d_precision, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_model, mo.vstack([d_precision, d_per_day])], justify="start", wrap=True),
            kit.show(lab.part_d(d_model.value, d_precision.value, d_per_day.value)),
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
    e_species = lab.E_SPECIES.widget(saved)
    e_clock = lab.E_CLOCK.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · Risks in the field"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "The cameras are out. Two things keep me up at night: the rangers keep finding species we "
                "never trained for, and the enclosures bake in the afternoon sun.",
            ),
            mo.md(
                "The chapter's risk table pairs each field risk with a mitigation: new species call for an "
                "expanded or retrained output head, installed on a service visit; heat calls for a heatsink "
                "and fewer inferences when it is hot. What does each one cost the deployed model?"
            ),
            pred_e,
        ]
    )
    return (e_clock, e_species, pred_e, transfer_e)


@app.cell
def _(e_clock, e_species, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_species, e_clock], justify="start", wrap=True),
            kit.show(lab.part_e(e_species.value, e_clock.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_e, saved, transfer_e, unlocked):
    mo.stop(kit.locked(pred_e, unlocked))
    kit.transfer(lab.TRANSFER_E, transfer_e, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Synthesis · Three phases, one decision

    Phase 1 reads the data's structure and picks a family. Phase 2 screens every candidate on every
    device in the registry: does it fit in memory, can the device sustain the rate (the throughput
    ceiling), does one inference meet the deadline, does the device's average power fit the power
    budget (its listed power while it infers, an assumed idle draw the rest of each second)? Phase 3 is
    what no estimate can do: measure accuracy and behaviour on the target. Your choices are saved to
    your design ledger.
    """)
    return


@app.cell
def _(lab, saved):
    s_data = lab.S_DATA.widget(saved)
    s_fps = lab.S_FPS.widget(saved)
    s_util = lab.S_UTIL.widget(saved)
    s_power = lab.S_POWER.widget(saved)
    return s_data, s_fps, s_power, s_util


@app.cell
def _(
    kit, lab, mo, pred_a, pred_b, pred_c, pred_d, pred_e, s_data, s_fps, s_power, s_util, unlocked
):
    mo.stop(
        *kit.until_answered([pred_a, pred_b, pred_c, pred_d, pred_e], unlocked, "the synthesis")
    )
    mo.vstack(
        [
            mo.hstack([s_data, mo.vstack([s_fps, s_util, s_power])], justify="start", wrap=True),
            kit.show(lab.synthesis(s_data.value, s_fps.value, s_util.value, s_power.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, pred_e, unlocked):
    mo.stop(
        *kit.until_answered([pred_a, pred_b, pred_c, pred_d, pred_e], unlocked, "the takeaways")
    )
    mo.md("""
    **Takeaways**

    - Intensity is reuse made visible: filters reused across a feature map sit far above a decode step
      that uses each weight once, and the same reuse decides how much energy goes to moving data.
    - Bytes decide feasibility before speed: INT8 weights take a quarter of FP32's bytes, training state is
      four FP32 copies, and per-request state (feature maps, KV cache) grows on top.
    - A napkin estimate (operations ÷ sustained rate) screens candidates; the engine adds memory-bound
      layers and per-operator dispatch; only the target device qualifies them.
    - Field risks have costs the engine can count: a new species is one more row of the output layer
      (1,281 parameters for MobileNetV2 0.75×), so the update is a retrained head, not a new network;
      a throttled clock stretches each frame against the deadline, and fewer triggers cut the day's
      energy, not a frame's time.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_batch,
    a_device,
    a_fused,
    b_context,
    b_requests,
    b_state,
    c_batch,
    c_precision,
    c_stage,
    d_model,
    d_per_day,
    d_precision,
    e_clock,
    e_species,
    justification,
    kit,
    lab,
    ledger,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    pred_e,
    s_data,
    s_fps,
    s_power,
    s_util,
    saved,
    student,
    transfer_a,
    transfer_b,
    transfer_c,
    transfer_d,
    transfer_e,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            pred_a=pred_a,
            a_batch=a_batch,
            a_device=a_device,
            a_fused=a_fused,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_state=b_state,
            b_requests=b_requests,
            b_context=b_context,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_batch=c_batch,
            c_precision=c_precision,
            c_stage=c_stage,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_model=d_model,
            d_precision=d_precision,
            d_per_day=d_per_day,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_species=e_species,
            e_clock=e_clock,
            transfer_e=transfer_e,
            s_data=s_data,
            s_fps=s_fps,
            s_util=s_util,
            s_power=s_power,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "data": s_data.value,
            "rate_per_s": s_fps.value,
            "utilization": s_util.value,
            "power_w": s_power.value,
        },
        synthesis=lab.synthesis,
        synthesis_args=(s_data.value, s_fps.value, s_util.value, s_power.value),
    )
    return


if __name__ == "__main__":
    app.run()

# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.12 Trade-offs: accuracy, the iron law and Table 7")


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
    from mlsysim.labs.parts import s06_12_tradeoffs as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Trade-offs",
                "Accuracy, the Iron Law and Table 7",
                "Put published accuracy beside cost, write the iron law out on the chapter's numbers, "
                "check every Table 7 formula against an exact count, price the ensemble Netflix did not ship, "
                "and AlexNet's training on the hardware of 2012.",
                [
                    "5 parts",
                    "about 35 minutes",
                    "Figure 1 frontier",
                    "D·A·M",
                    "iron law",
                    "Table 7",
                    "ensemble cost",
                    "2012 hardware",
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
    a_cost = lab.A_COST.widget(saved)
    a_device = lab.A_DEVICE.widget(saved)
    a_bar = lab.A_BAR.widget(saved)
    a_fused = lab.A_FUSED.widget(saved)
    mo.vstack(
        [
            mo.md("## Part A · The efficiency frontier"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "Figure 1 says the MobileNets own the accuracy-per-MAC frontier. We ship the same classifier to four devices, from an H100 down to the camera trap, one image per request. Do we just pick from that plot on each?",
            ),
            pred_a,
        ]
    )
    return (a_bar, a_cost, a_device, a_fused, pred_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_bar, a_cost, a_device, a_fused, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_cost, a_device, a_bar, a_fused], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_cost.value, a_device.value, a_bar.value, a_fused.value),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_b = lab.PRED_B.radio(saved)
    b_model = lab.B_MODEL.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    b_batch = lab.B_BATCH.widget(saved)
    b_fused = lab.B_FUSED.widget(saved)
    mo.vstack(
        [
            mo.md("## Part B · The iron law, written out"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "The chapter adds three terms: bytes over bandwidth, work over compute, and a fixed latency. The engine takes a max per layer instead. Which number should go in the capacity plan?",
            ),
            pred_b,
        ]
    )
    return (b_batch, b_device, b_fused, b_model, pred_b)


@app.cell
def _(b_batch, b_device, b_fused, b_model, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_model, b_device, b_batch, b_fused], justify="start", wrap=True),
            kit.show(lab.part_b(b_model.value, b_device.value, b_batch.value, b_fused.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_c = lab.PRED_C.radio(saved)
    c_block = lab.C_BLOCK.widget(saved)
    c_width = lab.C_WIDTH.widget(saved)
    c_length = lab.C_LENGTH.widget(saved)
    c_rows = lab.C_ROWS.widget(saved)
    mo.vstack(
        [
            mo.md("## Part C · Table 7 as one calculator"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "Table 7 fits every building block on one page, down to a decode step. Our assistant keeps long conversations: can I size it from those formulas, or do I need the exact counts?",
            ),
            pred_c,
        ]
    )
    return (c_block, c_length, c_rows, c_width, pred_c)


@app.cell
def _(c_block, c_length, c_rows, c_width, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_block, c_width, c_length, c_rows], justify="start", wrap=True),
            kit.show(lab.part_c(c_block.value, c_width.value, c_length.value, c_rows.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_d = lab.PRED_D.radio(saved)
    d_factors = lab.D_FACTORS.widget(saved)
    d_members = lab.D_MEMBERS.widget(saved)
    mo.vstack(
        [
            mo.md("## Part D · The ensemble Netflix did not ship"),
            kit.message(
                "Maya Chen",
                "recommendations lead, a streaming service",
                "The 2007 Progress Prize blend beat our baseline with 107 models, and the team handed over the code. Do we serve all of it?",
            ),
            mo.md(
                "War Story 6.1: Netflix paid $1M in 2009 for a 10% gain in accuracy and did not deploy "
                "it. The accuracy of each blend is published; its serving cost is the sum of its "
                "members' costs, every one run for every prediction."
            ),
            pred_d,
        ]
    )
    return (d_factors, d_members, pred_d)


@app.cell
def _(d_factors, d_members, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_factors, d_members], justify="start", wrap=True),
            kit.show(lab.part_d(d_factors.value, d_members.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_e = lab.PRED_E.radio(saved)
    e_efficiency = lab.E_EFFICIENCY.widget(saved)
    e_epochs = lab.E_EPOCHS.widget(saved)
    e_batch = lab.E_BATCH.widget(saved)
    mo.vstack(
        [
            mo.md("## Part E · The hardware of 2012: AlexNet on two GTX 580s"),
            kit.message(
                "Ines Carvalho",
                "research engineer, 2012",
                "We have a rack of 8-core Xeons and a budget for two gaming cards. Which do we train the ImageNet network on?",
            ),
            mo.md(
                "The chapter (longer edition): the building blocks were shaped by the hardware of "
                "their time. LeNet-5 trained on CPUs with networks of megabytes; AlexNet trained its "
                "60-million-parameter network on two GTX 580 GPUs. Price the paper's schedule on "
                "each chip's datasheet."
            ),
            pred_e,
        ]
    )
    return (e_batch, e_efficiency, e_epochs, pred_e)


@app.cell
def _(e_batch, e_efficiency, e_epochs, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_efficiency, e_epochs, e_batch], justify="start", wrap=True),
            kit.show(lab.part_e(e_efficiency.value, e_epochs.value, e_batch.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, pred_e, unlocked):
    mo.stop(
        *kit.until_answered([pred_a, pred_b, pred_c, pred_d, pred_e], unlocked, "the takeaways")
    )
    mo.md("""
    ## Takeaways

    - Fewer multiply-accumulates do not mean a sooner answer: at batch 1 a small network waits on
      kernel launches on a data-center GPU and on edge GPUs alike, so the network with fewer, larger
      layers can win while the one with fewer MACs loses. Figure 1's ordering returns only where
      compute binds, as on the camera trap's CPU.
    - The iron law written out adds memory, compute and launch time as if nothing overlapped;
      the whole-model roofline takes the larger total; summing each layer's larger term lands
      between the two, because a memory-bound layer cannot borrow a compute-bound layer's idle
      bandwidth.
    - Table 7's multiply-accumulate formulas name every matmul of a block and are exact; its weight
      formulas leave out biases and norm scales (about 1/d). Its decode row, one MAC per weight,
      leaves out the new token's attention over the cache, which grows with the context.
    - An ensemble's accuracy is front-loaded and its cost is not: every member runs for every
      prediction, so serving cost grows with the member count while the last members add a
      fraction of a point. Netflix shipped two models of the 107-model blend and none of the
      Grand Prize's: model selection tests predictive fit and machine cost.
    - The hardware of a period shapes what trains: AlexNet's 4.6 × 10¹⁷ FLOPs took five to six
      days on two GTX 580s and would have taken weeks on a 2012 server CPU (8.5× the time at the
      same fraction of peak). The GPUs won on arithmetic rate; their 3 GB was the limit, not the
      advantage, and the paper split the network across two cards to grow past it.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_bar,
    a_cost,
    a_device,
    a_fused,
    b_batch,
    b_device,
    b_fused,
    b_model,
    c_block,
    c_length,
    c_rows,
    c_width,
    d_factors,
    d_members,
    e_batch,
    e_efficiency,
    e_epochs,
    justification,
    kit,
    lab,
    ledger,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    pred_e,
    saved,
    student,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            pred_a=pred_a,
            a_cost=a_cost,
            a_device=a_device,
            a_bar=a_bar,
            a_fused=a_fused,
            pred_b=pred_b,
            b_model=b_model,
            b_device=b_device,
            b_batch=b_batch,
            b_fused=b_fused,
            pred_c=pred_c,
            c_block=c_block,
            c_width=c_width,
            c_length=c_length,
            c_rows=c_rows,
            pred_d=pred_d,
            d_factors=d_factors,
            d_members=d_members,
            pred_e=pred_e,
            e_efficiency=e_efficiency,
            e_epochs=e_epochs,
            e_batch=e_batch,
        ),
        saved=saved,
        student=student,
        justification=justification,
    )
    return


if __name__ == "__main__":
    app.run()

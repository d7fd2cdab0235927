# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.0 Before you start: concept inventory")


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
    from mlsysim.labs import inventory as inv
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    lab = inv.PRE
    return DesignLedger, LAB_CSS, inv, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Concept inventory",
                "Before you start: concept inventory",
                "Twelve questions on the chapter's core ideas, before any lab: no feedback and no answers here. You meet each idea again, in a new case, after Lab 06, and then see your own before and after. Answer with your best guess; it is not graded.",
                ["12 questions", "about 10 minutes", "no feedback yet", "take it first"],
            ),
        ]
    )
    return


@app.cell
async def _(DesignLedger, kit, lab):
    ledger = await DesignLedger().load_async()
    saved = kit.saved(ledger, lab)
    return ledger, saved


@app.cell(hide_code=True)
def _(kit, mo, saved):
    student = kit.student_field(saved)
    mo.vstack(
        [
            mo.md("## Your name or ID"),
            mo.md(
                "Enter your name or student ID first: it decides which of two versions of each "
                "question you get here (half the class gets each), and the post-test after Lab 06 gives you the other. "
                "Use the same spelling in every notebook."
            ),
            student,
        ]
    )
    return (student,)


@app.cell
def _(inv, lab, ledger, student):
    seed = inv.seed_for(student.value or "")
    items = inv.form_items(ledger, lab, seed)
    return items, seed


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_prior = inv.radio(lab, "PRIOR", items, saved)
    mo.vstack([mo.md("## Questions"), mo.md(inv.question_heading(1)), pred_prior])
    return (pred_prior,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_regime = inv.radio(lab, "REGIME", items, saved)
    mo.vstack([mo.md(inv.question_heading(2)), pred_regime])
    return (pred_regime,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_batching = inv.radio(lab, "BATCHING", items, saved)
    mo.vstack([mo.md(inv.question_heading(3)), pred_batching])
    return (pred_batching,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_attention = inv.radio(lab, "ATTENTION", items, saved)
    mo.vstack([mo.md(inv.question_heading(4)), pred_attention])
    return (pred_attention,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_kvcache = inv.radio(lab, "KVCACHE", items, saved)
    mo.vstack([mo.md(inv.question_heading(5)), pred_kvcache])
    return (pred_kvcache,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_flops = inv.radio(lab, "FLOPS", items, saved)
    mo.vstack([mo.md(inv.question_heading(6)), pred_flops])
    return (pred_flops,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_launch = inv.radio(lab, "LAUNCH", items, saved)
    mo.vstack([mo.md(inv.question_heading(7)), pred_launch])
    return (pred_launch,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_embedding = inv.radio(lab, "EMBEDDING", items, saved)
    mo.vstack([mo.md(inv.question_heading(8)), pred_embedding])
    return (pred_embedding,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_energy = inv.radio(lab, "ENERGY", items, saved)
    mo.vstack([mo.md(inv.question_heading(9)), pred_energy])
    return (pred_energy,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_device = inv.radio(lab, "DEVICE", items, saved)
    mo.vstack([mo.md(inv.question_heading(10)), pred_device])
    return (pred_device,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_width = inv.radio(lab, "WIDTH", items, saved)
    mo.vstack([mo.md(inv.question_heading(11)), pred_width])
    return (pred_width,)


@app.cell(hide_code=True)
def _(inv, items, lab, mo, saved):
    pred_recurrence = inv.radio(lab, "RECURRENCE", items, saved)
    mo.vstack([mo.md(inv.question_heading(12)), pred_recurrence])
    return (pred_recurrence,)


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    That is all: nothing is revealed here, on purpose. Download your report below and hand it
    in, then start with Section 6.1. After Lab 06, the post-test asks about the same ideas in new
    cases and shows you how your answers moved.
    """)
    return


@app.cell
async def _(
    inv,
    items,
    kit,
    lab,
    ledger,
    pred_attention,
    pred_batching,
    pred_device,
    pred_embedding,
    pred_energy,
    pred_flops,
    pred_kvcache,
    pred_launch,
    pred_prior,
    pred_recurrence,
    pred_regime,
    pred_width,
    saved,
    seed,
    student,
):
    await kit.record(
        ledger,
        lab,
        answers={
            inv.item_key("PRIOR", items["PRIOR"]): pred_prior.value,
            inv.item_key("REGIME", items["REGIME"]): pred_regime.value,
            inv.item_key("BATCHING", items["BATCHING"]): pred_batching.value,
            inv.item_key("ATTENTION", items["ATTENTION"]): pred_attention.value,
            inv.item_key("KVCACHE", items["KVCACHE"]): pred_kvcache.value,
            inv.item_key("FLOPS", items["FLOPS"]): pred_flops.value,
            inv.item_key("LAUNCH", items["LAUNCH"]): pred_launch.value,
            inv.item_key("EMBEDDING", items["EMBEDDING"]): pred_embedding.value,
            inv.item_key("ENERGY", items["ENERGY"]): pred_energy.value,
            inv.item_key("DEVICE", items["DEVICE"]): pred_device.value,
            inv.item_key("WIDTH", items["WIDTH"]): pred_width.value,
            inv.item_key("RECURRENCE", items["RECURRENCE"]): pred_recurrence.value,
        },
        saved=saved,
        student=student,
        design={
            "inventory_seed": seed,
            "inventory_items": "".join(str(items[k]) for k in lab.PARTS),
        },
        notebook="s06_00_inventory_pre",
    )
    return


if __name__ == "__main__":
    app.run()

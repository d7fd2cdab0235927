# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.8 DLRM: embedding tables")


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
    from mlsysim.labs.parts import s06_08_dlrm as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.8",
                "Sparse Architectures: DLRM and Embedding Tables",
                "A recommender's embedding tables must fit somewhere before any FLOP matters: size them "
                "against device memory, measure what a lookup costs, price the ways out, and see why "
                "an ID goes through a table at all.",
                [
                    "5 parts",
                    "about 25 minutes",
                    "table sizes",
                    "embedding gathers",
                    "shrink",
                    "move or shard",
                    "what an ID is",
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
    a_rows = lab.A_ROWS.widget(saved)
    a_tables = lab.A_TABLES.widget(saved)
    a_dim = lab.A_DIM.widget(saved)
    a_precision = lab.A_PRECISION.widget(saved)
    a_device = lab.A_DEVICE.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · Where the tables live"),
            kit.message(
                "Min-jun Choi",
                "recommendations team lead",
                "Our store has a hundred million items. One embedding row per item, and we have "
                "an A100 with plenty of memory. Can we add the user table next to it?",
            ),
            mo.md(
                "An embedding table stores one learned row per ID, and the whole table must be resident "
                "wherever lookups run. Compare the tables with the device's memory. GB are decimal (a "
                "billion bytes)."
            ),
            pred_a,
        ]
    )
    return (a_device, a_dim, a_precision, a_rows, a_tables, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_device, a_dim, a_precision, a_rows, a_tables, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_rows, a_tables], justify="start", wrap=True),
            mo.hstack([a_dim, a_precision], justify="start", wrap=True),
            a_device,
            kit.show_part(
                lab.part_a,
                a_rows.value,
                a_tables.value,
                a_dim.value,
                a_precision.value,
                a_device.value,
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
    b_batch = lab.B_BATCH.widget(saved)
    b_lookups = lab.B_LOOKUPS.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · What a lookup costs"),
            kit.message(
                "Sam Rivera",
                "serving engineer",
                "Profiling says the GPU sits mostly idle on our recommender. Fine: we'll batch "
                "a thousand requests together, like we do for the ranking MLPs. That should fix it.",
            ),
            mo.md(
                "The DLRM lighthouse runs a bottom MLP on dense features, gathers one row per ID from "
                "each of its embedding tables, takes pairwise dot products, then runs a top MLP. The "
                "engine counts each stage's bytes and FLOPs. Watch the bytes per request as the batch grows."
            ),
            pred_b,
        ]
    )
    return (b_batch, b_device, b_lookups, pred_b, transfer_b)


@app.cell
def _(b_batch, b_device, b_lookups, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_batch, b_lookups], justify="start", wrap=True),
            b_device,
            kit.show(lab.part_b(b_batch.value, b_lookups.value, b_device.value)),
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
    c_precision = lab.C_PRECISION.widget(saved)
    c_keep = lab.C_KEEP.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Shrink the tables"),
            kit.message(
                "Min-jun Choi",
                "recommendations team lead",
                "We need both tables: a hundred million items and a billion users. Someone "
                "suggested INT8. Is quantization enough to land on one GPU?",
            ),
            mo.md(
                "Shrinking trades information for bytes: a lower precision rounds every value, and "
                "hashing maps several IDs to one shared row, which blurs the rarely seen long tail. "
                "Find what it takes to fit."
            ),
            pred_c,
        ]
    )
    return (c_device, c_keep, c_precision, pred_c, transfer_c)


@app.cell
def _(c_device, c_keep, c_precision, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_precision, c_keep], justify="start", wrap=True),
            c_device,
            kit.show(lab.part_c(c_precision.value, c_keep.value, c_device.value)),
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
    d_devices = lab.D_DEVICES.widget(saved)
    d_usable = lab.D_USABLE.widget(saved)
    d_batch = lab.D_BATCH.widget(saved)
    d_lookups = lab.D_LOOKUPS.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Move or shard"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO",
                "We will not give up accuracy. Keep the tables in full precision and tell me "
                "what it costs: more GPUs, or host memory?",
            ),
            mo.md(
                "Two ways keep every row. **Move** the tables to host DRAM and pull the gathered rows "
                "over PCIe, or **shard** them across GPUs so each holds a slice, and exchange the "
                "pooled vectors all-to-all: over NVLink among the 8 GPUs of one H100 node, over "
                "InfiniBand between nodes. Both change which bandwidth the data term pays."
            ),
            pred_d,
        ]
    )
    return (d_batch, d_devices, d_lookups, d_usable, pred_d, transfer_d)


@app.cell
def _(d_batch, d_devices, d_lookups, d_usable, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_devices, d_usable], justify="start", wrap=True),
            mo.hstack([d_batch, d_lookups], justify="start", wrap=True),
            kit.show(lab.part_d(d_devices.value, d_usable.value, d_batch.value, d_lookups.value)),
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
    e_toy = lab.E_TOY.widget(saved)
    e_weight = lab.E_WEIGHT.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · What an ID is"),
            kit.message(
                "Sam Adeyemi",
                "ML engineer",
                "The tables are the whole problem. Item IDs are integers already: why not feed "
                "the ID straight into the MLP as one more input feature?",
            ),
            mo.md(
                "The engine takes three ways to hand a model an item: its ID as one number, its "
                "one-hot vector times the table, and a lookup of the table's row; it measures the "
                "first on three items and the other two on a small table and at 100M rows."
            ),
            pred_e,
        ]
    )
    return (e_toy, e_weight, pred_e, transfer_e)


@app.cell
def _(e_toy, e_weight, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_toy, e_weight], justify="start", wrap=True),
            kit.show(lab.part_e(e_toy.value, e_weight.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_e, saved, transfer_e, unlocked):
    mo.stop(kit.locked(pred_e, unlocked))
    kit.transfer(lab.TRANSFER_E, transfer_e, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, pred_e, unlocked):
    mo.stop(
        *kit.until_answered([pred_a, pred_b, pred_c, pred_d, pred_e], unlocked, "the takeaways")
    )
    mo.md("""
    ## Takeaways

    - **Capacity comes first.** Rows × width × bytes decides whether the tables can live on a
      device at all; the iron law only times a placement that exists.
    - **Gathers are bytes with almost no arithmetic.** A lookup copies a row; alone it pays a fixed
      latency (the memory's access latency, and in the engine a kernel launch), in bulk it pays
      bandwidth, and batching does not share it the way it shares MLP weights.
    - **Shrinking costs information.** Lower precision divides bytes by a fixed factor; hashing
      merges IDs into shared rows and blurs the long tail.
    - **Moving or sharding costs bandwidth.** Host DRAM puts the rows behind PCIe; sharding needs
      enough GPUs (rounded up) and an all-to-all exchange every batch, over NVLink inside an
      8-GPU node and over the much slower InfiniBand beyond it.
    - **An ID is a row index, not a quantity.** Fed as a number it forces a geometry (item 1,000
      next to 1,001, far from 7) that no training undoes; a table gives every ID a free row. The
      lookup is the one-hot vector times the table, done as a copy of one row.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_device,
    a_dim,
    a_precision,
    a_rows,
    a_tables,
    b_batch,
    b_device,
    b_lookups,
    c_device,
    c_keep,
    c_precision,
    d_batch,
    d_devices,
    d_lookups,
    d_usable,
    e_toy,
    e_weight,
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
            a_rows=a_rows,
            a_tables=a_tables,
            a_dim=a_dim,
            a_precision=a_precision,
            a_device=a_device,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_batch=b_batch,
            b_lookups=b_lookups,
            b_device=b_device,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_precision=c_precision,
            c_keep=c_keep,
            c_device=c_device,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_devices=d_devices,
            d_usable=d_usable,
            d_batch=d_batch,
            d_lookups=d_lookups,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_toy=e_toy,
            e_weight=e_weight,
            transfer_e=transfer_e,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "gpus": d_devices.value,
            "usable_percent": d_usable.value,
            "batch": d_batch.value,
            "lookups": d_lookups.value,
        },
    )
    return


if __name__ == "__main__":
    app.run()

# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.10 Fallacies and Pitfalls")


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
    from mlsysim.labs.parts import s06_10_fallacies as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.10",
                "Fallacies and Pitfalls",
                "Six beliefs that sink architecture decisions: state yours, run the experiment, and let the "
                "engine's numbers argue back.",
                [
                    "4 parts",
                    "about 20 minutes",
                    "bigger is better?",
                    "accuracy alone",
                    "one bottleneck?",
                    "hybrids",
                    "train vs deploy",
                    "KV cache growth",
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
    a_device = lab.A_DEVICE.widget(saved)
    a_batch = lab.A_BATCH.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · A newer, bigger architecture"),
            kit.message(
                "Jordan Lee",
                "ML engineer, WildlifeVision",
                "Transformers won everywhere else, so let's replace our ResNet-50 with a ViT. "
                "It can only get better, right?",
            ),
            mo.md("Use the engine on both candidates before anyone trains either of them."),
            pred_a,
        ]
    )
    return (a_batch, a_device, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_batch, a_device, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_device, a_batch], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_device.value, a_batch.value),
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
    b_device = lab.B_DEVICE.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · Two candidates, one leaderboard"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "The paper's model tops the leaderboard at 512 tokens. Our recordings need 2,048. "
                "Ship it: the accuracy table says it's the best.",
            ),
            mo.md(
                "Accuracy tables hide two costs: a recurrent model's chain of dependent steps, and a "
                "transformer's score matrix that grows with the square of the sequence."
            ),
            pred_b,
        ]
    )
    return (b_device, b_seq, pred_b, transfer_b)


@app.cell
def _(b_device, b_seq, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_seq, b_device], justify="start", wrap=True),
            kit.show(lab.part_b(b_seq.value, b_device.value)),
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
    c_seq = lab.C_SEQ.widget(saved)
    c_res = lab.C_RES.widget(saved)
    c_batch = lab.C_BATCH.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    c_flash = lab.C_FLASH.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Training vs serving, and a CNN with attention"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "We benchmarked the transformer during training: compute-bound. So serving is "
                "compute-bound too. And adding attention to the CNN only adds its accuracy, right?",
            ),
            mo.md(
                "Compare where the time goes for one model in two phases, and for a CNN before and after "
                "attention is bolted onto its feature map. Prefill (the whole prompt in one pass) stands in "
                "for training's forward pass; decode produces one token per step."
            ),
            pred_c,
        ]
    )
    return (c_batch, c_device, c_flash, c_res, c_seq, pred_c, transfer_c)


@app.cell
def _(c_batch, c_device, c_flash, c_res, c_seq, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_seq, c_res, c_batch], justify="start", wrap=True),
            mo.hstack([c_device, c_flash], justify="start", wrap=True),
            kit.show(
                lab.part_c(c_seq.value, c_res.value, c_batch.value, c_device.value, c_flash.value)
            ),
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
    d_precision = lab.D_PRECISION.widget(saved)
    d_users = lab.D_USERS.widget(saved)
    d_context = lab.D_CONTEXT.widget(saved)
    d_device = lab.D_DEVICE.widget(saved)
    d_reserve = lab.D_RESERVE.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · From the training cluster to one serving GPU"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO, WildlifeVision",
                "Our ranger-assistant chatbot ran beautifully on the training cluster. Put it on the "
                "Jetson in each ranger station and let every ranger use it.",
            ),
            mo.md(
                "Serving memory is weights plus a KV cache per conversation plus live activations plus "
                "whatever the OS and runtime hold. Only the first term was visible on the cluster."
            ),
            pred_d,
        ]
    )
    return (d_context, d_device, d_precision, d_reserve, d_users, pred_d, transfer_d)


@app.cell
def _(d_context, d_device, d_precision, d_reserve, d_users, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_users, d_context, d_reserve], justify="start", wrap=True),
            mo.hstack([d_precision, d_device], justify="start", wrap=True),
            kit.show(
                lab.part_d(
                    d_precision.value,
                    d_users.value,
                    d_context.value,
                    d_device.value,
                    d_reserve.value,
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
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, unlocked):
    mo.stop(*kit.until_answered([pred_a, pred_b, pred_c, pred_d], unlocked, "the takeaways"))
    mo.md("""
    ## Synthesis · What the six beliefs have in common

    The six beliefs: more complex architectures always perform better; choosing on accuracy
    alone; one bottleneck per architecture; hybrids simply add up; what wins in training wins in
    serving; and ignoring the growth of the KV cache.

    - Each one judges an architecture by a single number from a different context: a leaderboard
      score, a training benchmark, a cluster's memory. The bill is paid in the deployment's regime.
    - Cost is measurable before training (parameters, FLOPs, bytes, serial steps, KV cache); accuracy
      is not. Price the candidates first, then spend data and training on the ones that fit.
    - Bottlenecks move with phase, batch, sequence length, composition and device: measure each regime
      you will run, and budget weights, per-request state and runtime together.
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
    b_device,
    b_seq,
    c_batch,
    c_device,
    c_flash,
    c_res,
    c_seq,
    d_context,
    d_device,
    d_precision,
    d_reserve,
    d_users,
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
            a_device=a_device,
            a_batch=a_batch,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_seq=b_seq,
            b_device=b_device,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_seq=c_seq,
            c_res=c_res,
            c_batch=c_batch,
            c_device=c_device,
            c_flash=c_flash,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_precision=d_precision,
            d_users=d_users,
            d_context=d_context,
            d_device=d_device,
            d_reserve=d_reserve,
            transfer_d=transfer_d,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={"device": d_device.value, "precision": d_precision.value, "users": d_users.value},
    )
    return


if __name__ == "__main__":
    app.run()

# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.13 Building blocks: gating, MoE, what transfers")


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
    from mlsysim.labs.parts import s06_13_building_blocks as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Shared building blocks",
                "Gating and Mixture of Experts",
                "Gating routes each token to a few experts: see what that does to parameters, FLOPs, batching, "
                "load balance and the traffic between GPUs; then carry one block's optimization across the families.",
                [
                    "5 parts",
                    "about 25 minutes",
                    "capacity vs compute",
                    "batching",
                    "load imbalance",
                    "all-to-all",
                    "optimizations that transfer",
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
    a_experts = lab.A_EXPERTS.widget(saved)
    a_topk = lab.A_TOPK.widget(saved)
    a_precision = lab.A_PRECISION.widget(saved)
    mo.vstack(
        [
            mo.md("## Part A · What a mixture of experts holds"),
            kit.message(
                "Dr. Maya Rodriguez",
                "CTO, WildlifeVision",
                "A vendor pitches a mixture-of-experts model: 'the quality of a 47B model at the cost of a 13B one'. What do we actually have to buy to serve it?",
            ),
            pred_a,
        ]
    )
    return (a_experts, a_precision, a_topk, pred_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_experts, a_precision, a_topk, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_experts, a_topk, a_precision], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_experts.value, a_topk.value, a_precision.value),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_b = lab.PRED_B.radio(saved)
    b_batch = lab.B_BATCH.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    b_precision = lab.B_PRECISION.widget(saved)
    mo.vstack(
        [
            mo.md("## Part B · Batching an MoE"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "For dense models, batching users amortizes the weight reads. Does it work the same way for a mixture of experts?",
            ),
            pred_b,
        ]
    )
    return (b_batch, b_device, b_precision, pred_b)


@app.cell
def _(b_batch, b_device, b_precision, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_batch, b_device, b_precision], justify="start", wrap=True),
            kit.show(lab.part_b(b_batch.value, b_device.value, b_precision.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_c = lab.PRED_C.radio(saved)
    c_hot = lab.C_HOT.widget(saved)
    c_capacity = lab.C_CAPACITY.widget(saved)
    c_tokens = lab.C_TOKENS.widget(saved)
    mo.vstack(
        [
            mo.md("## Part C · When the router plays favourites"),
            kit.message(
                "Alex Torres",
                "product manager, WildlifeVision",
                "The training dashboard shows one expert getting far more tokens than the rest. The total work is the same, so why is the team worried?",
            ),
            pred_c,
        ]
    )
    return (c_capacity, c_hot, c_tokens, pred_c)


@app.cell
def _(c_capacity, c_hot, c_tokens, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_hot, c_capacity, c_tokens], justify="start", wrap=True),
            kit.show(lab.part_c(c_hot.value, c_capacity.value, c_tokens.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_d = lab.PRED_D.radio(saved)
    d_devices = lab.D_DEVICES.widget(saved)
    d_topk = lab.D_TOPK.widget(saved)
    d_precision = lab.D_PRECISION.widget(saved)
    mo.vstack(
        [
            mo.md("## Part D · The scatter across GPUs"),
            kit.message(
                "Dr. Sarah Kimani",
                "ML architect, WildlifeVision",
                "To fit the experts we will spread them over several GPUs. What traffic does that add, and does it get better with more GPUs?",
            ),
            pred_d,
        ]
    )
    return (d_devices, d_precision, d_topk, pred_d)


@app.cell
def _(d_devices, d_precision, d_topk, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_devices, d_topk, d_precision], justify="start", wrap=True),
            kit.show(lab.part_d(d_devices.value, d_topk.value, d_precision.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_e = lab.PRED_E.radio(saved)
    e_optimization = lab.E_OPTIMIZATION.widget(saved)
    e_device = lab.E_DEVICE.widget(saved)
    mo.vstack(
        [
            mo.md("## Part E · One block's optimization, every family"),
            kit.message(
                "Ravi Patel",
                "systems engineer, WildlifeVision",
                "Our LLM team has a faster kernel for the residual adds. We also run vision, recommendation and keyword-spotting models: is it worth porting to them?",
            ),
            pred_e,
        ]
    )
    return (e_device, e_optimization, pred_e)


@app.cell
def _(e_device, e_optimization, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_optimization, e_device], justify="start", wrap=True),
            kit.show(lab.part_e(e_optimization.value, e_device.value)),
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

    - A mixture of experts buys parameters without per-token arithmetic: every expert stays in
      memory, while each token pays only for the k experts it is routed to.
    - Batching amortizes an MoE's weights more slowly than a dense layer's: the set of experts a
      step must read grows with the batch until it is the whole layer.
    - A step waits for its busiest expert: an unbalanced router stretches the step or, under a
      capacity cap, drops tokens, which is why training adds a load-balancing loss.
    - Spreading experts over GPUs turns routing into all-to-all traffic: each token's k copies
      leave and return, so the traffic per token levels off as GPUs are added instead of vanishing.
    - The building blocks repeat across families, and so do their costs: an optimization of one
      block (a fused residual add, INT8 weights in every GEMM) reaches every model that has the
      block and none that lacks it, and its gain follows each model's bottleneck.
    """)
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_experts,
    a_precision,
    a_topk,
    b_batch,
    b_device,
    b_precision,
    c_capacity,
    c_hot,
    c_tokens,
    d_devices,
    d_precision,
    d_topk,
    e_device,
    e_optimization,
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
            a_experts=a_experts,
            a_topk=a_topk,
            a_precision=a_precision,
            pred_b=pred_b,
            b_batch=b_batch,
            b_device=b_device,
            b_precision=b_precision,
            pred_c=pred_c,
            c_hot=c_hot,
            c_capacity=c_capacity,
            c_tokens=c_tokens,
            pred_d=pred_d,
            d_devices=d_devices,
            d_topk=d_topk,
            d_precision=d_precision,
            pred_e=pred_e,
            e_optimization=e_optimization,
            e_device=e_device,
        ),
        saved=saved,
        student=student,
        justification=justification,
    )
    return


if __name__ == "__main__":
    app.run()

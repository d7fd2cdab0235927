# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.7 Transformers: prefill, decode and the KV cache")


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
    from mlsysim.labs.parts import s06_07_transformers as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.7",
                "Transformers: Prefill, Decode and the KV Cache",
                "One transformer runs in two regimes, prompt prefill and token-by-token decode: find "
                "what binds each, what batching buys, when the KV cache outgrows the weights, and what "
                "heads, masks and a 70B model cost, where one pass's time goes, block by block, and what "
                "changes when the tokens are image patches instead of words.",
                [
                    "7 parts",
                    "about 40 minutes",
                    "prefill vs decode",
                    "batching",
                    "KV cache",
                    "grouped-query attention",
                    "heads and masks",
                    "the block's building blocks",
                    "one block, any modality",
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
    a_model = lab.A_MODEL.widget(saved)
    a_device = lab.A_DEVICE.widget(saved)
    a_prompt = lab.A_PROMPT.widget(saved)
    a_launch = lab.A_LAUNCH.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · Two regimes, one model"),
            kit.message(
                "Priya Natarajan",
                "inference lead, a chat start-up",
                "The whole prompt goes through the model in one pass, yet every generated token "
                "afterwards costs a good share of that pass on its own. Same weights, same GPU: "
                "why is one token so expensive?",
            ),
            mo.md(
                "Prefill pushes the whole prompt through the model in one pass; decode then produces "
                "one token per step. Place both on the roofline. Conventions: one MAC is two FLOPs, a GB is a billion "
                "bytes (decimal), peaks are dense FP16, and the roof is drawn at a sustained efficiency "
                "of one half."
            ),
            pred_a,
        ]
    )
    return (a_device, a_launch, a_model, a_prompt, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_device, a_launch, a_model, a_prompt, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            a_model,
            mo.hstack([a_device, a_prompt], justify="start", wrap=True),
            a_launch,
            kit.show_part(
                lab.part_a, a_model.value, a_device.value, a_prompt.value, a_launch.value
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
    b_context = lab.B_CONTEXT.widget(saved)
    b_device = lab.B_DEVICE.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · What batching buys"),
            kit.message(
                "Marco Bellini",
                "capacity planner",
                "Part A showed one user's decode leaves the GPU mostly idle. Fine: we batch. "
                "Thirty-two users per step should cut each token's memory traffic 32-fold. Right?",
            ),
            mo.md(
                "A batched decode step produces one token for every sequence in the batch. The chart "
                "splits the bytes read per generated token by where they come from as the batch grows, "
                "for the chapter's 7B-class model."
            ),
            pred_b,
        ]
    )
    return (b_batch, b_context, b_device, pred_b, transfer_b)


@app.cell
def _(b_batch, b_context, b_device, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_batch, b_context, b_device], justify="start", wrap=True),
            kit.show(lab.part_b(b_batch.value, b_context.value, b_device.value)),
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
    c_context = lab.C_CONTEXT.widget(saved)
    c_flash = lab.C_FLASH.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · Three memory regimes of a long context"),
            kit.message(
                "Alex Torres",
                "product manager",
                "Customers want to paste whole codebases into one prompt. The weights are small "
                "next to the GPU's memory, so memory cannot be the problem. What runs out first?",
            ),
            mo.md(
                "With GPT-2 XL's shape, three memories compete as one prompt, processed in a single "
                "pass, grows: the weights, the KV cache, and one layer's materialized attention scores. "
                "Find where each one crosses the device's memory."
            ),
            pred_c,
        ]
    )
    return (c_context, c_device, c_flash, pred_c, transfer_c)


@app.cell
def _(c_context, c_device, c_flash, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_context, c_flash], justify="start", wrap=True),
            c_device,
            kit.show(lab.part_c(c_context.value, c_flash.value, c_device.value)),
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
    d_users = lab.D_USERS.widget(saved)
    d_context = lab.D_CONTEXT.widget(saved)
    d_kv_heads = lab.D_KV_HEADS.widget(saved)
    d_device = lab.D_DEVICE.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · Budgeting memory for many users"),
            kit.message(
                "Kofi Mensah",
                "platform engineer",
                "Our 7B model's FP16 weights fill only a third of the 40 GB A100, so we can serve "
                "as many users as we like. I'm signing off on the launch. Any objections?",
            ),
            mo.md(
                "Size the serving budget for users × context on a device, then try grouped-query "
                "attention (GQA), which shares each key/value head among several query heads."
            ),
            pred_d,
        ]
    )
    return (d_context, d_device, d_kv_heads, d_users, pred_d, transfer_d)


@app.cell
def _(d_context, d_device, d_kv_heads, d_users, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_users, d_context], justify="start", wrap=True),
            mo.hstack([d_kv_heads, d_device], justify="start", wrap=True),
            kit.show(lab.part_d(d_users.value, d_context.value, d_kv_heads.value, d_device.value)),
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
    e_heads = lab.E_HEADS.widget(saved)
    e_model = lab.E_MODEL.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · Heads, masks and bytes per token"),
            kit.message(
                "Omar Farouk",
                "training lead",
                "We are choosing the head count for a new model and sizing a 70B deployment. Do more "
                "heads cost more compute, how does training see a whole sequence at once, and what "
                "does one generated token cost a 70B model?",
            ),
            mo.md(
                "The chart compares one 4,096-wide attention layer over 2,048 tokens split into 1 to 64 "
                "heads. The cards compare one training pass, in which a causal mask lets every position "
                "predict its next token at once (teacher forcing), with one decode step."
            ),
            pred_e,
        ]
    )
    return (e_heads, e_model, pred_e, transfer_e)


@app.cell
def _(e_heads, e_model, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_heads, e_model], justify="start", wrap=True),
            kit.show(lab.part_e(e_heads.value, e_model.value)),
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
    f_phase = lab.F_PHASE.widget(saved)
    f_fused = lab.F_FUSED.widget(saved)
    transfer_f = lab.TRANSFER_F.radio(saved)
    mo.vstack(
        [
            mo.md("## Part F · The block's building blocks on one forward pass"),
            kit.message(
                "Omar Farouk",
                "training lead",
                "A transformer block is attention, a feed-forward MLP, two residual adds and two "
                "norms. The adds and norms are trivial arithmetic: can we leave them out of the "
                "time budget?",
            ),
            mo.md(
                "The engine times GPT-2 XL layer by layer; this part groups its rows by the block "
                "each belongs to and sets their shares of the FLOPs, the bytes and the time side by side."
            ),
            pred_f,
        ]
    )
    return (f_fused, f_phase, pred_f, transfer_f)


@app.cell
def _(f_fused, f_phase, kit, lab, mo, pred_f, saved, unlocked):
    mo.stop(kit.locked(pred_f, unlocked), kit.locked_note("Part F"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_F, pred_f, unlocked, saved),
            mo.hstack([f_phase, f_fused], justify="start", wrap=True),
            kit.show(lab.part_f(f_phase.value, f_fused.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_f, saved, transfer_f, unlocked):
    mo.stop(kit.locked(pred_f, unlocked))
    kit.transfer(lab.TRANSFER_F, transfer_f, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_g = lab.PRED_G.radio(saved)
    g_vit = lab.G_VIT.widget(saved)
    transfer_g = lab.TRANSFER_G.radio(saved)
    mo.vstack(
        [
            mo.md("## Part G · One block, any modality"),
            kit.message(
                "Lena Vogel",
                "vision engineer",
                "Our text team runs BERT-base; we are moving to a vision transformer of the same "
                "width. Should we budget more compute per block for images?",
            ),
            mo.md(
                "The engine builds torchvision's ViT-B and HuggingFace's BERT-base layer by layer; "
                "this part takes one encoder block of each at the same token count, and each "
                "model's front end, the layers that turn the input into tokens."
            ),
            pred_g,
        ]
    )
    return (g_vit, pred_g, transfer_g)


@app.cell
def _(g_vit, kit, lab, mo, pred_g, saved, unlocked):
    mo.stop(kit.locked(pred_g, unlocked), kit.locked_note("Part G"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_G, pred_g, unlocked, saved),
            g_vit,
            kit.show(lab.part_g(g_vit.value)),
        ]
    )
    return


@app.cell
def _(kit, lab, mo, pred_g, saved, transfer_g, unlocked):
    mo.stop(kit.locked(pred_g, unlocked))
    kit.transfer(lab.TRANSFER_G, transfer_g, unlocked, saved)
    return


@app.cell(hide_code=True)
def _(kit, mo, pred_a, pred_b, pred_c, pred_d, pred_e, pred_f, pred_g, unlocked):
    mo.stop(
        *kit.until_answered(
            [pred_a, pred_b, pred_c, pred_d, pred_e, pred_f, pred_g], unlocked, "the takeaways"
        )
    )
    mo.md("""
    ## Takeaways

    - **One model, two regimes.** Prefill reuses each weight across the prompt and can be
      compute-bound; batch-1 decode reuses it once (about 1 FLOP/byte in FP16) and is bound by
      bytes, or at GPT-2 XL's size by kernel launches.
    - **Batching amortizes weights, not caches.** Each sequence reads its own KV cache, so past a
      modest batch the cache bytes set the pace and decode stays memory-bound.
    - **Three curves, three growth rates.** Weights are flat, the KV cache is linear, materialized
      scores are quadratic. Tiled attention removes the score storage, not the arithmetic.
    - **Budget weights + cache + buffers together.** Concurrency × context decides how many users
      fit; grouped-query attention divides the cache by the query-to-KV head ratio.
    - **Heads split the work.** More heads cost no extra FLOPs (4 × S² × d for any head count) but
      more stored score matrices; a causal mask lets one training pass predict every position,
      while generation reads every weight for each token.
    - **The block is four building blocks.** Attention and the feed-forward MLP do the FLOPs; the
      residual adds and norms do almost none yet take a tenth of a prefill's time, more for short
      passes and decode, because they move every activation and launch their own kernels.
    - **The block is portable.** A block sees a token count and a width, not a modality: a
      ViT-B/16 block and a BERT-base block at 197 tokens are the same weights and FLOPs. Images,
      text and speech differ in the front end that makes the tokens, and in how many tokens it makes.
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
    a_launch,
    a_model,
    a_prompt,
    b_batch,
    b_context,
    b_device,
    c_context,
    c_device,
    c_flash,
    d_context,
    d_device,
    d_kv_heads,
    d_users,
    e_heads,
    e_model,
    f_fused,
    f_phase,
    g_vit,
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
    pred_g,
    saved,
    student,
    transfer_a,
    transfer_b,
    transfer_c,
    transfer_d,
    transfer_e,
    transfer_f,
    transfer_g,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            pred_a=pred_a,
            a_model=a_model,
            a_device=a_device,
            a_prompt=a_prompt,
            a_launch=a_launch,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_batch=b_batch,
            b_context=b_context,
            b_device=b_device,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_context=c_context,
            c_flash=c_flash,
            c_device=c_device,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_users=d_users,
            d_context=d_context,
            d_kv_heads=d_kv_heads,
            d_device=d_device,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_heads=e_heads,
            e_model=e_model,
            transfer_e=transfer_e,
            pred_f=pred_f,
            f_phase=f_phase,
            f_fused=f_fused,
            transfer_f=transfer_f,
            pred_g=pred_g,
            g_vit=g_vit,
            transfer_g=transfer_g,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "users": d_users.value,
            "context": d_context.value,
            "kv_heads": d_kv_heads.value,
            "device": d_device.value,
        },
    )
    return


if __name__ == "__main__":
    app.run()

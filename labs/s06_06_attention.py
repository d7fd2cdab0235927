# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.6 Attention: The Quadratic Score Matrix")


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
    from mlsysim.labs.parts import s06_06_attention as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.6",
                "Attention: the quadratic score matrix",
                "Count what attention's score matrix costs in MACs and bytes, predict what happens "
                "when the context doubles, find the context at which it outgrows a device, and see "
                "what FlashAttention removes and what it keeps; then ask what attention knows about word order, and what routing by content does that a window cannot; last, what pruning redundant heads saves in time.",
                [
                    "7 parts",
                    "about 35 minutes",
                    "score GEMM",
                    "context growth",
                    "device fit",
                    "FlashAttention",
                    "order",
                    "routing by content",
                    "head pruning",
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
    a_seq = lab.A_SEQ.widget(saved)
    a_d_head = lab.A_D_HEAD.widget(saved)
    a_precision = lab.A_PRECISION.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · One head's score matrix"),
            kit.message(
                "Jun Park",
                "ML engineer, DocuLens",
                "Our document model uses self-attention over long inputs. Before we size "
                "hardware: what does one head actually compute and store?",
            ),
            mo.md(
                "Each query is compared with every key: a score is a dot product of a query and a key "
                "over the head dimension, scaled by one over its square root before the softmax; a "
                "second product then weights the values."
            ),
            pred_a,
        ]
    )
    return (a_d_head, a_precision, a_seq, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_d_head, a_precision, a_seq, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_seq, a_d_head], justify="start", wrap=True),
            a_precision,
            kit.show_part(lab.part_a, a_seq.value, a_d_head.value, a_precision.value),
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
    b_layers = lab.B_LAYERS.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · Heads, layers and the context"),
            kit.message(
                "Alex Moreau",
                "product manager, DocuLens",
                "The team wants to split our 768-wide attention into more, narrower heads to catch "
                "more patterns. Same width, so the same cost, right?",
            ),
            mo.md(
                "Naive training keeps every layer's attention scores for the backward pass. The chart "
                "shows the score memory against the context and marks the chapter's worked points."
            ),
            pred_b,
        ]
    )
    return (b_heads, b_layers, b_seq, pred_b, transfer_b)


@app.cell
def _(b_heads, b_layers, b_seq, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            b_seq,
            mo.hstack([b_heads, b_layers], justify="start", wrap=True),
            kit.show(lab.part_b(b_seq.value, b_heads.value, b_layers.value)),
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
    c_shape = lab.C_SHAPE.widget(saved)
    c_what = lab.C_WHAT.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · When the scores outgrow the device"),
            kit.message(
                "Jun Park",
                "ML engineer, DocuLens",
                "Which context length breaks our accelerator, exactly? Not a formula: a "
                "number we can put in the spec. And does FlashAttention move it?",
            ),
            mo.md(
                "The search doubles the context until the chosen tensors no longer fit the device, "
                "then bisects to the exact edge. The same search checks the chapter's Figure 14, "
                "which does not name its device."
            ),
            pred_c,
        ]
    )
    return (c_device, c_shape, c_what, pred_c, transfer_c)


@app.cell
def _(c_device, c_shape, c_what, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            c_device,
            c_shape,
            c_what,
            kit.show(lab.part_c(c_device.value, c_shape.value, c_what.value)),
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
    d_seq = lab.D_SEQ.widget(saved)
    d_shape = lab.D_SHAPE.widget(saved)
    d_device = lab.D_DEVICE.widget(saved)
    d_flash = lab.D_FLASH.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · What FlashAttention changes"),
            kit.message(
                "Sam Whitfield",
                "infrastructure lead, DocuLens",
                "A vendor says FlashAttention makes attention linear, so long context is "
                "cheap now. Is that right?",
            ),
            mo.md(
                "The engine times the attention core two ways on one device: the textbook kernel that "
                "writes the score matrix to memory, and FlashAttention's tiled kernel."
            ),
            pred_d,
        ]
    )
    return (d_device, d_flash, d_seq, d_shape, pred_d, transfer_d)


@app.cell
def _(d_device, d_flash, d_seq, d_shape, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_seq, d_flash], justify="start", wrap=True),
            d_shape,
            d_device,
            kit.show(lab.part_d(d_seq.value, d_shape.value, d_device.value, d_flash.value)),
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
    e_shift = lab.E_SHIFT.widget(saved)
    e_positions = lab.E_POSITIONS.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · What attention knows about order"),
            kit.message(
                "Jun Park",
                "ML engineer, DocuLens",
                "Our contracts are full of clauses whose meaning depends on word order. Does "
                "self-attention see the order of the tokens it compares?",
            ),
            mo.md(
                "The experiment runs one small unmasked self-attention head twice on the same five random token "
                "vectors: once in their original order and once rotated, then reads the second run's "
                "outputs back token by token."
            ),
            pred_e,
        ]
    )
    return (e_positions, e_shift, pred_e, transfer_e)


@app.cell
def _(e_positions, e_shift, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_shift, e_positions], justify="start", wrap=True),
            kit.show(lab.part_e(e_shift.value, e_positions.value)),
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
    f_distance = lab.F_DISTANCE.widget(saved)
    f_window = lab.F_WINDOW.widget(saved)
    transfer_f = lab.TRANSFER_F.radio(saved)
    mo.vstack(
        [
            mo.md("## Part F · Routing by content: where attention came from"),
            kit.message(
                "Jun Park",
                "ML engineer",
                "Before transformers, attention was added to translation models that read through a window or a single summary. What did it fix?",
            ),
            mo.md(
                "One query token must fetch the one earlier token whose key matches it. Three readers "
                "weight the earlier tokens: attention over every token, the same attention over a short "
                "window, and a fixed filter (a convolution's window, weights set by position)."
            ),
            pred_f,
        ]
    )
    return (f_distance, f_window, pred_f, transfer_f)


@app.cell
def _(f_distance, f_window, kit, lab, mo, pred_f, saved, unlocked):
    mo.stop(kit.locked(pred_f, unlocked), kit.locked_note("Part F"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_F, pred_f, unlocked, saved),
            mo.hstack([f_distance, f_window], justify="start", wrap=True),
            kit.show(lab.part_f(f_distance.value, f_window.value)),
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
    g_pruned = lab.G_PRUNED.widget(saved)
    g_seq = lab.G_SEQ.widget(saved)
    g_device = lab.G_DEVICE.widget(saved)
    transfer_g = lab.TRANSFER_G.radio(saved)
    mo.vstack(
        [
            mo.md("## Part G · Redundant heads: what pruning them saves"),
            kit.message(
                "Luis Ortega",
                "inference engineer",
                "A paper says we can delete many of BERT's attention heads and keep the accuracy. How much faster does that make our encoder?",
            ),
            mo.md(
                "Pruning removes whole heads from every layer: the kept heads keep their width, and "
                "whatever a removed head computed is never computed. The engine times the encoder "
                "before and after, on the device you pick."
            ),
            pred_g,
        ]
    )
    return (g_device, g_pruned, g_seq, pred_g, transfer_g)


@app.cell
def _(g_device, g_pruned, g_seq, kit, lab, mo, pred_g, saved, unlocked):
    mo.stop(kit.locked(pred_g, unlocked), kit.locked_note("Part G"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_G, pred_g, unlocked, saved),
            mo.hstack([g_pruned, g_seq, g_device], justify="start", wrap=True),
            kit.show(lab.part_g(g_pruned.value, g_seq.value, g_device.value)),
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

- Each head's score matrix is square in the context, and every entry costs a dot product over the head dimension: memory and MACs both grow as the square of the context.
- Doubling the context quadruples one layer's scores and their FLOPs; naive training multiplies that by every layer it keeps.
- The context that fits a device grows only as the square root of its memory, and the unit matters: GB and GiB move the edge.
- FlashAttention removes the stored scores and their traffic, not the arithmetic; its Q + K + V + O traffic is a lower bound that holds only while K and V stay on chip.
- Unmasked (bidirectional, encoder) self-attention is blind to order: shuffle the tokens and their outputs shuffle with them. Positional encodings added to the inputs make order matter; in a decoder the causal mask already breaks the symmetry.
- Attention routes by content: a token's weight comes from how well its key matches the query, so a match 100 tokens back counts as much as one 3 back, where a fixed window sees nothing beyond its width. That is what Bahdanau's attention gave translation, paid for with a score per earlier token.
- Many heads are redundant and can be pruned with little loss, but pruning a share of the heads saves a smaller share of the time: the feed-forward network, norms and kernel launches stay. The saving grows with the context, as the S² score work grows, and attention itself cannot go: most heads must remain.
""")
    return


@app.cell
def _(kit, lab, saved):
    justification = kit.justification_field(lab, saved)
    student = kit.student_field(saved)
    return justification, student


@app.cell
async def _(
    a_d_head,
    a_precision,
    a_seq,
    b_heads,
    b_layers,
    b_seq,
    c_device,
    c_shape,
    c_what,
    d_device,
    d_flash,
    d_seq,
    d_shape,
    e_positions,
    e_shift,
    f_distance,
    f_window,
    g_device,
    g_pruned,
    g_seq,
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
            a_seq=a_seq,
            a_d_head=a_d_head,
            a_precision=a_precision,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_seq=b_seq,
            b_heads=b_heads,
            b_layers=b_layers,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_device=c_device,
            c_shape=c_shape,
            c_what=c_what,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_seq=d_seq,
            d_shape=d_shape,
            d_device=d_device,
            d_flash=d_flash,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_shift=e_shift,
            e_positions=e_positions,
            transfer_e=transfer_e,
            pred_f=pred_f,
            f_distance=f_distance,
            f_window=f_window,
            transfer_f=transfer_f,
            pred_g=pred_g,
            g_pruned=g_pruned,
            g_seq=g_seq,
            g_device=g_device,
            transfer_g=transfer_g,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={"device": d_device.value, "shape": d_shape.value},
    )
    return


if __name__ == "__main__":
    app.run()

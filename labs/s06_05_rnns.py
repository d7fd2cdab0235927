# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="6.5 RNNs: The Serial Chain")


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
    from mlsysim.labs.parts import s06_05_rnns as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Section 6.5",
                "RNNs: a fixed state and a serial chain",
                "Measure what recurrence costs in time, in work per step and in memory, and set it "
                "against attention over a range of sequence lengths.",
                [
                    "5 parts",
                    "about 30 minutes",
                    "serial chain",
                    "LSTM and GRU cost",
                    "fixed state vs KV cache",
                    "RNN vs attention",
                    "gradients through time",
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
    a_batch = lab.A_BATCH.widget(saved)
    a_peak = lab.A_PEAK.widget(saved)
    a_launch = lab.A_LAUNCH.widget(saved)
    transfer_a = lab.TRANSFER_A.radio(saved)
    mo.vstack(
        [
            mo.md("## Part A · The serial chain"),
            kit.message(
                "Sofia Lindqvist",
                "audio ML engineer, StreamSense",
                "Our streaming speech model is an RNN and it is too slow. Procurement says "
                "an accelerator with ten times the FLOP/s will fix it. Will it?",
            ),
            mo.md(
                "Each step of a recurrent layer needs the state the previous step produced, so the "
                "steps run one after another. The engine times the layer as its arithmetic, its "
                "weight traffic and the kernels it launches at every step. Compare the two "
                "accelerators, then raise the batch and watch which term grows."
            ),
            pred_a,
        ]
    )
    return (a_batch, a_launch, a_peak, a_seq, pred_a, transfer_a)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(a_batch, a_launch, a_peak, a_seq, kit, lab, mo, pred_a, saved, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.vstack(
        [
            mo.hstack([a_seq, a_batch], justify="start", wrap=True),
            mo.hstack([a_peak, a_launch], justify="start", wrap=True),
            kit.show_part(lab.part_a, a_seq.value, a_batch.value, a_peak.value, a_launch.value),
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
    b_hidden = lab.B_HIDDEN.widget(saved)
    b_d_in = lab.B_D_IN.widget(saved)
    b_bias = lab.B_BIAS.widget(saved)
    transfer_b = lab.TRANSFER_B.radio(saved)
    mo.vstack(
        [
            mo.md("## Part B · The work of one step"),
            kit.message(
                "Dr. Elif Demir",
                "research lead, StreamSense",
                "We are switching our vanilla RNN to an LSTM so it learns longer phrases. What "
                "does that do to the compute bill per step?",
            ),
            mo.md(
                "An LSTM adds gates and a second state (the cell) to every step; a GRU adds gates "
                "too. Compare their work per step with the vanilla cell's at equal sizes."
            ),
            pred_b,
        ]
    )
    return (b_bias, b_d_in, b_hidden, pred_b, transfer_b)


@app.cell
def _(b_bias, b_d_in, b_hidden, kit, lab, mo, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            mo.hstack([b_hidden, b_d_in], justify="start", wrap=True),
            b_bias,
            kit.show(lab.part_b(b_hidden.value, b_d_in.value, b_bias.value)),
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
    c_hidden = lab.C_HIDDEN.widget(saved)
    c_seq = lab.C_SEQ.widget(saved)
    c_cell = lab.C_CELL.widget(saved)
    c_device = lab.C_DEVICE.widget(saved)
    transfer_c = lab.TRANSFER_C.radio(saved)
    mo.vstack(
        [
            mo.md("## Part C · What recurrence keeps in memory"),
            kit.message(
                "Hana Kobayashi",
                "firmware engineer, StreamSense",
                "Everyone says transformers replaced RNNs. Should we retire the RNN in our "
                "wake-word detector too?",
            ),
            mo.md(
                "Three things must stay in memory while a model runs: an RNN's state at inference, the "
                "states that training through time keeps, and an attention layer's keys and values. "
                "Compare all three with each device's on-chip memory."
            ),
            pred_c,
        ]
    )
    return (c_cell, c_device, c_hidden, c_seq, pred_c, transfer_c)


@app.cell
def _(c_cell, c_device, c_hidden, c_seq, kit, lab, mo, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            mo.hstack([c_hidden, c_seq], justify="start", wrap=True),
            c_cell,
            c_device,
            kit.show(lab.part_c(c_hidden.value, c_seq.value, c_cell.value, c_device.value)),
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
    d_width = lab.D_WIDTH.widget(saved)
    d_rival = lab.D_RIVAL.widget(saved)
    d_flash = lab.D_FLASH.widget(saved)
    d_launch = lab.D_LAUNCH.widget(saved)
    transfer_d = lab.TRANSFER_D.radio(saved)
    mo.vstack(
        [
            mo.md("## Part D · The crossover with attention"),
            kit.message(
                "Sofia Lindqvist",
                "audio ML engineer, StreamSense",
                "If the chain is the problem, should we move everything to attention? It "
                "does far more arithmetic per sequence.",
            ),
            mo.md(
                "An RNN runs its steps in order; self-attention compares every pair of tokens. The "
                "engine times both at the same width over a range of sequence lengths and searches "
                "for the length at which the lines cross."
            ),
            pred_d,
        ]
    )
    return (d_device, d_flash, d_launch, d_rival, d_width, pred_d, transfer_d)


@app.cell
def _(d_device, d_flash, d_launch, d_rival, d_width, kit, lab, mo, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            mo.hstack([d_width, d_flash], justify="start", wrap=True),
            d_rival,
            mo.hstack([d_device, d_launch], justify="start", wrap=True),
            kit.show(
                lab.part_d(
                    d_device.value, d_width.value, d_rival.value, d_flash.value, d_launch.value
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
    e_steps = lab.E_STEPS.widget(saved)
    e_activation = lab.E_ACTIVATION.widget(saved)
    e_gain = lab.E_GAIN.widget(saved)
    e_additive = lab.E_ADDITIVE.widget(saved)
    transfer_e = lab.TRANSFER_E.radio(saved)
    mo.vstack(
        [
            mo.md("## Part E · Gradients through time"),
            kit.message(
                "Sofia Lindqvist",
                "audio ML engineer, StreamSense",
                "Our RNN keyword model trains fine on one-second clips but cannot learn a wake phrase "
                "that spans three seconds. Is that a data problem?",
            ),
            mo.md(
                "Training an RNN unrolls it over the sequence and applies the chain rule backwards: "
                "∂L/∂h_0 = ∂L/∂h_S · Π_t ∂h_t/∂h_(t−1). Each factor combines the activation's "
                "derivatives with the shared recurrent matrix W_hh. The simulation runs a real seeded "
                "RNN forward over S inputs and backward to h_0."
            ),
            pred_e,
        ]
    )
    return (e_activation, e_additive, e_gain, e_steps, pred_e, transfer_e)


@app.cell
def _(e_activation, e_additive, e_gain, e_steps, kit, lab, mo, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            mo.hstack([e_steps, e_gain], justify="start", wrap=True),
            mo.hstack([e_activation, e_additive], justify="start", wrap=True),
            kit.show(lab.part_e(e_steps.value, e_activation.value, e_gain.value, e_additive.value)),
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

- An RNN's latency grows linearly with sequence length: every step waits for the previous state, and faster arithmetic only shortens each step.
- Gates multiply the work per step (an LSTM does four affine transforms, a GRU three) but never the number of steps.
- The inference state has a fixed size; training through time and attention's KV cache both grow with every token, which is why recurrence still fits where memory is scarce.
- On GPUs, attention's quadratic work done in parallel beats the RNN's chain until very long contexts.
- Training multiplies one Jacobian diag(f′) W_hh per step, so a plain RNN's gradient vanishes or explodes geometrically over time, which is what the LSTM's gated cell state was designed around.
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
    a_launch,
    a_peak,
    a_seq,
    b_bias,
    b_d_in,
    b_hidden,
    c_cell,
    c_device,
    c_hidden,
    c_seq,
    d_device,
    d_flash,
    d_launch,
    d_rival,
    d_width,
    e_activation,
    e_additive,
    e_gain,
    e_steps,
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
            a_seq=a_seq,
            a_batch=a_batch,
            a_peak=a_peak,
            a_launch=a_launch,
            transfer_a=transfer_a,
            pred_b=pred_b,
            b_hidden=b_hidden,
            b_d_in=b_d_in,
            b_bias=b_bias,
            transfer_b=transfer_b,
            pred_c=pred_c,
            c_hidden=c_hidden,
            c_seq=c_seq,
            c_cell=c_cell,
            c_device=c_device,
            transfer_c=transfer_c,
            pred_d=pred_d,
            d_device=d_device,
            d_width=d_width,
            d_rival=d_rival,
            d_flash=d_flash,
            d_launch=d_launch,
            transfer_d=transfer_d,
            pred_e=pred_e,
            e_steps=e_steps,
            e_activation=e_activation,
            e_gain=e_gain,
            e_additive=e_additive,
            transfer_e=transfer_e,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={"device": d_device.value, "width": d_width.value, "rival": d_rival.value},
    )
    return


if __name__ == "__main__":
    app.run()

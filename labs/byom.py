# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# mlsysim itself comes from this repository (desktop) or from the wheel shipped with the site
# (browser); see README.md.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Bring Your Own Model")


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
    from mlsysim.labs.parts import byom as lab
    from mlsysim.labs.state import DesignLedger
    from mlsysim.labs.style import LAB_CSS

    return DesignLedger, LAB_CSS, kit, lab, mo


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Chapter 6 · Network Architectures · Bring your own model",
                "Bring Your Own Model",
                "Paste any Hugging Face config.json (GPT-2, BERT, RoBERTa, Llama, Mistral, Qwen, Gemma, "
                "Phi-3, Mixtral) or pick a shipped one, choose a device, and predict what limits it "
                "before the roofline engine tells you.",
                [
                    "5 parts",
                    "about 30 minutes",
                    "any config.json",
                    "memory",
                    "roofline",
                    "prefill vs decode",
                    "KV cache",
                    "batching",
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
def _(mo):
    mo.md("""
    ## Your model and device

    Pick a shipped configuration (each one's source and published parameter count travel with
    it), or choose *Paste my own config.json* and paste the file from a model's Hugging Face page.
    The counts are exact: they match what transformers builds for the class in `architectures`.
    """)
    return


@app.cell
def _(lab, saved):
    source = lab.SOURCE.widget(saved)
    config_text = lab.CONFIG_TEXT.widget(saved)
    device = lab.DEVICE.widget(saved)
    device_spec = lab.DEVICE_SPEC.widget(saved)
    precision = lab.PRECISION.widget(saved)
    return config_text, device, device_spec, precision, source


@app.cell
def _(config_text, device, device_spec, kit, lab, mo, precision, source):
    model_key, model_error = lab.resolve(source.value, config_text.value)
    device_key, device_error = lab.resolve_device(device.value, device_spec.value)
    mo.vstack(
        [
            mo.hstack([source, device, precision], justify="start", wrap=True),
            config_text if source.value == lab.PASTE else mo.md(""),
            device_spec if device.value == lab.CUSTOM else mo.md(""),
            kit.error_note(ValueError(device_error)) if device_error else mo.md(""),
            kit.error_note(ValueError(model_error))
            if model_error
            else kit.cards(lab.model_cards(model_key)),
        ]
    )
    return device_key, model_key


@app.cell(hide_code=True)
def _(kit, mo):
    mo.vstack(
        [
            mo.md("## Part A · Will it fit?"),
            kit.message(
                "Priya Nair",
                "ML platform lead",
                "Today the assistant runs Llama-3 8B in FP16 on an H100. We want it on the edge box, a "
                "16 GB Jetson. What do we have to cut to make it fit?",
            ),
        ]
    )
    return


@app.cell
def _(lab, saved):
    pred_a = lab.PRED_A.radio(saved)
    pred_a
    return (pred_a,)


@app.cell
def _(kit, lab, pred_a, saved, unlocked):
    kit.verdict(lab.PRED_A, pred_a, unlocked, saved, locked="Part A")
    return


@app.cell
def _(device_key, kit, lab, mo, model_key, precision, pred_a, unlocked):
    mo.stop(kit.locked(pred_a, unlocked))
    mo.stop(model_key is None, kit.locked_note("Part A (fix the configuration above first)"))
    mo.stop(device_key is None, kit.locked_note("Part A (fix your device's figures above first)"))
    mo.vstack(
        [
            kit.show_part(lab.part_a, model_key, device_key, precision.value),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_b = lab.PRED_B.radio(saved)
    b_phase = lab.B_PHASE.widget(saved)
    mo.vstack(
        [
            mo.md("## Part B · Which layer binds, and why"),
            kit.message(
                "Luis Ortega",
                "inference engineer",
                "We run a BERT-base classifier over every document, on H100s in the cloud and on "
                "Jetsons at the edge. The team wants to rewrite the FFN kernels first. Before we spend "
                "a month on it: where does the time of one pass go on each?",
            ),
            pred_b,
        ]
    )
    return (b_phase, pred_b)


@app.cell
def _(b_phase, device_key, kit, lab, mo, model_key, precision, pred_b, saved, unlocked):
    mo.stop(kit.locked(pred_b, unlocked), kit.locked_note("Part B"))
    mo.stop(model_key is None, kit.locked_note("Part B (fix the configuration above first)"))
    mo.stop(device_key is None, kit.locked_note("Part B (fix your device's figures above first)"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_B, pred_b, unlocked, saved),
            b_phase,
            kit.show(lab.part_b(model_key, device_key, precision.value, b_phase.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_c = lab.PRED_C.radio(saved)
    c_prompt = lab.C_PROMPT.widget(saved)
    mo.vstack(
        [
            mo.md("## Part C · Prefill vs decode"),
            kit.message(
                "Dana Brooks",
                "finance partner",
                "We pay for the GPU by the hour and batch conversations to get our money's worth. "
                "Does it matter whether we batch Llama-2 7B or Llama-3 8B?",
            ),
            pred_c,
        ]
    )
    return (c_prompt, pred_c)


@app.cell
def _(c_prompt, device_key, kit, lab, mo, model_key, precision, pred_c, saved, unlocked):
    mo.stop(kit.locked(pred_c, unlocked), kit.locked_note("Part C"))
    mo.stop(model_key is None, kit.locked_note("Part C (fix the configuration above first)"))
    mo.stop(device_key is None, kit.locked_note("Part C (fix your device's figures above first)"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_C, pred_c, unlocked, saved),
            c_prompt,
            kit.show(lab.part_c(model_key, device_key, precision.value, c_prompt.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_d = lab.PRED_D.radio(saved)
    d_batch = lab.D_BATCH.widget(saved)
    mo.vstack(
        [
            mo.md("## Part D · The KV cache and long context"),
            kit.message(
                "Priya Nair",
                "ML platform lead",
                "Product wants Mistral 7B's full 32K context for every user. How does the memory "
                "grow as conversations get longer?",
            ),
            pred_d,
        ]
    )
    return (d_batch, pred_d)


@app.cell
def _(d_batch, device_key, kit, lab, mo, model_key, precision, pred_d, saved, unlocked):
    mo.stop(kit.locked(pred_d, unlocked), kit.locked_note("Part D"))
    mo.stop(model_key is None, kit.locked_note("Part D (fix the configuration above first)"))
    mo.stop(device_key is None, kit.locked_note("Part D (fix your device's figures above first)"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_D, pred_d, unlocked, saved),
            d_batch,
            kit.show(lab.part_d(model_key, device_key, precision.value, d_batch.value)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, lab, mo, saved):
    pred_e = lab.PRED_E.radio(saved)
    e_context = lab.E_CONTEXT.widget(saved)
    mo.vstack(
        [
            mo.md("## Part E · How many users at once?"),
            kit.message(
                "Luis Ortega",
                "inference engineer",
                "Someone proposes swapping Llama-3 8B for the smaller Phi-3 mini so that one GPU "
                "serves more conversations at once. Will it?",
            ),
            pred_e,
        ]
    )
    return (e_context, pred_e)


@app.cell
def _(device_key, e_context, kit, lab, mo, model_key, precision, pred_e, saved, unlocked):
    mo.stop(kit.locked(pred_e, unlocked), kit.locked_note("Part E"))
    mo.stop(model_key is None, kit.locked_note("Part E (fix the configuration above first)"))
    mo.stop(device_key is None, kit.locked_note("Part E (fix your device's figures above first)"))
    mo.vstack(
        [
            kit.verdict(lab.PRED_E, pred_e, unlocked, saved),
            e_context,
            kit.show(lab.part_e(model_key, device_key, precision.value, e_context.value)),
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
    b_phase,
    c_prompt,
    config_text,
    d_batch,
    device,
    device_spec,
    e_context,
    justification,
    kit,
    lab,
    ledger,
    precision,
    pred_a,
    pred_b,
    pred_c,
    pred_d,
    pred_e,
    saved,
    source,
    student,
):
    await kit.record(
        ledger,
        lab,
        widgets=dict(
            source=source,
            config_text=config_text,
            device=device,
            device_spec=device_spec,
            precision=precision,
            pred_a=pred_a,
            pred_b=pred_b,
            b_phase=b_phase,
            pred_c=pred_c,
            c_prompt=c_prompt,
            pred_d=pred_d,
            d_batch=d_batch,
            pred_e=pred_e,
            e_context=e_context,
        ),
        saved=saved,
        student=student,
        justification=justification,
        design={
            "model": source.value,
            "device": device.value,
            "precision": precision.value,
            **lab.device_design(device.value, device_spec.value),
        },
    )
    return


if __name__ == "__main__":
    app.run()

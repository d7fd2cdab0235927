# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2", "pint", "pydantic", "plotly"]
# ///
# The instructor's class view: upload the class's reports, see what the class predicted.
# Runs in the browser too; the reports never leave this machine.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Instructor: class view")


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
    from mlsysim.labs import reports
    from mlsysim.labs.style import LAB_CSS

    return LAB_CSS, kit, mo, reports


@app.cell(hide_code=True)
def _(LAB_CSS, kit, mo):
    mo.vstack(
        [
            LAB_CSS,
            kit.header(
                "Instructor · class view",
                "What did the class predict?",
                "Upload the reports your students downloaded from the labs (the .json or the .md file). "
                "You see completion, each question's first-attempt answers, the most common "
                "misconceptions and first-attempt accuracy per part, and can export a CSV. Nothing is "
                "uploaded anywhere: the files are read in this page.",
                ["first attempts count", "newest report per student", "CSV for grading"],
            ),
        ]
    )
    return


@app.cell
def _(mo):
    files = mo.ui.file(
        filetypes=[".json", ".md"],
        multiple=True,
        kind="area",
        label="Drop the class's reports here (.json or .md, any number)",
    )
    files
    return (files,)


@app.cell
def _(files, kit, mo, reports):
    class_reports, bad_files = [], []
    for _f in files.value:
        try:
            class_reports.append(reports.parse(_f.contents, _f.name))
        except reports.ReportError as _e:
            bad_files.append(str(_e))
    mo.stop(
        not class_reports and not bad_files,
        mo.callout(mo.md("Upload reports to see the class."), kind="neutral"),
    )
    mo.callout(
        kit.plain("Skipped files:\n" + "\n".join(bad_files)), kind="warn"
    ) if bad_files else None
    return (class_reports,)


@app.cell
def _(class_reports, mo, reports):
    mo.stop(not class_reports)
    summary = reports.summarize(class_reports)
    rows = reports.class_rows(class_reports)
    return rows, summary


@app.cell(hide_code=True)
def _(kit, mo, reports, summary):
    mo.vstack(
        [
            mo.md("## Completion"),
            kit.cards(
                [
                    kit.Card(
                        "Reports", f"{summary['reports']:,}", "newest per student and notebook"
                    ),
                    kit.Card(
                        "Completed",
                        f"{sum(c['completed'] for c in summary['completion']):,}",
                        "every part's prediction answered",
                    ),
                    kit.Card("Notebooks", f"{len(summary['completion']):,}"),
                ]
            ),
            mo.Html(
                reports.html_table(summary["completion"], ["notebook", "students", "completed"])
            ),
            mo.callout(
                kit.plain(
                    "Graded from the installed answer keys; what the files claimed that the keys "
                    "contradict, or do not know, is not counted:\n" + "\n".join(summary["flags"])
                ),
                kind="warn",
            )
            if summary["flags"]
            else mo.md(
                "Every verdict recomputed from the installed answer keys: no file disagreed."
            ),
        ]
    )
    return


@app.cell(hide_code=True)
def _(mo, reports, rows):
    mo.vstack(
        [
            mo.md("## Students (first attempts, newest report per student and notebook)"),
            mo.Html(
                reports.html_table(
                    sorted(rows, key=lambda r: (r["predictions_first_correct"], r["student"])),
                    [
                        "student",
                        "notebook",
                        "predictions_answered",
                        "predictions_first_correct",
                        "transfers_answered",
                        "transfers_first_correct",
                        "completed",
                    ],
                )
            ),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, mo, reports, summary):
    mo.vstack(
        [
            mo.md("## First-attempt accuracy per part"),
            kit.chart(reports.accuracy_figure(summary)),
        ]
    )
    return


@app.cell(hide_code=True)
def _(kit, mo, reports, summary):
    mo.vstack(
        [
            mo.md("## Answers to each question (first attempts; the correct option in green)"),
            *[kit.chart(reports.distribution_figure(q)) for q in summary["questions"].values()],
        ]
    )
    return


@app.cell(hide_code=True)
def _(mo, reports, summary):
    mo.vstack(
        [
            mo.md(
                "## Most common misconceptions (wrong first attempts, with the feedback that names them)"
            ),
            mo.Html(
                reports.html_table(
                    summary["misconceptions"][:12],
                    ["notebook", "question", "label", "students", "share", "feedback"],
                )
            ),
        ]
    )
    return


@app.cell(hide_code=True)
def _(class_reports, kit, mo, reports):
    inventory = reports.inventory_summary(class_reports)
    inventory_rows = reports.inventory_rows(class_reports)
    _missing = []
    if inventory["pre_only"]:
        _missing.append(
            f"Pre-test only ({len(inventory['pre_only'])}): " + ", ".join(inventory["pre_only"])
        )
    if inventory["post_only"]:
        _missing.append(
            f"Post-test only ({len(inventory['post_only'])}): " + ", ".join(inventory["post_only"])
        )
    if inventory["unnamed"]:
        _missing.append(f"Unnamed inventory reports (cannot be matched): {inventory['unnamed']}")
    mo.vstack(
        [
            mo.md("## Learning gain (the concept inventory, before vs after the labs)"),
            mo.md(
                "Per concept: the share of students right before and after, and Hake's normalized "
                "gain ⟨g⟩ = (post − pre) / (100% − pre) from the class means, with a 95% bootstrap "
                "interval over students (2,000 resamples, fixed seed). Only students with both "
                "reports count; the rest are listed below, never imputed."
            ),
            mo.Html(
                reports.html_table(
                    reports.inventory_table(inventory),
                    ["concept", "students", "pre correct", "post correct", "gain ⟨g⟩ [95% CI]"],
                )
            ),
            mo.callout(kit.plain("\n".join(_missing)), kind="warn") if _missing else None,
            mo.md("### Misconceptions before and after (wrong answers of matched students)"),
            mo.Html(
                reports.html_table(
                    reports.distractor_table(inventory),
                    ["concept", "misconception", "before", "after", "change", "verdict"],
                )
            ),
            mo.download(
                data=reports.to_csv(inventory_rows).encode("utf-8"),
                filename="inventory.csv",
                mimetype="text/csv",
                label="Download inventory.csv (one row per student)",
            )
            if inventory_rows
            else None,
        ]
    ) if inventory_rows else mo.md(
        "## Learning gain\n\nNo concept-inventory reports among the uploads "
        "(`s06_00_inventory_pre`, `s06_14_inventory_post`)."
    )
    return


@app.cell(hide_code=True)
def _(mo, reports, rows):
    mo.vstack(
        [
            mo.md("## Export"),
            mo.download(
                data=reports.to_csv(rows).encode("utf-8"),
                filename="class.csv",
                mimetype="text/csv",
                label="Download class.csv",
            ),
            mo.md(
                "The same CSV from a terminal: `python -m mlsysim.labs.reports DIR -o class.csv`."
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()

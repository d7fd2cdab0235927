# /// script
# requires-python = ">=3.11"
# dependencies = ["marimo==0.25.2"]
# ///
# The browser test's control page: the smallest marimo notebook with one widget, exported and
# served exactly like the labs (same mirror, same theme). Its time to a live radio is the floor
# a lab's first prediction is measured against.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Control page")


@app.cell
def _():
    import marimo as mo

    return (mo,)


@app.cell
def _(mo):
    mo.Html("<h1>Control page</h1>")
    return


@app.cell
def _(mo):
    choice = mo.ui.radio(["one", "two"], label="Pick one")
    choice  # noqa: B018
    return (choice,)


@app.cell
def _(choice, mo):
    mo.md(f"Picked: {choice.value}")
    return


if __name__ == "__main__":
    app.run()

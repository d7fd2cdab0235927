// node tests/browser/fallback.mjs <mirror's pyodide dir>
// A page's deferred packages loaded on first import the way a browser without JSPI loads them
// (mlsysim.labs.browser: a synchronous request for the wheel the lockfile names, unpacked into
// site-packages). Pyodide runs in Node on the site's own mirror; the synchronous XMLHttpRequest
// a web worker has is stood in for by reading the mirror's files. Prints one JSON line.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = process.argv[2];
const fetched = [];

class XMLHttpRequest {
  open(method, url, async) {
    this.url = String(url);
    this.sync = async === false;
  }
  send() {
    if (!this.sync) throw new Error("only synchronous requests are stood in for");
    const file = this.url.startsWith("file:") ? fileURLToPath(this.url) : this.url;
    try {
      const b = fs.readFileSync(file);
      this.response = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      this.status = 200;
      fetched.push(path.basename(file));
    } catch {
      this.status = 404;
    }
  }
}
globalThis.XMLHttpRequest = XMLHttpRequest;

const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: dir + path.sep });
await py.loadPackage("mlsysim", { messageCallback: () => {} }); // what a page loads first
const out = py.runPython(`
import json, sys
import pyodide.ffi

pyodide.ffi.can_run_sync = lambda: False  # the path of a browser without JSPI
import mlsysim.labs  # installs the import finder (browser.install)
from mlsysim.labs.parts import s06_02_mlps as lab

before = sorted(m for m in ("pint", "pydantic", "plotly") if m in sys.modules)
view = lab.part_a(2048, 2048, "fp32")  # the cost models, then the chart: every deferred package
json.dumps({
    "before": before,
    "after": sorted(m for m in ("pint", "pydantic", "plotly") if m in sys.modules),
    "cards": [c.value for c in view.cards],
    "chart": type(view.figure).__module__,
})
`);
console.log(JSON.stringify({ ...JSON.parse(out), fetched }));

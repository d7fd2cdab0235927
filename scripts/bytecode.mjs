// node scripts/bytecode.mjs <pyodide dir> <bytecode.py> <only.txt|-> <in.whl> <out.whl> [<in.whl> <out.whl> ...]
// Runs scripts/bytecode.py inside Pyodide, so each out.whl carries the bytecode of the Python
// the browser runs (see that file), for every .py file or only those only.txt lists ("-": all);
// an input named python_stdlib.zip gets its pycs the way zipimport reads them. Prints one line per wheel: "<out.whl> <pycs added>".
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dir, script, only, ...pairs] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: dir + path.sep });
const ns = py.runPython("{'__name__': 'bytecode'}"); // not "__main__": no command line here
py.runPython(fs.readFileSync(script, "utf8"), { globals: ns });
const addBytecode = ns.get("add_bytecode_file");
if (only !== "-") py.FS.writeFile("/tmp/only.txt", fs.readFileSync(only));
for (let i = 0; i < pairs.length; i += 2) {
  const src = `/tmp/in-${path.basename(pairs[i])}`; // its name kept: python_stdlib.zip is done its own way
  py.FS.writeFile(src, fs.readFileSync(pairs[i]));
  const n = only === "-" ? addBytecode(src, "/tmp/out.whl") : addBytecode(src, "/tmp/out.whl", "/tmp/only.txt");
  py.FS.unlink(src);
  fs.writeFileSync(pairs[i + 1], py.FS.readFile("/tmp/out.whl"));
  console.log(`${pairs[i + 1]} ${n}`);
}

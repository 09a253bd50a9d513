// Builds the page of `bsp view` into crates/bsp-cli/viewer/ (or the folder given as the first
// argument): viewer.js (src/main.js with three.js, bundled and minified by esbuild, licence
// comments kept at its end), index.html and viewer.css (copied from src/) and three.js's
// LICENSE. The output depends only on the sources and the locked packages, so
// `npm ci && npm run build` reproduces the committed files byte for byte (a test checks).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "crates", "bsp-cli", "viewer"));
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  legalComments: "eof",
  charset: "utf8",
  outfile: join(out, "viewer.js"),
  logLevel: "warning",
});
copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
copyFileSync(join(here, "src", "viewer.css"), join(out, "viewer.css"));
copyFileSync(join(here, "node_modules", "three", "LICENSE"), join(out, "three-LICENSE.txt"));
console.log(`built ${out}`);

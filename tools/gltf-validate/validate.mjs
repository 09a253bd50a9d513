// Validate glTF / GLB files with the Khronos glTF validator (npm `gltf-validator`, which has no
// command line of its own). Prints one JSON line per file:
//   {"file", "errors", "warnings", "infos", "hints", "messages": [{code, severity, pointer, message}]}
// (messages: errors and warnings only). Exit 0 when no file has an error or a warning, 1 when
// one has, 2 on a usage or read failure.
//
//   node validate.mjs out/a.glb out/b.gltf
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate.mjs FILE.glb|FILE.gltf ...');
  process.exit(2);
}
let bad = false;
for (const file of files) {
  let report;
  try {
    const data = new Uint8Array(await readFile(file));
    const dir = path.dirname(file);
    report = await validator.validateBytes(data, {
      uri: path.basename(file),
      maxIssues: 200,
      // External resources (.bin, images) are read beside the file.
      externalResourceFunction: (uri) => readFile(path.join(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
  } catch (e) {
    console.log(JSON.stringify({ file, failure: String(e) }));
    process.exitCode = 2;
    continue;
  }
  const i = report.issues;
  // Severity: 0 error, 1 warning, 2 info, 3 hint.
  const messages = i.messages.filter((m) => m.severity <= 1).map(({ code, severity, pointer, message }) => ({ code, severity, pointer, message }));
  console.log(JSON.stringify({ file, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints, messages }));
  if (i.numErrors > 0 || i.numWarnings > 0) bad = true;
}
if (bad && !process.exitCode) process.exitCode = 1;

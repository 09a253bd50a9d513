// What the headless-Chromium scripts beside this file share: their option parsing, one
// Chromium (Debian's package through playwright-core, WebGL on SwiftShader), the list of maps a
// `bsp view` server serves, reading the canvas back, and the run's exit status.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

// playwright-core is CommonJS: required, not imported. Node's import of it runs its CommonJS
// lexer over the 7 MB of bundles playwright-core loads (for names to export), about 0.7 s of
// CPU in each of the scripts' node processes (1.7 against 1.0 s to load playwright-core,
// docs/setup-test-time.md, session 45).
const { chromium } = createRequire(import.meta.url)("playwright-core");

// Removes `name VALUE` from `args` and returns VALUE (or `dflt` where the option is absent).
export function takeOption(args, name, dflt) {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}

// A fresh profile in a temporary folder; `close()` ends Chromium and removes the profile.
export async function openChromium(exe, [width, height]) {
  const profile = mkdtempSync(join(tmpdir(), "bspkit-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: exe,
    headless: true,
    viewport: { width, height },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // WebGL without a GPU: ANGLE on SwiftShader, the software renderer Chromium ships.
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
    ],
  });
  // Every page gets one function that copies the canvas as drawn (the page keeps its drawing
  // buffer) into RGBA bytes; the scripts' pixel measures run inside the page and call it.
  await context.addInitScript(() => {
    window.bspkitCanvasRgba = () => {
      const src = document.getElementById("canvas");
      const c = document.createElement("canvas");
      c.width = src.width;
      c.height = src.height;
      const g = c.getContext("2d");
      g.drawImage(src, 0, 0);
      return { width: c.width, height: c.height, data: g.getImageData(0, 0, c.width, c.height).data };
    };
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// The maps the server at `url` serves: `[{ index, name, ... }]`.
export async function servedMaps(url) {
  return (await fetch(new URL("api/maps.json", url))).json();
}

// The page's file stem of a map name (`maps/e1m1.bsp` -> `e1m1`), for screenshot names.
export const stemOf = (name) => name.split(/[\\/]/).pop().replace(/\.[^.]*$/, "");

// R + G + B of every pixel of the canvas as drawn, as a Uint16Array. The page packs the values
// into one base64 string: returned as a plain array (each number serialised on its own through
// the DevTools protocol), the 320,640 pixels of the canvas in a 960 × 540 page took about 25 s
// per capture on the shared machine against 0.2 s packed, most of the browser tests' time
// (docs/setup-test-time.md, session 40). Same values either way.
export async function canvasLuma(page) {
  const packed = await page.evaluate(() => {
    const d = window.bspkitCanvasRgba().data;
    const y = new Uint16Array(d.length / 4);
    for (let i = 0, k = 0; i < d.length; i += 4, k++) y[k] = d[i] + d[i + 1] + d[i + 2];
    const bytes = new Uint8Array(y.buffer);
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(s);
  });
  // A copy into a fresh buffer: a Uint16Array needs an even byte offset, which a Buffer's need not have.
  return new Uint16Array(Uint8Array.from(Buffer.from(packed, "base64")).buffer);
}

// The picture once it stops changing: two captures that agree, for at most 50 steps. The page
// draws only at an animation frame after something changed, and after its first frame only two
// things change it on their own (it sets no timers): its images (`texturesReadyMs` once the last
// is drawn) and the PVS document (`vis`). So: wait for both, then let two of the page's
// animation frames pass before each capture (a redraw still due is drawn by then). This replaced
// a fixed 200-300 ms sleep between captures, at least 28 of them over the four browser tests
// (docs/setup-test-time.md, session 41).
export async function settledLuma(page) {
  await page.waitForFunction(
    () => window.bspview.state === "error" || (window.bspview.texturesReadyMs !== null && window.bspview.vis != null),
    null,
    { timeout: 300000, polling: 50 },
  );
  const twoFrames = () => page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await twoFrames();
  let a = await canvasLuma(page);
  for (let i = 0; i < 50; i++) {
    await twoFrames();
    const b = await canvasLuma(page);
    if (a.every((v, k) => v === b[k])) return b;
    a = b;
  }
  return a;
}

// Runs `body`, then closes Chromium whatever happened, and exits 1 where `body` threw.
export async function runThenExit(label, chromiumSession, body) {
  let failed = false;
  try {
    await body();
  } catch (e) {
    console.error(`${label}: ${e.stack || e}`);
    failed = true;
  } finally {
    await chromiumSession.close();
  }
  process.exit(failed ? 1 : 0);
}

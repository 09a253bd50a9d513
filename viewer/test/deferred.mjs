// Images must not hold up the first frame of `bsp view` (issue 25). For every map a running
// server serves, in headless Chromium (SwiftShader, as test/browser.mjs):
//   1. with createImageBitmap held (every image decode waits until released): wait for the
//      first frame, capture the canvas and the page's image counts;
//   2. release the decodes, wait until the page says every image is drawn, capture again;
//   3. load the page again without holding anything and capture the finished picture.
// One JSON line per map: whether a first frame came while the images were held, the counts (of
// the page's images, and of decodes held: at the first frame and in all), how
// many pixels changed when the images came in and how many differ from the unheld load.
//
//   node test/deferred.mjs URL OUT_DIR [--chromium /usr/bin/chromium] [--hold-timeout S]
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const exe = opt("--chromium", "/usr/bin/chromium");
const holdTimeout = Number(opt("--hold-timeout", "60")) * 1000;
const [url, out] = args;
if (!url || !out) {
  console.error("usage: node test/deferred.mjs URL OUT_DIR [--chromium PATH] [--hold-timeout S]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "bspkit-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: exe,
  headless: true,
  viewport: { width: 640, height: 360 },
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});

// R + G + B of every pixel of the canvas as drawn (the page keeps its drawing buffer).
const luma = (page) =>
  page.evaluate(() => {
    const src = document.getElementById("canvas");
    const c = document.createElement("canvas");
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext("2d");
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const y = [];
    for (let i = 0; i < d.length; i += 4) y.push(d[i] + d[i + 1] + d[i + 2]);
    return y;
  });
// The picture once it stops changing: two captures 300 ms apart that agree (at most 15 s).
async function settled(page) {
  let a = await luma(page);
  for (let i = 0; i < 50; i++) {
    await page.waitForTimeout(300);
    const b = await luma(page);
    if (a.every((v, k) => v === b[k])) return b;
    a = b;
  }
  return a;
}
const ready = () => window.bspview && (window.bspview.state === "error" || window.bspview.texturesReadyMs !== null);

let failed = false;
try {
  const maps = await (await fetch(new URL("api/maps.json", url))).json();
  for (const m of maps) {
    const stem = m.name.split(/[\\/]/).pop().replace(/\.[^.]*$/, "");
    const held = await context.newPage();
    // Every image decode (GLTFLoader's ImageBitmapLoader calls createImageBitmap) waits for
    // window.releaseImages(); window.heldImages counts the decodes asked for meanwhile.
    await held.addInitScript(() => {
      const real = window.createImageBitmap.bind(window);
      let release;
      const gate = new Promise((ok) => (release = ok));
      window.heldImages = 0;
      window.releaseImages = () => release();
      window.createImageBitmap = (...a) => {
        window.heldImages++;
        return gate.then(() => real(...a));
      };
    });
    await held.goto(`${url}#map=${m.index}`);
    let firstFrameWhileHeld = true;
    await held
      .waitForFunction(() => window.bspview && (window.bspview.state === "error" || window.bspview.firstFrameMs !== null), null, {
        timeout: holdTimeout,
        polling: 50,
      })
      .catch(() => (firstFrameWhileHeld = false));
    const atFirst = await held.evaluate(() => ({ status: { ...window.bspview, images: { ...window.bspview.images } }, heldImages: window.heldImages }));
    let changedPixels = null, sameAsUnheld = null, texturesReadyMs = null, imagesAfter = null, heldInAll = null;
    if (firstFrameWhileHeld) {
      const first = await luma(held);
      await held.screenshot({ path: join(out, `${stem}-first-frame.png`) });
      await held.evaluate(() => window.releaseImages());
      await held.waitForFunction(ready, null, { timeout: 300000, polling: 50 });
      const done = await settled(held);
      await held.screenshot({ path: join(out, `${stem}-textured.png`) });
      ({ texturesReadyMs, images: imagesAfter } = await held.evaluate(() => ({ ...window.bspview })));
      heldInAll = await held.evaluate(() => window.heldImages);
      changedPixels = first.filter((v, k) => v !== done[k]).length / first.length;
      const plain = await context.newPage();
      await plain.goto(`${url}#map=${m.index}`);
      await plain.waitForFunction(ready, null, { timeout: 300000, polling: 50 });
      const whole = await settled(plain);
      sameAsUnheld = done.filter((v, k) => v === whole[k]).length / done.length;
      await plain.close();
    } else {
      await held.evaluate(() => window.releaseImages());
    }
    console.log(
      JSON.stringify({
        index: m.index,
        name: m.name,
        firstFrameWhileHeld,
        state: atFirst.status.state,
        heldImages: atFirst.heldImages,
        heldInAll,
        imagesAtFirstFrame: atFirst.status.images,
        texturesReadyMs,
        firstFrameMs: atFirst.status.firstFrameMs,
        imagesAfter,
        changedPixels,
        sameAsUnheld,
      }),
    );
    await held.close();
  }
} catch (e) {
  console.error(`deferred: ${e.stack || e}`);
  failed = true;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

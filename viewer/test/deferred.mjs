// Images must not hold up the first frame of `bsp view` (issue 25). For every map a running
// server serves, in headless Chromium (SwiftShader, as test/browser.mjs):
//   1. with createImageBitmap held (every image decode waits until released): wait for the
//      first frame, capture the canvas and the page's image counts;
//   2. release the decodes, wait until the page says every image is drawn, capture again;
//   3. load the page again without holding anything and capture the finished picture.
// One JSON line per map: whether a first frame came while the images were held, the counts (of
// the page's images, and of decodes held: at the first frame and in all), how
// many pixels changed when the images came in and how many differ from the unheld load, and for
// both loads how many of the decoded images were given to WebGL (`uploads`: what the finished
// page shows; a page that drops its decoded images draws the same with and without holding).
//
//   node test/deferred.mjs URL OUT_DIR [--chromium /usr/bin/chromium] [--hold-timeout S]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { canvasLuma, openChromium, runThenExit, servedMaps, settledLuma, stemOf, takeOption } from "./harness.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => takeOption(args, name, dflt);
const exe = opt("--chromium", "/usr/bin/chromium");
const holdTimeout = Number(opt("--hold-timeout", "60")) * 1000;
const [url, out] = args;
if (!url || !out) {
  console.error("usage: node test/deferred.mjs URL OUT_DIR [--chromium PATH] [--hold-timeout S]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const session = await openChromium(exe, [640, 360]);
const { context } = session;

const luma = canvasLuma;
// The picture once it stops changing (harness.mjs: two captures that agree, with the images and
// the PVS document in).
const settled = (page) => settledLuma(page);
const ready = () => window.bspview && (window.bspview.state === "error" || window.bspview.texturesReadyMs !== null);

// Every image the page decodes (createImageBitmap's results) and which of them reach WebGL as a
// texture's pixels (texImage2D / texSubImage2D with the bitmap as source): recorded below the
// page, so the count does not rely on the page's own bookkeeping of its images.
const recordUploads = () => {
  const decode = window.createImageBitmap.bind(window);
  const decoded = [];
  const uploaded = new WeakSet();
  window.createImageBitmap = (...a) =>
    decode(...a).then((b) => {
      decoded.push(b);
      return b;
    });
  for (const proto of [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype]) {
    for (const f of ["texImage2D", "texSubImage2D"]) {
      const real = proto[f];
      proto[f] = function (...a) {
        for (const x of a) if (x instanceof ImageBitmap) uploaded.add(x);
        return real.apply(this, a);
      };
    }
  }
  window.bspkitUploads = () => ({ decoded: decoded.length, uploaded: decoded.filter((b) => uploaded.has(b)).length });
};

await runThenExit("deferred", session, async () => {
  const maps = await servedMaps(url);
  for (const m of maps) {
    const stem = stemOf(m.name);
    const held = await context.newPage();
    // Before the hold below, so the held decodes go through it when released.
    await held.addInitScript(recordUploads);
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
    let uploads = null, unheldUploads = null;
    if (firstFrameWhileHeld) {
      const first = await luma(held);
      await held.screenshot({ path: join(out, `${stem}-first-frame.png`) });
      await held.evaluate(() => window.releaseImages());
      await held.waitForFunction(ready, null, { timeout: 300000, polling: 50 });
      const done = await settled(held);
      await held.screenshot({ path: join(out, `${stem}-textured.png`) });
      ({ texturesReadyMs, images: imagesAfter } = await held.evaluate(() => ({ ...window.bspview })));
      heldInAll = await held.evaluate(() => window.heldImages);
      uploads = await held.evaluate(() => window.bspkitUploads());
      changedPixels = first.filter((v, k) => v !== done[k]).length / first.length;
      const plain = await context.newPage();
      await plain.addInitScript(recordUploads);
      await plain.goto(`${url}#map=${m.index}`);
      await plain.waitForFunction(ready, null, { timeout: 300000, polling: 50 });
      const whole = await settled(plain);
      sameAsUnheld = done.filter((v, k) => v === whole[k]).length / done.length;
      unheldUploads = await plain.evaluate(() => window.bspkitUploads());
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
        uploads,
        unheldUploads,
      }),
    );
    await held.close();
  }
});

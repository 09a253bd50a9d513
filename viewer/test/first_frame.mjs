// First-frame timing of `bsp view` in headless Chromium (SwiftShader, as test/browser.mjs): for
// every map a running server serves, load the page RUNS times in a fresh tab and print one JSON
// line per load with the page's own timestamps (window.bspview: firstFrameMs and texturesReadyMs
// after the page's script started, the per-step timings after the map's load started) and the
// machine's load average when the load ended.
//
//   node test/first_frame.mjs URL [--runs 5] [--map N] [--chromium /usr/bin/chromium] [--size 960x540]
import { loadavg } from "node:os";
import { openChromium, runThenExit, servedMaps, takeOption } from "./harness.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => takeOption(args, name, dflt);
const runs = Number(opt("--runs", "5"));
const only = opt("--map", null);
const exe = opt("--chromium", "/usr/bin/chromium");
const size = opt("--size", "960x540").split("x").map(Number);
const [url] = args;
if (!url) {
  console.error("usage: node test/first_frame.mjs URL [--runs N] [--map N] [--chromium PATH] [--size WxH]");
  process.exit(2);
}
const session = await openChromium(exe, size);
const { context } = session;
await runThenExit("first_frame", session, async () => {
  const maps = await servedMaps(url);
  for (const m of maps) {
    if (only !== null && String(m.index) !== only) continue;
    for (let run = 0; run < runs; run++) {
      const page = await context.newPage();
      await page.goto(`${url}#map=${m.index}`);
      await page.waitForFunction(() => window.bspview && (window.bspview.state === "error" || window.bspview.firstFrameMs !== null), null, {
        timeout: 300000,
        polling: 20,
      });
      // Textures: the page says when the last image is on the GPU (older pages had no such
      // report: their first frame already had every image).
      await page
        .waitForFunction(() => window.bspview.state === "error" || window.bspview.texturesReadyMs !== null, null, { timeout: 300000, polling: 20 })
        .catch(() => null);
      const s = await page.evaluate(() => ({ ...window.bspview }));
      console.log(
        JSON.stringify({
          map: m.name,
          run,
          state: s.state,
          firstFrameMs: s.firstFrameMs,
          texturesReadyMs: s.texturesReadyMs ?? null,
          images: s.images ?? null,
          timings: s.timings,
          loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
        }),
      );
      await page.close();
    }
  }
});

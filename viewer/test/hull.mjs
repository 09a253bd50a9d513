// The walls of a box sealing a map (surface kind `hull`, issue 25) in `bsp view`. For every map
// a running server serves, in headless Chromium (SwiftShader, as test/browser.mjs): load the page,
// wait until every image is drawn, capture the first view; switch the `hull` toggle on, capture
// again; switch it off, capture once more. One JSON line per map: the page's count of `hull`
// meshes and how many are shown at each step, the share of the picture covered (not background)
// at each step, and the share of pixels that changed when the walls came in and when they went.
//
//   node test/hull.mjs URL OUT_DIR [--chromium /usr/bin/chromium] [--viewport 640x413]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openChromium, runThenExit, servedMaps, settledLuma, stemOf, takeOption } from "./harness.mjs";

const args = process.argv.slice(2);
const exe = takeOption(args, "--chromium", "/usr/bin/chromium");
// 640 × 413: a 320 × 374 canvas beside the 320 px panel, the aspect of the 480 × 561 canvas of
// the 800 × 600 page used before (the same shares of covered and changed pixels), 56 % fewer
// pixels (docs/setup-test-time.md, session 43). Since session 44 the toolbar wraps to two lines
// here: a 320 × 345 canvas.
const viewport = takeOption(args, "--viewport", "640x413").split("x").map(Number);
const [url, out] = args;
if (!url || !out) {
  console.error("usage: node test/hull.mjs URL OUT_DIR [--chromium PATH] [--viewport WxH]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const session = await openChromium(exe, viewport);
const ready = () => window.bspview && (window.bspview.state === "error" || window.bspview.texturesReadyMs !== null);
// The picture once it stops changing (harness.mjs: two captures that agree).
const settled = (page) => settledLuma(page);
const differ = (a, b) => a.filter((v, k) => v !== b[k]).length / a.length;

await runThenExit("hull", session, async () => {
  for (const m of await servedMaps(url)) {
    const stem = stemOf(m.name);
    const page = await session.context.newPage();
    await page.goto(`${url}#map=${m.index}`);
    await page.waitForFunction(ready, null, { timeout: 300000, polling: 50 });
    const state = await page.evaluate(() => window.bspview.state);
    const bg = (await page.evaluate(() => window.bspview.background)).reduce((a, b) => a + b, 0);
    const covered = (y) => y.filter((v) => Math.abs(v - bg) > 3).length / y.length;
    const hull = () => page.evaluate(() => (window.bspview.kinds || {}).hull || { meshes: 0, shown: 0 });
    const toggle = page.locator("#kind-hull");
    const steps = [];
    const capture = async (name) => {
      const y = await settled(page);
      await page.screenshot({ path: join(out, `${stem}-${name}.png`) });
      steps.push({ name, hull: await hull(), checked: await toggle.isChecked(), covered: covered(y) });
      return y;
    };
    const first = await capture("first-view");
    await toggle.check();
    const shown = await capture("hull-shown");
    await toggle.uncheck();
    const hidden = await capture("hull-hidden-again");
    console.log(
      JSON.stringify({
        index: m.index,
        name: m.name,
        state,
        steps,
        changedWhenShown: differ(first, shown),
        changedWhenHiddenAgain: differ(shown, hidden),
        sameAsFirst: 1 - differ(first, hidden),
      }),
    );
    await page.close();
  }
});

// Drives headless Chromium (Debian's package, through playwright-core) over a running
// `bsp view` server: for every map it serves, load the page, wait for the first frame, measure
// the canvas (mean and variance of its pixels: a blank canvas has none), read the entity
// panel's count and save a screenshot. One JSON line per map on stdout.
//
//   node test/browser.mjs URL OUT_DIR [--size 720x352] [--chromium /usr/bin/chromium]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { canvasLuma, openChromium, runThenExit, servedMaps, settledLuma, stemOf, takeOption } from "./harness.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => takeOption(args, name, dflt);
// 720 × 352: the side panel keeps its 320 px, so the canvas is 400 × 313, the aspect of the
// 640 × 501 canvas of the 960 × 540 page this used before: the same framing, so each map's
// coverage share moved by at most 0.3 points, with 61 % fewer pixels for SwiftShader to draw
// (docs/setup-test-time.md, session 43). Since session 44 the toolbar wraps to two lines at this
// width and the canvas is 400 × 284 (the page sizes it again once the map list shows).
const size = opt("--size", "720x352").split("x").map(Number);
const exe = opt("--chromium", "/usr/bin/chromium");
const timeout = Number(opt("--timeout", "120")) * 1000;
const [url, out] = args;
if (!url || !out) {
  console.error("usage: node test/browser.mjs URL OUT_DIR [--size WxH] [--chromium PATH] [--timeout S]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const session = await openChromium(exe, size);
const { context } = session;
// The page may only talk to the server it came from.
const origin = new URL(url).origin;
const foreign = [];
context.on("request", (r) => {
  const u = r.url();
  if (!u.startsWith(origin) && !u.startsWith("blob:") && !u.startsWith("data:")) foreign.push(u);
});

// The toolbar's controls (buttons, the map list) at the page's present size: each one's box, and
// whether the control itself is what shows at its four corners and its centre (one pushed past the
// window's edge or under the side panel is not); the width the map list's shown name needs; the
// toolbar's box. A control cut off at a narrow width fails here.
const toolbar = (page) =>
  page.evaluate(() => {
    const header = document.querySelector("header").getBoundingClientRect();
    const controls = [...document.querySelectorAll("header button, header select")].filter((e) => !e.hidden).map((e) => {
      const r = e.getBoundingClientRect();
      // 4 px in from each corner: inside the buttons' 3 px rounded corners.
      const [l, t, rr, b] = [r.left + 4, r.top + 4, r.right - 4, r.bottom - 4];
      const hits = [[l, t], [rr, t], [l, b], [rr, b], [(l + rr) / 2, (t + b) / 2]].map(([x, y]) => document.elementFromPoint(x, y));
      const over = hits.filter((h) => h === null || !(h === e || e.contains(h))).map((h) => (h ? `${h.tagName}#${h.id}` : "outside"));
      return { id: e.id, box: [r.left, r.top, r.right, r.bottom], onTop: over.length === 0, over };
    });
    const maps = document.getElementById("maps");
    let mapsNeeds = null;
    if (!maps.hidden) {
      // A copy holding only the shown name, without the width limit: the width that name needs.
      // (Not the longest name's: at 600 px a 45-letter name in the list cannot fit beside the
      // side panel; the open list shows every name whole.)
      const free = maps.cloneNode(false);
      free.removeAttribute("id");
      free.add(new Option(maps.selectedOptions[0].text));
      free.style.cssText = "position: absolute; visibility: hidden; max-width: none";
      document.body.appendChild(free);
      mapsNeeds = free.getBoundingClientRect().width;
      free.remove();
    }
    return { viewport: [innerWidth, innerHeight], header: [header.left, header.top, header.right, header.bottom], controls, mapsNeeds };
  });

await runThenExit("browser test", session, async () => {
  const maps = await servedMaps(url);
  for (const m of maps) {
    const page = await context.newPage();
    const logs = [];
    page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") logs.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
    const started = Date.now();
    await page.goto(`${url}#map=${m.index}`);
    await page.waitForFunction(
      () => window.bspview && (window.bspview.state === "error" || window.bspview.firstFrameMs !== null),
      null,
      { timeout, polling: 50 },
    );
    const wallMs = Date.now() - started;
    // Images come in after the first frame: what follows looks at the finished picture.
    await page.waitForFunction(() => window.bspview.state === "error" || window.bspview.texturesReadyMs !== null, null, { timeout, polling: 50 });
    const status = await page.evaluate(() => ({ ...window.bspview }));
    // The canvas as drawn (the page keeps its drawing buffer): mean and variance of its pixels.
    const pixels = await page.evaluate(() => {
      const { width, height, data: d } = window.bspkitCanvasRgba();
      let n = 0, sum = 0, sq = 0, dark = 0;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4) {
        const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
        // Black (a map drawn with black placeholder lightmaps): every channel at most 8.
        if (d[i] <= 8 && d[i + 1] <= 8 && d[i + 2] <= 8) dark++;
        sum += y;
        sq += y * y;
        n++;
        if (i % 64 === 0) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      }
      const mean = sum / n;
      return { width, height, mean, variance: sq / n - mean * mean, colours: colours.size, dark: dark / n };
    });
    const luma = () => canvasLuma(page);
    // Coverage of the initial camera's picture: the share of pixels not the background, with
    // the entity markers and target links hidden (only the map's surfaces count), as
    // `bsp render` measures its frames.
    let coverage = null;
    if (status.state === "ready") {
      const before = await page.evaluate(() => window.bspview.frames);
      await page.setChecked("#look-markers", false);
      await page.setChecked("#look-links", false);
      await page.waitForFunction((n) => window.bspview.frames > n, before, { timeout, polling: 50 });
      coverage = await page.evaluate(() => {
        const d = window.bspkitCanvasRgba().data;
        const bg = window.bspview.background;
        let covered = 0;
        for (let i = 0; i < d.length; i += 4) {
          if (Math.abs(d[i] - bg[0]) > 2 || Math.abs(d[i + 1] - bg[1]) > 2 || Math.abs(d[i + 2] - bg[2]) > 2) covered++;
        }
        return covered / (d.length / 4);
      });
      coverage = { share: coverage, bounds: await page.evaluate(() => window.bspviewBounds()) };
      const again = await page.evaluate(() => window.bspview.frames);
      await page.setChecked("#look-markers", true);
      await page.setChecked("#look-links", true);
      await page.waitForFunction((n) => window.bspview.frames > n, again, { timeout, polling: 50 });
    }
    const frame = async (act) => {
      const before = await page.evaluate(() => window.bspview.frames);
      await act();
      await page.waitForFunction((n) => window.bspview.frames > n, before, { timeout, polling: 50 });
    };
    // The picture once it stops changing: images still arriving after the first frame, or a
    // frame drawn between two of the switches, must not count (on a loaded machine both
    // happen).
    const settled = () => settledLuma(page);
    // Light styles: every style but the lowest switched off must change the picture where
    // their faces show (the luma of every pixel compared), and switching them on again restores it.
    let styleChangedPixels = null, styleRestored = null;
    if ((status.styles || []).length > 1) {
      const on = await settled();
      const others = status.styles.slice(1);
      await frame(async () => {
        for (const st of others) await page.setChecked(`#style-${st}`, false);
      });
      const off = await settled();
      await frame(async () => {
        for (const st of others) await page.setChecked(`#style-${st}`, true);
      });
      const back = await settled();
      styleChangedPixels = on.filter((v, k) => v !== off[k]).length;
      styleRestored = on.every((v, k) => v === back[k]);
    }
    // Bump layers (Source bump-mapped faces): bump 1 instead of the flat lightmap changes the
    // picture where those faces show; flat again restores it.
    let bumpChangedPixels = null, bumpRestored = null;
    if (status.bumpMaterials > 0) {
      const flat = await settled();
      await frame(() => page.selectOption("#layer", "1"));
      const bump = await settled();
      await frame(() => page.selectOption("#layer", "0"));
      const back = await settled();
      bumpChangedPixels = flat.filter((v, k) => v !== bump[k]).length;
      bumpRestored = flat.every((v, k) => v === back[k]);
    }
    const entityText = await page.textContent("#entity-count");
    const errorText = (await page.isVisible("#error")) ? await page.textContent("#error") : null;
    const stem = stemOf(m.name);
    const shot = join(out, `${stem}.png`);
    await page.screenshot({ path: shot });
    // The entity search, and a jump to the first spawn point (a second screenshot, from there).
    await page.fill("#search", "info_player");
    const searchText = await page.textContent("#match-count");
    await page.fill("#search", "");
    let spawnShot = null;
    let pvs = null;
    const spawns = await page.$$("#spawns li");
    if (spawns.length) {
      await page.click('#tabs button[data-pane="spawns"]');
      const before = await page.evaluate(() => window.bspview.frames);
      await page.click("#spawns li");
      await page.waitForFunction((n) => window.bspview.frames > n, before, { timeout, polling: 50 });
      await page.mouse.move(0, 0);
      spawnShot = join(out, `${stem}-spawn.png`);
      await page.screenshot({ path: spawnShot });
      // PVS culling at the spawn point: the picture with it equals the picture without it.
      await page.waitForFunction(() => window.bspview.vis !== null && window.bspview.vis !== undefined, null, { timeout, polling: 50 });
      const v = await page.evaluate(() => ({ ...window.bspview.vis }));
      if (v.available) {
        const culled = await canvasLuma(page);
        const before = await page.evaluate(() => window.bspview.frames);
        await page.setChecked("#look-pvs", false);
        await page.waitForFunction((n) => window.bspview.frames > n, before, { timeout, polling: 50 });
        const whole = await canvasLuma(page);
        const after = await page.evaluate(() => ({ ...window.bspview.vis }));
        await page.setChecked("#look-pvs", true);
        v.wholeDrawn = after.drawn;
        v.samePixels = culled.filter((x, k) => x === whole[k]).length / culled.length;
        // A spawn point often sees the whole of a small map: also stand at the point of a grid
        // over the map's bounds (6 × 6 × 3) where the PVS draws the fewest world triangles,
        // and compare its picture with and without culling there.
        const best = await page.evaluate(() => {
          const b = window.bspviewBounds();
          let best = null;
          for (let i = 1; i <= 6; i++)
            for (let j = 1; j <= 6; j++)
              for (let k = 1; k <= 3; k++) {
                const p = [0, 1, 2].map((a, n) => b.min[a] + ((b.max[a] - b.min[a]) * [i, j, k][n]) / (n < 2 ? 7 : 4));
                const d = window.bspviewStandAt(p);
                if (d !== null && (!best || d < best.drawn)) best = { p, drawn: d };
              }
          return best;
        });
        if (best) {
          // One capture after each drawn frame, as at the spawn point (images have arrived by now).
          await frame(() => page.evaluate((p) => window.bspviewStandAt(p), best.p));
          const c = await luma();
          await frame(() => page.setChecked("#look-pvs", false));
          const w = await luma();
          await frame(() => page.setChecked("#look-pvs", true));
          v.probe = { at: best.p, drawn: best.drawn, samePixels: c.filter((x, k) => x === w[k]).length / c.length };
        }
      }
      pvs = v;
    }
    // The toolbar at the test's size; on the first map also at 600 px and 1280 px wide (a small
    // and a wide window), last (the page is closed next). The wide one only 240 px high: the
    // toolbar does not depend on the height, and the page redraws its canvas at each size.
    const toolbars = [await toolbar(page)];
    if (m === maps[0]) {
      for (const [width, height] of [[600, size[1]], [1280, 240]]) {
        await page.setViewportSize({ width, height });
        toolbars.push(await toolbar(page));
      }
    }
    console.log(
      JSON.stringify({ index: m.index, name: m.name, wallMs, ...status, pixels, coverage, styleChangedPixels, styleRestored, bumpChangedPixels, bumpRestored, pvs, toolbars, entityText, errorText, searchText, spawns: spawns.length, screenshot: shot, spawnShot, logs }),
    );
    await page.close();
  }
  if (foreign.length) throw new Error(`requests outside the server: ${foreign.join(", ")}`);
});

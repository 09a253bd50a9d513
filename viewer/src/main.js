// The page of `bsp view`: loads a map's GLB and JSON documents from the server that served it
// (every URL is relative to the page, which sits under the server's token) and shows them with
// three.js. No other origin is contacted.
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

const $ = (id) => document.getElementById(id);
const t0 = performance.now();
// The requests for the map the page opens on go out first, before the WebGL context is made
// (under SwiftShader its start-up is a good part of the time to the first frame): the list, and
// the map the URL names (or the first). loadMap takes them if it loads that map; a map number
// the list does not have leaves them unused.
const DOCS = ["summary", "entities", "info", "check", "vis"];
function requests(i) {
  const dir = `api/map/${i}/`;
  return { glb: fetch(dir + "map.glb"), ...Object.fromEntries(DOCS.map((d) => [d, fetch(dir + d + ".json")])) };
}
const hashMap = () => {
  const n = Number(new URLSearchParams(location.hash.slice(1)).get("map") || 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};
let early = { index: hashMap(), maps: fetch("api/maps.json") };
early.docs = requests(early.index);
// What the browser tests read (state, first-frame time); nothing else depends on it.
const status = { state: "loading", map: -1, frames: 0, firstFrameMs: null, texturesReadyMs: null, loadMs: null, error: null, triangles: 0, kinds: {} };
window.bspview = status;

const renderer = new THREE.WebGLRenderer({ canvas: $("canvas"), antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
const scene = new THREE.Scene();
scene.background = new THREE.Color().setRGB(0.16, 0.18, 0.21, THREE.LinearSRGBColorSpace);
// The background's bytes as drawn (the browser tests measure coverage against it).
status.background = scene.background.toArray().map((v) => Math.round(v * 255));
// Vertical field of view standing in the map (spawn points); the orbit frame takes its own.
const FLY_FOV = 70;
const camera = new THREE.PerspectiveCamera(FLY_FOV, 1, 0.01, 10000);
camera.rotation.order = "YXZ";
const orbit = new OrbitControls(camera, renderer.domElement);
orbit.addEventListener("change", () => redraw());

// The page draws at an animation frame only after something changed (`redraw`), and asks for
// animation frames only then and while a fly key is held: a map left on screen costs no CPU
// (a loop asking for every frame woke the page and the compositor 60 times a second for nothing).
let dirty = true;
let frameAsked = false;
function askFrame() {
  if (!frameAsked) {
    frameAsked = true;
    requestAnimationFrame(tick);
  }
}
function redraw() {
  dirty = true;
  askFrame();
}
let mode = "orbit";
let root = null; // the map's glTF scene
let markers = null; // entity points
let links = null; // target -> targetname lines
let selection = null; // a box around the selected entity
let current = null; // {summary, entities, info, check, positions, scale}
const keys = new Set();
let maps = [];

// Surface kinds (the export's material extras.surface_flags) and whether they show. `hull`: the
// walls of a box sealing the whole map (bspkit's mesh::hull, as `bsp render` cuts them), whose
// outside would hide the level.
const KINDS = { sky: false, nodraw: false, trigger: false, clip: false, tool: false, hull: false, water: true, translucent: true, alphatest: true };
const KIND_TITLES = { hull: "walls of a box sealing the whole map (cut away, as bsp render does)" };
// A missing texture is the export's checker (extras.placeholder_texture): drawn plain unless asked.
// `layer`: the lightmap layer drawn on Source bump-mapped faces (0 flat, 1–3 the bump basis
// directions: the export's extras.lightmap images of the base style with layer > 0).
const look = { textures: true, checkers: false, lighting: true, bright: 2.0, links: true, markers: true, pvs: true, layer: 0 };

// Textures and lightmaps are multiplied in gamma space, as the engines do: the images are read
// as stored (no sRGB decoding) and the result is written as is.
const vertexShader = `
  #ifndef USE_UV1
  attribute vec2 uv1;
  #endif
  varying vec2 vUv; varying vec2 vUv1; varying vec3 vColor; varying vec3 vNormal;
  void main() {
    vUv = uv; vUv1 = uv1;
    vNormal = normalize(mat3(modelMatrix) * normal);
    #if defined(USE_COLOR_ALPHA)
    vColor = color.rgb;
    #elif defined(USE_COLOR)
    vColor = color;
    #else
    vColor = vec3(1.0);
    #endif
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  }`;
// The light of a lit surface: its page's base image (the occlusion texture, light style
// `extras.lightmap.style`) plus the page's other styles' images (`extras.lightmap.images`, layer
// 0; bspkit::export::LIGHTMAP_EXTRAS), each times its style's gain — engines add styles so.
// One program per number of extra styles.
const MAX_STYLES = 8;
function fragmentShader(n) {
  let maps = "";
  let sum = "";
  for (let k = 0; k < n; k++) {
    maps += `uniform sampler2D styleMap${k};\n`;
    sum += `      light += texture2D(styleMap${k}, vUv1).rgb * gains[${k + 1}];\n`;
  }
  return `
  uniform sampler2D map; uniform sampler2D lightMap;
  uniform float hasMap; uniform float hasLight; uniform float useTex; uniform float useLight;
  uniform float bright; uniform float alphaCut; uniform vec3 tint; uniform float vertexLit;
  uniform float gains[${n + 1}];
  ${maps}
  varying vec2 vUv; varying vec2 vUv1; varying vec3 vColor; varying vec3 vNormal;
  void main() {
    vec4 c = vec4(tint, 1.0);
    if (hasMap > 0.5) { vec4 t = texture2D(map, vUv); c.a = t.a; if (useTex > 0.5) c.rgb *= t.rgb; }
    if (alphaCut > 0.0 && c.a < alphaCut) discard;
    if (useLight > 0.5) {
      if (hasLight > 0.5) {
        vec3 light = texture2D(lightMap, vUv1).rgb * gains[0];
${sum}        c.rgb *= light * bright;
      }
      else if (vertexLit > 0.5) c.rgb *= vColor * (0.5 * bright);
    }
    // Without a lightmap, a light from above and the side shows the shape.
    if (hasLight < 0.5 || useLight < 0.5) c.rgb *= 0.6 + 0.4 * max(dot(normalize(vNormal), normalize(vec3(0.35, 0.8, 0.5))), 0.0);
    gl_FragColor = vec4(min(c.rgb, vec3(1.0)), c.a);
  }`;
}

// Images do not hold up the first frame (issue 25: decoding a map's PNGs was the largest share
// of the time to it). The GLTFLoader plugin below hands every glTF texture out at once as a 1×1
// stand-in with the texture's sampler, and the loader's own decodes (createImageBitmap, off the
// main thread) start once the first frame is drawn: on a machine with few cores they would
// otherwise take CPU from the parse and the first draw. Until a texture's image is in, the surfaces using it are drawn
// without it: grey for a missing colour texture, shaded from the normals for missing light, as
// with those switches off. Each decoded image's source then replaces the stand-in's in every
// texture object of the map (the loader's clones share the stand-in's source), so the final
// picture is the one drawn when everything was decoded first.
const pendingSources = new WeakSet(); // stand-ins still waiting for their image
const failedSources = new WeakSet(); // stand-ins whose image did not decode (drawn as absent)
let swaps = []; // [{from, to}]: decoded sources not yet put in place
let decodes = []; // decodes to start after the first frame
let loadGen = 0; // which load an image belongs to (a map switched away from drops its late images)
const STANDIN = new ImageData(new Uint8ClampedArray([255, 255, 255, 255]), 1, 1);
// The glTF sampler constants (glTF 2.0, 3.8.4 "Samplers") as three.js's.
const FILTERS = { 9728: THREE.NearestFilter, 9729: THREE.LinearFilter, 9984: THREE.NearestMipmapNearestFilter, 9985: THREE.LinearMipmapNearestFilter, 9986: THREE.NearestMipmapLinearFilter, 9987: THREE.LinearMipmapLinearFilter };
const WRAPS = { 33071: THREE.ClampToEdgeWrapping, 33648: THREE.MirroredRepeatWrapping, 10497: THREE.RepeatWrapping };

function deferredImages(parser, images, gen) {
  return {
    name: "bspkit_deferred_images",
    loadTexture(index) {
      const def = (parser.json.textures || [])[index];
      // Textures in an image extension (KTX2, WebP, …: not what bspkit writes) load as usual.
      if (!def || def.source === undefined || def.extensions) return null;
      const sampler = (parser.json.samplers || [])[def.sampler] || {};
      const t = new THREE.Texture(STANDIN);
      t.flipY = false;
      t.magFilter = FILTERS[sampler.magFilter] || THREE.LinearFilter;
      t.minFilter = FILTERS[sampler.minFilter] || THREE.LinearMipmapLinearFilter;
      t.wrapS = WRAPS[sampler.wrapS] || THREE.RepeatWrapping;
      t.wrapT = WRAPS[sampler.wrapT] || THREE.RepeatWrapping;
      t.generateMipmaps = t.minFilter !== THREE.NearestFilter && t.minFilter !== THREE.LinearFilter;
      t.needsUpdate = true;
      const from = t.source;
      pendingSources.add(from);
      images.total++;
      images.pending++;
      const done = (real) => {
        if (gen !== loadGen) return;
        images.pending--;
        if (real && real.image) swaps.push({ from, to: real.source });
        else {
          images.failed++;
          pendingSources.delete(from);
          failedSources.add(from);
          texturesChanged = true;
        }
        redraw();
      };
      decodes.push(() => parser.loadTexture(index).then(done, () => done(null)));
      return Promise.resolve(t);
    },
  };
}

// Put decoded images in place of their stand-ins (once a frame, all that came in since).
let texturesChanged = false;
function applySwaps() {
  if (!swaps.length && !texturesChanged) return;
  const by = new Map(swaps.map((s) => [s.from, s.to]));
  swaps = [];
  texturesChanged = false;
  const swap = (t) => {
    const to = t && t.isTexture && by.get(t.source);
    if (!to) return;
    // The stand-in's GPU texture has immutable 1×1 storage (WebGL 2 texStorage2D): released
    // here, the renderer makes a new one of the image's size at the next draw.
    t.dispose();
    t.source = to;
    t.version++;
  };
  root.traverse((o) => {
    if (!o.isMesh) return;
    for (const u of Object.values(o.material.uniforms || {})) swap(u.value);
    for (const t of o.material.userData.layerMaps || []) swap(t);
  });
  for (const from of by.keys()) pendingSources.delete(from);
  applyKinds();
}

// "none", "pending", "failed" or "ready": where a material's texture is.
function imageState(t) {
  if (!t) return "none";
  if (pendingSources.has(t.source)) return "pending";
  return failedSources.has(t.source) ? "failed" : "ready";
}

// Light styles of the current map: style -> {on, gain}; the panel's switches set them.
const styleState = new Map();
const gainOf = (style) => {
  const s = styleState.get(style);
  return s ? (s.on ? s.gain : 0) : 1;
};

// `styles`: the page's other styles' textures, [{style, texture}] (layer 0), at most MAX_STYLES;
// `bump`: its base style's bump layers, [{layer, texture}].
function shaderFor(std, geometry, styles, bump) {
  const raw = (t) => {
    if (t) t.colorSpace = THREE.NoColorSpace;
    return t;
  };
  const map = raw(std.map);
  const lightMap = raw(std.aoMap);
  const colour = geometry.getAttribute("color");
  const hasColor = !!colour;
  // Vertex colours black on every vertex of the primitive carry no light (Respawn's lit
  // vertices store zeros there; `bsp render` has the same rule per surface): shaded instead.
  let colourLight = false;
  for (let i = 0; colour && i < colour.count && !colourLight; i++) colourLight = colour.getX(i) > 0 || colour.getY(i) > 0 || colour.getZ(i) > 0;
  const lm = (std.userData && std.userData.lightmap) || null;
  // Black placeholder lightmaps (the export's extras.lightmap_placeholder,
  // bspkit::lightmap::Lightmaps::is_placeholder) would hide the map: shaded from the normals.
  const placeholder = !!(std.userData && std.userData.lightmap_placeholder);
  const hasLight = lightMap && geometry.getAttribute("uv1") && !placeholder ? 1 : 0;
  const extra = hasLight ? styles : [];
  const uniforms = {
    map: { value: map },
    lightMap: { value: lightMap },
    hasMap: { value: map ? 1 : 0 },
    hasLight: { value: hasLight },
    useTex: { value: 1 },
    useLight: { value: 1 },
    bright: { value: look.bright },
    alphaCut: { value: std.alphaTest || 0 },
    tint: { value: map ? new THREE.Color(1, 1, 1) : new THREE.Color(0.7, 0.7, 0.7) },
    vertexLit: { value: colourLight ? 1 : 0 },
    gains: { value: new Array(extra.length + 1).fill(1) },
  };
  extra.forEach((s, k) => (uniforms[`styleMap${k}`] = { value: raw(s.texture) }));
  const mat = new THREE.ShaderMaterial({
    vertexShader,
    fragmentShader: fragmentShader(extra.length),
    uniforms,
    transparent: std.transparent,
    side: THREE.FrontSide,
    vertexColors: hasColor,
  });
  mat.name = std.name;
  // `lit`: drawn with its lightmap once the images are in (applyKinds).
  mat.userData = { ...std.userData, lit: hasLight, styleList: [lm ? lm.style : 0, ...extra.map((s) => s.style)] };
  // Only materials whose faces are all bump-mapped (extras.bump_layers) have their light there.
  if (hasLight && bump.length && std.userData && std.userData.bump_layers) {
    const layers = [lightMap];
    for (const b of bump) layers[b.layer] = raw(b.texture);
    mat.userData.layerMaps = layers;
  }
  return mat;
}

// PVS culling (maps with visibility: the server's vis.json, bspkit::view::visibility): the
// camera's leaf is found in the world's node tree; the world's primitives (their extras.faces:
// face, index count, … in index order) then draw only the faces of leaves whose cluster is in
// the camera cluster's PVS row, by rewriting their index buffers when the leaf changes.
let vis = null;
// Whether the picture changes (`cull`'s answer at the present camera).
function setupVis(doc) {
  vis = null;
  status.vis = { available: !!(doc && doc.available), reason: doc && doc.reason };
  if (!doc || !doc.available || !root) return false;
  const hex = doc.data || "";
  const data = new Uint8Array(hex.length >> 1);
  for (let k = 0; k < data.length; k++) data[k] = parseInt(hex.substr(2 * k, 2), 16);
  const prims = [];
  let total = 0;
  root.traverse((o) => {
    if (!o.isMesh || !o.geometry.index) return;
    let node = o;
    while (node && !(node.userData && Number.isInteger(node.userData.model))) node = node.parent;
    const ex = o.geometry.userData || {};
    if (!node || node.userData.model !== 0 || ex.face_lump !== doc.face_lump || !Array.isArray(ex.faces)) return;
    const full = o.geometry.index.array.slice();
    const ranges = [];
    let at = 0;
    for (let k = 0; k + 1 < ex.faces.length; k += 2) {
      ranges.push(ex.faces[k], at, ex.faces[k + 1]);
      at += ex.faces[k + 1];
    }
    if (at !== full.length) return; // not the layout the export documents: leave it whole
    prims.push({ geometry: o.geometry, full, ranges });
    total += full.length / 3;
  });
  // Faces no leaf lists (Source's displacements, which the engine links to leaves itself) are
  // always drawn.
  let maxFace = 0;
  for (const f of doc.leaf_faces) maxFace = Math.max(maxFace, f);
  for (const p of prims) for (let k = 0; k < p.ranges.length; k += 3) maxFace = Math.max(maxFace, p.ranges[k]);
  const unlisted = new Uint8Array(maxFace + 1).fill(1);
  for (const f of doc.leaf_faces) unlisted[f] = 0;
  vis = { doc, data, prims, total, leaf: -2, faces: new Uint8Array(maxFace + 1), unlisted, culled: false };
  status.vis.total = total;
  return cull();
}

function cameraLeaf() {
  const { nodes, planes, root: head } = vis.doc;
  const s = current.scale || 0.0254;
  const p = [camera.position.x / s, -camera.position.z / s, camera.position.y / s];
  let c = head;
  for (let steps = 0; c >= 0 && steps <= nodes.length; steps++) {
    const n = nodes[c];
    const pl = n && planes[n[0]];
    if (!pl) return -1;
    c = pl[0] * p[0] + pl[1] * p[1] + pl[2] * p[2] - pl[3] >= 0 ? n[1] : n[2];
  }
  return c < 0 ? -(c + 1) : -1;
}

// The decompressed PVS row of `cluster` (zero runs: a zero byte, then how many; Quake 3's rows
// are stored plain), or null.
function pvsRow(cluster) {
  const { offsets, row_bytes: n, compressed } = vis.doc;
  const ofs = offsets[cluster];
  if (!(ofs >= 0) || ofs >= vis.data.length) return null;
  if (compressed === false) return ofs + n <= vis.data.length ? vis.data.slice(ofs, ofs + n) : null;
  const row = new Uint8Array(n);
  let i = ofs, k = 0;
  while (k < n && i < vis.data.length) {
    const b = vis.data[i++];
    if (b) row[k++] = b;
    else k += i < vis.data.length ? vis.data[i++] : n;
  }
  return row;
}

// Whether what is drawn changed: where the camera's leaf has no PVS row and every face is drawn
// already (the orbit camera outside the map, as when the PVS arrives after the first frame), the
// index buffers are left as they are and nothing needs drawing again.
function cull() {
  if (!vis) return false;
  const leaf = look.pvs ? cameraLeaf() : -1;
  if (leaf === vis.leaf) return false;
  vis.leaf = leaf;
  const d = vis.doc;
  const cluster = leaf >= 0 ? d.leaf_cluster[leaf] : -1;
  const row = cluster >= 0 ? pvsRow(cluster) : null;
  if (!row && !vis.culled) {
    Object.assign(status.vis, { leaf, cluster, culling: false, drawn: vis.total });
    $("pvs-info").textContent = "";
    return false;
  }
  vis.culled = !!row;
  const faces = vis.faces;
  if (row) faces.set(vis.unlisted);
  else faces.fill(1);
  if (row) {
    for (let l = 0; l < d.leaf_cluster.length; l++) {
      const c = d.leaf_cluster[l];
      if (c < 0 || !(row[c >> 3] & (1 << (c & 7)))) continue;
      for (let k = d.leaf_first[l]; k < d.leaf_first[l + 1]; k++) faces[d.leaf_faces[k]] = 1;
    }
  }
  let drawn = 0;
  for (const p of vis.prims) {
    const index = p.geometry.index;
    let n = 0;
    if (!row) {
      index.array.set(p.full);
      n = p.full.length;
    } else {
      for (let k = 0; k < p.ranges.length; k += 3) {
        if (!faces[p.ranges[k]]) continue;
        index.array.set(p.full.subarray(p.ranges[k + 1], p.ranges[k + 1] + p.ranges[k + 2]), n);
        n += p.ranges[k + 2];
      }
    }
    index.needsUpdate = true;
    p.geometry.setDrawRange(0, n);
    drawn += n / 3;
  }
  Object.assign(status.vis, { leaf, cluster, culling: !!row, drawn });
  $("pvs-info").textContent = row ? `PVS: leaf ${leaf}, ${drawn.toLocaleString()} of ${vis.total.toLocaleString()} world triangles` : "";
  return true;
}

function resize() {
  const c = renderer.domElement.parentElement;
  const w = c.clientWidth, h = c.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  redraw();
}
window.addEventListener("resize", resize);

// Game space (Z up, units) to the GLB's frame: (x, y, z) -> (x, z, -y) times the export's scale.
function toView(v, scale) {
  return new THREE.Vector3(v[0] * scale, v[2] * scale, -v[1] * scale);
}
function parseVec(s) {
  if (!s) return null;
  const p = s.trim().split(/\s+/).map(Number);
  return p.length >= 3 && p.slice(0, 3).every(Number.isFinite) ? p.slice(0, 3) : null;
}
function key(e, k) {
  const p = e.pairs.find((x) => x[0] === k);
  return p ? p[1] : undefined;
}

function clearMap() {
  for (const o of [root, markers, links, selection]) {
    if (!o) continue;
    scene.remove(o);
    o.traverse((x) => {
      if (x.geometry) x.geometry.dispose();
      if (x.material) {
        for (const m of [].concat(x.material)) {
          for (const u of Object.values(m.uniforms || {})) if (u.value && u.value.isTexture) u.value.dispose();
          m.dispose();
        }
      }
    });
  }
  root = markers = links = selection = null;
}

function applyKinds() {
  if (!root) return;
  // Per surface kind: the map's meshes of that kind and how many are shown (for the tests).
  const kinds = {};
  root.traverse((o) => {
    if (!o.isMesh) return;
    const flags = (o.material.userData && o.material.userData.surface_flags) || [];
    o.visible = flags.every((f) => KINDS[f] !== false);
    for (const f of flags) {
      const k = (kinds[f] = kinds[f] || { meshes: 0, shown: 0 });
      k.meshes++;
      k.shown += o.visible ? 1 : 0;
    }
    const u = o.material.uniforms;
    const checker = o.material.userData && o.material.userData.placeholder_texture;
    // A texture whose image is still decoding is drawn as one switched off; one that failed to
    // decode as none.
    const map = imageState(u.map.value);
    u.hasMap.value = map === "ready" || map === "pending" ? 1 : 0;
    u.useTex.value = look.textures && (look.checkers || !checker) && map === "ready" ? 1 : 0;
    // Without its texture a surface is grey under its light.
    u.tint.value.setScalar(u.hasMap.value && !u.useTex.value ? 0.75 : u.hasMap.value ? 1 : 0.7);
    u.useLight.value = look.lighting ? 1 : 0;
    u.bright.value = look.bright;
    const list = o.material.userData.styleList || [0];
    list.forEach((st, k) => (u.gains.value[k] = gainOf(st)));
    const layers = o.material.userData.layerMaps;
    if (layers) u.lightMap.value = layers[look.layer] || layers[0];
    // Light waits for every image it adds (the page's base image and its other styles').
    const light = [u.lightMap.value, ...list.slice(1).map((_, k) => u[`styleMap${k}`].value)].map(imageState);
    u.hasLight.value = o.material.userData.lit && light[0] !== "failed" && !light.includes("pending") ? 1 : 0;
  });
  status.kinds = kinds;
  if (markers) markers.visible = look.markers;
  if (links) links.visible = look.links;
  redraw();
}

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = !msg;
}

async function loadMap(i) {
  status.state = "loading";
  status.map = i;
  status.firstFrameMs = null;
  status.texturesReadyMs = null;
  status.error = null;
  clearMap();
  showError("");
  const start = performance.now();
  status.loadStartMs = start - t0;
  status.styles = [];
  status.vis = null;
  const req = early && early.index === i ? early.docs : requests(i);
  early = null;
  const glbReq = req.glb;
  const visReq = req.vis.then((r) => r.json()).catch((e) => ({ available: false, reason: String(e) }));
  vis = null;
  const [summary, entities, info, check] = await Promise.all(["summary", "entities", "info", "check"].map((d) => req[d].then((r) => r.json())));
  current = { summary, entities, info, check, scale: summary.scale || 0.0254, positions: new Map() };
  const base = summary.name.split(/[\\/]/).pop();
  $("title").textContent = (maps.length > 1 ? "" : base + " — ") + (summary.branch ? `${summary.title} (${summary.branch})` : "");
  $("title").title = summary.name;
  fillEntities();
  fillLumps(info);
  fillCheck(check);
  const timings = { documentsMs: performance.now() - start };
  status.timings = timings;
  const glb = await glbReq;
  timings.glbResponseMs = performance.now() - start;
  if (!glb.ok) {
    const msg = (await glb.text()).trim() || summary.export_error || `HTTP ${glb.status}`;
    status.error = msg;
    showError(`This map could not be shown: ${msg}`);
    status.state = "error";
    status.loadMs = performance.now() - start;
    redraw();
    return;
  }
  const buf = await glb.arrayBuffer();
  timings.glbBytes = buf.byteLength;
  timings.glbReceivedMs = performance.now() - start;
  const gen = ++loadGen;
  const images = { total: 0, pending: 0, failed: 0, pendingAtFirstFrame: null };
  status.images = images;
  swaps = [];
  decodes = [];
  const loader = new GLTFLoader().register((parser) => deferredImages(parser, images, gen));
  const gltf = await new Promise((ok, fail) => loader.parse(buf, "", ok, fail)).catch((e) => {
    showError(`The GLB did not load: ${e.message || e}`);
    status.error = String(e.message || e);
    status.state = "error";
    return null;
  });
  if (!gltf) return;
  timings.parsedMs = performance.now() - start;
  root = gltf.scene;
  // The images each lit material names: other light styles (layer 0) and its base style's
  // bump layers (Source bump-mapped faces, layers 1–3).
  const wanted = new Map();
  const pages = new Map();
  root.traverse((o) => {
    const lm = o.isMesh && o.material.userData && o.material.userData.lightmap;
    if (!lm || !Array.isArray(lm.images) || pages.has(lm.page)) return;
    const ok = (i) => Number.isInteger(i.texture);
    const list = lm.images.filter((i) => i.layer === 0 && ok(i)).slice(0, MAX_STYLES);
    const bump = lm.images.filter((i) => i.layer > 0 && i.layer <= 3 && i.style === lm.style && ok(i));
    pages.set(lm.page, { list, bump });
    for (const i of [...list, ...bump]) if (!wanted.has(i.texture)) wanted.set(i.texture, gltf.parser.getDependency("texture", i.texture));
  });
  const textures = new Map();
  for (const [i, p] of wanted) textures.set(i, await p);
  const styles = new Set();
  let tris = 0, bumped = 0;
  root.traverse((o) => {
    if (!o.isMesh) return;
    const lm = o.material.userData && o.material.userData.lightmap;
    const { list, bump } = (lm && pages.get(lm.page)) || { list: [], bump: [] };
    o.material = shaderFor(
      o.material,
      o.geometry,
      list.map((i) => ({ style: i.style, texture: textures.get(i.texture) })),
      bump.map((i) => ({ layer: i.layer, texture: textures.get(i.texture) })),
    );
    if (o.material.uniforms.hasLight.value) for (const s of o.material.userData.styleList) styles.add(s);
    if (o.material.userData.layerMaps) bumped++;
    tris += o.geometry.index ? o.geometry.index.count / 3 : 0;
  });
  fillStyles([...styles].sort((a, b) => a - b));
  status.bumpMaterials = bumped;
  $("layers").hidden = !bumped;
  look.layer = 0;
  $("layer").value = "0";
  timings.materialsMs = performance.now() - start;
  status.triangles = tris;
  scene.add(root);
  root.updateMatrixWorld(true);
  placeEntities();
  applyKinds();
  frameAll();
  status.loadMs = performance.now() - start;
  status.state = "ready";
  // After the first frame is asked for: the PVS is not needed to draw it.
  visReq.then((doc) => {
    if (status.map !== i) return;
    // The PVS document marks the page's state (the tests wait for it) but changes the picture
    // only where the camera stands in a cluster that hides faces.
    if (setupVis(doc)) redraw();
  });
  const s = summary.export || {};
  $("stats").textContent = `${tris.toLocaleString()} triangles, ${s.materials ?? "?"} materials, ${s.textures ?? 0} textures (${s.placeholder_textures ?? 0} placeholders), ${s.lightmap_pages ?? 0} lightmap pages`;
  status.lightmapPlaceholder = !!s.lightmap_placeholder;
  if (s.lightmap_placeholder) $("stats").textContent += " (black placeholders: shaded from the normals)";
  const warnings = (s.warnings || []).length;
  if (warnings) $("stats").textContent += `, ${warnings} export warnings`;
  redraw();
}

// Each entity's position in the view: its origin, or the centre of its brush model's node.
function placeEntities() {
  const { entities, scale, positions } = current;
  const byEntity = new Map();
  root.traverse((o) => {
    if (o.userData && Number.isInteger(o.userData.entity) && o.userData.model > 0) byEntity.set(o.userData.entity, o);
  });
  current.nodes = byEntity;
  for (const e of entities.entities) {
    const node = byEntity.get(e.index);
    if (node) {
      const box = new THREE.Box3().setFromObject(node);
      if (!box.isEmpty()) {
        positions.set(e.index, box.getCenter(new THREE.Vector3()));
        continue;
      }
    }
    const o = parseVec(key(e, "origin"));
    if (o) positions.set(e.index, toView(o, scale));
  }
  const pts = [];
  const cols = [];
  const order = [];
  for (const [i, p] of positions) {
    if (i === 0) continue;
    pts.push(p.x, p.y, p.z);
    const cls = key(entities.entities[i], "classname") || "";
    const c = new THREE.Color(/^light/.test(cls) ? 0xffe066 : /spawn|player_start|player_deathmatch/.test(cls) ? 0x55ff55 : /^trigger/.test(cls) ? 0xff8844 : 0x66ccff);
    cols.push(c.r, c.g, c.b);
    order.push(i);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(pts, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(cols, 3));
  markers = new THREE.Points(g, new THREE.PointsMaterial({ size: 4, sizeAttenuation: false, vertexColors: true, depthTest: true }));
  markers.userData.order = order;
  scene.add(markers);
  // target -> targetname (also killtarget), each pair once.
  const named = new Map();
  for (const e of entities.entities) {
    const n = key(e, "targetname");
    if (n) (named.get(n) || named.set(n, []).get(n)).push(e.index);
  }
  const seg = [];
  for (const e of entities.entities) {
    const from = positions.get(e.index);
    if (!from) continue;
    for (const k of ["target", "killtarget"]) {
      const t = key(e, k);
      for (const j of named.get(t) || []) {
        const to = positions.get(j);
        if (to) seg.push(from.x, from.y, from.z, to.x, to.y, to.z);
      }
    }
  }
  const lg = new THREE.BufferGeometry();
  lg.setAttribute("position", new THREE.Float32BufferAttribute(seg, 3));
  links = new THREE.LineSegments(lg, new THREE.LineBasicMaterial({ color: 0xff55ff }));
  scene.add(links);
  $("link-count").textContent = `${seg.length / 6} links`;
  fillSpawns();
}

// The initial camera (and the Frame button): the server's frame of the playable area, the
// camera `bsp render` draws its iso picture from (summary.frame, bspkit::render::view_frame:
// player starts, drawn faces weighted by area, far skybox and stray brushes left out). Without
// one, the whole map's box.
function frameAll() {
  const box = new THREE.Box3();
  root.traverse((o) => {
    if (o.isMesh && o.visible) box.expandByObject(o);
  });
  if (box.isEmpty()) box.setFromObject(root);
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const c = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3()).length() || 1;
  const f = current.summary.frame;
  setMode("orbit");
  if (f) {
    const s = current.scale;
    const eye = toView(f.eye, s), target = toView(f.target, s);
    // A picture narrower than the frame's: back along the view axis until the farthest framed
    // point fits across (its depth times the ratio of the two aspects).
    const k = f.aspect / camera.aspect;
    if (k > 1) eye.sub(target.clone().sub(eye).normalize().multiplyScalar((k - 1) * f.far * s));
    camera.fov = f.fov_y;
    camera.near = Math.max(f.near * s * 0.25, size / 20000);
    camera.far = Math.max(size * 4, eye.distanceTo(c) * 4, f.far * s * 4);
    camera.updateProjectionMatrix();
    orbit.target.copy(target);
    camera.position.copy(eye);
    // The frame's up is in the vertical plane of its view axis (no roll): three.js's Y up
    // gives the same picture.
    camera.lookAt(target);
    current.size = new THREE.Vector3(...f.focus_max).sub(new THREE.Vector3(...f.focus_min)).length() * s || size;
  } else {
    camera.fov = FLY_FOV;
    camera.near = size / 2000;
    camera.far = size * 20;
    camera.updateProjectionMatrix();
    orbit.target.copy(c);
    camera.position.copy(c).add(new THREE.Vector3(0.6, 0.5, 0.6).multiplyScalar(size * 0.6));
    camera.lookAt(c);
    current.size = size;
  }
  orbit.update();
  status.frame = { fromServer: !!f, fov: camera.fov, focusMin: f ? f.focus_min : null, focusMax: f ? f.focus_max : null };
  redraw();
}

function setMode(m) {
  mode = m;
  orbit.enabled = m === "orbit";
  if (m === "orbit") {
    const dir = new THREE.Vector3();
    camera.getWorldDirection(dir);
    orbit.target.copy(camera.position).add(dir.multiplyScalar((current && current.size ? current.size : 10) * 0.1));
    orbit.update();
  }
  $("mode").textContent = m === "orbit" ? "Orbit" : "Fly";
  $("mode").title = m === "orbit" ? "orbit: drag to turn, wheel to zoom (F or click: fly)" : "fly: WASD, Q/E down/up, Shift faster, drag to look (F or click: orbit)";
  redraw();
}

// Fly: drag to look, WASD to move, Q/E down/up, Shift faster.
let drag = null;
renderer.domElement.addEventListener("pointerdown", (ev) => {
  drag = { x: ev.clientX, y: ev.clientY, moved: false };
});
window.addEventListener("pointerup", (ev) => {
  if (drag && !drag.moved) pick(ev);
  drag = null;
});
window.addEventListener("pointermove", (ev) => {
  if (!drag) return;
  const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
  if (mode !== "fly") return;
  drag.x = ev.clientX;
  drag.y = ev.clientY;
  camera.rotation.y -= dx * 0.004;
  camera.rotation.x = Math.max(-1.55, Math.min(1.55, camera.rotation.x - dy * 0.004));
  redraw();
});
window.addEventListener("keydown", (ev) => {
  if (ev.target.tagName === "INPUT") return;
  if (ev.code === "KeyF") setMode(mode === "orbit" ? "fly" : "orbit");
  // Flying moves the camera at every frame while a key is held: the frames start here, the
  // first one's step timed from now (not from the last frame drawn, which may be long ago).
  if (!keys.size) last = performance.now();
  keys.add(ev.code);
  if (mode === "fly") askFrame();
});
window.addEventListener("keyup", (ev) => keys.delete(ev.code));
window.addEventListener("blur", () => keys.clear());

let last = performance.now();
function tick(now) {
  frameAsked = false;
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  if (mode === "fly" && current && keys.size) {
    const speed = (current.scale || 0.0254) * 320 * (keys.has("ShiftLeft") || keys.has("ShiftRight") ? 4 : 1) * dt;
    const fwd = new THREE.Vector3();
    camera.getWorldDirection(fwd);
    const right = new THREE.Vector3().crossVectors(fwd, camera.up).normalize();
    const move = new THREE.Vector3();
    if (keys.has("KeyW")) move.add(fwd);
    if (keys.has("KeyS")) move.sub(fwd);
    if (keys.has("KeyD")) move.add(right);
    if (keys.has("KeyA")) move.sub(right);
    if (keys.has("KeyE")) move.y += 1;
    if (keys.has("KeyQ")) move.y -= 1;
    if (move.lengthSq() > 0) {
      camera.position.addScaledVector(move.normalize(), speed);
      redraw();
    }
  }
  if (dirty) {
    // Images put in place before the flag is cleared: applyKinds asks for a redraw, which this
    // frame draws (cleared after, it drew the same picture once more at the next frame).
    if (root && status.state === "ready") applySwaps();
    dirty = false;
    cull();
    renderer.render(scene, camera);
    status.frames++;
    if (status.state === "ready" && status.firstFrameMs === null) {
      status.firstFrameMs = performance.now() - t0;
      if (status.timings) status.timings.firstFrameMs = performance.now() - t0 - (status.loadStartMs || 0);
      if (status.images) status.images.pendingAtFirstFrame = status.images.pending + swaps.length;
      $("timing").textContent = `first frame ${Math.round(status.firstFrameMs)} ms after the page started`;
      const start = decodes;
      decodes = [];
      for (const d of start) d();
    }
    // Every image decoded, put in place and drawn (uploaded to the GPU by this render).
    const im = status.images;
    if (status.state === "ready" && status.texturesReadyMs === null && (!im || (im.pending === 0 && !swaps.length))) {
      status.texturesReadyMs = performance.now() - t0;
      if (status.timings) status.timings.texturesReadyMs = status.texturesReadyMs - (status.loadStartMs || 0);
      // In the tooltip: a longer footer would wrap and change the canvas's size.
      if (im && im.total) $("timing").title = `${im.total} images drawn ${Math.round(status.texturesReadyMs)} ms after the page started`;
    }
  }
  if (mode === "fly" && keys.size) askFrame();
}

// Click: the nearest entity marker or brush model under the pointer.
function pick(ev) {
  if (!root) return;
  const r = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
  const ray = new THREE.Raycaster();
  ray.setFromCamera(ndc, camera);
  ray.params.Points.threshold = (current.size || 10) * 0.004;
  const hits = ray.intersectObjects([root, ...(markers && markers.visible ? [markers] : [])], true).filter((h) => h.object.visible);
  for (const h of hits) {
    if (h.object === markers) return select(markers.userData.order[h.index], false);
    for (let o = h.object; o; o = o.parent) {
      if (o.userData && Number.isInteger(o.userData.entity)) return select(o.userData.entity, false);
    }
  }
}

function select(i, fly) {
  const e = current.entities.entities[i];
  if (!e) return;
  const box = $("keys");
  box.innerHTML = "";
  const h = document.createElement("h3");
  h.textContent = `#${i} ${key(e, "classname") || "(no classname)"}`;
  box.appendChild(h);
  const table = document.createElement("table");
  for (const [k, v] of e.pairs) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  box.appendChild(table);
  if (selection) {
    scene.remove(selection);
    selection.geometry.dispose();
  }
  selection = null;
  const p = current.positions.get(i);
  const node = current.nodes && current.nodes.get(i);
  if (node) {
    selection = new THREE.Box3Helper(new THREE.Box3().setFromObject(node), 0xffff00);
  } else if (p) {
    const s = current.scale * 16;
    selection = new THREE.Box3Helper(new THREE.Box3(p.clone().subScalar(s), p.clone().addScalar(s)), 0xffff00);
  }
  if (selection) scene.add(selection);
  if (fly && p) {
    setMode("orbit");
    const d = camera.position.clone().sub(orbit.target);
    orbit.target.copy(p);
    camera.position.copy(p).add(d.setLength(current.scale * 400));
    orbit.update();
  }
  redraw();
}

function fillEntities() {
  const list = current.entities.entities;
  $("entity-count").textContent = `${current.entities.count} entities`;
  if (current.entities.error) $("entity-count").textContent += ` (entity lump: ${current.entities.error})`;
  const search = $("search");
  search.value = "";
  const draw = () => {
    const q = search.value.trim().toLowerCase();
    const ul = $("entities");
    ul.innerHTML = "";
    let shown = 0;
    let matched = 0;
    for (const e of list) {
      const cls = key(e, "classname") || "";
      const tn = key(e, "targetname") || "";
      if (q && !cls.toLowerCase().includes(q) && !tn.toLowerCase().includes(q)) continue;
      matched++;
      if (shown >= 400) continue;
      shown++;
      const li = document.createElement("li");
      li.textContent = `#${e.index} ${cls}${tn ? ` "${tn}"` : ""}`;
      li.onclick = () => select(e.index, true);
      ul.appendChild(li);
    }
    $("match-count").textContent = q ? `${matched} match` : "";
    if (matched > shown) {
      const li = document.createElement("li");
      li.className = "more";
      li.textContent = `… ${matched - shown} more (search to narrow)`;
      ul.appendChild(li);
    }
  };
  search.oninput = draw;
  draw();
}

const SPAWN = /^(info_player_(start|deathmatch|coop|teamspawn|terrorist|counterterrorist|combine|rebel|axis|allies)|team_ctf_(red|blue)(player|spawn)|info_player_start2|info_spawn.*|info_player_.*)$/i;

function fillSpawns() {
  const ul = $("spawns");
  ul.innerHTML = "";
  let n = 0;
  for (const e of current.entities.entities) {
    const cls = key(e, "classname") || "";
    if (!SPAWN.test(cls)) continue;
    const o = parseVec(key(e, "origin"));
    if (!o) continue;
    n++;
    const li = document.createElement("li");
    li.textContent = `#${e.index} ${cls}`;
    li.onclick = () => jump(e, o);
    ul.appendChild(li);
  }
  $("spawn-count").textContent = `${n} spawn points`;
}

// Test hooks (viewer/test/browser.mjs): the map's bounds in game units, and standing at a game
// position `p` (fly camera, facing `yaw`) with the PVS applied at once: the world triangles
// drawn there (null without a PVS).
window.bspviewBounds = () => {
  const b = new THREE.Box3().setFromObject(root);
  const s = current.scale;
  return { min: [b.min.x / s, -b.max.z / s, b.min.y / s], max: [b.max.x / s, -b.min.z / s, b.max.y / s] };
};
window.bspviewStandAt = (p, yaw = 0) => {
  setMode("fly");
  camera.position.copy(toView(p, current.scale));
  camera.rotation.set(0, THREE.MathUtils.degToRad(yaw) - Math.PI / 2, 0);
  camera.near = current.scale * 2;
  camera.fov = FLY_FOV;
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld();
  redraw();
  if (!vis) return null;
  cull();
  return status.vis.culling ? status.vis.drawn : null;
};

// Stand at a spawn point, eyes 56 units up, facing its yaw (game yaw 0 looks along +X).
function jump(e, o) {
  let yaw = Number(key(e, "angle"));
  const angles = parseVec(key(e, "angles"));
  if (angles) yaw = angles[1];
  if (!Number.isFinite(yaw)) yaw = 0;
  setMode("fly");
  camera.position.copy(toView([o[0], o[1], o[2] + 56], current.scale));
  camera.rotation.set(0, THREE.MathUtils.degToRad(yaw) - Math.PI / 2, 0);
  camera.near = current.scale * 2;
  camera.fov = FLY_FOV;
  camera.updateProjectionMatrix();
  select(e.index, false);
  redraw();
}

function fillLumps(info) {
  const t = $("lumps");
  t.innerHTML = "";
  if (info.error) {
    t.insertRow().insertCell().textContent = info.error;
    return;
  }
  const head = t.insertRow();
  for (const h of ["#", "name", "offset", "length", "count", "version", ""]) {
    const th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  }
  for (const l of info.lumps || []) {
    const tr = t.insertRow();
    for (const v of [l.index, l.name, l.offset, l.length, l.count ?? "", l.version ?? "", l.compressed ? "lzma" : l.source !== "file" ? "external" : ""]) {
      tr.insertCell().textContent = v;
    }
  }
  $("format").textContent = info.format ? `${info.format.title} (${info.format.branch}), ${info.size.toLocaleString()} bytes, ${(info.lumps || []).length} lumps` : "";
}

function fillCheck(check) {
  const t = $("problems");
  t.innerHTML = "";
  if (check.error) {
    $("check-count").textContent = check.error;
    return;
  }
  const c = check.counts || {};
  $("check-count").textContent = `${c.errors} errors, ${c.warnings} warnings, ${c.notes} notes`;
  for (const p of (check.problems || []).slice(0, 1000)) {
    const tr = t.insertRow();
    tr.className = p.severity;
    for (const v of [p.severity, p.code, p.lump ?? "", p.index ?? "", p.message]) tr.insertCell().textContent = v;
  }
}

// One row per light style the map's lit surfaces use: on/off and a gain (0 to 2; 1 as baked).
function fillStyles(list) {
  styleState.clear();
  const box = $("styles");
  box.innerHTML = "";
  box.hidden = list.length < 2;
  status.styles = list;
  for (const st of list) {
    styleState.set(st, { on: true, gain: 1 });
    const row = document.createElement("div");
    row.className = "style";
    const on = document.createElement("input");
    on.type = "checkbox";
    on.checked = true;
    on.id = `style-${st}`;
    const gain = document.createElement("input");
    gain.type = "range";
    gain.min = "0";
    gain.max = "2";
    gain.step = "0.05";
    gain.value = "1";
    gain.id = `style-gain-${st}`;
    gain.title = `light style ${st}: gain`;
    on.onchange = () => {
      styleState.get(st).on = on.checked;
      applyKinds();
    };
    gain.oninput = () => {
      styleState.get(st).gain = Number(gain.value);
      applyKinds();
    };
    const label = document.createElement("label");
    label.append(on, ` style ${st}`);
    row.append(label, gain);
    box.appendChild(row);
  }
}

function buildToggles() {
  const box = $("kinds");
  for (const k of Object.keys(KINDS)) {
    const l = document.createElement("label");
    const c = document.createElement("input");
    c.type = "checkbox";
    c.checked = KINDS[k];
    c.id = `kind-${k}`;
    if (KIND_TITLES[k]) l.title = KIND_TITLES[k];
    c.onchange = () => {
      KINDS[k] = c.checked;
      applyKinds();
    };
    l.append(c, ` ${k}`);
    box.appendChild(l);
  }
  for (const k of ["textures", "checkers", "lighting", "markers", "links", "pvs"]) {
    const c = $(`look-${k}`);
    c.checked = look[k];
    c.onchange = () => {
      look[k] = c.checked;
      applyKinds();
    };
  }
  $("layer").onchange = () => {
    look.layer = Number($("layer").value);
    applyKinds();
  };
  $("bright").value = look.bright;
  $("bright").oninput = () => {
    look.bright = Number($("bright").value);
    applyKinds();
  };
}

function tabs() {
  for (const b of document.querySelectorAll("#tabs button")) {
    b.onclick = () => {
      for (const x of document.querySelectorAll("#tabs button")) x.classList.toggle("on", x === b);
      for (const p of document.querySelectorAll(".pane")) p.hidden = p.id !== `pane-${b.dataset.pane}`;
    };
  }
}

function screenshot() {
  renderer.render(scene, camera);
  renderer.domElement.toBlob((blob) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    const name = current ? current.summary.name.split(/[\\/]/).pop().replace(/\.[^.]*$/, "") : "map";
    a.download = `${name}.png`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }, "image/png");
}

async function main() {
  tabs();
  buildToggles();
  resize();
  $("shot").onclick = screenshot;
  $("frame").onclick = () => current && root && frameAll();
  $("mode").onclick = () => setMode(mode === "orbit" ? "fly" : "orbit");
  redraw();
  maps = await early.maps.then((r) => r.json());
  const sel = $("maps");
  for (const m of maps) {
    const opt = new Option(m.name.split(/[\\/]/).pop(), m.index);
    opt.title = m.name;
    sel.add(opt);
  }
  sel.hidden = maps.length < 2;
  // With the list shown a narrow window's toolbar wraps to a second line: the canvas's box is
  // lower than the one it was sized for, and its picture would be stretched into it.
  resize();
  const want = hashMap();
  const first = maps.some((m) => m.index === want) ? want : 0;
  sel.value = String(first);
  sel.onchange = () => {
    location.hash = `map=${sel.value}`;
    loadMap(Number(sel.value));
  };
  await loadMap(first);
}
main().catch((e) => {
  status.state = "error";
  status.error = String(e && e.message ? e.message : e);
  showError(`The viewer failed: ${status.error}`);
});

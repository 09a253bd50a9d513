"""Headless check of the bspkit Blender add-on, run inside Blender:

    blender -b --factory-startup --python-exit-code 1 --python blender/tests/import_and_render.py -- \\
        --site VENV_SITE_PACKAGES --out DIR [--samples 8] [--size 480 270] MAP [MAP …]

For each map (a ``.pk3`` stands for its first map): import it with the add-on (installed from
``--zip`` as a user does, or registered from ``--addon``; the first map through the File › Import
operator, the rest
through the same importer function, each into a scene of its own), count what Blender holds and
compare with what the ``bspkit`` package says about the map independently (the glTF export's
summary, the entity lump, the static props), then render one picture with Cycles on the CPU (few
samples; the materials' baked lighting is emission, so no light bounces are needed) into
``DIR/<family>__<map>.png``. Writes ``DIR/results.json``; any mismatch raises, so Blender exits 1.
"""

import argparse
import json
import math
import os
import site
import sys
import tempfile
import time
import types

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))


def parse():
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", action="append", default=[], help="site-packages holding bspkit (and NumPy)")
    ap.add_argument("--addon", default=os.path.dirname(HERE), help="folder holding bspkit_blender/")
    ap.add_argument("--zip", help="install and enable this add-on zip (Preferences › Add-ons › Install) instead")
    ap.add_argument("--out", required=True)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--size", type=int, nargs=2, default=[480, 270])
    ap.add_argument("--no-render", action="store_true")
    ap.add_argument("maps", nargs="+")
    return ap.parse_args(argv)


def counts(collection):
    """What the import made, by walking its collection tree."""
    objs = list(collection.all_objects)
    meshes = [o for o in objs if o.type == "MESH"]
    mats = {m for o in meshes for m in o.data.materials if m is not None}
    def has(m, pred):
        return m.node_tree is not None and any(pred(n) for n in m.node_tree.nodes)

    lightmap = lambda n: n.type == "TEX_IMAGE" and n.label == "Lightmap" and n.image is not None  # noqa: E731
    vertex_light = lambda n: n.type == "VERTEX_COLOR" and n.layer_name == "Colour"  # noqa: E731
    texture = lambda n: n.type == "TEX_IMAGE" and n.label != "Lightmap" and n.image is not None  # noqa: E731
    entity_keys = {}
    for o in objs:
        if o.type in ("EMPTY", "LIGHT") and "bspkit_entity" in o and "bspkit_partition" not in o:
            entity_keys[int(o["bspkit_entity"])] = {k: o[k] for k in o.keys()}
    return {
        "entity_keys": entity_keys,
        "lightmapped_materials": sum(1 for m in mats if has(m, lightmap)),
        "vertex_lit_materials": sum(1 for m in mats if has(m, vertex_light)),
        "textured": sorted({m["bspkit_material"].lower() for m in mats if has(m, texture)}),
        "alpha": {m["bspkit_material"].lower(): m["bspkit_alpha"] for m in mats if has(m, texture)},
        "mesh_objects": len(meshes),
        "triangles": sum(len(o.data.polygons) for o in meshes),
        "materials": len(mats),
        "empties": sum(1 for o in objs if o.type == "EMPTY"),
        "lights": sum(1 for o in objs if o.type == "LIGHT"),
        "uv_maps": sorted({uv.name for o in meshes for uv in o.data.uv_layers}),
    }


def lit_pages(bsp):
    """The lightmap pages the add-on shows: none when the library calls the map's lightmaps
    black placeholders (`Lightmaps::is_placeholder`, each atlas's "placeholder"), as `bsp
    render` and `bsp view` do."""
    atlases = bsp.lightmap_atlases()
    if any(a["placeholder"] for a in atlases):
        return set()
    return {a["page"] for a in atlases}


def expected(bspkit, np, path, tmp):
    """The same quantities from the bspkit package, without the add-on's code: the glTF
    export's summary (triangles, models, props), the scene's arrays (degenerate triangles the
    add-on must leave out), the entity lists (empties + lights)."""
    bsp = bspkit.load(path)
    summary = bsp.export_gltf(os.path.join(tmp, "x.glb"), textures=False)
    scene = bsp.scene()
    hidden = sum(bspkit.SURFACE_FLAGS[k] for k in ("sky", "nodraw", "trigger", "clip", "tool"))
    degenerate, models_drawn = 0, 0
    # Each model's arrays, built once for both loops below (about 1.3 s of CPU over the corpus).
    arrays = [m.numpy() for m in scene.models]
    for d in arrays:
        i = d["indices"]
        shown = (d["flags"] & hidden) == 0
        bad = (i[:, 0] == i[:, 1]) | (i[:, 1] == i[:, 2]) | (i[:, 0] == i[:, 2])
        degenerate += int(np.count_nonzero(shown & bad))
        models_drawn += int(np.count_nonzero(shown & ~bad) > 0)
    used = set()
    # Materials: one per (map material, lightmap page with an image) among the drawn triangles.
    images = lit_pages(bsp)
    pairs = set()
    for d in arrays:
        i = d["indices"]
        ok = ((d["flags"] & hidden) == 0) & ~((i[:, 0] == i[:, 1]) | (i[:, 1] == i[:, 2]) | (i[:, 0] == i[:, 2]))
        used |= {scene.materials[k].lower() for k in np.unique(d["material"][ok])}
        light = [p if p in images else -1 for p in d["lightmap_page"][ok].tolist()]
        c = d["colour"]
        if len(c) and len(c) == len(d["position"]):
            # Vertex-lit: no lightmap image, and colours neither all black nor all white.
            rgb = c[i[ok]][:, :, :3].reshape(-1, 9)
            vertex = ~(np.all(rgb == 0, axis=1) | np.all(rgb == 255, axis=1))
            light = [-2 if p < 0 and v else p for p, v in zip(light, vertex.tolist())]
        pairs |= set(zip(d["material"][ok].tolist(), light))
    decoded = {t["name"].lower(): t["alpha"] for t in bsp.texture_arrays() if "missing" not in t and t["rgba"].size}
    lists = [bsp.ENTITIES] + ([e for _, e in sorted(bsp.ent_partitions().items())] if bsp.family == "respawn" else [])
    classes = [(e.classname or "").lower() for ents in lists for e in ents]
    lights = sum(1 for c in classes if c == "light" or c.startswith("light_") or c in ("point_spotlight", "sun"))
    return {
        "triangles": summary["triangles"] - degenerate,
        "degenerate": degenerate,
        "mesh_objects": models_drawn,
        "entities": len(classes),
        "lights": lights,
        "props": len(scene.props),
        "export_materials": summary["materials"],
        "materials": len(pairs),
        "vertex_lit_materials": sum(1 for _, p in pairs if p == -2),
        "lightmap_pages": len(images),
        "textured": sorted(used & set(decoded)),
        "alpha": {k: decoded[k] for k in used & set(decoded)},
        "entity_pairs": [e.pairs() for e in bsp.ENTITIES],
    }


def frame_camera(scene, collection):
    """A camera above and outside the map looking down at 50° onto the middle 96 % of its
    vertices (far skybox geometry and stray brushes do not widen the frame)."""
    import numpy as np
    from mathutils import Vector

    pts = []
    for o in collection.all_objects:
        if o.type != "MESH" or not len(o.data.vertices):
            continue
        co = np.empty(len(o.data.vertices) * 3, np.float32)
        o.data.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        mw = np.array(o.matrix_world, dtype=np.float32)
        pts.append(co @ mw[:3, :3].T + mw[:3, 3])
    pts = np.concatenate(pts)
    lo, hi = np.percentile(pts, 2, axis=0), np.percentile(pts, 98, axis=0)
    centre = Vector(((lo + hi) / 2).tolist())
    radius = float(np.linalg.norm(hi - lo)) / 2 or 1.0
    cam_data = bpy.data.cameras.new("camera")
    cam_data.lens = 35
    cam = bpy.data.objects.new("camera", cam_data)
    scene.collection.objects.link(cam)
    elevation, azimuth = math.radians(50), math.radians(-60)
    d = Vector((math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation)))
    fov = min(cam_data.angle_x, cam_data.angle_y) if scene.render.resolution_y < scene.render.resolution_x else cam_data.angle
    dist = radius / math.sin(fov / 2) * 0.75
    cam.location = centre + d * dist
    cam.rotation_euler = (-d).to_track_quat("-Z", "Y").to_euler()
    cam_data.clip_start = dist / 1000
    cam_data.clip_end = dist * 4
    scene.camera = cam


def render(scene, collection, out_png, samples, size):
    import numpy as np

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    if hasattr(scene.cycles, "use_denoising"):
        scene.cycles.use_denoising = False
    # Baked lighting is emission: camera rays only; back faces and alpha are transparent hits.
    scene.cycles.max_bounces = 0
    scene.cycles.transparent_max_bounces = 64
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = True
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    scene.render.image_settings.compression = 100
    scene.view_settings.view_transform = "Standard"
    frame_camera(scene, collection)
    scene.render.filepath = out_png
    bpy.context.window_manager  # noqa: B018 (keeps the context alive in background mode)
    with bpy.context.temp_override(scene=scene) if hasattr(bpy.context, "temp_override") else _null():
        bpy.ops.render.render(write_still=True, scene=scene.name)
    img = bpy.data.images.load(out_png)
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    px = px.reshape(-1, 4)
    covered = px[:, 3] > 0.5
    # The picture kept: over a dark background (reads on light and dark pages alike), RGB.
    bg = np.array([0.09, 0.1, 0.12], np.float32)
    flat = np.ones_like(px)
    flat[:, :3] = px[:, :3] * px[:, 3:4] + bg * (1 - px[:, 3:4])
    out = bpy.data.images.new(os.path.basename(out_png), w, h, alpha=False)
    out.pixels.foreach_set(flat.reshape(-1))
    out.filepath_raw = out_png
    out.file_format = "PNG"
    out.save()
    return {
        "coverage": float(covered.mean()),
        "mean_rgb": [float(x) for x in px[covered, :3].mean(axis=0)] if covered.any() else [0.0, 0.0, 0.0],
    }


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def main():
    args = parse()
    for s in args.site:
        site.addsitedir(s)
    if args.zip:
        # As a user installs it (into BLENDER_USER_SCRIPTS, which the caller points elsewhere).
        assert bpy.ops.preferences.addon_install(filepath=args.zip) == {"FINISHED"}
        assert bpy.ops.preferences.addon_enable(module="bspkit_blender") == {"FINISHED"}
    else:
        sys.path.insert(0, args.addon)
        import bspkit_blender

        bspkit_blender.register()
    import numpy as np

    import bspkit_blender
    from bspkit_blender import importer

    # bspkit as the add-on finds it (installed, or vendored in the zip).
    bspkit = bspkit_blender.ensure_bspkit()

    assert hasattr(bpy.ops.import_scene, "bsp"), "the add-on did not register File › Import › BSP"
    os.makedirs(args.out, exist_ok=True)
    results, failures = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n, given in enumerate(args.maps):
            path = given
            if given.lower().endswith((".pk3", ".zip")):
                # The operator imports an archive's first map; bspkit names it ARCHIVE!ENTRY.
                path = f"{given}!{bspkit.archive_maps(given)[0]}"
            name = os.path.splitext(os.path.basename(path))[0]
            want = expected(bspkit, np, path, tmp)
            started = time.perf_counter()
            if n == 0:
                # The operator, as File › Import runs it, into the start-up scene.
                scene = bpy.context.scene
                before = set(bpy.data.collections)
                assert bpy.ops.import_scene.bsp(filepath=given) == {"FINISHED"}, given
                made = [c for c in bpy.data.collections if c not in before and c.name == name]
                collection = made[0]
                summary = None
            else:
                scene = bpy.data.scenes.new(name)
                summary = importer.import_bsp(types.SimpleNamespace(scene=scene), bspkit.load(path), importer.Options(), name=name)
                collection = bpy.data.collections[summary["collection"]]
            seconds = time.perf_counter() - started
            got = counts(collection)
            family = bspkit.load(path).family
            r = {"map": given, "family": family, "import_seconds": round(seconds, 3), "got": got, "expected": want, "summary": summary}
            problems = []
            if got["triangles"] != want["triangles"]:
                problems.append(f"triangles {got['triangles']} != {want['triangles']}")
            if got["mesh_objects"] != want["mesh_objects"]:
                problems.append(f"mesh objects {got['mesh_objects']} != {want['mesh_objects']}")
            if got["lights"] != want["lights"]:
                problems.append(f"lights {got['lights']} != {want['lights']}")
            if got["empties"] != want["entities"] - want["lights"] + want["props"]:
                problems.append(f"empties {got['empties']} != entities {want['entities']} - lights {want['lights']} + props {want['props']}")
            # The export splits materials by lightmap page only; vertex light splits them too.
            if got["materials"] != want["materials"] or got["materials"] > want["export_materials"] + want["vertex_lit_materials"]:
                problems.append(f"materials {got['materials']} != {want['materials']} (the export wrote {want['export_materials']})")
            if want["triangles"] and "UVMap" not in got["uv_maps"]:
                problems.append("no UVMap")
            if want["triangles"] and want["lightmap_pages"]:
                if "Lightmap" not in got["uv_maps"] or not got["lightmapped_materials"]:
                    problems.append(f"{want['lightmap_pages']} lightmap pages, but no lightmapped material / Lightmap UV map")
            if got["vertex_lit_materials"] != want["vertex_lit_materials"]:
                problems.append(f"vertex-lit materials {got['vertex_lit_materials']} != {want['vertex_lit_materials']}")
            if got["textured"] != want["textured"]:
                problems.append(f"textured materials {got['textured']} != decoded textures in use {want['textured']}")
            if got["alpha"] != want["alpha"]:
                problems.append(f"alpha modes {got['alpha']} != {want['alpha']}")
            # Every entity's keys are custom properties of its object (first value of a key).
            for i, pairs in enumerate(want["entity_pairs"]):
                props = got["entity_keys"].get(i)
                if props is None:
                    problems.append(f"entity {i} has no object")
                    break
                first = {}
                for k, v in pairs:
                    first.setdefault(k[:63], v)
                wrong = [k for k, v in first.items() if props.get(k) != v]
                if wrong:
                    problems.append(f"entity {i}: keys {wrong[:5]} differ")
                    break
            if not args.no_render and want["triangles"]:
                png = os.path.join(args.out, f"{family}__{name}.png")
                r["render"] = render(scene, collection, png, args.samples, args.size)
                r["render"]["file"] = png
                if r["render"]["coverage"] < 0.05:
                    problems.append(f"render covers {r['render']['coverage']:.1%} of the frame")
                if max(r["render"]["mean_rgb"]) < 0.05:
                    problems.append(f"render is black where the map is drawn: mean {r['render']['mean_rgb']}")
            r["problems"] = problems
            failures += [f"{given}: {p}" for p in problems]
            results.append(r)
            for k in ("entity_keys",):
                got.pop(k)
            want.pop("entity_pairs")
            print("bspkit-blender:", json.dumps({k: r[k] for k in ("map", "family", "import_seconds", "got", "problems")}), flush=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    if failures:
        raise AssertionError("\n".join(failures))


main()

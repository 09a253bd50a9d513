"""Render a GLB in Blender the way a new user sees it after File > Import > glTF 2.0.

    blender -b --factory-startup --python-exit-code 1 --python tools/blender/render_glb.py -- \
        MAP.glb OUT.png [WHITE.png] [+ MAP2.glb OUT2.png [WHITE2.png] ...]

Imports MAP.glb with Blender's built-in glTF importer and its default options, puts a camera
inside the map's bounding box (a third of the way from the centre to the upper +X +Y corner,
looking at the lower -X -Y corner, 12 mm lens), a black world and no lamps, and renders with
Cycles on the CPU (192 x 144, 16 samples, "Standard" view transform) into OUT.png. With
WHITE.png, every colour attribute (glTF COLOR_0) is then set to white and the picture made
again: the difference between the two is what the vertex colours carry. Prints one line
`BSPKIT_STATS {json}` (or `BSPKIT_SKIP reason` when the importer cannot run) with each picture's mean and standard deviation of its RGB values (0..1)
and the mean absolute difference between them. Several GLBs, separated by `+`, are each rendered
the same way from factory settings, in one Blender start (about 2.5 s of CPU each saved), one
line each in order.
"""

import json
import math
import sys

import bpy
from mathutils import Vector

try:
    import numpy  # Blender's glTF importer needs it (Debian: python3-numpy)
except ImportError:
    print("BSPKIT_SKIP Blender's Python has no NumPy, which its glTF importer needs (Debian: python3-numpy)")
    sys.exit(0)

# Debian 12's Blender 3.4.1 importer calls `numpy.bool`, which NumPy 1.24 (Debian's
# python3-numpy) removed; the alias it meant is the builtin.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]


def render(scene, path):
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(path)
    px = list(img.pixels)
    rgb = [px[i + k] for i in range(0, len(px), 4) for k in range(3)]
    mean = sum(rgb) / len(rgb)
    dev = math.sqrt(sum((v - mean) ** 2 for v in rgb) / len(rgb))
    return rgb, {"mean": mean, "deviation": dev}


def job(glb, out, white=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    scene = bpy.context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if not meshes:
        raise SystemExit("no mesh imported from " + glb)
    corners = [o.matrix_world @ Vector(c) for o in meshes for c in o.bound_box]
    lo = Vector([min(p[k] for p in corners) for k in range(3)])
    hi = Vector([max(p[k] for p in corners) for k in range(3)])
    centre, half = (lo + hi) / 2, (hi - lo) / 2

    cam_data = bpy.data.cameras.new("camera")
    cam_data.lens = 12
    cam = bpy.data.objects.new("camera", cam_data)
    scene.collection.objects.link(cam)
    scene.camera = cam
    cam.location = centre + Vector((half.x, half.y, half.z)) / 3
    target = centre - Vector((half.x, half.y, half.z))
    cam.rotation_euler = (target - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam_data.clip_start = max(1e-3, min(half) * 1e-3)
    cam_data.clip_end = max(half) * 10

    world = bpy.data.worlds.new("black")
    world.color = (0, 0, 0)
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0, 0, 0, 1)
    scene.world = world
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 16
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = 192, 144
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "PNG"

    stats = {"meshes": len(meshes), "colour_attributes": sum(len(o.data.color_attributes) for o in meshes)}
    lit, stats["picture"] = render(scene, out)
    if white:
        for o in meshes:
            for attr in o.data.color_attributes:
                for d in attr.data:
                    d.color = (1.0, 1.0, 1.0, d.color[3])
        plain, stats["white"] = render(scene, white)
        stats["difference"] = sum(abs(a - b) for a, b in zip(lit, plain)) / len(lit)
    print("BSPKIT_STATS " + json.dumps(stats))


# Jobs separated by "+": each starts from factory settings, as a Blender start of its own does.
jobs, current = [], []
for a in args + ["+"]:
    if a == "+":
        jobs.append(current)
        current = []
    else:
        current.append(a)
for j in jobs:
    job(*j)

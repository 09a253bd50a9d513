"""A bspkit map as Blender data: meshes, materials, images, empties, lights.

Everything heavy is done by ``bspkit`` (the Rust library): the scene (``Bsp.scene()``: one model
per brush model, whole vertex / index buffers and per-triangle material, lightmap page and
surface flags as NumPy arrays), the lightmap atlases and the decoded textures. This module moves
those arrays into Blender with ``foreach_set`` (no Python loop per vertex or per face) and builds
node trees: texture (UV map ``UVMap``) × lightmap (UV map ``Lightmap``).

Frames: bspkit gives game coordinates, Z up, right-handed, as Blender's; only ``scale`` applies.
UVs: bspkit's have V down (as glTF); Blender's V up, so V becomes 1 − V, and images (rows top
first in bspkit, bottom first in Blender) are flipped.
"""

import math
import os
from dataclasses import dataclass, field
from typing import List

import bpy
import numpy as np

from . import ensure_bspkit

# Surface kinds the game never draws as themselves (bspkit's `bsp export` default skip).
HIDDEN = ("sky", "nodraw", "trigger", "clip", "tool")
# Entities drawn as Blender lights (their classnames; Quake's torches and flames are point lights).
SPOT_CLASSES = ("light_spot", "light_spot_dynamic", "point_spotlight")
SUN_CLASSES = ("light_environment", "light_sun", "sun")
# The "lightmap page" of triangles lit by their vertex colours.
VERTEX_LIT = -2
# Direction (unit, Z up) of the fixed light that shades surfaces without baked lighting.
UNLIT_LIGHT = (0.3748, 0.2249, 0.8994)


@dataclass
class Options:
    scale: float = 0.0254
    textures: bool = True
    lightmaps: bool = True
    lightmap_strength: float = 1.0
    shading: str = "BAKED"
    entities: bool = True
    lights: bool = True
    props: bool = True
    skip_hidden: bool = True
    cull_backfaces: bool = True
    game_dirs: List[str] = field(default_factory=list)
    wads: List[str] = field(default_factory=list)
    palette: str = ""


def import_path(context, path, opts, entry=None):
    """Import the map at ``path`` (``.bsp`` / ``.d3dbsp``; for a ``.pk3`` / ``.zip``, its map
    ``entry`` or the first one). Returns the summary of :func:`import_bsp`."""
    bspkit = ensure_bspkit()
    source = path
    name = os.path.splitext(os.path.basename(path))[0]
    if path.lower().endswith((".pk3", ".zip")):
        maps = bspkit.archive_maps(path)
        if not maps:
            raise ValueError(f"{path}: no .bsp / .d3dbsp inside")
        if entry is not None and entry not in maps:
            raise ValueError(f"{path}: no map {entry!r} inside (it has {', '.join(maps[:10])})")
        entry = entry or maps[0]
        source = f"{path}!{entry}"
        name = os.path.splitext(os.path.basename(entry))[0]
    bsp = bspkit.load(source)
    return import_bsp(context, bsp, opts, name=name)


def import_bsp(context, bsp, opts, name="map"):
    """Build the opened map ``bsp`` into a new collection named ``name`` in ``context.scene``.
    Returns what was made: ``{"name", "family", "collection", "mesh_objects", "triangles",
    "degenerate", "materials", "empties", "lights", "props", "textures", "textures_missing",
    "lightmap_pages", "warnings"}``."""
    bspkit = ensure_bspkit()
    summary = {
        "name": name,
        "family": bsp.family,
        "branch": bsp.branch,
        "mesh_objects": 0,
        "triangles": 0,
        "degenerate": 0,
        "materials": 0,
        "empties": 0,
        "lights": 0,
        "props": 0,
        "textures": 0,
        "textures_missing": 0,
        "lightmap_pages": 0,
        "overbright": 1.0,
        "warnings": [],
    }
    root = bpy.data.collections.new(name)
    context.scene.collection.children.link(root)
    summary["collection"] = root.name

    def sub(label):
        c = bpy.data.collections.new(f"{name} {label}")
        root.children.link(c)
        return c

    geometry = sub("geometry")
    scene = bsp.scene()
    summary["warnings"].extend(scene.warnings)
    images = _texture_images(bsp, opts, summary) if opts.textures else {}
    pages = _lightmap_images(bsp, name, summary) if opts.lightmaps else {}
    hidden = sum(bspkit.SURFACE_FLAGS[k] for k in HIDDEN) if opts.skip_hidden else 0
    materials = _Materials(scene, images, pages, opts, summary.get("overbright", 1.0))

    for model in scene.models:
        obj = _model_object(model, hidden, materials, opts, summary)
        if obj is not None:
            geometry.objects.link(obj)
    summary["materials"] = len(materials.made)

    if opts.entities or opts.lights:
        entities = sub("entities") if opts.entities else None
        lights = sub("lights") if opts.lights else None
        for partition, ents in _entity_lists(bsp):
            for i, e in enumerate(ents):
                _entity_object(e, i, partition, entities, lights, opts, summary)
    if opts.props and scene.props:
        props = sub("props")
        for p in scene.props:
            _prop_object(p, props, opts)
            summary["props"] += 1
    return summary


# ---------------------------------------------------------------------------------------------
# Images


def _image(name, rgba, alpha=True):
    """A packed Blender image from a (height, width, 4) uint8 array, rows top first."""
    h, w = rgba.shape[:2]
    img = bpy.data.images.new(name, width=w, height=h, alpha=alpha)
    px = np.ascontiguousarray(rgba[::-1], dtype=np.float32).reshape(-1) / np.float32(255.0)
    img.pixels.foreach_set(px)
    img.pack()
    return img


def _texture_images(bsp, opts, summary):
    """Material name (lower case) → (image, alpha mode, cutoff) for every texture bspkit
    decodes; the rest are counted as missing (their materials get a flat colour)."""
    out = {}
    kw = {"game_dirs": opts.game_dirs, "wads": opts.wads}
    if opts.palette:
        kw["palette"] = opts.palette
    for t in bsp.texture_arrays(**kw):
        if "missing" in t:
            summary["textures_missing"] += 1
            continue
        rgba = t["rgba"]
        if rgba.size == 0:
            summary["textures_missing"] += 1
            continue
        img = _image(t["name"], rgba)
        out[t["name"].lower()] = (img, t.get("alpha", "opaque"), t.get("alpha_cutoff", 0.5))
        summary["textures"] += 1
    return out


def _lightmap_images(bsp, name, summary):
    """Lightmap page → image (light style 0, first layer: what the game shows by default)."""
    out = {}
    try:
        atlases = bsp.lightmap_atlases()
    except Exception as e:  # a map whose lighting cannot be decoded still imports, unlit
        summary["warnings"].append(f"lightmaps: {e}")
        return out
    best = {}
    for a in atlases:
        key = (a["style"], a["layer"])
        if a["page"] not in best or key < best[a["page"]][0]:
            best[a["page"]] = (key, a)
    if any(a.get("placeholder") for a in atlases):
        # Placeholders or a compile without lights (the corpus's Titanfall 2 maps; the library's
        # rule, `Lightmaps::is_placeholder`): texture × black would hide the map, so it imports
        # unlit, as `bsp render` and `bsp view` show it.
        summary["warnings"].append("lightmaps: every texel is black (placeholders or no lights compiled): imported unlit")
        return out
    for page, (_, a) in sorted(best.items()):
        summary["overbright"] = float(a.get("overbright", 1.0))
        rgb = a["rgb"]
        rgba = np.empty(rgb.shape[:2] + (4,), np.uint8)
        rgba[..., :3] = rgb
        rgba[..., 3] = 255
        out[page] = _image(f"{name} lightmap {page}", rgba, alpha=False)
    summary["lightmap_pages"] = len(out)
    return out


# ---------------------------------------------------------------------------------------------
# Materials


def _flat_colour(name):
    """A stable, mid-grey-ish tint per texture name for textures that are not available, so
    surfaces stay told apart (and the lightmap shows)."""
    h = 2166136261
    for b in name.lower().encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    r, g, b = ((h >> s) & 0xFF for s in (0, 8, 16))
    return (0.35 + 0.4 * r / 255, 0.35 + 0.4 * g / 255, 0.35 + 0.4 * b / 255, 1.0)


def _multiply(nodes, links, a, b):
    """A colour multiply node (Mix in Blender 3.4+, MixRGB before) of sockets a × b."""
    try:
        m = nodes.new("ShaderNodeMix")
        m.data_type = "RGBA"
        m.blend_type = "MULTIPLY"
        m.inputs[0].default_value = 1.0
        ins = [s for s in m.inputs if s.type == "RGBA"]
        out = next(s for s in m.outputs if s.type == "RGBA")
    except RuntimeError:
        m = nodes.new("ShaderNodeMixRGB")
        m.blend_type = "MULTIPLY"
        m.inputs["Fac"].default_value = 1.0
        ins = [m.inputs["Color1"], m.inputs["Color2"]]
        out = m.outputs["Color"]
    links.new(a, ins[0])
    links.new(b, ins[1])
    return out


class _Materials:
    """One Blender material per (map material, lightmap page), made on first use."""

    def __init__(self, scene, images, pages, opts, overbright=1.0):
        self.overbright = overbright
        self.names = scene.materials
        self.flags = scene.material_flags
        self.images = images
        self.pages = pages
        self.opts = opts
        self.made = {}

    def get(self, material, page):
        key = (int(material), int(page) if page in self.pages or page == VERTEX_LIT else -1)
        mat = self.made.get(key)
        if mat is None:
            mat = self.made[key] = self._make(*key)
        return mat

    def _make(self, material, page):
        o = self.opts
        name = self.names[material] if material < len(self.names) else f"material {material}"
        if page == VERTEX_LIT:
            label = f"{name} [vertex light]"
        else:
            label = name if page < 0 or len(self.pages) < 2 else f"{name} [lightmap {page}]"
        mat = bpy.data.materials.new(label)
        mat["bspkit_material"] = name
        mat.use_nodes = True
        nt = mat.node_tree
        nodes, links = nt.nodes, nt.links
        nodes.clear()
        out = nodes.new("ShaderNodeOutputMaterial")
        tex = self.images.get(name.lower())
        alpha_mode, alpha = "opaque", None
        if tex is not None:
            img, alpha_mode, cutoff = tex
            uv = nodes.new("ShaderNodeUVMap")
            uv.uv_map = "UVMap"
            t = nodes.new("ShaderNodeTexImage")
            t.image = img
            links.new(uv.outputs["UV"], t.inputs["Vector"])
            colour, alpha = t.outputs["Color"], t.outputs["Alpha"]
        else:
            rgb = nodes.new("ShaderNodeRGB")
            rgb.outputs[0].default_value = _flat_colour(name)
            colour = rgb.outputs[0]
        lit = page >= 0
        if page == VERTEX_LIT:
            vc = nodes.new("ShaderNodeVertexColor")
            vc.layer_name = "Colour"
            colour = _multiply(nodes, links, colour, vc.outputs["Color"])
        elif not lit and o.shading == "BAKED":
            # No baked light for this surface: shade by the normal against a fixed light, as
            # `bsp render` does for unlit maps, so shapes read instead of a flat silhouette.
            geo = nodes.new("ShaderNodeNewGeometry")
            dot = nodes.new("ShaderNodeVectorMath")
            dot.operation = "DOT_PRODUCT"
            links.new(geo.outputs["Normal"], dot.inputs[0])
            dot.inputs[1].default_value = UNLIT_LIGHT
            shade = nodes.new("ShaderNodeMath")
            shade.operation = "MULTIPLY_ADD"
            shade.use_clamp = True
            links.new(dot.outputs["Value"], shade.inputs[0])
            shade.inputs[1].default_value = 0.35
            shade.inputs[2].default_value = 0.65
            colour = _multiply(nodes, links, colour, shade.outputs[0])
        if lit:
            uv = nodes.new("ShaderNodeUVMap")
            uv.uv_map = "Lightmap"
            lm = nodes.new("ShaderNodeTexImage")
            lm.image = self.pages[page]
            lm.label = "Lightmap"
            links.new(uv.outputs["UV"], lm.inputs["Vector"])
            colour = _multiply(nodes, links, colour, lm.outputs["Color"])
        if o.shading == "BAKED":
            shader = nodes.new("ShaderNodeEmission")
            links.new(colour, shader.inputs["Color"])
            # The engines multiply texture × lightmap × overbright in gamma space; Blender
            # multiplies linear values, where that factor is overbright ** 2.2.
            shader.inputs["Strength"].default_value = o.lightmap_strength * self.overbright**2.2 if lit else 1.0
        else:
            shader = nodes.new("ShaderNodeBsdfPrincipled")
            links.new(colour, shader.inputs["Base Color"])
        # Opacity: the texture's alpha (blended, or tested against its cutoff), times "not a
        # back face" when faces are one-sided.
        opacity = None
        if alpha is not None and alpha_mode == "blend":
            opacity = alpha
        elif alpha is not None and alpha_mode == "mask":
            gt = nodes.new("ShaderNodeMath")
            gt.operation = "GREATER_THAN"
            links.new(alpha, gt.inputs[0])
            gt.inputs[1].default_value = max(0.0, cutoff - 1e-4)
            opacity = gt.outputs[0]
        if o.cull_backfaces:
            geo = nodes.new("ShaderNodeNewGeometry")
            front = nodes.new("ShaderNodeMath")
            front.operation = "SUBTRACT"
            front.inputs[0].default_value = 1.0
            links.new(geo.outputs["Backfacing"], front.inputs[1])
            if opacity is None:
                opacity = front.outputs[0]
            else:
                both = nodes.new("ShaderNodeMath")
                both.operation = "MULTIPLY"
                links.new(opacity, both.inputs[0])
                links.new(front.outputs[0], both.inputs[1])
                opacity = both.outputs[0]
            mat.use_backface_culling = True
        if opacity is not None:
            clear = nodes.new("ShaderNodeBsdfTransparent")
            mix = nodes.new("ShaderNodeMixShader")
            links.new(opacity, mix.inputs[0])
            links.new(clear.outputs[0], mix.inputs[1])
            links.new(shader.outputs[0], mix.inputs[2])
            shader = mix
        links.new(shader.outputs[0], out.inputs["Surface"])
        _blend_method(mat, alpha_mode)
        mat["bspkit_alpha"] = alpha_mode
        mat["bspkit_flags"] = ", ".join(self.flags[material]) if material < len(self.flags) else ""
        _layout(nodes, links, out)
        return mat


def _blend_method(mat, alpha_mode):
    """Eevee's alpha handling (Cycles reads the node tree alone)."""
    if alpha_mode == "opaque":
        return
    want = {"mask": ("CLIP", "HASHED"), "blend": ("BLEND", "HASHED")}[alpha_mode]
    for method in want:
        try:
            mat.blend_method = method
            return
        except (TypeError, AttributeError):
            continue


def _layout(nodes, links, out):
    """Nodes in columns right to left from the output, so the tree reads in the editor."""
    feeds = {}
    for link in links:  # one pass over the links (a socket's `.links` scans them all each time)
        feeds.setdefault(link.to_node.name, []).append(link.from_node.name)
    depth = {out.name: 0}
    todo = [out.name]
    while todo:
        name = todo.pop()
        for src in feeds.get(name, ()):
            if depth.get(src, -1) < depth[name] + 1:
                depth[src] = depth[name] + 1
                todo.append(src)
    rows = {}
    for n in nodes:
        d = depth.get(n.name, 0)
        r = rows.get(d, 0)
        rows[d] = r + 1
        n.location = (-260 * d, -220 * r)


# ---------------------------------------------------------------------------------------------
# Geometry


def _rotation(angles):
    """Game (pitch, yaw, roll) degrees → Blender XYZ Euler radians: both rotate as
    Rz(yaw)·Ry(pitch)·Rx(roll), Z up."""
    pitch, yaw, roll = (float(a) for a in angles)
    return (math.radians(roll), math.radians(pitch), math.radians(yaw))


def _carries_light(colours, tris):
    """Per triangle: do its vertex colours hold baked light (Quake 3's vertex-lit surfaces)?
    Not when all black (Respawn stores zeros) or all white (Source displacements keep their
    blend alpha there, CoD4 and Genesis3D store white): such surfaces are shaded by the normal."""
    rgb = colours[tris][:, :, :3].reshape(len(tris), 9)
    return ~((rgb == 0).all(axis=1) | (rgb == 255).all(axis=1))


def _model_object(model, hidden, materials, opts, summary):
    """One mesh object for a model (world or brush model), or None when it draws nothing."""
    d = model.numpy()
    idx = d["indices"]
    keep = np.ones(len(idx), bool)
    if hidden:
        keep &= (d["flags"] & hidden) == 0
    # Triangles with a repeated corner are not valid Blender faces: left out, counted.
    degenerate = (idx[:, 0] == idx[:, 1]) | (idx[:, 1] == idx[:, 2]) | (idx[:, 0] == idx[:, 2])
    summary["degenerate"] += int(np.count_nonzero(keep & degenerate))
    keep &= ~degenerate
    idx = idx[keep]
    if len(idx) == 0:
        return None
    used, inverse = np.unique(idx, return_inverse=True)
    tris = inverse.reshape(-1, 3).astype(np.int32)
    n, t = len(used), len(tris)
    me = bpy.data.meshes.new(model.name)
    me.vertices.add(n)
    me.vertices.foreach_set("co", (d["position"][used] * np.float32(opts.scale)).reshape(-1))
    me.loops.add(3 * t)
    me.loops.foreach_set("vertex_index", tris.reshape(-1))
    me.polygons.add(t)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * t, 3, dtype=np.int32))
    try:  # read-only (derived from loop_start) since Blender 4.0
        me.polygons.foreach_set("loop_total", np.full(t, 3, np.int32))
    except (AttributeError, TypeError, RuntimeError):
        pass
    corner = used[tris.reshape(-1)]  # each loop's vertex in bspkit's buffers
    for key, label in (("uv0", "UVMap"), ("uv1", "Lightmap")):
        uv = d[key]
        if len(uv) != len(d["position"]) or (key == "uv1" and not materials.pages):
            continue
        a = uv[corner].astype(np.float32)
        a[:, 1] = 1.0 - a[:, 1]
        layer = me.uv_layers.new(name=label)
        layer.data.foreach_set("uv", a.reshape(-1))
    col = d["colour"]
    if len(col) == len(d["position"]) and hasattr(me, "color_attributes"):
        attr = me.color_attributes.new("Colour", "BYTE_COLOR", "POINT")
        attr.data.foreach_set("color", (col[used].astype(np.float32) / 255.0).reshape(-1))
    # Material slots: one per (material, light) this model uses; light is a lightmap page with
    # an image, VERTEX_LIT, or -1 (shaded by the normal).
    mat = d["material"][keep].astype(np.int64)
    page = d["lightmap_page"][keep].astype(np.int64)
    page = np.where(np.isin(page, list(materials.pages)), page, -1)
    if len(col) == len(d["position"]) and len(col):
        page = np.where((page < 0) & _carries_light(col, idx), VERTEX_LIT, page)
    key = mat * (1 << 20) + (page - VERTEX_LIT)
    slots, slot_of = np.unique(key, return_inverse=True)
    for k in slots:
        me.materials.append(materials.get(int(k) >> 20, int(k & ((1 << 20) - 1)) + VERTEX_LIT))
    me.polygons.foreach_set("material_index", slot_of.astype(np.int32).reshape(-1))
    normals = d["normal"]
    me.update()
    if len(normals) == len(d["position"]):
        if hasattr(me, "use_auto_smooth"):  # Blender < 4.1: custom normals need it
            me.use_auto_smooth = True
            me.auto_smooth_angle = math.pi
        me.polygons.foreach_set("use_smooth", np.ones(t, bool))
        me.normals_split_custom_set_from_vertices(normals[used])
    me.validate(clean_customdata=False)
    obj = bpy.data.objects.new(model.name, me)
    obj.location = tuple(float(x) * opts.scale for x in model.origin)
    obj.rotation_euler = _rotation(model.angles)
    obj["bspkit_model"] = int(model.index)
    if model.entity is not None:
        obj["bspkit_entity"] = int(model.entity)
    summary["mesh_objects"] += 1
    summary["triangles"] += t
    return obj


# ---------------------------------------------------------------------------------------------
# Entities


def _entity_lists(bsp):
    """(partition, entities): the entity lump, and for Respawn each ``.ent`` partition."""
    yield "", bsp.ENTITIES
    if bsp.family == "respawn":
        for kind, ents in sorted(bsp.ent_partitions().items()):
            yield kind, ents


def _floats(text, n):
    try:
        v = [float(x) for x in str(text).split()]
    except ValueError:
        return None
    return v if len(v) >= n else None


def _entity_angles(e):
    """(pitch, yaw, roll) from ``angles``, or ``angle`` (yaw; −1 up, −2 down in Quake)."""
    a = _floats(e.get("angles", ""), 3)
    if a:
        pitch = _floats(e.get("pitch", ""), 1)
        return [pitch[0] if pitch else a[0], a[1], a[2]]
    y = _floats(e.get("angle", ""), 1)
    if y:
        if y[0] == -1:
            return [-90.0, 0.0, 0.0]
        if y[0] == -2:
            return [90.0, 0.0, 0.0]
        pitch = _floats(e.get("pitch", ""), 1)
        return [pitch[0] if pitch else 0.0, y[0], 0.0]
    return [0.0, 0.0, 0.0]


def _is_light(classname):
    c = classname.lower()
    return c == "light" or c.startswith("light_") or c in SPOT_CLASSES or c in SUN_CLASSES


def _keys_to_properties(obj, e, partition):
    """Every key of the entity as a custom property (a repeated key gets ``#2``, ``#3``…);
    Blender limits property names to 63 bytes."""
    seen = {}
    for k, v in e.pairs():
        n = seen.get(k, 0) + 1
        seen[k] = n
        name = k if n == 1 else f"{k}#{n}"
        obj[name.encode()[:63].decode("utf-8", "ignore") or "_"] = v
    if partition:
        obj["bspkit_partition"] = partition


def _light_data(e, classname, scale):
    """A Blender light for a light entity: colour and brightness from Quake's ``light`` +
    ``_color`` or Source's ``_light`` "r g b brightness"; spot cones from ``_cone`` /
    ``_inner_cone``. Energy: the game's reach (brightness in units) as a sphere's area."""
    c = classname.lower()
    kind = "SUN" if c in SUN_CLASSES else "SPOT" if c in SPOT_CLASSES else "POINT"
    colour, brightness = (1.0, 1.0, 1.0), 300.0
    src = _floats(e.get("_light", ""), 4)
    if src:
        colour, brightness = tuple(x / 255.0 for x in src[:3]), src[3]
    else:
        v = _floats(e.get("light", e.get("_light", "")), 1)
        if v:
            brightness = v[0]
        col = _floats(e.get("_color", e.get("color", "")), 3)
        if col:
            top = max(col[:3]) or 1.0
            colour = tuple(x / top for x in col[:3])
    light = bpy.data.lights.new(e.get("targetname") or classname, kind)
    light.color = tuple(min(1.0, max(0.0, x)) for x in colour)
    if kind == "SUN":
        light.energy = 3.0
    else:
        reach = max(1.0, abs(brightness)) * scale
        light.energy = 4.0 * math.pi * reach * reach
    if kind == "SPOT":
        cone = _floats(e.get("_cone", ""), 1)
        inner = _floats(e.get("_inner_cone", ""), 1)
        outer = cone[0] if cone else 45.0
        light.spot_size = math.radians(min(180.0, 2 * outer))
        if inner and outer > 0:
            light.spot_blend = max(0.0, min(1.0, 1.0 - inner[0] / outer))
    return light


def _entity_object(e, i, partition, entities, lights, opts, summary):
    classname = e.classname or "entity"
    light = opts.lights and lights is not None and _is_light(classname)
    if not light and entities is None:
        return
    label = classname + (f" {e['targetname']}" if "targetname" in e else "")
    if light:
        obj = bpy.data.objects.new(label, _light_data(e, classname, opts.scale))
        lights.objects.link(obj)
        summary["lights"] += 1
    else:
        obj = bpy.data.objects.new(label, None)
        obj.empty_display_type = "ARROWS" if "origin" in e else "PLAIN_AXES"
        obj.empty_display_size = 16 * opts.scale
        entities.objects.link(obj)
        summary["empties"] += 1
    origin = _floats(e.get("origin", ""), 3)
    if origin:
        obj.location = tuple(x * opts.scale for x in origin[:3])
    pitch, yaw, roll = _entity_angles(e)
    if light:
        # Blender lights shine down their −Z, a game light along its +X: Ry(pitch − 90°) turns
        # −Z onto the pitched forward vector (cos p, 0, −sin p), then Rz(yaw).
        obj.rotation_euler = (0.0, math.radians(pitch - 90.0), math.radians(yaw))
    else:
        obj.rotation_euler = _rotation((pitch, yaw, roll))
    obj["bspkit_entity"] = i
    _keys_to_properties(obj, e, partition)


def _prop_object(p, collection, opts):
    """A static prop as an empty named by its model (bspkit does not read model files)."""
    model = p["model"] or "prop"
    obj = bpy.data.objects.new(os.path.basename(model.replace("\\", "/")), None)
    obj.empty_display_type = "CUBE"
    obj.empty_display_size = 8 * opts.scale * (p.get("scale") or 1.0)
    obj.location = tuple(float(x) * opts.scale for x in p["origin"])
    obj.rotation_euler = _rotation(p["angles"])
    obj["model"] = model
    obj["skin"] = int(p["skin"])
    obj["solid"] = int(p["solid"])
    if p.get("scale") not in (None, 1.0):
        obj["scale"] = float(p["scale"])
    collection.objects.link(obj)
    return obj

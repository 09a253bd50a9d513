"""bspkit for Blender: File › Import › BSP (.bsp, .d3dbsp, and maps inside .pk3 / .zip).

The map is read by the ``bspkit`` Python package (the Rust library's binding); this add-on only
turns its arrays into Blender data (``importer.py``). ``bspkit`` is found, in this order:

1. already importable in Blender's Python (``python -m pip install bspkit`` with Blender's
   own interpreter, or on ``PYTHONPATH``);
2. a copy vendored into this add-on's ``vendor/`` folder by ``scripts/build_blender_addon.py
   --wheel …`` (the abi3 wheel unpacked: one platform per zip);
3. for a Blender 4.2+ extension, the wheel listed in ``blender_manifest.toml``, which Blender
   installs itself.

NumPy must be importable too: Blender's official builds bundle it; Debian's ``blender`` package
needs ``python3-numpy``.
"""

bl_info = {
    "name": "bspkit BSP importer",
    "author": "bspkit contributors",
    "version": (0, 1, 0),
    "blender": (3, 0, 0),
    "location": "File > Import > BSP (.bsp, .d3dbsp)",
    "description": "Import .bsp maps of every engine family (Quake, GoldSrc, Quake 2/3, Source, "
    "Titanfall, Call of Duty, Genesis3D) with textures, lightmaps, entities and lights",
    "category": "Import-Export",
}

import os
import sys

_VENDOR = os.path.join(os.path.dirname(__file__), "vendor")


def ensure_bspkit():
    """Import ``bspkit`` (see the module documentation for where it is looked for); raises
    ImportError with the ways to install it."""
    try:
        import bspkit  # noqa: F401

        return bspkit
    except ImportError:
        pass
    if os.path.isdir(_VENDOR) and _VENDOR not in sys.path:
        sys.path.insert(0, _VENDOR)
    try:
        import bspkit

        return bspkit
    except ImportError as e:
        raise ImportError(
            "the bspkit Python package is not importable in Blender's Python "
            f"({sys.executable}): install it with `<blender python> -m pip install bspkit` "
            "(or a wheel built by maturin), or use an add-on zip made with "
            f"scripts/build_blender_addon.py --wheel ({e})"
        ) from e


try:
    import bpy
    from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
    from bpy_extras.io_utils import ImportHelper
except ImportError:  # imported outside Blender (packaging script, docs): no operator
    bpy = None


if bpy is not None:

    class IMPORT_SCENE_OT_bsp(bpy.types.Operator, ImportHelper):
        """Import a .bsp / .d3dbsp map (or the maps inside a .pk3 / .zip) with bspkit"""

        bl_idname = "import_scene.bsp"
        bl_label = "Import BSP"
        bl_options = {"REGISTER", "UNDO", "PRESET"}

        filename_ext = ".bsp"
        filter_glob: StringProperty(default="*.bsp;*.d3dbsp;*.pk3;*.zip", options={"HIDDEN"})

        entry: StringProperty(
            name="Archive entry",
            description="For a .pk3 / .zip: the map inside it (maps/NAME.bsp); empty: the first map",
            default="",
        )
        scale: FloatProperty(
            name="Scale",
            description="Game units to Blender units (0.0254: inches to metres; 1: game units)",
            default=0.0254,
            min=1e-6,
            max=1000.0,
            precision=4,
        )
        textures: BoolProperty(name="Textures", description="Decode the map's textures into images", default=True)
        lightmaps: BoolProperty(
            name="Lightmaps",
            description="Multiply each texture by the baked lightmap (UV map 2, 'Lightmap')",
            default=True,
        )
        lightmap_strength: FloatProperty(
            name="Lightmap strength",
            description="Brightness factor of the baked lighting, on top of the map's own overbright",
            default=1.0,
            min=0.0,
            max=16.0,
        )
        shading: EnumProperty(
            name="Shading",
            items=(
                ("BAKED", "Baked (emission)", "Texture × lightmap as emission: the map as the game draws it"),
                ("PRINCIPLED", "Principled", "Texture × lightmap as a Principled BSDF base colour, lit by Blender"),
            ),
            default="BAKED",
        )
        entities: BoolProperty(name="Entities", description="Entities as empties with their keys as custom properties", default=True)
        lights: BoolProperty(name="Lights", description="Light entities as Blender lights", default=True)
        props: BoolProperty(name="Static props", description="Static props as placeholder empties named by their model", default=True)
        skip_hidden: BoolProperty(
            name="Skip hidden surfaces",
            description="Leave out sky, nodraw, trigger, clip and tool faces (as bsp export does)",
            default=True,
        )
        cull_backfaces: BoolProperty(
            name="Cull back faces",
            description="Faces are one-sided in the game: their backs are transparent (see into the map from outside)",
            default=True,
        )
        game_dir: StringProperty(
            name="Game folder",
            description="Folder with the game's textures (.wad / .pak / .pk3 / .vpk / loose files), optional",
            default="",
            subtype="DIR_PATH",
        )

        def execute(self, context):
            try:
                ensure_bspkit()
            except ImportError as e:
                self.report({"ERROR"}, str(e))
                return {"CANCELLED"}
            from . import importer

            opts = importer.Options(
                scale=self.scale,
                textures=self.textures,
                lightmaps=self.lightmaps,
                lightmap_strength=self.lightmap_strength,
                shading=self.shading,
                entities=self.entities,
                lights=self.lights,
                props=self.props,
                skip_hidden=self.skip_hidden,
                cull_backfaces=self.cull_backfaces,
                game_dirs=[self.game_dir] if self.game_dir else [],
            )
            try:
                summary = importer.import_path(context, self.filepath, opts, entry=self.entry or None)
            except Exception as e:  # bspkit.BspError names the file, lump and offset
                self.report({"ERROR"}, f"{os.path.basename(self.filepath)}: {e}")
                return {"CANCELLED"}
            for w in summary["warnings"][:5]:
                self.report({"WARNING"}, w)
            self.report(
                {"INFO"},
                f"{summary['name']}: {summary['mesh_objects']} meshes, {summary['triangles']} triangles, "
                f"{summary['materials']} materials, {summary['empties']} empties, {summary['lights']} lights",
            )
            return {"FINISHED"}

    def _menu(self, context):
        self.layout.operator(IMPORT_SCENE_OT_bsp.bl_idname, text="BSP map (.bsp, .d3dbsp)")

    def register():
        bpy.utils.register_class(IMPORT_SCENE_OT_bsp)
        bpy.types.TOPBAR_MT_file_import.append(_menu)

    def unregister():
        bpy.types.TOPBAR_MT_file_import.remove(_menu)
        bpy.utils.unregister_class(IMPORT_SCENE_OT_bsp)

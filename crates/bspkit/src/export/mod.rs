//! Geometry export (`bsp export`): a map's scene ([`crate::mesh`]) written as glTF 2.0 (`.glb`,
//! or `.gltf` + `.bin`) or Wavefront OBJ + MTL, with its textures and lightmaps as PNG images.
//!
//! ```no_run
//! use bspkit::export::{export, ExportOptions};
//! # fn main() -> bspkit::Result<()> {
//! let bsp = bspkit::Bsp::open("e1m1.bsp")?;
//! let summary = export(&bsp, "e1m1.glb".as_ref(), &ExportOptions::default())?;
//! println!("{} triangles, {} skipped faces", summary.triangles, summary.skipped.len());
//! # Ok(()) }
//! ```
//!
//! * Coordinates: game Z-up to glTF Y-up, `(x, y, z) → (x, z, −y)`, times [`ExportOptions::scale`]
//!   (default [`DEFAULT_SCALE`], inches to metres; 1 keeps game units). OBJ uses the same frame.
//! * glTF: one node per model (brush models translated and rotated by their entity's `origin`
//!   and `angles`, converted to glTF's frame), one mesh primitive per material (per material ×
//!   lightmap page with lightmaps), attributes `POSITION` (with min/max), `NORMAL`,
//!   `TEXCOORD_0`, `TEXCOORD_1` (lightmaps), `COLOR_0` (vertex colours). Static props are nodes
//!   without a mesh whose `extras` hold `{model, skin, solid, fade, lighting_origin}`.
//! * Angles (pitch, yaw, roll, degrees) rotate as `Rz(yaw) · Ry(pitch) · Rx(roll)` in game
//!   space, the convention of Quake's and Source's `AngleVectors`.
//! * Textures: each material's texture as a PNG `baseColorTexture` (alpha `MASK` with its
//!   cutoff or `BLEND` after the texture's [`AlphaMode`](crate::texture::AlphaMode)); a texture that cannot be found gets a
//!   magenta/black checker and a warning — it never fails the export. Lightmaps: the atlas page
//!   ([`crate::lightmap`], light style 0) as the material's `occlusionTexture` read through
//!   `TEXCOORD_1` ([`LightmapMode::Occlusion`], the default), or, with
//!   [`LightmapMode::Vertex`], baked into `COLOR_0` with `KHR_materials_unlit` materials, which
//!   Blender's and three.js's default glTF import show (see [`LightmapMode`]).
//! * Material `extras`: `surface_flags` (the names of [`SurfaceFlags`] its surfaces carry;
//!   surfaces of one texture with different flags get different materials) and
//!   `placeholder_texture: true` for the checker, so viewers can hide sky or clips and tell a
//!   missing texture from a real one; `lightmap_placeholder: true` on lit materials when the
//!   map's lightmaps are black placeholders ([`crate::lightmap::Lightmaps::is_placeholder`],
//!   also [`Summary::lightmap_placeholder`]): the pages are still written, and a viewer should
//!   shade such a map from its normals (`bsp view` and the Blender add-on do). In
//!   [`LightmapMode::Vertex`] the placeholders are not baked into `COLOR_0`.
//! * Skipping: surfaces whose flags meet [`ExportOptions::skip`] (default
//!   [`DEFAULT_SKIP`]: sky, nodraw, trigger, clip, tool) are left out and counted per flag. A
//!   skip set naming [`SurfaceFlags::HULL`] first flags the walls of a box sealing the map
//!   ([`mesh::hull`], the walls `bsp render` cuts away), so they are left out too.
//! * Memory: the scene is built once; the binary chunk is streamed to the file in one pass
//!   from it (only each primitive's vertex list and re-numbered indices are kept besides).

mod gltf;
mod obj;
mod parts;

use std::path::Path;

use crate::bsp::Bsp;
use crate::error::{Error, ErrorKind, Result};
use crate::mesh::{self, MeshOptions, ModelSelect, SceneLimits, SurfaceFlags};
use crate::texture::{TextureCache, TextureOptions, TextureSource};
use parts::TexturePngs;
use parts::{prepare, WriteContext};
pub use parts::{Format, OutputFile, SkippedFace, Summary, LIGHTMAP_EXTRAS};

/// Game units to metres: Quake and Source maps are drawn in inches.
pub const DEFAULT_SCALE: f32 = 0.0254;

/// Surfaces never drawn as themselves: left out unless asked for.
pub const DEFAULT_SKIP: SurfaceFlags =
    SurfaceFlags(SurfaceFlags::SKY.0 | SurfaceFlags::NODRAW.0 | SurfaceFlags::TRIGGER.0 | SurfaceFlags::CLIP.0 | SurfaceFlags::TOOL.0);

/// Where a glTF export puts the baked lighting.
///
/// Viewers differ in what they show by default: Blender's importer (3.x, 4.x) keeps an
/// `occlusionTexture` aside in a "glTF Settings"/"glTF Material Output" group that no shader
/// reads, so the lighting is invisible there; three.js's `GLTFLoader` makes it the material's
/// `aoMap`, which darkens ambient and environment light only. Both importers multiply the base
/// colour by the `COLOR_0` vertex colours and draw `KHR_materials_unlit` materials without
/// shading (Blender: an emission shader for camera rays; three.js: `MeshBasicMaterial`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LightmapMode {
    /// The atlas page as the material's `occlusionTexture` (`TEXCOORD_1`): the full-resolution
    /// lightmap for tools that read it (and bspkit's own readers), invisible in Blender.
    #[default]
    Occlusion,
    /// The lightmap sampled (bilinear, style 0, times the family's overbright, clamped to 1,
    /// converted to linear) at each vertex into `COLOR_0`, multiplied by the vertex's own colour
    /// where the map has one; materials are `KHR_materials_unlit`, so what a viewer shows is
    /// texture × baked light as in the game, at vertex resolution (a face's light varies only
    /// between its corners: soft, without sharp shadows). `TEXCOORD_1` stays; no lightmap image
    /// is written.
    Vertex,
}

impl LightmapMode {
    pub const ALL: [LightmapMode; 2] = [LightmapMode::Occlusion, LightmapMode::Vertex];
    pub fn as_str(self) -> &'static str {
        match self {
            LightmapMode::Occlusion => "occlusion",
            LightmapMode::Vertex => "vertex",
        }
    }
    pub fn from_name(name: &str) -> Option<LightmapMode> {
        LightmapMode::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// What [`export`] writes.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// `None`: from the output's extension.
    pub format: Option<Format>,
    pub models: ModelSelect,
    /// Game units to output units (default [`DEFAULT_SCALE`]).
    pub scale: f32,
    /// Surfaces with any of these flags are left out (default [`DEFAULT_SKIP`]).
    pub skip: SurfaceFlags,
    /// Quake 3 patch tessellation level (see [`MeshOptions::patch_level`]).
    pub patch_level: Option<u32>,
    /// Where textures are looked for; `None`: no textures (plain materials).
    pub textures: Option<TextureOptions>,
    /// Bake the lightmap atlases in (TEXCOORD_1 + occlusion texture, or as `lightmap_mode`
    /// says).
    pub lightmaps: bool,
    /// Where the baked lighting goes in a glTF ([`LightmapMode`]; default `Occlusion`).
    pub lightmap_mode: LightmapMode,
    /// With `lightmaps` (glTF only): read the map's HDR lighting where it has some (Source's
    /// HDR lumps, BSPX `LIGHTING_E5BGR9`) and write every lightmap image losslessly beside the
    /// output — per page × light style × bump layer a Portable Float Map of the stored values
    /// (`STEM_lightmap_p{page}_s{style}_l{layer}.pfm`) and an 8-bit PNG like the glTF's pages
    /// (same name, `.png`) — and the manifest `STEM_lightmaps.json`
    /// ([`crate::lightmap::manifest`]: each face's rectangle, styles and source offsets). The
    /// glTF itself is unchanged but for the HDR source of its 8-bit pages.
    pub hdr: bool,
    /// With lightmaps (glTF, occlusion mode): also embed each page's images of its other light
    /// styles (Quake's switchable lights, Quake 2's, RBSP's and Source's styles ≠ 0), referenced
    /// from the material's `extras.lightmap` ([`LIGHTMAP_EXTRAS`]); the material itself (its
    /// occlusion texture) stays as without them.
    pub light_styles: bool,
    /// As `light_styles`, for Source bump-mapped faces' three bump-direction layers (of every
    /// style embedded).
    pub bump_layers: bool,
    /// glTF: each primitive's faces in its `extras`, `{"face_lump": L, "faces": [face, index
    /// count, …]}` in index-buffer order, so a viewer can draw only some faces (`bsp view`'s
    /// PVS culling with [`crate::view::visibility`]).
    pub face_ranges: bool,
    /// The scene's output budget ([`crate::mesh::SceneLimits`]).
    pub limits: SceneLimits,
    /// Most lightmap atlas pixels ([`crate::lightmap::LightOptions::max_atlas_pixels`]); past
    /// it the export stops with the budget's error (it does not go on without lightmaps).
    pub max_atlas_pixels: u64,
    /// Most bytes the export may write, every file together (the output, its sidecars and the
    /// `--hdr` side files; the in-memory GLB too). Past it the export stops with the
    /// [`crate::write::set::BUDGET_WRITTEN`] error and the file being written is not made.
    pub max_written_bytes: u64,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            format: None,
            models: ModelSelect::All,
            scale: DEFAULT_SCALE,
            skip: DEFAULT_SKIP,
            patch_level: None,
            textures: Some(TextureOptions::default()),
            lightmaps: true,
            lightmap_mode: LightmapMode::Occlusion,
            hdr: false,
            light_styles: false,
            bump_layers: false,
            face_ranges: false,
            limits: SceneLimits::default(),
            max_atlas_pixels: crate::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS,
            max_written_bytes: crate::write::set::DEFAULT_MAX_WRITTEN_BYTES,
        }
    }
}

/// Write `bsp`'s geometry to `path`; see the module documentation. Problems with single faces
/// or textures are in the summary's `skipped` and `warnings`; only an unreadable map, an
/// unknown format or a file that cannot be written fail.
pub fn export(bsp: &Bsp, path: &Path, opts: &ExportOptions) -> Result<Summary> {
    export_to(bsp, path, None, opts)
}

/// [`export`] as GLB into memory: the bytes of the `.glb` file and the summary (whose `files`
/// is empty). Nothing is written; `opts.format` is taken as GLB and `opts.hdr`, whose side
/// files only exist on disk, gives a warning. `bsp view` serves this.
pub fn export_glb(bsp: &Bsp, opts: &ExportOptions) -> Result<(Vec<u8>, Summary)> {
    export_glb_inspect(bsp, opts, &mut |_| {})
}

/// [`export_glb`], handing the scene it writes to `inspect` once it is built (before it is
/// written), so that a caller can learn something of it without building it a second time, or
/// amend it (`bsp view` flags the sealing box's walls, [`mesh::hull::mark`], and frames its
/// initial camera on the scene with [`crate::render::view_frame_with_hull`]).
pub fn export_glb_inspect(bsp: &Bsp, opts: &ExportOptions, inspect: &mut dyn FnMut(&mut mesh::Scene)) -> Result<(Vec<u8>, Summary)> {
    let mut bytes = Vec::new();
    let opts = ExportOptions { format: Some(Format::Glb), ..opts.clone() };
    let summary = export_to(bsp, Path::new("map.glb"), Some((&mut bytes, inspect)), &opts)?;
    Ok((bytes, summary))
}

/// Where an in-memory GLB goes, and who sees its scene.
type Memory<'a> = (&'a mut Vec<u8>, &'a mut dyn FnMut(&mut mesh::Scene));

fn export_to(bsp: &Bsp, path: &Path, memory: Option<Memory<'_>>, opts: &ExportOptions) -> Result<Summary> {
    let (memory, inspect) = match memory {
        Some((m, i)) => (Some(m), Some(i)),
        None => (None, None),
    };
    let format = opts.format.or_else(|| Format::from_path(path)).ok_or_else(|| {
        Error::malformed(format!("{}: unknown output format (the name should end in .glb, .gltf or .obj)", path.display()))
    })?;
    if !(opts.scale.is_finite() && opts.scale > 0.0) {
        return Err(Error::malformed(format!("scale {} must be a positive number", opts.scale)));
    }
    let mut summary = Summary { format: Some(format), ..Default::default() };
    let budget = crate::write::set::ByteBudget::new(opts.max_written_bytes);
    // A `.gltf` or `.obj` is a set of files: begun before anything is written, so that a FIFO
    // or device named as the output is refused first, and its links resolved once, so that
    // every part (and the --hdr side files) is named beside the file the link names.
    let set = match (format, &memory) {
        (Format::Gltf | Format::Obj, None) => Some(crate::write::set::SetWriter::begin(path, &budget)?),
        _ => None,
    };
    // A GLB is one file, but with --hdr its side files are named from it: resolve its links
    // too, so they land beside the file the link names, as a set's parts do.
    let resolved = match (&set, format, &memory) {
        (Some(s), ..) => Some(s.path().to_path_buf()),
        (None, Format::Glb, None) if opts.hdr => Some(crate::write::atomic::resolve_links(path)?),
        _ => None,
    };
    let path = resolved.as_deref().unwrap_or(path);
    if opts.hdr && (format == Format::Obj || !opts.lightmaps) {
        summary.warnings.push("hdr: no lightmaps are exported (OBJ output, or lightmaps off): no HDR side files written".into());
    }
    let lm = if opts.lightmaps && format != Format::Obj {
        // One image a page is all the glTF shows; --hdr writes every style and layer beside it.
        let light = crate::lightmap::LightOptions { hdr: opts.hdr, max_atlas_pixels: opts.max_atlas_pixels, ..Default::default() };
        let want = if opts.hdr {
            crate::lightmap::AtlasOptions::ALL
        } else {
            crate::lightmap::AtlasOptions { styles: opts.light_styles, layers: opts.bump_layers, grey: true }
        };
        match crate::lightmap::build_with(bsp, &light, want) {
            Ok(lm) => {
                summary.warnings.extend(lm.warnings.iter().filter(|w| !w.starts_with("face ") && !w.starts_with("surface ")).cloned());
                Some(lm)
            }
            Err(e) if matches!(e.kind, ErrorKind::LimitExceeded { .. } | ErrorKind::OutOfMemory { .. }) => return Err(e),
            Err(e) => {
                summary.warnings.push(format!("lightmaps: {e}; exported without them"));
                None
            }
        }
    } else {
        None
    };
    let mut lm = lm.and_then(uv_source);
    // Each page's PNG now, then the atlases' texels go: the uncompressed atlas and the scene
    // are never held at once (the faces' places, all the mesh needs, stay).
    let mut lightmap_pngs = std::collections::HashMap::new();
    // Per page: its base image's style and the PNGs of its other (style, layer) images.
    let mut lightmap_extras: std::collections::HashMap<u32, parts::PageExtras> = std::collections::HashMap::new();
    let extras_wanted = (opts.light_styles || opts.bump_layers) && format != Format::Obj;
    if extras_wanted && opts.lightmap_mode == LightmapMode::Vertex {
        summary.warnings.push("light styles / bump layers: vertex lightmap mode embeds no lightmap image; none written".into());
    }
    let mut side_files = None;
    let vertex_mode = opts.lightmap_mode == LightmapMode::Vertex && format != Format::Obj;
    // Vertex mode: each page's style-0 pixels, kept until the scene's vertices are lit.
    let mut pages: std::collections::HashMap<u32, crate::lightmap::LightPage<'static>> = std::collections::HashMap::new();
    let mut overbright = 1.0;
    if let Some(l) = lm.as_ref().filter(|l| l.is_placeholder()) {
        summary.lightmap_placeholder = true;
        summary.warnings.push(format!(
            "lightmaps: every texel of the {} lit faces is black (at most {} of 255: placeholders or no lights compiled); \
             pages written as stored, materials marked extras.lightmap_placeholder{}",
            l.faces.len(),
            l.max_byte(None),
            if vertex_mode { ", vertex colours not lit" } else { "" }
        ));
    }
    if let Some(l) = lm.as_mut() {
        if opts.hdr && memory.is_some() {
            summary.warnings.push("hdr: in-memory GLB: no HDR side files written".into());
        } else if opts.hdr {
            side_files = Some(hdr_side_files(l, path, &budget)?);
        }
        overbright = l.png_overbright();
        for page in 0..l.pages.len() as u32 {
            if vertex_mode {
                if let Some(a) = parts::lightmap_atlas(l, page) {
                    pages.insert(page, crate::lightmap::LightPage { w: a.width, h: a.height, rgb: a.rgb8().into_owned().into() });
                }
            } else if let Some(png) = parts::lightmap_png(l, page)? {
                lightmap_pngs.insert(page, png);
                if extras_wanted {
                    if let Some(e) = parts::page_extras(l, page, opts.light_styles, opts.bump_layers)? {
                        lightmap_extras.insert(page, e);
                    }
                }
            }
        }
        l.atlases = Vec::new();
    }
    let textures = opts.textures.as_ref().map(|o| TexturePngs::new(TextureCache::new(TextureSource::new(bsp, o))));
    if let Some(src) = textures.as_ref().map(|t| t.source()) {
        summary.warnings.extend(src.warnings().iter().map(|m| m.to_string()));
    }
    let size = |name: &str| textures.as_ref().and_then(|t| t.size(name));
    let mesh_opts = MeshOptions {
        models: opts.models,
        patch_level: opts.patch_level,
        lightmaps: lm.as_ref(),
        texture_size: if textures.is_some() { Some(&size) } else { None },
        no_props: format == Format::Obj,
        limits: opts.limits,
    };
    let mut scene = mesh::build(bsp, &mesh_opts)?;
    // `--skip hull`: the walls of a box sealing the map are surfaces of their own kind, as the
    // renderer decides them (drawn surfaces: not in DEFAULT_SKIP, its skip set).
    if opts.skip.intersects(SurfaceFlags::HULL) {
        if let Some(h) = mesh::hull::Hull::of(&scene, DEFAULT_SKIP) {
            mesh::hull::mark(&mut scene, &h, DEFAULT_SKIP);
        }
    }
    if let Some(f) = inspect {
        f(&mut scene);
    }
    // The scene carries every face's lightmap UVs now: the faces' places (a few hundred bytes a
    // face) go before the writer's own buffers are made.
    let lit = lm.is_some();
    let bumped = match lm.as_ref() {
        Some(l) if opts.bump_layers && !vertex_mode => parts::bump_materials(&scene, l),
        _ => Default::default(),
    };
    drop(lm);
    summary.skipped = scene.skipped.iter().map(|s| SkippedFace { lump: s.lump, index: s.index, reason: s.reason.clone() }).collect();
    summary.warnings.extend(scene.warnings.iter().cloned());
    // Placeholders baked into COLOR_0 would make every lit vertex black: left unlit.
    let vertex_light = (lit && vertex_mode && !summary.lightmap_placeholder).then(|| parts::vertex_light(&scene, &pages, overbright));
    drop(pages);
    let prepared = prepare(&scene, opts.skip, lit, &mut summary);
    let ctx = WriteContext {
        textures: textures.as_ref(),
        lightmaps: (lit && !vertex_mode).then_some(&lightmap_pngs),
        lightmap_extras: &lightmap_extras,
        lightmap_placeholder: summary.lightmap_placeholder,
        bumped: &bumped,
        face_ranges: opts.face_ranges,
        vertex_light: vertex_light.as_deref(),
        scale: opts.scale,
        budget: &budget,
    };
    match format {
        Format::Glb | Format::Gltf => gltf::write(&prepared, &ctx, path, format == Format::Glb, memory, set, &mut summary)?,
        Format::Obj => {
            let set = set.ok_or_else(|| Error::malformed("an .obj is written as a set of files"))?;
            obj::write(&prepared, &ctx, path, set, &mut summary)?
        }
    }
    // The --hdr set goes in place after the output: a failure or a crash before leaves the old
    // side files whole. Listed after the output's own files (the first is the output).
    if let Some(side) = side_files {
        for f in side.commit()? {
            parts::written(&mut summary, &f);
        }
    }
    Ok(summary)
}

/// The lightmaps a scene's lightmap UVs (`uv1`, glTF `TEXCOORD_1`) come from, or `None` when
/// they give none: a map without lit faces has no lightmap, except where the family's meshes
/// carry their own lightmap UVs (Respawn: on pages not decoded here,
/// [`FamilyOps::scene_lightmap_uvs`](crate::branches::ops::FamilyOps::scene_lightmap_uvs)),
/// written as TEXCOORD_1 without an image.
fn uv_source(lm: crate::lightmap::Lightmaps) -> Option<crate::lightmap::Lightmaps> {
    Some(lm).filter(|l| !l.faces.is_empty() || crate::branches::any::of(l.family).scene_lightmap_uvs())
}

/// The scene [`export`] writes (lightmaps on, no textures), for bindings that hand the
/// geometry over rather than writing it: its `uv1` (lightmap UVs) come from the same atlas
/// placement as the exported `TEXCOORD_1`. Lightmaps that cannot be built leave `uv1` empty,
/// with a warning in the scene, as the export does; texture sizes are not looked up (Quake 2's
/// `uv0` then assume [`mesh::FALLBACK_TEXTURE_SIZE`], with a warning).
pub fn lit_scene(bsp: &Bsp, models: ModelSelect, patch_level: Option<u32>) -> Result<mesh::Scene> {
    let light = crate::lightmap::LightOptions::default();
    let (lm, warning) = match crate::lightmap::build_with(bsp, &light, crate::lightmap::AtlasOptions::BASE) {
        Ok(mut lm) => {
            // Only the faces' places are needed: the texels go before the scene is built.
            lm.atlases = Vec::new();
            (uv_source(lm), None)
        }
        Err(e) => (None, Some(format!("lightmaps: {e}; built without lightmap UVs"))),
    };
    let opts = MeshOptions { models, patch_level, lightmaps: lm.as_ref(), ..Default::default() };
    let mut scene = mesh::build(bsp, &opts)?;
    scene.warnings.extend(warning);
    Ok(scene)
}

/// Lightmap images and the manifest naming them (`bsp lightmaps --out`, `bsp export --hdr`),
/// staged as one set ([`crate::write::set`]): the manifest is the set's main file, so a crash or
/// a failure (the written-bytes budget, a full disk) leaves the old images and the old manifest
/// whole, and a re-run into the same place writes the images under free `~N` names while the old
/// ones are still named by the old manifest. Put in place by [`LightmapFiles::commit`].
pub struct LightmapFiles<'b> {
    set: crate::write::set::SetWriter<'b>,
    /// The manifest written ([`crate::lightmap::manifest`] with the caller's additions).
    pub manifest: serde_json::Value,
    /// Per atlas: its PNG's and its PFM's file names (beside the manifest).
    pub files: Vec<(Option<String>, Option<String>)>,
}

/// How [`stage_lightmap_files`] writes the files.
pub struct LightmapFileOptions<'a> {
    /// Prefix of every image name (`lightmap_p0_s0_l0.png`): `""`, or `"OUT_"` beside an export.
    pub prefix: &'a str,
    /// Also a Portable Float Map (exact samples) per atlas.
    pub pfm: bool,
    /// Written into this folder under the folder rule ([`crate::write::folder`]): a link or
    /// special file in the way of a name is refused, not written through.
    pub folder: Option<&'a Path>,
}

/// Stage every atlas of `lm` as a PNG (`png` encodes it; and a PFM with `o.pfm`) and the
/// manifest at `manifest` (its JSON passed through `amend` first), counted against `budget`.
/// Nothing is in place until [`LightmapFiles::commit`]; dropped before, every temporary goes.
pub fn stage_lightmap_files<'b>(
    lm: &crate::lightmap::Lightmaps,
    manifest: &Path,
    o: &LightmapFileOptions,
    budget: &'b crate::write::set::ByteBudget,
    png: impl Fn(&crate::lightmap::Atlas) -> Result<Vec<u8>>,
    amend: impl FnOnce(&mut serde_json::Value),
) -> Result<LightmapFiles<'b>> {
    let rule = |name: &str| match o.folder {
        Some(dir) => crate::write::folder::check_below(dir, Path::new(name), false),
        None => Ok(()),
    };
    if let Some(n) = manifest.file_name() {
        rule(&n.to_string_lossy())?;
    }
    let mut set = crate::write::set::SetWriter::begin(manifest, budget)?.owning(&format!("{}lightmap", o.prefix));
    let mut files = Vec::with_capacity(lm.atlases.len());
    for a in &lm.atlases {
        let stem = format!("{}{}", o.prefix, a.file_stem());
        let mut one = |ext: &str, bytes: Vec<u8>| -> Result<String> {
            let wanted = format!("{stem}.{ext}");
            rule(&wanted)?;
            let name = set.name(&wanted);
            set.sidecar(&name, |w| w.write_all(&bytes))?;
            Ok(name)
        };
        let p = one("png", png(a)?)?;
        let h = if o.pfm { Some(one("pfm", crate::lightmap::encode_pfm(a))?) } else { None };
        files.push((Some(p), h));
    }
    let mut m = crate::lightmap::manifest(lm, &files);
    amend(&mut m);
    let json = serde_json::to_vec_pretty(&m).map_err(|e| Error::malformed(format!("lightmap manifest: {e}")))?;
    set.main(|w| w.write_all(&json))?;
    Ok(LightmapFiles { set, manifest: m, files })
}

impl LightmapFiles<'_> {
    /// Put the set in place: the images in, the manifest renamed over the old one, then the
    /// images only the old manifest named removed. Returns the files, the manifest first.
    pub fn commit(self) -> Result<Vec<std::path::PathBuf>> {
        self.set.commit(|old| {
            let v: serde_json::Value = std::fs::read(old).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
            let atlases = v["atlases"].as_array().cloned().unwrap_or_default();
            atlases.iter().flat_map(|a| [&a["png"], &a["hdr"]]).filter_map(|n| n.as_str().map(str::to_string)).collect()
        })
    }
}

/// `--hdr`: every atlas of `lm` as a PNG (8-bit, as the glTF's pages) and a Portable Float Map
/// (exact) beside `path`, and the manifest `OUT_lightmaps.json`, staged as one set (put in place
/// after the export's own output).
fn hdr_side_files<'b>(
    lm: &crate::lightmap::Lightmaps,
    path: &Path,
    budget: &'b crate::write::set::ByteBudget,
) -> Result<LightmapFiles<'b>> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "export".into());
    let o = LightmapFileOptions { prefix: &format!("{stem}_"), pfm: true, folder: None };
    stage_lightmap_files(lm, &parts::beside(path, "_lightmaps.json"), &o, budget, |a| lm.atlas_png(a), |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lit_scene` carries the lightmap UVs the glTF export writes: the same placement, so the
    /// same values per vertex as a scene built with the export's atlases.
    #[test]
    fn lit_scene_has_the_exported_lightmap_uvs() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = lit_scene(&bsp, ModelSelect::All, None).unwrap();
        let world = &scene.models[0].vertices;
        assert_eq!(world.uv1.len(), world.positions.len());
        assert!(world.uv1.iter().any(|uv| *uv != [0.0, 0.0]), "the sample map is lit");
        let lm = crate::lightmap::build_with(&bsp, &Default::default(), crate::lightmap::AtlasOptions::BASE).unwrap();
        let opts = MeshOptions { models: ModelSelect::All, lightmaps: Some(&lm), ..Default::default() };
        let direct = mesh::build(&bsp, &opts).unwrap();
        assert_eq!(direct.models[0].vertices.uv1, world.uv1);
        // Without lightmaps the scene has no lightmap UVs at all (what `scene()` gave before).
        let plain = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        assert!(plain.models[0].vertices.uv1.iter().all(|uv| *uv == [0.0, 0.0]));
    }
}

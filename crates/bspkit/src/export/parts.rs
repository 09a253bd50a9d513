//! The pieces both writers share: the summary, the grouping of a scene into primitives, the
//! frame conversion, the texture cache and file helpers (kept apart from the module's driver so
//! the writers depend on them without depending on the driver).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::assets::{AlphaMode, ImageRgba};
use crate::error::Result;
use crate::lightmap::Lightmaps;
use crate::mesh::{Scene, SurfaceFlags};
use crate::texture::TextureCache;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Binary glTF: one file, images inside.
    Glb,
    /// glTF JSON with a `.bin` buffer and PNG images beside it.
    Gltf,
    /// Wavefront OBJ + MTL with PNG images beside it (no lightmaps, no props).
    Obj,
}

impl Format {
    /// The format a file name asks for by its extension.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "glb" => Some(Format::Glb),
            "gltf" => Some(Format::Gltf),
            "obj" => Some(Format::Obj),
            _ => None,
        }
    }
}

/// A face left out, as the summary lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SkippedFace {
    pub lump: u16,
    pub index: u32,
    pub reason: String,
}

/// A file written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OutputFile {
    pub path: String,
    pub bytes: u64,
}

/// What an export wrote (the `--json` output of `bsp export`; schema in README.md).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    pub format: Option<Format>,
    /// Models (nodes with geometry or without) written.
    pub models: usize,
    /// Surfaces written (after skipping).
    pub surfaces: usize,
    pub triangles: usize,
    pub vertices: usize,
    /// Materials written (glTF: per material × lightmap page).
    pub materials: usize,
    /// Textures found and embedded / written.
    pub textures: usize,
    /// Textures replaced by the checker placeholder.
    pub placeholder_textures: usize,
    pub lightmap_pages: usize,
    pub props: usize,
    /// Faces the scene could not mesh (broken references), with lump, index and reason.
    pub skipped: Vec<SkippedFace>,
    /// Surfaces left out by the skip set, per flag name (a surface with two flags counts twice).
    pub skipped_by_flag: BTreeMap<String, usize>,
    /// Surfaces left out by the skip set.
    pub skipped_surfaces: usize,
    pub warnings: Vec<String>,
    pub files: Vec<OutputFile>,
}

/// One material of the output: a scene material on one lightmap page.
#[derive(Debug, Clone)]
pub(crate) struct OutMaterial {
    pub material: u32,
    /// Lightmap page, `u32::MAX` for none.
    pub page: u32,
}

/// One primitive: a model's surfaces of one output material.
#[derive(Debug, Clone)]
pub(crate) struct Prim {
    pub material: usize,
    /// Model vertex numbers, in output order.
    pub order: Vec<u32>,
    /// Triangle indices into `order`.
    pub indices: Vec<u32>,
}

/// A scene grouped for writing.
pub(crate) struct Prepared<'s> {
    pub scene: &'s Scene,
    /// Per model: its primitives.
    pub prims: Vec<Vec<Prim>>,
    pub materials: Vec<OutMaterial>,
    pub uv1: bool,
    pub colours: bool,
}

/// Group each model's surfaces by output material, leave out the skipped ones, and number the
/// vertices each primitive uses.
pub(crate) fn prepare<'s>(scene: &'s Scene, skip: SurfaceFlags, lightmaps: bool, summary: &mut Summary) -> Prepared<'s> {
    let mut materials: Vec<OutMaterial> = Vec::new();
    let mut by_key: HashMap<(u32, u32), usize> = HashMap::new();
    let mut prims = Vec::with_capacity(scene.models.len());
    let uv1 = lightmaps && scene.models.iter().any(|m| !m.vertices.uv1.is_empty());
    let colours = scene.models.iter().any(|m| !m.vertices.colours.is_empty());
    let mut dropped = 0usize;
    for m in &scene.models {
        let n = m.vertices.len();
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (si, s) in m.surfaces.iter().enumerate() {
            let mat_flags = scene.material(s.material).map_or(SurfaceFlags::NONE, |x| x.flags);
            let flags = s.flags | mat_flags;
            if flags.intersects(skip) {
                summary.skipped_surfaces += 1;
                for name in SurfaceFlags(flags.0 & skip.0).names() {
                    *summary.skipped_by_flag.entry(name.to_string()).or_default() += 1;
                }
                continue;
            }
            let page = if uv1 { m.lightmap_pages.get(si).copied().unwrap_or(u32::MAX) } else { u32::MAX };
            let key = (s.material, page);
            let out = *by_key.entry(key).or_insert_with(|| {
                materials.push(OutMaterial { material: s.material, page });
                materials.len() - 1
            });
            groups.entry(out).or_default().push(si);
        }
        let mut remap = vec![u32::MAX; n];
        let mut list = Vec::new();
        for (material, surfaces) in groups {
            // Sized from the surfaces' ranges (an upper bound: broken triangles are left out),
            // so the copies never grow by doubling.
            let (corners, indices) = surfaces.iter().fold((0usize, 0usize), |(v, i), &si| {
                let s = &m.surfaces[si];
                (v + s.vertices.len(), i + s.indices.len())
            });
            let mut p =
                Prim { material, order: Vec::with_capacity(corners.min(n)), indices: Vec::with_capacity(indices.min(m.indices.len())) };
            let mut any = false;
            for &si in &surfaces {
                let s = &m.surfaces[si];
                let Some(idx) = m.indices.get(s.indices.start as usize..s.indices.end as usize) else {
                    dropped += 1;
                    continue;
                };
                for t in idx.chunks_exact(3) {
                    if t.iter().any(|&i| i as usize >= n) || t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                        dropped += 1;
                        continue;
                    }
                    for &i in t {
                        if remap[i as usize] == u32::MAX {
                            remap[i as usize] = p.order.len() as u32;
                            p.order.push(i);
                        }
                        p.indices.push(remap[i as usize]);
                    }
                }
                any = true;
                summary.surfaces += 1;
            }
            for &i in &p.order {
                remap[i as usize] = u32::MAX;
            }
            if any && !p.indices.is_empty() {
                summary.triangles += p.indices.len() / 3;
                summary.vertices += p.order.len();
                list.push(p);
            }
        }
        prims.push(list);
    }
    if dropped > 0 {
        summary.warnings.push(format!("{dropped} triangles with repeated or out-of-range indices left out"));
    }
    // Materials no primitive kept (a material whose only surfaces had no triangles) stay in
    // the table unused; the writers write only the used ones.
    Prepared { scene, prims, materials, uv1, colours }
}

/// Game frame (Z up) to output frame (Y up), scaled.
pub(crate) fn to_y_up(p: [f32; 3], scale: f32) -> [f32; 3] {
    [p[0] * scale, p[2] * scale, -p[1] * scale]
}

/// A unit normal in the output frame; `None` when it has no direction.
pub(crate) fn normal_y_up(n: [f32; 3]) -> Option<[f32; 3]> {
    let v = [n[0] as f64, n[2] as f64, -(n[1] as f64)];
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if !(l.is_finite() && l > 1e-6) {
        return None;
    }
    Some(v.map(|c| (c / l) as f32))
}

/// The rotation of (pitch, yaw, roll) degrees as a unit quaternion `[x, y, z, w]` in the output
/// frame.
pub(crate) fn rotation_y_up(angles: [f32; 3]) -> [f32; 4] {
    let half = |deg: f32| (deg as f64).to_radians() / 2.0;
    // Game frame: q = qz(yaw) · qy(pitch) · qx(roll).
    let q = |axis: usize, a: f64| {
        let mut v = [0.0, 0.0, 0.0, a.cos()];
        v[axis] = a.sin();
        v
    };
    let mul = |a: [f64; 4], b: [f64; 4]| {
        [
            a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
        ]
    };
    let g = mul(mul(q(2, half(angles[1])), q(1, half(angles[0]))), q(0, half(angles[2])));
    // The frame change (x, y, z) → (x, z, −y) is a proper rotation, so the quaternion's vector
    // part maps like a vector.
    let o = [g[0], g[2], -g[1], g[3]];
    let l = o.iter().map(|c| c * c).sum::<f64>().sqrt();
    if !(l.is_finite() && l > 0.0) {
        return [0.0, 0.0, 0.0, 1.0];
    }
    o.map(|c| (c / l) as f32)
}

/// The image of one output material's texture, and what to tell about it.
pub(crate) struct MaterialImage {
    pub png: Vec<u8>,
    pub alpha: AlphaMode,
    pub placeholder: bool,
}

/// A texture as the export keeps it: its PNG, not its pixels (the cache keeps its size).
struct Encoded {
    png: Vec<u8>,
    alpha: AlphaMode,
}

/// The export's textures: each is resolved once, encoded to PNG at once and its decoded pixels
/// let go ([`TextureCache::take`]), so the decoded images of a whole map, several times the size
/// of their PNGs, are never held together. The mesh asks for sizes first (its UVs), the writer
/// for each used material's PNG after.
pub(crate) struct TexturePngs<'a> {
    cache: TextureCache<'a>,
    /// Per name: the PNG, or the warning that goes with the placeholder.
    done: std::cell::RefCell<HashMap<String, std::result::Result<Encoded, String>>>,
}

impl<'a> TexturePngs<'a> {
    pub fn new(cache: TextureCache<'a>) -> Self {
        TexturePngs { cache, done: Default::default() }
    }
    pub fn source(&self) -> &crate::texture::TextureSource<'a> {
        &self.cache.source
    }
    fn encode(&self, name: &str) {
        if self.done.borrow().contains_key(name) {
            return;
        }
        let r = match self.cache.take(name) {
            Ok(t) => match t.image().encode_png() {
                Ok(png) => Ok(Encoded { png, alpha: t.alpha }),
                // A decoded image PNG cannot hold (a zero side): still never an error.
                Err(e) => Err(format!("{name} ({}): {e}; a checker placeholder is used", t.source)),
            },
            Err(m) => Err(format!("{m}; a checker placeholder is used")),
        };
        self.done.borrow_mut().insert(name.to_owned(), r);
    }
    /// The size of texture `name`, when it is found and encodes.
    pub fn size(&self, name: &str) -> Option<[u32; 2]> {
        self.encode(name);
        let encoded = self.done.borrow().get(name).is_some_and(|r| r.is_ok());
        encoded.then(|| self.cache.size(name)).flatten()
    }
    /// The PNG of texture `name`, or the checker placeholder (with a warning). Each material's
    /// image is asked for once: the PNG is handed over.
    pub fn material_image(&self, name: &str, warnings: &mut Vec<String>) -> Result<MaterialImage> {
        self.encode(name);
        let r = self.done.borrow_mut().get_mut(name).map(|r| match r {
            Ok(e) => Ok((std::mem::take(&mut e.png), e.alpha)),
            Err(w) => Err(w.clone()),
        });
        match r {
            Some(Ok((png, alpha))) if !png.is_empty() => Ok(MaterialImage { png, alpha, placeholder: false }),
            Some(Err(w)) => {
                warnings.push(w);
                Ok(MaterialImage { png: ImageRgba::checker_png()?, alpha: AlphaMode::Opaque, placeholder: true })
            }
            // Asked for twice: encoded again (the first PNG went to the writer).
            _ => {
                self.done.borrow_mut().remove(name);
                self.material_image(name, warnings)
            }
        }
    }
}

/// The PNG of lightmap page `page` (style 0 when it has one).
pub(crate) fn lightmap_png(lm: &Lightmaps, page: u32) -> Result<Option<Vec<u8>>> {
    let Some(a) = lm.atlas(page, 0, 0).or_else(|| lm.atlases.iter().find(|a| a.page == page && a.layer == 0)) else {
        return Ok(None);
    };
    lm.atlas_png(a).map(Some)
}

/// A name usable in a file name: letters, digits, `-`, `_`, `.`; the rest as `_`.
pub(crate) fn file_safe(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    let s = s.trim_matches('.').to_string();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// What the writers need besides the scene.
pub(crate) struct WriteContext<'c, 'a> {
    pub textures: Option<&'c TexturePngs<'a>>,
    /// PNG of each lightmap page (lightmaps on).
    pub lightmaps: Option<&'c HashMap<u32, Vec<u8>>>,
    pub scale: f32,
}

/// Write `path` through the library's one write primitive ([`crate::write::atomic`]: a
/// temporary file renamed over the target, links followed, FIFOs and devices written through,
/// the mode kept, nothing half-written left on an error; not synced, as an output made from the
/// map: [`crate::write::atomic::WriteOptions::OUTPUT`]), buffered; `produce` writes the contents.
pub(crate) fn write_out(path: &Path, produce: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<()> {
    crate::write::atomic::write_streaming(
        path,
        &crate::write::atomic::WriteOptions::OUTPUT,
        |w| {
            let mut b = std::io::BufWriter::with_capacity(1 << 16, w);
            produce(&mut b)?;
            std::io::Write::flush(&mut b)
        },
        |_| Ok(()),
    )?;
    Ok(())
}

/// [`write_out`] of bytes already made.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::write::atomic::write_file(path, bytes, &crate::write::atomic::WriteOptions::OUTPUT)?;
    Ok(())
}

/// Record a written file.
pub(crate) fn written(summary: &mut Summary, path: &Path) {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    summary.files.push(OutputFile { path: path.display().to_string(), bytes });
}

/// `dir/stem_suffix` beside `path`.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "export".into());
    path.with_file_name(format!("{stem}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_rotations() {
        assert_eq!(to_y_up([1.0, 2.0, 3.0], 1.0), [1.0, 3.0, -2.0]);
        assert_eq!(normal_y_up([0.0, 0.0, 2.0]), Some([0.0, 1.0, 0.0]));
        assert_eq!(normal_y_up([0.0, 0.0, 0.0]), None);
        // Yaw 90° turns game +x into game +y, which is output −z.
        let q = rotation_y_up([0.0, 90.0, 0.0]);
        let rot = |q: [f32; 4], v: [f32; 3]| {
            let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
            let u = [x, y, z];
            let cross = |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
            let t = cross(u, v).map(|c| 2.0 * c);
            let c2 = cross(u, t);
            [v[0] + w * t[0] + c2[0], v[1] + w * t[1] + c2[1], v[2] + w * t[2] + c2[2]]
        };
        let r = rot(q, [1.0, 0.0, 0.0]);
        assert!((r[0]).abs() < 1e-6 && (r[2] + 1.0).abs() < 1e-6, "{r:?}");
        // Pitch 90° turns game +x down (−z), output −y.
        let r = rot(rotation_y_up([90.0, 0.0, 0.0]), [1.0, 0.0, 0.0]);
        assert!((r[1] + 1.0).abs() < 1e-6, "{r:?}");
    }
}

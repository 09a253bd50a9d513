//! The glTF 2.0 writer: the document is built with `gltf-json` (the Khronos schema as serde
//! types), the binary data streamed from the scene in one pass.
//!
//! Layout of the binary buffer, in order: per model, per primitive, its `POSITION`, `NORMAL`,
//! `TEXCOORD_0`, (`TEXCOORD_1`), (`COLOR_0`) and index data, each its own buffer view (tightly
//! packed, 4-byte aligned), then (GLB) the PNG images. The layout pass computes every offset
//! and the positions' bounds; the write pass writes the same bytes in the same order.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use gltf_json as json;
use json::validation::{Checked::Valid, USize64};

use super::parts::{
    beside, file_safe, normal_y_up, rotation_y_up, to_y_up, write_out, written, Prepared, Prim, Summary, Walk, WriteContext,
};
use crate::assets::AlphaMode;
use crate::error::{Error, Result};
use crate::write::set::SetWriter;

/// The bytes of one image and where it goes.
struct ImageBlob {
    png: Vec<u8>,
    /// File name beside the `.gltf` (unused for GLB).
    file: String,
}

/// Builds the document while counting the binary buffer's bytes.
struct Doc {
    root: json::Root,
    len: u64,
}

impl Doc {
    fn view(&mut self, bytes: u64, target: Option<json::buffer::Target>) -> json::Index<json::buffer::View> {
        self.len = self.len.next_multiple_of(4);
        let v = json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64(bytes),
            byte_offset: Some(USize64(self.len)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        };
        self.len += bytes;
        self.root.push(v)
    }
    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        normalized: bool,
        min_max: Option<([f32; 3], [f32; 3])>,
        target: json::buffer::Target,
    ) -> json::Index<json::Accessor> {
        let size = match component {
            json::accessor::ComponentType::U8 | json::accessor::ComponentType::I8 => 1,
            json::accessor::ComponentType::U16 | json::accessor::ComponentType::I16 => 2,
            _ => 4,
        } * type_.multiplicity();
        let view = self.view((count * size) as u64, Some(target));
        let (min, max) = match min_max {
            Some((lo, hi)) => (Some(json::Value::from(lo.to_vec())), Some(json::Value::from(hi.to_vec()))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized,
            sparse: None,
        })
    }
}

fn raw(v: serde_json::Value) -> json::extras::Extras {
    serde_json::value::to_raw_value(&v).ok()
}

fn sampler(root: &mut json::Root, wrap: json::texture::WrappingMode, name: &str) -> json::Index<json::texture::Sampler> {
    root.push(json::texture::Sampler {
        mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
        min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
        name: Some(name.into()),
        wrap_s: Valid(wrap),
        wrap_t: Valid(wrap),
        extensions: None,
        extras: Default::default(),
    })
}

/// Write the prepared scene as GLB (`glb`) or `.gltf` + `.bin` + PNG files. With `memory`
/// (GLB only) the GLB goes there instead of to `path`, whose name then only names things.
/// A `.gltf` is written as a set (`set`, begun on `path`: its sidecars get free names,
/// [`crate::write::set`]).
pub(crate) fn write(
    p: &Prepared,
    ctx: &WriteContext,
    path: &Path,
    glb: bool,
    memory: Option<&mut Vec<u8>>,
    mut set: Option<SetWriter>,
    summary: &mut Summary,
) -> Result<()> {
    let scene = p.scene;
    let mut doc = Doc { root: json::Root::default(), len: 0 };
    doc.root.asset.generator = Some(format!("bspkit {}", env!("CARGO_PKG_VERSION")));
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target::{ArrayBuffer as AB, ElementArrayBuffer as EAB};

    // Geometry views and accessors, per model and primitive, in writing order.
    struct PrimAcc {
        attributes: Vec<(json::mesh::Semantic, json::Index<json::Accessor>)>,
        indices: json::Index<json::Accessor>,
    }
    let mut accs: Vec<Vec<PrimAcc>> = Vec::with_capacity(p.prims.len());
    let mut bad_normals = 0usize;
    for (m, prims) in scene.models.iter().zip(&p.prims) {
        let v = &m.vertices;
        let mut list = Vec::with_capacity(prims.len());
        for prim in prims {
            let n = prim.vertex_count;
            let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            prim.each(m, Walk::Vertices, |i| {
                let q = to_y_up(v.positions[i as usize], ctx.scale);
                for k in 0..3 {
                    lo[k] = lo[k].min(q[k]);
                    hi[k] = hi[k].max(q[k]);
                }
                if v.normals.get(i as usize).copied().and_then(normal_y_up).is_none() {
                    bad_normals += 1;
                }
                Ok(())
            })?;
            let mut attributes = vec![
                (json::mesh::Semantic::Positions, doc.accessor(n, C::F32, T::Vec3, false, Some((lo, hi)), AB)),
                (json::mesh::Semantic::Normals, doc.accessor(n, C::F32, T::Vec3, false, None, AB)),
                (json::mesh::Semantic::TexCoords(0), doc.accessor(n, C::F32, T::Vec2, false, None, AB)),
            ];
            if has_uv1(p, m, prim) {
                attributes.push((json::mesh::Semantic::TexCoords(1), doc.accessor(n, C::F32, T::Vec2, false, None, AB)));
            }
            if ctx.vertex_light.is_some() || (p.colours && !v.colours.is_empty()) {
                attributes.push((json::mesh::Semantic::Colors(0), doc.accessor(n, C::U8, T::Vec4, true, None, AB)));
            }
            let indices = doc.accessor(prim.index_count, C::U32, T::Scalar, false, None, EAB);
            list.push(PrimAcc { attributes, indices });
        }
        accs.push(list);
    }
    if bad_normals > 0 {
        summary.warnings.push(format!("{bad_normals} vertices had no usable normal; written as straight up"));
    }

    // Materials, textures and images (only those a primitive uses).
    let mut used = vec![false; p.materials.len()];
    for prim in p.prims.iter().flatten() {
        used[prim.material] = true;
    }
    let mut images: Vec<ImageBlob> = Vec::new();
    let mut repeat = None;
    let mut clamp = None;
    let mut tex_of_material: HashMap<u32, (json::Index<json::Texture>, AlphaMode)> = HashMap::new();
    let mut tex_of_page: HashMap<u32, Option<json::Index<json::Texture>>> = HashMap::new();
    // Per page, the `extras.lightmap` value naming its other styles' and layers' textures.
    let mut extras_of_page: HashMap<u32, serde_json::Value> = HashMap::new();
    let mut placeholders: HashMap<u32, bool> = HashMap::new();
    let mut mat_index: Vec<Option<json::Index<json::Material>>> = vec![None; p.materials.len()];
    let mut names = super::parts::UniqueNames::default();
    let mut unique = |base: String| {
        let n = names.get(base);
        match set.as_mut() {
            Some(s) => s.name(&n),
            None => n,
        }
    };
    let push_image = |root: &mut json::Root, images: &mut Vec<ImageBlob>, png: Vec<u8>, name: &str, file: String| {
        images.push(ImageBlob { png, file: file.clone() });
        root.push(json::Image {
            buffer_view: None,
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(name.into()),
            uri: if glb { None } else { Some(file) },
            extensions: None,
            extras: Default::default(),
        })
    };
    for (oi, om) in p.materials.iter().enumerate() {
        if !used[oi] {
            continue;
        }
        let Some(sm) = scene.material(om.material) else { continue };
        let mut m = json::Material { name: Some(sm.name.clone()), ..Default::default() };
        if ctx.vertex_light.is_some() {
            // Vertex mode: the light is in COLOR_0; shading it again would darken it twice.
            m.extensions = Some(json::extensions::material::Material { unlit: Some(json::extensions::material::Unlit {}) });
        }
        // What a viewer may want to tell apart: the surface kinds, and a checker placeholder.
        let mut extras = serde_json::Map::new();
        if om.flags != crate::mesh::SurfaceFlags::NONE {
            extras.insert("surface_flags".into(), serde_json::json!(om.flags.names().collect::<Vec<_>>()));
        }
        m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
        m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(1.0);
        if let Some(tc) = ctx.textures {
            let entry = match tex_of_material.get(&om.material) {
                Some(e) => Some(*e),
                None => {
                    let img = tc.material_image(&sm.name, &mut summary.warnings)?;
                    placeholders.insert(om.material, img.placeholder);
                    if img.placeholder {
                        summary.placeholder_textures += 1;
                    } else {
                        summary.textures += 1;
                    }
                    let file = unique(format!("{}_{}.png", stem(path), file_safe(&sm.name)));
                    let image = push_image(&mut doc.root, &mut images, img.png, &sm.name, file);
                    let s = *repeat.get_or_insert_with(|| sampler(&mut doc.root, json::texture::WrappingMode::Repeat, "texture"));
                    let t = doc.root.push(json::Texture {
                        name: Some(sm.name.clone()),
                        sampler: Some(s),
                        source: image,
                        extensions: None,
                        extras: Default::default(),
                    });
                    tex_of_material.insert(om.material, (t, img.alpha));
                    Some((t, img.alpha))
                }
            };
            if let Some((t, alpha)) = entry {
                m.pbr_metallic_roughness.base_color_texture =
                    Some(json::texture::Info { index: t, tex_coord: 0, extensions: None, extras: Default::default() });
                match alpha {
                    AlphaMode::Opaque => {}
                    AlphaMode::Mask { cutoff } => {
                        m.alpha_mode = Valid(json::material::AlphaMode::Mask);
                        m.alpha_cutoff = Some(json::material::AlphaCutoff(cutoff.clamp(0.0, 1.0)));
                    }
                    AlphaMode::Blend => m.alpha_mode = Valid(json::material::AlphaMode::Blend),
                }
            }
        }
        if om.page != u32::MAX {
            if let Some(lm) = ctx.lightmaps {
                let t = match tex_of_page.get(&om.page) {
                    Some(t) => *t,
                    None => {
                        let t = match lm.get(&om.page).cloned() {
                            Some(png) => {
                                summary.lightmap_pages += 1;
                                let name = format!("lightmap {}", om.page);
                                let file = unique(format!("{}_lightmap{}.png", stem(path), om.page));
                                let image = push_image(&mut doc.root, &mut images, png, &name, file);
                                let s = *clamp
                                    .get_or_insert_with(|| sampler(&mut doc.root, json::texture::WrappingMode::ClampToEdge, "lightmap"));
                                Some(doc.root.push(json::Texture {
                                    name: Some(name),
                                    sampler: Some(s),
                                    source: image,
                                    extensions: None,
                                    extras: Default::default(),
                                }))
                            }
                            None => None,
                        };
                        tex_of_page.insert(om.page, t);
                        t
                    }
                };
                if let Some(t) = t {
                    if ctx.lightmap_placeholder {
                        extras.insert("lightmap_placeholder".into(), serde_json::Value::Bool(true));
                    }
                    if ctx.bumped.contains(&(om.material, om.page)) {
                        extras.insert("bump_layers".into(), serde_json::Value::Bool(true));
                    }
                    m.occlusion_texture = Some(json::material::OcclusionTexture {
                        index: t,
                        strength: json::material::StrengthFactor(1.0),
                        tex_coord: 1,
                        extensions: None,
                        extras: Default::default(),
                    });
                    if let Some(pe) = ctx.lightmap_extras.get(&om.page) {
                        if let std::collections::hash_map::Entry::Vacant(slot) = extras_of_page.entry(om.page) {
                            let s =
                                *clamp.get_or_insert_with(|| sampler(&mut doc.root, json::texture::WrappingMode::ClampToEdge, "lightmap"));
                            let mut list = Vec::with_capacity(pe.images.len());
                            for (style, layer, png) in &pe.images {
                                let name = format!("lightmap {} style {style} layer {layer}", om.page);
                                let file = unique(format!("{}_lightmap{}_s{style}_l{layer}.png", stem(path), om.page));
                                let image = push_image(&mut doc.root, &mut images, png.clone(), &name, file);
                                let tex = doc.root.push(json::Texture {
                                    name: Some(name),
                                    sampler: Some(s),
                                    source: image,
                                    extensions: None,
                                    extras: Default::default(),
                                });
                                summary.lightmap_style_images += 1;
                                list.push(serde_json::json!({"style": style, "layer": layer, "texture": tex.value()}));
                            }
                            let v = serde_json::json!({"page": om.page, "style": pe.base_style, "images": list});
                            slot.insert(v);
                        }
                        extras.insert(super::parts::LIGHTMAP_EXTRAS.into(), extras_of_page[&om.page].clone());
                    }
                }
            }
        }
        if placeholders.get(&om.material) == Some(&true) {
            extras.insert("placeholder_texture".into(), serde_json::Value::Bool(true));
        }
        if !extras.is_empty() {
            m.extras = raw(serde_json::Value::Object(extras));
        }
        mat_index[oi] = Some(doc.root.push(m));
        summary.materials += 1;
    }
    // GLB: the images go into the binary buffer after the geometry.
    if glb {
        for (k, img) in images.iter().enumerate() {
            let view = doc.view(img.png.len() as u64, None);
            doc.root.images[k].buffer_view = Some(view);
        }
    }

    // Nodes: models, then props.
    let mut nodes = Vec::new();
    for ((m, prims), acc) in scene.models.iter().zip(&p.prims).zip(accs) {
        let mesh = if prims.is_empty() {
            None
        } else {
            let primitives = prims
                .iter()
                .zip(acc)
                .map(|(prim, a)| json::mesh::Primitive {
                    attributes: a.attributes.into_iter().map(|(s, i)| (Valid(s), i)).collect(),
                    extensions: None,
                    extras: if ctx.face_ranges {
                        prim.face_ranges(m).and_then(|(lump, faces)| raw(serde_json::json!({"face_lump": lump, "faces": faces})))
                    } else {
                        Default::default()
                    },
                    indices: Some(a.indices),
                    material: mat_index[prim.material],
                    mode: Valid(json::mesh::Mode::Triangles),
                    targets: None,
                })
                .collect();
            Some(doc.root.push(json::Mesh {
                extensions: None,
                extras: Default::default(),
                name: Some(m.name.clone()),
                primitives,
                weights: None,
            }))
        };
        let translation = to_y_up(m.origin, ctx.scale);
        let node = json::Node {
            mesh,
            name: Some(m.name.clone()),
            translation: (translation != [0.0; 3] && translation.iter().all(|c| c.is_finite())).then_some(translation),
            rotation: (m.angles != [0.0; 3]).then(|| json::scene::UnitQuaternion(rotation_y_up(m.angles))),
            extras: raw(model_extras(m)),
            ..Default::default()
        };
        nodes.push(doc.root.push(node));
    }
    for prop in &scene.props {
        let t = to_y_up(prop.origin, ctx.scale);
        let s = if prop.scale.is_finite() && prop.scale > 0.0 { prop.scale } else { 1.0 };
        let node = json::Node {
            name: Some(prop.model.clone()),
            translation: t.iter().all(|c| c.is_finite()).then_some(t),
            rotation: Some(json::scene::UnitQuaternion(rotation_y_up(prop.angles.map(|a| if a.is_finite() { a } else { 0.0 })))),
            scale: (s != 1.0).then_some([s; 3]),
            extras: raw(serde_json::json!({
                "model": prop.model,
                "skin": prop.skin,
                "solid": prop.solid,
                "fade": prop.fade,
                "lighting_origin": prop.lighting_origin,
            })),
            ..Default::default()
        };
        nodes.push(doc.root.push(node));
        summary.props += 1;
    }
    summary.models = scene.models.len();
    if ctx.vertex_light.is_some() && summary.materials > 0 {
        doc.root.extensions_used.push("KHR_materials_unlit".into());
    }
    let scene_index = doc.root.push(json::Scene { extensions: None, extras: Default::default(), name: Some("map".into()), nodes });
    doc.root.scene = Some(scene_index);

    let bin_len = doc.len.next_multiple_of(4);
    let bin_name = match set.as_mut() {
        Some(s) if bin_len > 0 => s.name(&beside(path, ".bin").file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()),
        _ => String::new(),
    };
    if bin_len > 0 {
        let uri = if glb { None } else { Some(bin_name.clone()) };
        doc.root.push(json::Buffer { byte_length: USize64(bin_len), name: None, uri, extensions: None, extras: Default::default() });
    } else {
        // No geometry and no image: no buffer (a zero-length buffer is invalid).
        doc.root.buffer_views.clear();
    }
    let text = json::serialize::to_vec(&doc.root).map_err(|e| Error::malformed(format!("glTF JSON: {e}")))?;

    // The layout pass counted the binary buffer; a write pass that wrote otherwise is a bug.
    let pad = |n: u64| padding(n, bin_len).map_err(|e| std::io::Error::other(e.to_string()));
    if glb {
        let json_len = text.len().next_multiple_of(4) as u64;
        let total = 12 + 8 + json_len + if bin_len > 0 { 8 + bin_len } else { 0 };
        let total = u32::try_from(total).map_err(|_| Error::malformed(format!("GLB of {total} bytes exceeds the format's 4 GiB")))?;
        let produce = |mut f: &mut dyn Write| -> std::io::Result<()> {
            let mut head = Vec::with_capacity(28);
            head.extend_from_slice(b"glTF");
            head.extend_from_slice(&2u32.to_le_bytes());
            head.extend_from_slice(&total.to_le_bytes());
            head.extend_from_slice(&(json_len as u32).to_le_bytes());
            head.extend_from_slice(b"JSON");
            f.write_all(&head)?;
            f.write_all(&text)?;
            f.write_all(&b"   "[..json_len as usize - text.len()])?;
            if bin_len > 0 {
                f.write_all(&(bin_len as u32).to_le_bytes())?;
                f.write_all(b"BIN\0")?;
                let n = write_bin(&mut f, p, ctx, &images, true)?;
                f.write_all(pad(n)?)?;
            }
            Ok(())
        };
        match memory {
            Some(buf) => {
                if !ctx.budget.take(total as u64) {
                    return Err(ctx.budget.error());
                }
                buf.clear();
                buf.try_reserve_exact(total as usize).map_err(|_| Error::malformed(format!("GLB of {total} bytes: out of memory")))?;
                produce(buf)?;
            }
            None => {
                write_out(path, ctx.budget, produce)?;
                written(summary, path);
            }
        }
    } else {
        // Every part to a temporary file, then the sidecars in under free names and the
        // `.gltf` last (crate::write::set).
        let mut set = set.ok_or_else(|| Error::malformed("a .gltf is written as a set of files"))?;
        if bin_len > 0 {
            set.sidecar(&bin_name, |mut f| {
                let n = write_bin(&mut f, p, ctx, &images, false)?;
                f.write_all(pad(n)?)
            })?;
        }
        for img in &images {
            set.sidecar(&img.file, |w| w.write_all(&img.png))?;
        }
        set.main(|w| w.write_all(&text))?;
        for f in set.commit(old_refs)? {
            written(summary, &f);
        }
    }
    Ok(())
}

/// The file names an old `.gltf` refers to (its buffers' and images' URIs), read with a bound;
/// nothing when it does not read as glTF JSON.
fn old_refs(path: &Path) -> Vec<String> {
    let Ok(bytes) = crate::fsio::read_regular(path, 256 << 20, "old glTF") else { return Vec::new() };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return Vec::new() };
    ["buffers", "images"]
        .iter()
        .filter_map(|k| v.get(k).and_then(|a| a.as_array()))
        .flatten()
        .filter_map(|e| e.get("uri").and_then(|u| u.as_str()).map(str::to_string))
        .collect()
}

/// The zero bytes that end a binary buffer of `written` bytes at `declared`; an error when the
/// write pass did not write what the layout pass counted (a bug, never the map's fault).
fn padding(written: u64, declared: u64) -> Result<&'static [u8]> {
    match declared.checked_sub(written) {
        Some(pad) if pad < 4 => Ok(&[0u8; 3][..pad as usize]),
        _ => Err(Error::malformed(format!("glTF buffer: {written} bytes written where the layout counted {declared}"))),
    }
}

/// A model node's `extras`: its model and entity numbers and, for families whose surfaces carry
/// a vertex kind (Respawn), how many surfaces use each kind.
fn model_extras(m: &crate::mesh::Model) -> serde_json::Value {
    let mut extras = serde_json::json!({ "model": m.index, "entity": m.entity });
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for s in &m.surfaces {
        if let Some(k) = s.vertex_kind {
            *kinds.entry(k.key()).or_default() += 1;
        }
    }
    if !kinds.is_empty() {
        extras["vertex_kinds"] = serde_json::json!(kinds);
    }
    extras
}

fn stem(path: &Path) -> String {
    path.file_stem().map(|s| file_safe(&s.to_string_lossy())).unwrap_or_else(|| "export".into())
}

/// Does this primitive carry TEXCOORD_1 (lightmaps on and its material on a page)?
fn has_uv1(p: &Prepared, m: &crate::mesh::Model, prim: &Prim) -> bool {
    p.uv1 && m.vertices.uv1.len() == m.vertices.len() && p.materials[prim.material].page != u32::MAX
}

/// Bytes of an attribute converted before they are written (see [`write_bin`]).
const BIN_CHUNK: usize = 64 << 10;

/// Stream the binary buffer: the same order and sizes as the layout pass. Returns the bytes
/// written (before the final padding). An attribute is converted into one reused buffer and
/// written a [`BIN_CHUNK`] at a time: a write per float costs more than the conversion, and a
/// buffer the size of a whole attribute would hold megabytes more at the export's peak.
fn write_bin(f: &mut impl Write, p: &Prepared, ctx: &WriteContext, images: &[ImageBlob], with_images: bool) -> std::io::Result<u64> {
    let mut n: u64 = 0;
    let mut put = |f: &mut dyn Write, bytes: &[u8]| -> std::io::Result<u64> {
        f.write_all(bytes)?;
        n += bytes.len() as u64;
        Ok(n)
    };
    let finite2 = |uv: [f32; 2]| if uv.iter().all(|c| c.is_finite()) { uv } else { [0.0, 0.0] };
    let mut buf: Vec<u8> = Vec::with_capacity(BIN_CHUNK + 64);
    // One attribute of a primitive: `each` appends the bytes of vertex (or index) `i`.
    let mut attribute =
        |f: &mut dyn Write, m: &crate::mesh::Model, prim: &Prim, what: Walk, each: &dyn Fn(&mut Vec<u8>, usize)| -> std::io::Result<u64> {
            buf.clear();
            prim.each(m, what, |i| {
                each(&mut buf, i as usize);
                if buf.len() >= BIN_CHUNK {
                    put(f, &buf)?;
                    buf.clear();
                }
                Ok(())
            })?;
            put(f, &buf)
        };
    let floats = |buf: &mut Vec<u8>, cs: &[f32]| cs.iter().for_each(|c| buf.extend_from_slice(&c.to_le_bytes()));
    for (mi, (m, prims)) in p.scene.models.iter().zip(&p.prims).enumerate() {
        let v = &m.vertices;
        for prim in prims {
            let vs = Walk::Vertices;
            attribute(f, m, prim, vs, &|b, i| floats(b, &to_y_up(v.positions[i], ctx.scale)))?;
            attribute(f, m, prim, vs, &|b, i| floats(b, &v.normals.get(i).copied().and_then(normal_y_up).unwrap_or([0.0, 1.0, 0.0])))?;
            attribute(f, m, prim, vs, &|b, i| floats(b, &finite2(v.uv0.get(i).copied().unwrap_or_default())))?;
            if has_uv1(p, m, prim) {
                attribute(f, m, prim, vs, &|b, i| floats(b, &finite2(v.uv1[i])))?;
            }
            if let Some(light) = ctx.vertex_light {
                let light = light.get(mi).map_or(&[][..], |l| &l[..]);
                attribute(f, m, prim, vs, &|b, i| b.extend_from_slice(&light.get(i).copied().unwrap_or([255; 4])))?;
            } else if p.colours && !v.colours.is_empty() {
                attribute(f, m, prim, vs, &|b, i| b.extend_from_slice(&v.colours.get(i).copied().unwrap_or([255; 4])))?;
            }
            attribute(f, m, prim, Walk::Indices, &|b, i| b.extend_from_slice(&(i as u32).to_le_bytes()))?;
        }
    }
    let mut total = put(f, &[])?;
    if with_images {
        for img in images {
            let pad = (4 - total % 4) % 4;
            put(f, &[0u8; 3][..pad as usize])?;
            total = put(f, &img.png)?;
        }
    }
    Ok(total)
}

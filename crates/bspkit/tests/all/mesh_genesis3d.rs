//! The scene model of Genesis3D levels: the corpus level (genvs2) builds with every face in
//! exactly one surface or skipped, its triangles cover each polygon (area computed here from
//! the raw face, VERT_INDEX and VERTS records) and face the way its plane does, in the scene's
//! Z-up frame; UVs, corner colours, flags and models follow the records. The builder's small
//! level gives its one quad, and a broken corner index gives a skipped face.

use crate::common;

use bspkit::branches::genesis3d::{self, View};
use bspkit::mesh::{self, MeshOptions, ModelSelect, Scene, SurfaceFlags, SurfaceKind};
use bspkit::Bsp;
use common::mesh::{add, cross, dot, is_convex, len, sub};

/// Genesis3D's Y-up frame to Z-up: a quarter turn about X.
fn z_up(v: [f64; 3]) -> [f64; 3] {
    [v[0], -v[2], v[1]]
}

/// A face straight from the records: corners (Z-up), front plane (Z-up normal, distance),
/// corner colours, texel coordinates; `None` if a reference is broken.
struct RawFace {
    corners: Vec<[f64; 3]>,
    normal: [f64; 3],
    dist: f64,
    colours: Vec<[f32; 3]>,
    texels: Vec<[f64; 2]>,
    flags: i32,
    texture: Option<(String, [i32; 2])>,
}

fn raw_face(bsp: &Bsp, i: usize) -> Option<RawFace> {
    let v = View::new(bsp).ok()?;
    let (faces, index, verts, planes, rgb, texinfo, textures) = (
        v.faces().ok()?,
        v.vert_index().ok()?,
        v.verts().ok()?,
        v.planes().ok()?,
        v.rgb_verts().ok()?,
        v.texinfo().ok()?,
        v.textures().ok()?,
    );
    let f = faces.get(i)?;
    let t = texinfo.get(usize::try_from(f.texinfo.get()).ok()?)?;
    let mut out =
        RawFace { corners: vec![], normal: [0.0; 3], dist: 0.0, colours: vec![], texels: vec![], flags: t.flags.get(), texture: None };
    for k in f.first_vert.get()..f.first_vert.get() + f.num_verts.get() {
        let k = usize::try_from(k).ok()?;
        let p = verts.get(usize::try_from(index.get(k)?.get()).ok()?)?.point.map(|c| c.get() as f64);
        out.corners.push(z_up(p));
        if let Some(c) = rgb.get(k) {
            out.colours.push(c.rgb.map(|x| x.get()));
        }
        let axis = |a: usize| {
            let s = t.draw_scale[a].get() as f64;
            let s = if s == 0.0 { 1.0 } else { s };
            dot(p, t.vecs[a].map(|c| c.get() as f64)) / s + t.shift[a].get() as f64
        };
        out.texels.push([axis(0), axis(1)]);
    }
    let plane = planes.get(usize::try_from(f.plane.get()).ok()?)?;
    let (n, d) = (plane.normal.map(|c| c.get() as f64), plane.dist.get() as f64);
    (out.normal, out.dist) = if f.plane_side.get() != 0 { (z_up(n.map(|c| -c)), -d) } else { (z_up(n), d) };
    out.texture = textures.get(usize::try_from(t.texture.get()).ok()?).map(|t| (t.name().into_owned(), [t.width.get(), t.height.get()]));
    Some(out)
}

/// Check a scene against the raw records; returns (surfaces, triangles, skipped).
fn check_scene(name: &str, bsp: &Bsp, scene: &Scene) -> (usize, usize, usize) {
    let faces = View::new(bsp).unwrap().faces().unwrap().len();
    let lump = genesis3d::CHUNK_FACES as u16;
    let mut count = vec![0usize; faces];
    for s in &scene.skipped {
        assert_eq!(s.lump, lump);
        count[s.index as usize] += 1;
    }
    let mut not_convex = 0;
    for (mi, m) in scene.models.iter().enumerate() {
        let v = &m.vertices;
        assert_eq!((v.normals.len(), v.uv0.len()), (v.len(), v.len()), "{name}: attributes");
        assert!(v.colours.is_empty() || v.colours.len() == v.len(), "{name}: colours");
        assert!(m.indices.iter().all(|&i| (i as usize) < v.len()));
        for n in &v.normals {
            assert!((len(n.map(|c| c as f64)) - 1.0).abs() < 1e-5, "{name}: normal {n:?}");
        }
        for s in &m.surfaces {
            assert_eq!((s.lump, s.kind), (lump, SurfaceKind::Polygon));
            count[s.index as usize] += 1;
            let raw = raw_face(bsp, s.index as usize).unwrap_or_else(|| panic!("{name}: face {} built but broken", s.index));
            let range = s.vertices.start as usize..s.vertices.end as usize;
            assert_eq!(range.len(), raw.corners.len());
            for (k, c) in raw.corners.iter().enumerate() {
                assert_eq!(v.positions[range.start + k].map(|x| x as f64), *c, "{name}: face {} corner {k}", s.index);
                let n = v.normals[range.start + k].map(|x| x as f64);
                assert!(
                    n.iter().zip(&raw.normal).all(|(a, b)| (a - b).abs() < 1e-5),
                    "{name}: face {} normal {n:?} against {:?}",
                    s.index,
                    raw.normal
                );
            }
            // UVs: texels over the texture's size.
            let (tex_name, size) = raw.texture.clone().unwrap_or(("(no texture)".into(), [0, 0]));
            let material = &scene.materials[s.material as usize];
            assert_eq!(material.name, tex_name);
            if size[0] > 0 && size[1] > 0 {
                assert_eq!(material.size, Some([size[0] as u32, size[1] as u32]));
                for (k, t) in raw.texels.iter().enumerate() {
                    let uv = v.uv0[range.start + k];
                    let want = [t[0] / size[0] as f64, t[1] / size[1] as f64];
                    for a in 0..2 {
                        assert!(
                            (uv[a] as f64 - want[a]).abs() <= 1e-4 * (1.0 + want[a].abs()),
                            "{name}: face {} uv {uv:?} against {want:?}",
                            s.index
                        );
                    }
                }
            }
            // Colours: the corner's RGB on Gouraud- and flat-shaded faces (TEXINFO_GOURAUD 1 << 5,
            // TEXINFO_FLAT 1 << 6), white on the others (`GetRGBVerts`); alpha from the texinfo on
            // translucent faces.
            if !raw.colours.is_empty() {
                let shaded = raw.flags & (1 << 5 | 1 << 6) != 0;
                for (k, c) in raw.colours.iter().enumerate() {
                    let got = v.colours[range.start + k];
                    for a in 0..3 {
                        let want = if shaded { c[a].clamp(0.0, 255.0).round() as u8 } else { 255 };
                        assert_eq!(got[a], want, "{name}: face {} colour", s.index);
                    }
                    if raw.flags & 16 == 0 {
                        assert_eq!(got[3], 255);
                    }
                }
            }
            let want_flags = (if raw.flags & 4 != 0 { SurfaceFlags::SKY } else { SurfaceFlags::NONE })
                | (if raw.flags & 16 != 0 { SurfaceFlags::TRANSLUCENT } else { SurfaceFlags::NONE });
            assert_eq!(s.flags, want_flags, "{name}: face {} flags", s.index);
            // Area and facing.
            let mut newell = [0.0; 3];
            for (k, a) in raw.corners.iter().enumerate() {
                newell = add(newell, cross(*a, raw.corners[(k + 1) % raw.corners.len()]));
            }
            let want = len(newell) / 2.0;
            let (mut sum, mut total, mut front) = ([0.0; 3], 0.0, true);
            let convex = is_convex(&raw.corners, raw.normal);
            not_convex += usize::from(!convex);
            for t in m.indices[s.indices.start as usize..s.indices.end as usize].chunks(3) {
                assert!(t.iter().all(|i| s.vertices.contains(i)));
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| v.positions[i as usize].map(|x| x as f64));
                let n = cross(sub(b, a), sub(c, a));
                sum = add(sum, n);
                total += len(n) / 2.0;
                front &= dot(n, raw.normal) > 0.0;
                let longest = len(sub(b, a)).max(len(sub(c, b))).max(len(sub(a, c)));
                let off = [a, b, c].iter().map(|p| (dot(*p, raw.normal) - raw.dist).abs()).fold(0.0, f64::max);
                let bound = (2.0 * off + 1e-4 * longest.max(1.0)) / (len(n) / longest.max(1e-300)).max(1e-300);
                if convex && bound < 1.0 {
                    let cos = dot(n, raw.normal) / len(n);
                    let sin = len(cross(n, raw.normal)) / len(n);
                    assert!(
                        cos > 0.0 && sin <= bound,
                        "{name}: model {mi} face {} triangle: cos {cos}, sin {sin} (allowed {bound})",
                        s.index
                    );
                }
            }
            let close = |got: f64| (got - want).abs() <= 1e-4 * want || (got - want).abs() < 1e-6;
            assert!(close(len(sum) / 2.0), "{name}: face {} vector area {} against {want}", s.index, len(sum) / 2.0);
            // The plain total matches too on flat polygons whose triangles all face front.
            let off = raw.corners.iter().map(|p| (dot(*p, raw.normal) - raw.dist).abs()).fold(0.0, f64::max);
            if convex && front && off <= 1e-3 {
                assert!(close(total), "{name}: face {} area {total} against {want}", s.index);
            }
            if len(sum) > 1e-3 {
                assert!(dot(sum, raw.normal) / len(sum) > 0.0, "{name}: face {} is wound against its plane", s.index);
            }
        }
    }
    for (i, c) in count.iter().enumerate() {
        assert_eq!(*c, 1, "{name}: face {i} appears {c} times among surfaces and skipped");
    }
    if not_convex > 0 {
        eprintln!("{name}: {not_convex} faces are not convex");
    }
    (scene.surface_count(), scene.triangle_count(), scene.skipped.len())
}

/// genvs2: every face, models where the compiler left them, named by their `%Model%` entity.
#[test]
fn corpus_level_builds() {
    let Some(dir) = common::corpus("mesh_genesis3d") else { return };
    let maps = common::maps_in(&dir, "genesis3d");
    assert!(!maps.is_empty());
    for m in maps {
        let name = m.path.file_name().unwrap().to_string_lossy().to_string();
        let bsp = Bsp::open(&m.path).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let (s, t, k) = check_scene(&name, &bsp, &scene);
        let view = View::new(&bsp).unwrap();
        let (models, faces) = (view.models().unwrap(), view.faces().unwrap());
        assert_eq!(scene.models.len(), models.len());
        assert_eq!(s + k, faces.len(), "{name}: every face");
        let ents = bsp.entities().unwrap();
        for (rec, model) in models.iter().zip(&scene.models) {
            assert_eq!((model.origin, model.angles), ([0.0; 3], [0.0; 3]));
            // Vertices stay inside the model's stored bounds (Z-up), so no placement moves them.
            let (lo, hi) = (rec.mins.map(|c| c.get() as f64), rec.maxs.map(|c| c.get() as f64));
            let (lo, hi) = (z_up(lo), z_up(hi));
            let (lo, hi) = ([0, 1, 2].map(|a| lo[a].min(hi[a]) - 1.0), [0, 1, 2].map(|a| lo[a].max(hi[a]) + 1.0));
            for p in &model.vertices.positions {
                assert!(
                    (0..3).all(|a| p[a] as f64 >= lo[a] && p[a] as f64 <= hi[a]),
                    "{name}: model {} vertex {p:?} outside {lo:?}..{hi:?}",
                    model.index
                );
            }
            if model.index > 0 {
                let e = &ents.list[model.entity.unwrap_or_else(|| panic!("{name}: model {} has no entity", model.index))];
                assert_eq!(e.classname().as_deref(), Some("%Model%"));
                assert_eq!(e.get("Model").as_deref(), Some(model.index.to_string().as_str()));
                assert_eq!(model.name, format!("*{} {}", model.index, e.get("%name%").unwrap()));
            }
        }
        assert_eq!(scene.models[0].name, "world");
        assert!(scene.models.iter().all(|m| m.vertices.colours.len() == m.vertices.len()), "{name}: RGB_VERTS gives every corner a colour");
        for k in &scene.skipped {
            eprintln!("{name}: skipped face {}: {}", k.index, k.reason);
        }
        let flagged = |f: SurfaceFlags| scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.flags.contains(f)).count();
        eprintln!(
            "{name}: {} models, {s} surfaces, {t} triangles, {k} skipped, {} materials, {} sky and {} translucent surfaces; warnings {:?}",
            scene.models.len(),
            scene.materials.len(),
            flagged(SurfaceFlags::SKY),
            flagged(SurfaceFlags::TRANSLUCENT),
            scene.warnings
        );
        let world = mesh::build(&bsp, &MeshOptions { models: ModelSelect::World, ..Default::default() }).unwrap();
        assert_eq!(world.models.len(), 1);
        assert_eq!(world.models[0], scene.models[0]);
    }
}

/// The builder's small level: one quad of the texture `stone` (8×8) on the plane z = 0
/// (Genesis3D), which is y = 0 facing −y in the scene's frame.
#[test]
fn small_level() {
    let bytes = genesis3d::room::small_level();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_eq!(check_scene("small level", &bsp, &scene), (1, 2, 0));
    let m = &scene.models[0];
    assert_eq!(scene.materials[0].name, "stone");
    assert_eq!(scene.materials[0].size, Some([8, 8]));
    assert_eq!(m.vertices.positions, vec![[0.0, 0.0, 0.0], [64.0, 0.0, 0.0], [64.0, -0.0, 64.0], [0.0, -0.0, 64.0]]);
    assert!(m.vertices.normals.iter().all(|n| *n == [0.0, -1.0, 0.0]));
    assert_eq!(m.vertices.uv0, vec![[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]]);
    // Its RGB_VERTS are black, but the face is neither Gouraud- nor flat-shaded: its light is the
    // lightmap, and the corners are white.
    assert_eq!(m.vertices.colours, vec![[255, 255, 255, 255]; 4]);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

/// A corner index past VERTS skips that face, with the reason; nothing fails or panics.
#[test]
fn broken_corner_is_skipped() {
    let bytes = genesis3d::room::small_level();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let at = bsp.entry(genesis3d::CHUNK_VERT_INDEX).unwrap().offset as usize;
    let mut broken = bytes.clone();
    broken[at + 8..at + 12].copy_from_slice(&5000i32.to_le_bytes());
    let bsp = Bsp::from_bytes(&broken).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_eq!(scene.surface_count(), 0);
    assert_eq!(scene.skipped.len(), 1);
    assert_eq!((scene.skipped[0].lump, scene.skipped[0].index), (genesis3d::CHUNK_FACES as u16, 0));
    assert!(scene.skipped[0].reason.contains("vertex 5000"), "{}", scene.skipped[0].reason);
}

/// Genesis3D lightmaps: the room's one face is lit (2 × 2 luxels after the flag byte), so with
/// atlases asked for its surface is on page 0 and every corner's UV1 lies inside the face's
/// rectangle on that page.
#[test]
fn lit_faces_get_their_atlas_page_and_uv1() {
    let bytes = genesis3d::room::small_level();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
    assert_eq!(lm.faces.len(), 1);
    let f = lm.faces[0];
    let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
    let m = &scene.models[0];
    assert_eq!(m.lightmap_pages, vec![0; m.surfaces.len()]);
    assert_eq!(m.vertices.uv1.len(), m.vertices.len());
    let [pw, ph] = lm.pages[0];
    for uv in &m.vertices.uv1 {
        let (x, y) = (uv[0] * pw as f32, uv[1] * ph as f32);
        assert!(x >= f.x as f32 && y >= f.y as f32, "{uv:?}");
    }
}

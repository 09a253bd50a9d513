//! The Wavefront OBJ + MTL writer: one object (`o`) per model with its placement applied to the
//! vertices (OBJ has no transforms), one `usemtl` group per material, texture PNGs beside the
//! files. OBJ has one UV set, so lightmaps are not written; nor are props (no mesh to place).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use super::parts::{beside, file_safe, normal_y_up, rotation_y_up, to_y_up, written, Prepared, Summary, Walk, WriteContext};
use crate::assets::AlphaMode;
use crate::error::{Error, Result};
use crate::write::set::SetWriter;

/// Rotate `v` by the unit quaternion `q` (`[x, y, z, w]`).
fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let u = [q[0], q[1], q[2]];
    let cross = |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = cross(u, v).map(|c| 2.0 * c);
    let c2 = cross(u, t);
    [v[0] + q[3] * t[0] + c2[0], v[1] + q[3] * t[1] + c2[1], v[2] + q[3] * t[2] + c2[2]]
}

/// Write the OBJ, its MTL and images as one set (`set`, begun on `path`; [`crate::write::set`]:
/// every part to a temporary file, the MTL and images in under free names, the `.obj` last).
pub(crate) fn write(p: &Prepared, ctx: &WriteContext, path: &Path, mut set: SetWriter, summary: &mut Summary) -> Result<()> {
    let io = |e: std::io::Error, p: &Path| Error::from(e).in_file(p);
    let scene = p.scene;
    let mtl_name = set.name(&beside(path, ".mtl").file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let mtl_path = path.with_file_name(&mtl_name);
    let stem = path.file_stem().map(|s| file_safe(&s.to_string_lossy())).unwrap_or_else(|| "export".into());
    // Materials by scene material (OBJ has no lightmap pages).
    let mut used: Vec<bool> = vec![false; scene.materials.len()];
    for prim in p.prims.iter().flatten() {
        if let Some(u) = used.get_mut(p.materials[prim.material].material as usize) {
            *u = true;
        }
    }
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut taken = super::parts::UniqueNames::default();
    // The MTL is small: made in memory, written once.
    let mut mtl: Vec<u8> = Vec::new();
    let mut images = Vec::new();
    for (mi, m) in scene.materials.iter().enumerate() {
        if !used[mi] {
            continue;
        }
        let name = taken.get(file_safe(&m.name));
        writeln!(mtl, "newmtl {name}\nKa 0 0 0\nKd 1 1 1\nKs 0 0 0\nillum 1").map_err(|e| io(e, &mtl_path))?;
        if let Some(tc) = ctx.textures {
            let img = tc.material_image(&m.name, &mut summary.warnings)?;
            if img.placeholder {
                summary.placeholder_textures += 1;
            } else {
                summary.textures += 1;
            }
            let file = set.name(&format!("{stem}_{name}.png"));
            writeln!(mtl, "map_Kd {file}").map_err(|e| io(e, &mtl_path))?;
            if img.alpha != AlphaMode::Opaque {
                writeln!(mtl, "map_d {file}").map_err(|e| io(e, &mtl_path))?;
            }
            images.push((file, img.png));
        }
        writeln!(mtl).map_err(|e| io(e, &mtl_path))?;
        names.insert(mi as u32, name);
        summary.materials += 1;
    }
    set.sidecar(&mtl_name, |w| w.write_all(&mtl))?;
    for (file, png) in &images {
        set.sidecar(file, |w| w.write_all(png))?;
    }

    set.main(|f| {
        writeln!(f, "# bspkit {}\nmtllib {mtl_name}", env!("CARGO_PKG_VERSION"))?;
        // OBJ indices are global and 1-based.
        let mut next: u64 = 1;
        for (m, prims) in scene.models.iter().zip(&p.prims) {
            if prims.is_empty() {
                continue;
            }
            let q = rotation_y_up(m.angles);
            let t = to_y_up(m.origin, ctx.scale);
            let v = &m.vertices;
            writeln!(f, "o {}", m.name.replace(char::is_whitespace, "_"))?;
            for prim in prims {
                prim.each(m, Walk::Vertices, |i| {
                    let r = rotate(q, to_y_up(v.positions[i as usize], ctx.scale));
                    writeln!(f, "v {} {} {}", r[0] + t[0], r[1] + t[1], r[2] + t[2])
                })?;
                prim.each(m, Walk::Vertices, |i| {
                    let uv = v.uv0.get(i as usize).copied().filter(|uv| uv.iter().all(|c| c.is_finite())).unwrap_or_default();
                    // OBJ's V runs up.
                    writeln!(f, "vt {} {}", uv[0], 1.0 - uv[1])
                })?;
                prim.each(m, Walk::Vertices, |i| {
                    let n = rotate(q, v.normals.get(i as usize).copied().and_then(normal_y_up).unwrap_or([0.0, 1.0, 0.0]));
                    writeln!(f, "vn {} {} {}", n[0], n[1], n[2])
                })?;
                let mat = p.materials[prim.material].material;
                if let Some(name) = names.get(&mat) {
                    writeln!(f, "usemtl {name}")?;
                }
                prim.walk(m, Walk::Indices, &mut |batch| {
                    for t in batch.chunks_exact(3) {
                        let [a, b, c] = [t[0], t[1], t[2]].map(|i| next + i as u64);
                        writeln!(f, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}")?;
                    }
                    Ok(())
                })?;
                next += prim.vertex_count as u64;
            }
        }
        Ok(())
    })?;
    summary.models = scene.models.len();
    for f in set.commit(old_refs)? {
        written(summary, &f);
    }
    Ok(())
}

/// The file names an old `.obj` refers to: its `mtllib` files (looked for in its first 64 KiB,
/// where writers put them) and the images those name (`map_*` lines), each read with a bound.
fn old_refs(path: &Path) -> Vec<String> {
    let read = |p: &Path, max: u64| -> Vec<u8> {
        match crate::fsio::open_regular(p) {
            Ok((f, m)) => crate::fsio::read_opened(f, m.len().min(max), p).unwrap_or_default(),
            Err(_) => Vec::new(),
        }
    };
    let value = |line: &str, key: &str| line.strip_prefix(key).map(|r| r.trim().to_string());
    let mut out = Vec::new();
    for line in String::from_utf8_lossy(&read(path, 64 << 10)).lines() {
        if let Some(mtl) = value(line, "mtllib ") {
            let Some(dir) = path.parent() else { continue };
            if mtl.contains(['/', '\\']) {
                continue;
            }
            for l in String::from_utf8_lossy(&read(&dir.join(&mtl), 16 << 20)).lines() {
                let l = l.trim_start();
                if l.starts_with("map_") {
                    // The file is the last word (options such as `-bm 1` come before it).
                    out.extend(l.split_whitespace().last().filter(|_| l.split_whitespace().count() > 1).map(str::to_string));
                }
            }
            out.push(mtl);
        }
    }
    out
}

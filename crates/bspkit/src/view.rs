//! What the local web viewer (`bsp view`) serves for one map, built in memory: the map's GLB
//! (made by [`crate::export::export_glb`], every surface kind kept so the page can toggle sky,
//! nodraw, triggers, clips and the walls of a box sealing the map, [`crate::mesh::hull`], by the
//! materials' `extras.surface_flags`) and JSON documents for
//! the summary, the entities, `bsp info`'s data (format, lump table, statistics) and `bsp
//! check`'s problems. Nothing here touches the network or writes a file; the server lives in
//! the CLI.
//!
//! A map that cannot be opened or exported still gets a [`MapView`]: its documents carry the
//! error, so the page can show it.

use serde::Serialize;
use serde_json::{json, Value};

use crate::bsp::Bsp;
use crate::check::Counts;
use crate::error::Result;
use crate::export::{export_glb_inspect, ExportOptions, DEFAULT_SCALE};
use crate::lumps::visibility::LeafVisibility;
use crate::mesh::SurfaceFlags;

/// The documents of one map, ready to serve.
#[derive(Debug, Clone)]
pub struct MapView {
    /// The map's name as shown in the page (the path given on the command line).
    pub name: String,
    /// The GLB, or why there is none (the map could not be opened or exported).
    pub glb: std::result::Result<Vec<u8>, String>,
    /// `{name, scale, family, branch, error, export_error, export, frame}`: what the page needs
    /// first (the scale converts entity origins to the GLB's frame; `frame` is the initial
    /// camera, [`crate::render::view_frame`], game units, or null when nothing is drawn).
    pub summary: Vec<u8>,
    /// `{count, error, entities: [{index, pairs: [[key, value], …]}]}`.
    pub entities: Vec<u8>,
    /// `bsp info --json`'s object ([`crate::info::Info`]), or `{error}`.
    pub info: Vec<u8>,
    /// `{problems, counts}` as `bsp check --json` prints them, or `{error}`.
    pub check: Vec<u8>,
    /// [`visibility`] as JSON (`{available: false, reason}` when the map has none).
    pub vis: Vec<u8>,
}

/// What the page needs to draw only the faces potentially visible from the camera (the PVS):
/// the world's node tree to find the camera's leaf, and the family's [`LeafVisibility`] (each
/// leaf's cluster and faces, each cluster's PVS row; field meanings there), whose fields the
/// JSON document carries at its top level beside the tree's. Quake 1 family (clusters are
/// leaves 1…, rows per leaf, quake_family.md B.6), Quake 2 and Source (`dvis_t` clusters,
/// source.md), Quake 3 family (one uncompressed row per cluster, quake_family.md A.8); other
/// families: `None`.
#[derive(Debug, Clone, Serialize)]
pub struct Visibility<'a> {
    /// The leaves and rows (`data` serialised as lower-case hex).
    #[serde(flatten)]
    pub leaves: LeafVisibility<'a>,
    /// `[plane, front, back]` per node; a child ≥ 0 is a node, < 0 the leaf `-(child + 1)`.
    pub nodes: Vec<[i64; 3]>,
    /// `[nx, ny, nz, dist]` per plane, game units (front: `dot(n, p) - dist >= 0`).
    pub planes: Vec<[f32; 4]>,
    /// The world model's root, encoded as a child.
    pub root: i64,
}

/// The map's [`Visibility`], `Ok(None)` for a family without one here or a map without
/// visibility data (unvised: every leaf without a row).
pub fn visibility<'a>(bsp: &'a Bsp<'a>) -> Result<Option<Visibility<'a>>> {
    // The family reads its leaves after the tree, as each reader did before it moved into its
    // family: the first error a damaged map gives stays the tree's.
    let Some(read) = crate::branches::any::of(bsp.family()).leaf_visibility() else { return Ok(None) };
    let (nodes, planes, root) = tree_parts(bsp)?;
    let vis = Visibility { leaves: read(bsp)?, nodes, planes, root };
    Ok(Some(vis).filter(|v| v.leaves.offsets.iter().any(|&o| o >= 0)))
}

/// Nodes, planes and the world's root of a [`Visibility`].
type TreeParts = (Vec<[i64; 3]>, Vec<[f32; 4]>, i64);

/// The tree part of a [`Visibility`]: nodes, planes, the world's root.
fn tree_parts(bsp: &Bsp) -> Result<TreeParts> {
    use crate::tree::TreeChild;
    let t = crate::tree::NodeTree::of(bsp)?;
    let enc = |c: TreeChild| match c {
        TreeChild::Node(n) => n,
        TreeChild::Leaf(l) => -(l + 1),
    };
    let nodes = t.nodes.iter().map(|n| [n.plane, enc(n.children[0]), enc(n.children[1])]).collect();
    let planes = t.planes.iter().map(|(n, d)| [n[0], n[1], n[2], *d]).collect();
    Ok((nodes, planes, enc(t.head(0)?)))
}

/// The options [`map_view`] exports with: [`ExportOptions`]' defaults, but every surface kind
/// kept ([`SurfaceFlags::NONE`] skipped), each page's other light styles and Source bump
/// layers embedded ([`ExportOptions::light_styles`], [`ExportOptions::bump_layers`], for the
/// page's style switches and layer choice), each primitive's faces
/// ([`ExportOptions::face_ranges`], for PVS culling) and the given texture search.
pub fn export_options(textures: Option<crate::texture::TextureOptions>) -> ExportOptions {
    ExportOptions {
        skip: SurfaceFlags::NONE,
        textures,
        light_styles: true,
        bump_layers: true,
        face_ranges: true,
        ..ExportOptions::default()
    }
}

fn bytes(v: &impl Serialize) -> Vec<u8> {
    // Serialising plain data (strings, numbers, maps) to memory cannot fail.
    serde_json::to_vec(v).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()).into_bytes())
}

/// Build every document of `bsp`, shown as `name`. Export problems end up in the summary
/// (`export_error`, the summary's warnings), never as an `Err`.
pub fn map_view(bsp: &Bsp, name: &str, opts: &ExportOptions) -> MapView {
    // The initial camera: `bsp render`'s iso frame of the playable area, on the scene the GLB
    // is written from.
    let mut frame = None;
    // Partition problems are `check`'s to report; the frame just has fewer starts.
    let starts = crate::render::Starts::of_map(bsp, &mut Vec::new());
    let skip_hull = opts.skip.intersects(SurfaceFlags::HULL);
    let exported = export_glb_inspect(bsp, opts, &mut |scene| {
        // The walls of a box sealing the map, as `bsp render` decides them, become surfaces of
        // kind `hull` (their own materials, `extras.surface_flags`), which the page hides.
        // An export with `--skip hull` has marked them already (same skip set): not again. The
        // box found on the marked scene is the same (marking only flags triangles).
        let hull = crate::mesh::hull::Hull::of(scene, crate::render::SKIP);
        if let Some(h) = hull.as_ref().filter(|_| !skip_hull) {
            crate::mesh::hull::mark(scene, h, crate::render::SKIP);
        }
        frame = crate::render::view_frame_with_hull(scene, hull.as_ref(), &starts);
    });
    let (glb, summary) = match exported {
        Ok((glb, s)) => (Ok(glb), json!({ "export": s, "frame": frame })),
        Err(e) => {
            let msg = e.to_string();
            (Err(msg.clone()), json!({ "export_error": msg }))
        }
    };
    let info = crate::info::info(bsp);
    let mut head = json!({
        "name": name,
        "scale": opts.scale,
        "family": info.format.family,
        "branch": info.format.branch,
        "title": info.format.title,
    });
    merge(&mut head, summary);
    let entities = match bsp.entities() {
        Ok(ents) => {
            let list: Vec<Value> = ents
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let pairs: Vec<[String; 2]> = e.iter().map(|(k, v)| [k.into_owned(), v.into_owned()]).collect();
                    json!({ "index": i, "pairs": pairs })
                })
                .collect();
            json!({ "count": list.len(), "entities": list })
        }
        Err(e) => json!({ "count": 0, "entities": [], "error": e.to_string() }),
    };
    let check = json!({ "problems": &info.problems, "counts": Counts::of(&info.problems) });
    let vis = match visibility(bsp) {
        Ok(Some(v)) => {
            let mut doc = serde_json::to_value(&v).unwrap_or_default();
            merge(&mut doc, json!({ "available": true }));
            doc
        }
        Ok(None) => {
            json!({ "available": false, "reason": "no PVS here (Quake 1, Quake 2, Quake 3 and Source families with visibility data only)" })
        }
        Err(e) => json!({ "available": false, "reason": e.to_string() }),
    };
    MapView {
        name: name.into(),
        glb,
        summary: bytes(&head),
        entities: bytes(&entities),
        info: bytes(&info),
        check: bytes(&check),
        vis: bytes(&vis),
    }
}

/// The documents of a map that could not be opened: each carries `error`.
pub fn failed_view(name: &str, error: &str) -> MapView {
    let err = json!({ "error": error });
    let mut head = json!({ "name": name, "scale": DEFAULT_SCALE, "error": error });
    merge(&mut head, json!({ "export_error": error }));
    MapView {
        name: name.into(),
        glb: Err(error.into()),
        summary: bytes(&head),
        entities: bytes(&json!({ "count": 0, "entities": [], "error": error })),
        info: bytes(&err),
        check: bytes(&err),
        vis: bytes(&json!({ "available": false, "reason": error })),
    }
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(a), Value::Object(b)) = (into.as_object_mut(), from) {
        a.extend(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_map_view_has_every_document() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let v = map_view(&bsp, "sample.bsp", &export_options(None));
        let glb = v.glb.as_ref().unwrap();
        assert_eq!(&glb[..4], b"glTF");
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
        let ents: Value = serde_json::from_slice(&v.entities).unwrap();
        assert_eq!(ents["count"].as_u64().unwrap() as usize, bsp.entities().unwrap().len());
        assert_eq!(ents["entities"][0]["pairs"][0][0], "classname");
        let info: Value = serde_json::from_slice(&v.info).unwrap();
        assert_eq!(info["lumps"].as_array().unwrap().len(), bsp.lumps().len());
        let check: Value = serde_json::from_slice(&v.check).unwrap();
        assert!(check["counts"]["errors"].is_u64());
        let head: Value = serde_json::from_slice(&v.summary).unwrap();
        assert_eq!(head["family"], "quake");
        assert!(head["export"]["triangles"].as_u64().unwrap() > 0);
        // Every primitive names its faces, whose index counts add up to its index accessor's.
        let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let doc: Value = serde_json::from_slice(&glb[20..20 + n]).unwrap();
        let mut prims = 0;
        for p in doc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap()) {
            let faces = p["extras"]["faces"].as_array().expect("extras.faces");
            assert_eq!(p["extras"]["face_lump"], crate::branches::quake1::LUMP_FACES);
            let sum: u64 = faces.chunks(2).map(|c| c[1].as_u64().unwrap()).sum();
            assert_eq!(sum, doc["accessors"][p["indices"].as_u64().unwrap() as usize]["count"].as_u64().unwrap());
            prims += 1;
        }
        assert!(prims > 0);
        let vis: Value = serde_json::from_slice(&v.vis).unwrap();
        assert!(vis["available"].is_boolean(), "{vis}");
        // The initial camera is `bsp render`'s iso camera of the same map.
        let f = &head["frame"];
        let scene = crate::mesh::build(&bsp, &Default::default()).unwrap();
        let ((cam, _), ..) =
            crate::render::frame(crate::render::View::Iso, &scene, &crate::render::Starts::of_map(&bsp, &mut Vec::new()), 512);
        let eye: Vec<f32> = f["eye"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        assert!(eye.iter().zip(cam.eye).all(|(a, b)| (a - b).abs() < 1e-3), "{f} vs {:?}", cam.eye);
        assert!(f["near"].as_f64().unwrap() <= f["far"].as_f64().unwrap() && f["fov_y"] == 50.0, "{f}");
    }

    #[test]
    fn failed_view_carries_the_error() {
        let v = failed_view("x.bsp", "x.bsp: not a map");
        assert!(v.glb.is_err());
        for doc in [&v.summary, &v.entities, &v.info, &v.check] {
            let d: Value = serde_json::from_slice(doc).unwrap();
            assert_eq!(d["error"], "x.bsp: not a map");
        }
    }
}

//! What the local web viewer (`bsp view`) serves for one map, built in memory: the map's GLB
//! (made by [`crate::export::export_glb`], every surface kind kept so the page can toggle sky,
//! nodraw, triggers and clips by the materials' `extras.surface_flags`) and JSON documents for
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
use crate::export::{export_glb, ExportOptions, DEFAULT_SCALE};
use crate::mesh::SurfaceFlags;

/// The documents of one map, ready to serve.
#[derive(Debug, Clone)]
pub struct MapView {
    /// The map's name as shown in the page (the path given on the command line).
    pub name: String,
    /// The GLB, or why there is none (the map could not be opened or exported).
    pub glb: Result<Vec<u8>, String>,
    /// `{name, scale, family, branch, error, export_error, summary}`: what the page needs
    /// first (the scale converts entity origins to the GLB's frame).
    pub summary: Vec<u8>,
    /// `{count, error, entities: [{index, pairs: [[key, value], …]}]}`.
    pub entities: Vec<u8>,
    /// `bsp info --json`'s object ([`crate::info::Info`]), or `{error}`.
    pub info: Vec<u8>,
    /// `{problems, counts}` as `bsp check --json` prints them, or `{error}`.
    pub check: Vec<u8>,
}

/// The options [`map_view`] exports with: [`ExportOptions`]' defaults, but every surface kind
/// kept ([`SurfaceFlags::NONE`] skipped), each page's other light styles embedded
/// ([`ExportOptions::light_styles`], for the page's style switches) and the given texture search.
pub fn export_options(textures: Option<crate::texture::TextureOptions>) -> ExportOptions {
    ExportOptions { skip: SurfaceFlags::NONE, textures, light_styles: true, ..ExportOptions::default() }
}

fn bytes(v: &impl Serialize) -> Vec<u8> {
    // Serialising plain data (strings, numbers, maps) to memory cannot fail.
    serde_json::to_vec(v).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()).into_bytes())
}

/// Build every document of `bsp`, shown as `name`. Export problems end up in the summary
/// (`export_error`, the summary's warnings), never as an `Err`.
pub fn map_view(bsp: &Bsp, name: &str, opts: &ExportOptions) -> MapView {
    let (glb, summary) = match export_glb(bsp, opts) {
        Ok((glb, s)) => (Ok(glb), json!({ "export": s })),
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
    MapView { name: name.into(), glb, summary: bytes(&head), entities: bytes(&entities), info: bytes(&info), check: bytes(&check) }
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

//! `bsp lightmaps`, `bsp export` and `bsp render` on the builder's lit Call of Duty 1 / United
//! Offensive (and demo) and Call of Duty 2 rooms (`bspkit::build::cod12_room_lit`): the pages
//! written as PNGs whose pixels are the texels the builder stored, the GLB's lit primitive
//! carrying `TEXCOORD_1` with the lightmap image, every GLB 0 errors / 0 warnings in the Khronos
//! validator (skipped without it), and `render` naming its lit faces.

use std::process::Command;

use serde_json::Value;

use crate::cli::{png_rgb, scratch, BSP};
use crate::export_cli::{glb_json, lit_primitives, validate};
use bspkit::build::{cod12_room_lit, cod12_texel};

fn run(args: &[&std::ffi::OsStr]) -> String {
    let o = Command::new(BSP).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn cod1_and_cod2_rooms_get_lightmaps_in_every_output() {
    let out = scratch("lightmap-cod12");
    let mut glbs = Vec::new();
    for id in ["cod1_demo", "cod1", "cod2"] {
        let map = out.join(format!("{id}.bsp"));
        std::fs::write(&map, cod12_room_lit(bspkit::branches::by_id(id).unwrap(), 1).unwrap()).unwrap();

        let dir = out.join(format!("lm-{id}"));
        run(&["lightmaps".as_ref(), map.as_os_str(), "--out".as_ref(), dir.as_os_str()]);
        let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("lightmaps.json")).unwrap()).unwrap();
        let faces = manifest["faces"].as_array().unwrap();
        assert_eq!(faces.len(), 1, "{id}: one page");
        let (fx, fy) = (faces[0]["x"].as_u64().unwrap() as usize, faces[0]["y"].as_u64().unwrap() as usize);
        let atlases = manifest["atlases"].as_array().unwrap();
        assert_eq!(atlases.len(), if id == "cod2" { 3 } else { 1 }, "{id}: one atlas per image");
        for a in atlases {
            let layer = a["layer"].as_u64().unwrap() as u8;
            let (w, _, rgb) = png_rgb(&dir.join(a["png"].as_str().unwrap()));
            for (x, y) in [(0, 0), (511, 0), (100, 300), (511, 511)] {
                let k = ((fy + y) * w as usize + fx + x) * 3;
                assert_eq!(&rgb[k..k + 3], cod12_texel(0, layer, x as u32, y as u32), "{id}: layer {layer} texel ({x}, {y})");
            }
        }

        let glb = out.join(format!("{id}.glb"));
        run(&["export".as_ref(), map.as_os_str(), "-o".as_ref(), glb.as_os_str()]);
        let doc = glb_json(&glb);
        assert_eq!(lit_primitives(&doc, id), 1, "{id}: the room's soup is lit");
        glbs.push(glb);

        let png = out.join(format!("{id}.png"));
        let said = run(&["render".as_ref(), map.as_os_str(), "-o".as_ref(), png.as_os_str(), "--size".as_ref(), "64".as_ref()]);
        assert!(said.contains("1 lit faces"), "{id}: {said}");
    }
    validate(&glbs);
}

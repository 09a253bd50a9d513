//! The Genesis3D info table: the rows GBSPLib prints after saving a level
//! (`Tools/GBSPLib/GBSPPREP.CPP`, " --- Save GBSP File --- ": `Num Models : count, bytes` …
//! `Tex Data Size : bytes`), computed from the chunks, then rows for the chunks that table
//! leaves out (the light and vis stages write those later).

use super::lumps::*;
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// GBSPLib's rows, in its order, with its rules: "Solid Leafs" are the leafs whose contents
/// have the solid bit (`BSP_CONTENTS_SOLID2`, bit 0); "Areas" leave out area 0, which the
/// compiler reserves; sizes are count × record size. The rows after "Tex Data Size" are not
/// GBSPLib's.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let count = |index: usize| bsp.lump(index).map(|l| (l.len() / element_size(index)) as u64).unwrap_or(0);
    let row = |name: &str, index: usize| {
        let n = count(index);
        Stat::new(name, Some(n), n * element_size(index) as u64)
    };
    let solid = super::view::View::new(bsp)
        .and_then(|v| v.leafs())
        .map(|l| l.iter().filter(|l| l.contents.get() & 1 != 0).count() as u64)
        .unwrap_or(0);
    let areas = count(CHUNK_AREAS).saturating_sub(1);
    let bytes = |name: &str, index: usize| Stat::bytes_only(name, bsp, index);
    vec![
        row("Num Models", CHUNK_MODELS),
        row("Num Nodes", CHUNK_NODES),
        Stat::new("Num Solid Leafs", Some(solid), solid * element_size(CHUNK_LEAFS) as u64),
        row("Num Total Leafs", CHUNK_LEAFS),
        row("Num Clusters", CHUNK_CLUSTERS),
        Stat::new("Num Areas", Some(areas), areas * element_size(CHUNK_AREAS) as u64),
        row("Num Area Portals", CHUNK_AREA_PORTALS),
        row("Num Leafs Sides", CHUNK_LEAF_SIDES),
        row("Num Planes", CHUNK_PLANES),
        row("Num Faces", CHUNK_FACES),
        row("Num Leaf Faces", CHUNK_LEAF_FACES),
        row("Num Vert Index", CHUNK_VERT_INDEX),
        row("Num Verts", CHUNK_VERTS),
        row("Num FaceInfo", CHUNK_TEXINFO),
        row("Num Textures", CHUNK_TEXTURES),
        bytes("Motion Data Size", CHUNK_MOTIONS),
        bytes("Tex Data Size", CHUNK_TEXDATA),
        // Not in GBSPLib's table.
        row("Num Portals", CHUNK_PORTALS),
        row("Num BNodes", CHUNK_BNODES),
        row("Num RGB Verts", CHUNK_RGB_VERTS),
        row("Num Palettes", CHUNK_PALETTES),
        Stat::new("Num Entities", Some(bsp.entities().map(|e| e.len() as u64).unwrap_or(0)), count(CHUNK_ENTDATA)),
        bytes("Light Data Size", CHUNK_LIGHTDATA),
        bytes("Vis Data Size", CHUNK_VISDATA),
    ]
}

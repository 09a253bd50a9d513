//! vbspinfo's table for Source maps: the same rows, in the same order, with the same names,
//! Objects/Maxobjs and Memory/Maxmem (the limits vbspinfo prints), plus "Level flags" and
//! "Total triangle count" as the last two rows (vbspinfo prints them under the table).
//!
//! How rows are computed (checked against every corpus `.info.txt`):
//! * object rows: count = lump data length / record size on disk; Memory = count × the size
//!   of vbspinfo's in-memory struct (the same except for 56-byte v0 leaves, 100-byte v1 world
//!   lights and VTMB faces, which vbspinfo would hold in the current struct).
//! * `disp_lmsamples`: lump 34 is one byte per sample, so count = bytes.
//! * `LDR/HDR ambient table`: lumps 52/51 (`dleafambientindex_t`); `LDR/HDR leaf ambient`:
//!   lumps 56/55 (`dleafambientlighting_t`).
//! * `occluders` etc.: the three counts of the occlusion lump (§21).
//! * `detail props`, `dtl prp lght`, `HDR dtl prp lght`, `static props`: present only when that
//!   game lump exists; vbspinfo prints them as a glob of 1 byte whose "Maxmem" is the game lump's
//!   `filelen` (its uncompressed size, open_questions.md A13).
//! * `pakfile`: lump 40 length; `physics`: lump 29; `physics terrain`: lump 28 (decompressed).
//! * `Total triangle count`: Σ (numedges − 2) over the drawn faces.

use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use super::lumps::*;
use super::view::View;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::stats::stat::Stat;

/// A row source.
#[derive(Clone, Copy)]
enum Src {
    /// Records of a lump: (lump, record size).
    Lump(usize, usize),
    /// Bytes of a lump, shown as `[variable]`.
    Glob(usize),
    /// Bytes of lump 34 as a count of 1-byte samples.
    Bytes(usize),
    Occluders,
    OccluderPolys,
    OccluderVerts,
    /// An object row whose record size is unknown (Strata multiblend): 0 objects when empty,
    /// else shown as `[variable]` bytes rather than a guessed count.
    Unsized(usize),
    /// Game lump by id: printed only when present.
    Game(&'static [u8; 4]),
    /// Faces (drawn or HDR) by lump, with record size.
    Faces(usize, usize),
}

struct Row {
    name: &'static str,
    src: Src,
    /// Maxobjs for object rows, Maxmem for glob rows.
    max: u64,
}

const fn r(name: &'static str, src: Src, max: u64) -> Row {
    Row { name, src, max }
}

/// vbspinfo's rows for Valve branches up to CS:GO (Source SDK limits, source.md §26).
static STANDARD: &[Row] = &[
    r("models", Src::Lump(LUMP_MODELS, 48), 1024),
    r("brushes", Src::Lump(LUMP_BRUSHES, 12), 8192),
    r("brushsides", Src::Lump(LUMP_BRUSH_SIDES, 8), 65536),
    r("planes", Src::Lump(LUMP_PLANES, 20), 65536),
    r("vertexes", Src::Lump(LUMP_VERTICES, 12), 65536),
    r("nodes", Src::Lump(LUMP_NODES, 32), 65536),
    r("texinfos", Src::Lump(LUMP_TEXINFO, 72), 12288),
    r("texdata", Src::Lump(LUMP_TEXDATA, 32), 2048),
    r("dispinfos", Src::Lump(LUMP_DISP_INFO, 176), 0),
    r("disp_verts", Src::Lump(LUMP_DISP_VERTS, 20), 0),
    r("disp_tris", Src::Lump(LUMP_DISP_TRIS, 2), 0),
    r("disp_lmsamples", Src::Bytes(LUMP_DISP_LIGHTMAP_SAMPLE_POSITIONS), 0),
    r("faces", Src::Faces(LUMP_FACES, 56), 65536),
    r("hdr faces", Src::Faces(LUMP_FACES_HDR, 56), 65536),
    r("origfaces", Src::Faces(LUMP_ORIGINAL_FACES, 56), 65536),
    r("leaves", Src::Lump(LUMP_LEAVES, 32), 65536),
    r("leaffaces", Src::Lump(LUMP_LEAF_FACES, 2), 65536),
    r("leafbrushes", Src::Lump(LUMP_LEAF_BRUSHES, 2), 65536),
    r("areas", Src::Lump(LUMP_AREAS, 8), 256),
    r("surfedges", Src::Lump(LUMP_SURFEDGES, 4), 512000),
    r("edges", Src::Lump(LUMP_EDGES, 4), 256000),
    r("LDR worldlights", Src::Lump(LUMP_WORLD_LIGHTS, 88), 8192),
    r("HDR worldlights", Src::Lump(LUMP_WORLD_LIGHTS_HDR, 88), 8192),
    r("leafwaterdata", Src::Lump(LUMP_LEAF_WATER_DATA, 12), 32768),
    r("waterstrips", Src::Lump(LUMP_PRIMITIVES, 10), 32768),
    r("waterverts", Src::Lump(LUMP_PRIM_VERTS, 12), 65536),
    r("waterindices", Src::Lump(LUMP_PRIM_INDICES, 2), 65536),
    r("cubemapsamples", Src::Lump(LUMP_CUBEMAPS, 16), 1024),
    r("overlays", Src::Lump(LUMP_OVERLAYS, 352), 512),
    r("LDR lightdata", Src::Glob(LUMP_LIGHTING), 0),
    r("HDR lightdata", Src::Glob(LUMP_LIGHTING_HDR), 0),
    r("visdata", Src::Glob(LUMP_VISIBILITY), 0x100_0000),
    r("entdata", Src::Glob(LUMP_ENTITIES), 384 * 1024),
    r("LDR ambient table", Src::Lump(LUMP_LEAF_AMBIENT_INDEX, 4), 65536),
    r("HDR ambient table", Src::Lump(LUMP_LEAF_AMBIENT_INDEX_HDR, 4), 65536),
    r("LDR leaf ambient", Src::Lump(LUMP_LEAF_AMBIENT_LIGHTING, 28), 65536),
    r("HDR leaf ambient", Src::Lump(LUMP_LEAF_AMBIENT_LIGHTING_HDR, 28), 65536),
    r("occluders", Src::Occluders, 0),
    r("occluder polygons", Src::OccluderPolys, 0),
    r("occluder vert ind", Src::OccluderVerts, 0),
    r("detail props", Src::Game(b"dprp"), 0),
    r("dtl prp lght", Src::Game(b"dplt"), 0),
    r("HDR dtl prp lght", Src::Game(b"dplh"), 0),
    r("static props", Src::Game(b"sprp"), 0),
    r("pakfile", Src::Glob(LUMP_PAKFILE), 0),
    r("physics", Src::Glob(LUMP_PHYS_COLLIDE), 4 << 20),
    r("physics terrain", Src::Glob(LUMP_PHYS_DISP), 1 << 20),
];

/// Vindictus (both versions): the standard rows with its widened records' sizes (bsp_tool
/// `nexon/vindictus69.py`). Its own tools' limits are not published: Valve's are shown. Faces
/// have two sizes by lump version, so their Memory uses the size on disk (`0`).
const VINDICTUS_SIZES: &[(&str, usize)] = &[
    ("brushsides", 16),
    ("nodes", 48),
    ("dispinfos", 232),
    ("faces", 0),
    ("hdr faces", 0),
    ("origfaces", 0),
    ("leaves", 56),
    ("leaffaces", 4),
    ("leafbrushes", 4),
    ("edges", 8),
    ("overlays", 356),
];

/// CSO2 2018: the standard rows with its two wider records (sizes from bsp_tool
/// `nexon/cso2_2018.py`; Nexon's tools' limits are not published: Valve's are shown).
const CSO2_2018_SIZES: &[(&str, usize)] = &[("dispinfos", 242), ("cubemapsamples", 164)];

/// Dota 2: the standard rows with its dispinfo records' size by map version (22: 180 bytes,
/// 23: 184; [`super::records::DispInfoDotaV23`]). Overlays keep Valve's size: theirs is not known.
const DOTA_V22_SIZES: &[(&str, usize)] = &[("dispinfos", 180)];
const DOTA_V23_SIZES: &[(&str, usize)] = &[("dispinfos", 184)];

/// Strata v25: the rows and limits its vbspinfo prints (momentum_mp_lobby.bsp.info.txt;
/// limits also in bsp_tool strata.py `MAX`), record sizes from [`super::records`].
static STRATA_ROWS: &[Row] = &[
    r("models", Src::Lump(LUMP_MODELS, 48), 65536),
    r("brushes", Src::Lump(LUMP_BRUSHES, 12), 131072),
    r("brushsides", Src::Lump(LUMP_BRUSH_SIDES, 16), 1310720),
    r("planes", Src::Lump(LUMP_PLANES, 20), 1048576),
    r("vertexes", Src::Lump(LUMP_VERTICES, 12), 1048576),
    r("nodes", Src::Lump(LUMP_NODES, 48), 1048576),
    r("texinfos", Src::Lump(LUMP_TEXINFO, 72), 0),
    r("texdata", Src::Lump(LUMP_TEXDATA, 32), 16384),
    r("dispinfos", Src::Lump(LUMP_DISP_INFO, 232), 262144),
    r("disp_verts", Src::Lump(LUMP_DISP_VERTS, 20), 0),
    r("disp_tris", Src::Lump(LUMP_DISP_TRIS, 2), 0),
    r("disp_multiblend", Src::Unsized(LUMP_DISP_MULTIBLEND), 0),
    r("disp_lmsamples", Src::Bytes(LUMP_DISP_LIGHTMAP_SAMPLE_POSITIONS), 0),
    r("faces", Src::Faces(LUMP_FACES, 72), 1048576),
    r("hdr faces", Src::Faces(LUMP_FACES_HDR, 72), 1048576),
    r("origfaces", Src::Faces(LUMP_ORIGINAL_FACES, 72), 1048576),
    // Face brushes: 32-bit brush indices (an assumption: the sample's lump is empty).
    r("facebrushes", Src::Lump(22, 4), 0),
    r("facebrushlists", Src::Lump(LUMP_FACE_BRUSH_LIST, 8), 0),
    r("leaves", Src::Lump(LUMP_LEAVES, 56), 1048576),
    r("leaffaces", Src::Lump(LUMP_LEAF_FACES, 4), 1048576),
    r("leafbrushes", Src::Lump(LUMP_LEAF_BRUSHES, 4), 1048576),
    r("areas", Src::Lump(LUMP_AREAS, 8), 65536),
    r("surfedges", Src::Lump(LUMP_SURFEDGES, 4), 2097152),
    r("edges", Src::Lump(LUMP_EDGES, 8), 1048576),
    r("LDR worldlights", Src::Lump(LUMP_WORLD_LIGHTS, 100), 0),
    r("HDR worldlights", Src::Lump(LUMP_WORLD_LIGHTS_HDR, 100), 0),
    r("leafwaterdata", Src::Lump(LUMP_LEAF_WATER_DATA, 12), 32768),
    r("waterstrips", Src::Lump(LUMP_PRIMITIVES, 20), 1048576),
    r("waterverts", Src::Lump(LUMP_PRIM_VERTS, 12), 1048576),
    r("waterindices", Src::Lump(LUMP_PRIM_INDICES, 4), 1048576),
    r("cubemapsamples", Src::Lump(LUMP_CUBEMAPS, 16), 16384),
    r("overlays", Src::Lump(LUMP_OVERLAYS, 356), 16384),
    r("LDR lightdata", Src::Glob(LUMP_LIGHTING), 0),
    r("HDR lightdata", Src::Glob(LUMP_LIGHTING_HDR), 0),
    r("visdata", Src::Glob(LUMP_VISIBILITY), 0x100_0000),
    r("entdata", Src::Glob(LUMP_ENTITIES), 384 * 1024),
    r("LDR ambient table", Src::Lump(LUMP_LEAF_AMBIENT_INDEX, 8), 1048576),
    r("HDR ambient table", Src::Lump(LUMP_LEAF_AMBIENT_INDEX_HDR, 8), 1048576),
    r("LDR leaf ambient", Src::Lump(LUMP_LEAF_AMBIENT_LIGHTING, 28), 1048576),
    r("HDR leaf ambient", Src::Lump(LUMP_LEAF_AMBIENT_LIGHTING_HDR, 28), 1048576),
    r("occluders", Src::Occluders, 0),
    r("occluder polygons", Src::OccluderPolys, 0),
    r("occluder vert ind", Src::OccluderVerts, 0),
    r("detail props", Src::Game(b"dprp"), 0),
    r("dtl prp lght", Src::Game(b"dplt"), 0),
    r("HDR dtl prp lght", Src::Game(b"dplh"), 0),
    r("static props", Src::Game(b"sprp"), 0),
    r("pakfile", Src::Glob(LUMP_PAKFILE), 0),
    r("physics", Src::Glob(LUMP_PHYS_COLLIDE), 4 << 20),
    r("physics terrain", Src::Glob(LUMP_PHYS_DISP), 1 << 20),
];

/// `(id, flags, version, fileofs, filelen)` of each game lump directory entry (§14.1) that
/// lies inside the lump: a tolerant read (by [`crate::lumps::gamelump::read_entries_lenient`])
/// for the stats rows.
pub fn game_lump_directory(bsp: &Bsp) -> Vec<([u8; 4], u16, u16, i32, i32)> {
    let Ok(data) = bsp.lump(LUMP_GAME_LUMP) else { return Vec::new() };
    let form = crate::lumps::gamelump::DirForm::of_branch(bsp.branch().id);
    crate::lumps::gamelump::read_entries_lenient_in(data, bsp.endian(), form)
        .iter()
        .map(|e| (e.id.to_be_bytes(), e.flags, e.version, e.offset as i32, e.length as i32))
        .collect()
}

/// A lump's decoded length; an LZMA lump's from its header, not decoded (the rows only count).
fn len(bsp: &Bsp, i: usize) -> u64 {
    bsp.lump_len(i).unwrap_or(0)
}

/// vbspinfo's rows (the `Branch::stats` hook of every Source branch).
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    match bsp.endian() {
        Endian::Little => stats_as::<LittleEndian>(bsp),
        Endian::Big => stats_as::<BigEndian>(bsp),
    }
}

fn stats_as<O: ByteOrder>(bsp: &Bsp) -> Vec<Stat> {
    let (rows, sizes) = match layout(bsp.branch()) {
        Layout::Strata => (STRATA_ROWS, &[][..]),
        Layout::Vindictus => (STANDARD, VINDICTUS_SIZES),
        _ if bsp.branch().id == "cso2_2018" => (STANDARD, CSO2_2018_SIZES),
        _ if bsp.branch().id == "dota2" && bsp.header().version == 22 => (STANDARD, DOTA_V22_SIZES),
        _ if bsp.branch().id == "dota2" => (STANDARD, DOTA_V23_SIZES),
        _ => (STANDARD, &[][..]),
    };
    let view = View::<O>::new(bsp).ok();
    let occ = view.as_ref().and_then(|v| v.occlusion().ok());
    let games = game_lump_directory(bsp);
    let mut out = Vec::with_capacity(rows.len() + 2);
    for row in rows {
        let object = |count: u64, size: usize| Stat {
            name: row.name.into(),
            count: Some(count),
            bytes: count * size as u64,
            max_count: Some(row.max),
            max_bytes: Some(row.max * size as u64),
        };
        let glob = |bytes: u64, max: u64| Stat { name: row.name.into(), count: None, bytes, max_count: None, max_bytes: Some(max) };
        let stat = match row.src {
            Src::Lump(i, size) | Src::Faces(i, size) => {
                let size = sizes.iter().find(|(name, _)| *name == row.name).map_or(size, |&(_, s)| s);
                // Count by the record size on disk (56-byte v0 leaves, 100-byte v1 world
                // lights, VTMB's 104-byte faces); Memory by vbspinfo's in-memory struct.
                let disk = bsp.record_size(i).unwrap_or(size).max(1);
                // A row size of 0: Memory by the size on disk (Vindictus's two face forms).
                object(len(bsp, i) / disk as u64, if size == 0 { disk } else { size })
            }
            Src::Glob(i) => glob(len(bsp, i), row.max),
            Src::Bytes(i) => object(len(bsp, i), 1),
            Src::Unsized(i) => match len(bsp, i) {
                0 => object(0, 0),
                n => glob(n, row.max),
            },
            Src::Occluders => {
                let size = if bsp.entry(LUMP_OCCLUSION).and_then(|e| e.version) == Some(0) { 36 } else { 40 };
                object(occ.as_ref().map_or(0, |o| o.occluder_count() as u64), size)
            }
            Src::OccluderPolys => object(occ.as_ref().map_or(0, |o| o.polys.len() as u64), 12),
            Src::OccluderVerts => object(occ.as_ref().map_or(0, |o| o.vertex_indices.len() as u64), 4),
            Src::Game(id) => match games.iter().find(|g| &g.0 == id) {
                Some(g) => glob(1, g.4.max(0) as u64),
                None => continue,
            },
        };
        out.push(stat);
    }
    if let Ok(Some(flags)) = level_flags(bsp) {
        out.push(Stat::new("Level flags", Some(flags as u64), 0));
    }
    if let Ok(n) = triangle_count(bsp) {
        out.push(Stat::new("Total triangle count", Some(n), 0));
    }
    out
}

/// The map's level flags (lump 59, vbspinfo's "Level flags = %x"), if it has the lump.
pub fn level_flags(bsp: &Bsp) -> crate::error::Result<Option<u32>> {
    match bsp.endian() {
        Endian::Little => View::<LittleEndian>::new(bsp)?.map_flags(),
        Endian::Big => View::<BigEndian>::new(bsp)?.map_flags(),
    }
}

/// vbspinfo's "Total triangle count": Σ (numedges − 2) over the drawn faces (lump 7, or 58 on
/// HDR-only maps).
pub fn triangle_count(bsp: &Bsp) -> crate::error::Result<u64> {
    fn count<O: ByteOrder>(bsp: &Bsp) -> crate::error::Result<u64> {
        let v = View::<O>::new(bsp)?;
        Ok(v.faces()?.iter().map(|f| (f.numedges - 2).max(0) as u64).sum())
    }
    match bsp.endian() {
        Endian::Little => count::<LittleEndian>(bsp),
        Endian::Big => count::<BigEndian>(bsp),
    }
}

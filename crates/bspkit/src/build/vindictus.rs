//! Builder maps of Vindictus (`vindictus`, `vindictus69`; the record forms of bsp_tool's
//! `nexon/vindictus69.py`, see `branches/source/records.rs`): a Valve v20 header whose faces,
//! nodes, leaves, edges, leaf faces/brushes, brush sides, area portals, dispinfo and overlays
//! are widened to 32-bit fields, faces in two forms by lump version (72 or 76 bytes), a game
//! lump directory of 20-byte entries, and static props with a scale list before the props.
//!
//! [`vindictus_from_valve`] re-lays a little-endian Valve v20 map in those forms, field by
//! field, so that the geometry of a real map is read through the fork's records;
//! [`vindictus_map`] does so for a one-face map written here (garble test, fuzz seeds).

use zerocopy::{FromZeros, IntoBytes, LittleEndian};

use super::builder::BspBuilder;
use crate::branch::Branch;
use crate::branches::source::lumps as source;
use crate::bytes::{u16_at, u32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::gamelump::{DirForm, ID_STATIC_PROPS};
use crate::lumps::staticprops::{StaticPropV6, StaticProps, VINDICTUS_SCALE_LEN};

type L = LittleEndian;

/// A game lump child: `(id, flags, version, bytes)` (flags and version are ints in Vindictus's
/// directory).
pub type Child = (u32, u32, u32, Vec<u8>);

/// Which Vindictus build a re-laid map imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VindictusForm {
    /// 1.69 (`vindictus69`): static props version 6 holding 60-byte (v5) props.
    V69,
    /// Later builds (`vindictus`): static props version 6 holding 64-byte (v6) props.
    Later,
}

impl VindictusForm {
    pub fn branch(self) -> &'static Branch {
        match self {
            VindictusForm::V69 => &source::VINDICTUS69,
            VindictusForm::Later => &source::VINDICTUS,
        }
    }
}

fn i16_at(b: &[u8], at: usize) -> i32 {
    u16_at(b, at, Endian::Little).unwrap_or(0) as i16 as i32
}
fn u16w(b: &[u8], at: usize) -> u32 {
    u16_at(b, at, Endian::Little).unwrap_or(0) as u32
}
fn put(out: &mut Vec<u8>, v: &[u8]) {
    out.extend_from_slice(v);
}
fn i32s(out: &mut Vec<u8>, v: impl IntoIterator<Item = i32>) {
    v.into_iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
}

/// Each `size`-byte record of `bytes` rewritten by `f`.
fn each(bytes: &[u8], size: usize, what: &str, f: impl Fn(&[u8], &mut Vec<u8>)) -> Result<Vec<u8>> {
    if bytes.len() % size != 0 {
        return Err(Error::malformed(format!("{what}: {} bytes are not whole {size}-byte records", bytes.len())));
    }
    let mut out = Vec::new();
    bytes.chunks_exact(size).for_each(|r| f(r, &mut out));
    Ok(out)
}

/// A Valve `dface_t` (56 bytes) as a Vindictus face: 72 bytes, or 76 for lump version 2 (an
/// extra zero int after the fog volume). Valve's prim count keeps dynamic shadows in bit 15;
/// the widened field keeps them in bit 0 and the count above it.
fn face(r: &[u8], out: &mut Vec<u8>, version: u32) {
    i32s(out, [u16w(r, 0) as i32]);
    put(out, &[r[2], r[3], 0, 0]);
    put(out, &r[4..8]);
    i32s(out, [i16_at(r, 8), i16_at(r, 10), i16_at(r, 12), i16_at(r, 14)]);
    if version == 2 {
        i32s(out, [0]);
    }
    put(out, &r[16..48]);
    let prims = u16w(r, 48);
    i32s(out, [(((prims & 0x7fff) << 1) | (prims >> 15)) as i32, u16w(r, 50) as i32]);
    put(out, &r[52..56]);
}

/// Re-lay a little-endian Valve v20 map (`VBSP` 20, version-1 leaves, no LZMA lumps) in
/// Vindictus's forms: faces (lumps 7, 27, 58) at lump version `face_version` (1 or 2), and the
/// static props of `form`, with one scale record. Every other lump is copied.
pub fn vindictus_from_valve(data: &[u8], face_version: u32, form: VindictusForm) -> Result<Vec<u8>> {
    if data.get(..4) != Some(b"VBSP") || u32_at(data, 4, Endian::Little) != Some(20) {
        return Err(Error::malformed("not a little-endian VBSP version 20 map"));
    }
    if !matches!(face_version, 1 | 2) {
        return Err(Error::malformed(format!("Vindictus faces have lump versions 1 and 2, not {face_version}")));
    }
    let mut lumps: Vec<(Vec<u8>, u32)> = Vec::with_capacity(64);
    for i in 0..64 {
        let b = 8 + 16 * i;
        let field =
            |o: usize| u32_at(data, b + o, Endian::Little).ok_or_else(|| Error::truncated(1036, data.len() as u64).in_lump("header"));
        let (ofs, len, version) = (field(0)? as usize, field(4)? as usize, field(8)?);
        let bytes = data.get(ofs..ofs.saturating_add(len)).ok_or_else(|| Error::truncated((ofs + len) as u64, data.len() as u64))?;
        if bytes.starts_with(b"LZMA") {
            return Err(Error::malformed(format!("lump {i} is LZMA-compressed")));
        }
        lumps.push((bytes.to_vec(), version));
    }
    if !lumps[source::LUMP_LEAVES].0.is_empty() && lumps[source::LUMP_LEAVES].1 != 1 {
        return Err(Error::malformed("only version-1 (32-byte) leaves are re-laid"));
    }
    let mut set = |i: usize, size: usize, version: Option<u32>, f: &dyn Fn(&[u8], &mut Vec<u8>)| -> Result<()> {
        let name = source::LUMPS_2007[i].name;
        lumps[i].0 = each(&lumps[i].0, size, name, f)?;
        if let Some(v) = version {
            lumps[i].1 = v;
        }
        Ok(())
    };
    set(source::LUMP_NODES, 32, None, &|r, out| {
        put(out, &r[..12]);
        i32s(out, (0..6).map(|k| i16_at(r, 12 + 2 * k)));
        // Vindictus's node has no area field: the last int is padding.
        i32s(out, [u16w(r, 24) as i32, u16w(r, 26) as i32, 0]);
    })?;
    set(source::LUMP_LEAVES, 32, None, &|r, out| {
        put(out, &r[..4]);
        i32s(out, [i16_at(r, 4), u16w(r, 6) as i32]);
        i32s(out, (0..6).map(|k| i16_at(r, 8 + 2 * k)));
        i32s(out, (0..4).map(|k| u16w(r, 20 + 2 * k) as i32));
        i32s(out, [i16_at(r, 28)]);
    })?;
    for i in [source::LUMP_FACES, source::LUMP_ORIGINAL_FACES, source::LUMP_FACES_HDR] {
        set(i, 56, Some(face_version), &|r, out| face(r, out, face_version))?;
    }
    set(source::LUMP_EDGES, 4, None, &|r, out| i32s(out, [u16w(r, 0) as i32, u16w(r, 2) as i32]))?;
    set(source::LUMP_LEAF_FACES, 2, None, &|r, out| i32s(out, [u16w(r, 0) as i32]))?;
    set(source::LUMP_LEAF_BRUSHES, 2, None, &|r, out| i32s(out, [u16w(r, 0) as i32]))?;
    set(source::LUMP_BRUSH_SIDES, 8, None, &|r, out| i32s(out, [u16w(r, 0) as i32, i16_at(r, 2), i16_at(r, 4), r[6] as i32]))?;
    set(source::LUMP_AREA_PORTALS, 12, None, &|r, out| {
        i32s(out, (0..4).map(|k| u16w(r, 2 * k) as i32));
        put(out, &r[8..12]);
    })?;
    set(source::LUMP_DISP_INFO, 176, None, &|r, out| {
        // start, vert start, tri start, power; then the smoothing angle before the unknown int
        // (Valve's minTess is put there); contents; the face widened; the lightmap starts;
        // Valve's 88 neighbour bytes and 56 zero bytes in the fork's 144; the allowed verts.
        put(out, &r[..24]);
        put(out, &r[28..32]);
        put(out, &r[24..28]);
        put(out, &r[32..36]);
        i32s(out, [u16w(r, 36) as i32]);
        put(out, &r[40..136]);
        put(out, &[0u8; 56]);
        put(out, &r[136..176]);
    })?;
    set(source::LUMP_OVERLAYS, 352, None, &|r, out| {
        let fcro = u16w(r, 6);
        put(out, &r[..4]);
        i32s(out, [i16_at(r, 4), ((fcro & 0x3fff) | (fcro >> 14) << 30) as i32]);
        put(out, &r[8..]);
    })?;
    let children = game_lump_children(data, &lumps[source::LUMP_GAME_LUMP].0, form)?;
    let revision = u32_at(data, 8 + 16 * 64, Endian::Little).unwrap_or(0);
    let build = |shift: u64| {
        let mut b = BspBuilder::new(form.branch());
        b.revision = revision;
        for (i, (bytes, version)) in lumps.iter().enumerate() {
            let bytes = if i == source::LUMP_GAME_LUMP { vindictus_game_lump(&children, shift) } else { bytes.clone() };
            if !bytes.is_empty() {
                b = b.lump_v(i, bytes, *version);
            }
        }
        b.build()
    };
    let first = build(0);
    let at = u32_at(&first, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as u64;
    Ok(build(at))
}

/// The Valve game lump's children `(id, flags, version, bytes)`, its `sprp` re-encoded in
/// `form`'s static props (version 6, a scale list of one record, then v6 or v5 props).
fn game_lump_children(data: &[u8], gl: &[u8], form: VindictusForm) -> Result<Vec<Child>> {
    let gofs = u32_at(data, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as usize;
    let count = u32_at(gl, 0, Endian::Little).unwrap_or(0) as usize;
    let mut out = Vec::new();
    for k in 0..count.min(gl.len() / 16) {
        let b = 4 + 16 * k;
        let field = |o: usize| u32_at(gl, b + o, Endian::Little).unwrap_or(0);
        let (id, flags, version) = (field(0), u16w(gl, b + 4), u16w(gl, b + 6));
        let (ofs, len) = (field(8) as usize, field(12) as usize);
        if len == 0 || flags != 0 {
            continue;
        }
        let rel = if ofs >= gofs && ofs - gofs + len <= gl.len() { ofs - gofs } else { ofs };
        let child = gl.get(rel..rel + len).ok_or_else(|| Error::malformed(format!("game lump child {k} outside the lump")))?;
        if id == ID_STATIC_PROPS {
            out.push((id, 0, 6, vindictus_sprp(child, version as u16, form)?));
        } else {
            out.push((id, flags, version, child.to_vec()));
        }
    }
    Ok(out)
}

/// A Valve `sprp` child re-encoded for Vindictus: the same names and leaves, a scale list of
/// one record (prop 0 at scale 1), then each prop's v6 fields (or v5's for 1.69).
pub fn vindictus_sprp(child: &[u8], version: u16, form: VindictusForm) -> Result<Vec<u8>> {
    let sp = StaticProps::parse(std::borrow::Cow::Borrowed(child), version, Endian::Little)?;
    let props = sp.props()?;
    let mut out = (sp.model_names.len() as i32).to_le_bytes().to_vec();
    for n in &sp.model_names {
        let mut name = [0u8; 128];
        let b = n.as_bytes();
        name[..b.len().min(127)].copy_from_slice(&b[..b.len().min(127)]);
        out.extend_from_slice(&name);
    }
    out.extend_from_slice(&(sp.leaves.len() as i32).to_le_bytes());
    sp.leaves.iter().for_each(|&l| out.extend_from_slice(&(l as u16).to_le_bytes()));
    let scales = usize::from(!props.is_empty());
    out.extend_from_slice(&(scales as i32).to_le_bytes());
    if scales == 1 {
        let mut s = Vec::with_capacity(VINDICTUS_SCALE_LEN);
        i32s(&mut s, [0]);
        [1.0f32; 3].iter().for_each(|c| s.extend_from_slice(&c.to_le_bytes()));
        out.extend_from_slice(&s);
    }
    out.extend_from_slice(&(props.len() as i32).to_le_bytes());
    for p in &props {
        let mut v = StaticPropV6::<L>::new_zeroed();
        let v4 = &mut v.v5.v4;
        (0..3).for_each(|k| {
            v4.origin[k].set(p.origin[k]);
            v4.angles[k].set(p.angles[k]);
            v4.lighting_origin[k].set(p.lighting_origin[k]);
        });
        v4.model.set(p.model);
        v4.first_leaf.set(p.first_leaf);
        v4.leaf_count.set(p.leaf_count);
        v4.solid = p.solid;
        v4.flags = p.flags as u8;
        v4.skin.set(p.skin);
        v4.fade_min.set(p.fade_min);
        v4.fade_max.set(p.fade_max);
        v.v5.forced_fade_scale.set(p.forced_fade_scale.unwrap_or(1.0));
        let [lo, hi] = p.dx_level.unwrap_or([0, 0]);
        v.min_dx_level.set(lo);
        v.max_dx_level.set(hi);
        match form {
            VindictusForm::Later => out.extend_from_slice(v.as_bytes()),
            VindictusForm::V69 => out.extend_from_slice(v.v5.as_bytes()),
        }
    }
    Ok(out)
}

/// A Vindictus game lump: Valve's count, then 20-byte entries `{id, int flags, int version,
/// fileofs, filelen}`, children after the directory, offsets measured from `shift` (the lump's
/// file offset: absolute, as PC maps store them).
pub fn vindictus_game_lump(children: &[Child], shift: u64) -> Vec<u8> {
    let mut out = (children.len() as u32).to_le_bytes().to_vec();
    let mut pos = DirForm::Vindictus.dir_len(children.len()) as u64;
    for (id, flags, version, data) in children {
        for x in [*id, *flags, *version, (shift + pos) as u32, data.len() as u32] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        pos += data.len() as u64;
    }
    children.iter().for_each(|c| out.extend_from_slice(&c.3));
    out
}

/// A one-face Valve v20 map written here (a 64-unit square floor in one leaf, one static prop),
/// the input of [`vindictus_map`].
pub fn valve_square() -> Vec<u8> {
    let mut planes = Vec::new();
    [0f32, 0.0, 1.0, 0.0].iter().for_each(|c| planes.extend_from_slice(&c.to_le_bytes()));
    planes.extend_from_slice(&2i32.to_le_bytes());
    let mut verts = Vec::new();
    for (x, y) in [(0f32, 0f32), (0.0, 64.0), (64.0, 64.0), (64.0, 0.0)] {
        [x, y, 0.0].iter().for_each(|c| verts.extend_from_slice(&c.to_le_bytes()));
    }
    // Edge 0 is unused (§7.3); edges 1..4 go round the square.
    let mut edges = vec![0u8; 4];
    for (a, b) in [(0u16, 1u16), (1, 2), (2, 3), (3, 0)] {
        edges.extend_from_slice(&a.to_le_bytes());
        edges.extend_from_slice(&b.to_le_bytes());
    }
    let surfedges: Vec<u8> = (1..=4i32).flat_map(|e| e.to_le_bytes()).collect();
    let mut texinfo = Vec::new();
    for v in [[1f32 / 4.0, 0.0, 0.0, 0.0], [0.0, 1.0 / 4.0, 0.0, 0.0], [1.0 / 16.0, 0.0, 0.0, 0.0], [0.0, 1.0 / 16.0, 0.0, 0.0]] {
        v.iter().for_each(|c| texinfo.extend_from_slice(&c.to_le_bytes()));
    }
    i32s(&mut texinfo, [0, 0]);
    let mut texdata = vec![0u8; 12];
    i32s(&mut texdata, [0, 16, 16, 16, 16]);
    let mut face = Vec::new();
    face.extend_from_slice(&0u16.to_le_bytes());
    face.extend_from_slice(&[0, 1]);
    i32s(&mut face, [0]);
    for x in [4i16, 0, -1, -1] {
        face.extend_from_slice(&x.to_le_bytes());
    }
    face.extend_from_slice(&[255; 4]);
    i32s(&mut face, [-1]);
    face.extend_from_slice(&4096f32.to_le_bytes());
    i32s(&mut face, [0, 0, 0, 0, -1]);
    face.extend_from_slice(&[0u8; 8]);
    let mut model = Vec::new();
    for c in [-1f32, -1.0, -1.0, 65.0, 65.0, 1.0, 0.0, 0.0, 0.0] {
        model.extend_from_slice(&c.to_le_bytes());
    }
    i32s(&mut model, [0, 0, 1]);
    let mut node = Vec::new();
    i32s(&mut node, [0, -1, -2]);
    for x in [0i16, 0, -1, 64, 64, 1] {
        node.extend_from_slice(&x.to_le_bytes());
    }
    for x in [0u16, 1, 0, 0] {
        node.extend_from_slice(&x.to_le_bytes());
    }
    let leaf = |contents: i32, faces: u16| {
        let mut l = Vec::new();
        i32s(&mut l, [contents]);
        for x in [-1i16, 0, 0, 0, -1, 64, 64, 1, 0, faces as i16, 0, 0, -1, 0] {
            l.extend_from_slice(&x.to_le_bytes());
        }
        l
    };
    let leaves = [leaf(0, 1), leaf(1, 0)].concat();
    let mut areas = Vec::new();
    i32s(&mut areas, [0, 0, 0, 0]);
    let mut prop = StaticPropV6::<L>::new_zeroed();
    prop.v5.v4.origin[0].set(32.0);
    prop.v5.v4.leaf_count.set(1);
    prop.v5.v4.solid = 6;
    prop.v5.v4.fade_max.set(1000.0);
    prop.v5.forced_fade_scale.set(1.0);
    let sprp = super::source_forks::sprp_bytes(&["models/props/crate.mdl"], None, &[0], &[prop.as_bytes()]);
    let ents = b"{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"1\"\n}\n\0".to_vec();
    let build = |gl: Vec<u8>| {
        BspBuilder::new(&source::SOURCE)
            .lump(source::LUMP_ENTITIES, ents.clone())
            .lump(source::LUMP_PLANES, planes.clone())
            .lump(source::LUMP_TEXDATA, texdata.clone())
            .lump(source::LUMP_VERTICES, verts.clone())
            .lump(source::LUMP_NODES, node.clone())
            .lump(source::LUMP_TEXINFO, texinfo.clone())
            .lump_v(source::LUMP_FACES, face.clone(), 1)
            .lump_v(source::LUMP_LEAVES, leaves.clone(), 1)
            .lump(source::LUMP_EDGES, edges.clone())
            .lump(source::LUMP_SURFEDGES, surfedges.clone())
            .lump(source::LUMP_MODELS, model.clone())
            .lump(source::LUMP_LEAF_FACES, 0u16.to_le_bytes().to_vec())
            .lump(source::LUMP_AREAS, areas.clone())
            .lump(source::LUMP_GAME_LUMP, gl)
            .lump(source::LUMP_TEXDATA_STRING_TABLE, 0i32.to_le_bytes().to_vec())
            .lump(source::LUMP_TEXDATA_STRING_DATA, b"DEV/DEV_MEASUREGENERIC01\0".to_vec())
            .build()
    };
    let game_lump = |shift: u64| {
        let mut g = 1u32.to_le_bytes().to_vec();
        for x in [ID_STATIC_PROPS, 6 << 16, (shift + 20) as u32, sprp.len() as u32] {
            g.extend_from_slice(&x.to_le_bytes());
        }
        g.extend_from_slice(&sprp);
        g
    };
    let first = build(game_lump(0));
    let at = u32_at(&first, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as u64;
    build(game_lump(at))
}

/// A small Vindictus map of `form` with faces of lump version `face_version`: [`valve_square`]
/// re-laid by [`vindictus_from_valve`].
pub fn vindictus_map(face_version: u32, form: VindictusForm) -> Vec<u8> {
    vindictus_from_valve(&valve_square(), face_version, form).expect("the square map re-lays")
}

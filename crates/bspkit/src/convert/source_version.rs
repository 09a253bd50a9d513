//! Source version moves: VBSP 19 (`source2004`) ↔ 20 (`source2006`, `source`) ↔ 21 (`l4d2`,
//! `csgo`), and static prop (`sprp`) versions up and down (source.md §3–§5, §9.2, §14.3, §20,
//! §23, §27). PC (little-endian) maps only: a console map is first converted to its PC form.
//!
//! What differs between these versions, and what this does about it:
//!
//! * **Header**: the version number, and the `lump_t` field order — L4D2 stores `{version,
//!   offset, length, fourCC}`, every other branch `{offset, length, version, fourCC}` (§4.2).
//! * **Leaves and ambient light** (§9.2, §20): lump version 0 leaves (56 bytes) carry one
//!   `CompressedLightCube` each — the v19 form; Source 2006 keeps 32-byte leaves with one cube
//!   per leaf in lumps 55/56 (lump version 0); Source 2007 and later keep 32-byte leaves with an
//!   index (51/52) into samples of a cube and a position (55/56, lump version 1). The cubes are
//!   moved between the forms. A form with one cube per leaf keeps the sample nearest the leaf's
//!   centre (the others are reported); a cube moved into the sampled form is placed at the
//!   centre, (128, 128, 128) in the fractions of the leaf's bounds `dleafambientlighting_t`
//!   stores, and a leaf whose cube is all zero gets no sample (as VRAD leaves solid leaves).
//! * **World lights** (§23): version 1 adds `shadow_cast_offset`. Engines that read version 1
//!   also read version 0 (they fill a zero offset), so the lump is kept as it is, except into
//!   v19, whose engine knows only version 0: the offset is dropped (reported where not zero).
//! * **HDR** (lumps 53–56, 58): v19 maps have no HDR faces lump; every HDR lump is dropped on
//!   the way to v19 and reported — but for a map whose faces are only in the HDR lump (console
//!   builds): its HDR faces and their lightmaps become FACES and LIGHTING.
//! * **Lumps a slot means differently** (22–25: v19 portals, L4D2 prop collision, CS:GO face
//!   brushes; 49, 59, 62, 63): a lump the target's table names differently is dropped and
//!   reported.
//! * **Static props** (§14.3): kept at their version when the target's engine reads that
//!   layout, otherwise (or when asked for a version) rewritten field by field. Into `csgo` they
//!   are always written at version 11 unless asked otherwise: CS:GO's vbsp writes 11, and it is
//!   the evidence detection reads to tell a CS:GO map from Portal 2's (version 9) or Source
//!   Filmmaker's (TF2 entity classes), so a moved map is detected as CS:GO without `--branch`.
//!   Into `l4d2` the version-first `lump_t` order is the evidence (only L4D2 writes it). A field the
//!   target lacks is reported when its value differs from the engine's default; a field the
//!   target adds gets the default the engine's own static prop loader fills in when it reads an
//!   older version (`CStaticPropMgr::UnserializeModels`): fade scale 1, CPU/GPU levels 0,
//!   colour modulation (255, 255, 255, 255), `DisableX360` 0, `FlagsEx` 0. Fields that loader
//!   does not name: DX levels 0 (the "no limit" value Hammer writes by default), uniform scale 1
//!   (no scaling), the v7* prop lightmap size 0 × 0 with flag `0x100` (no per-texel lighting),
//!   which is what SDK 2013's vbsp wrote for every prop of the corpus TF2 map `test2`. The
//!   lighting origin is in every version, so it is always carried over.
//!
//! The other lumps keep their bytes; the file keeps the source's lump order, non-zero gaps and
//! map revision, so a move whose every lump keeps its size is undone byte for byte.

use std::borrow::Cow;

use crate::branch::{Branch, HeaderKind};
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::convert::report::{LumpAction, Report};
use crate::directory::{self, LumpEntry};
use crate::edit::Editor;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump;
use crate::lumps::staticprops::{PropLayout, StaticProp, StaticProps};

/// The Source branches a version move writes.
pub const BRANCHES: &[&str] = &["source2004", "source2006", "source", "l4d2", "csgo"];
/// The Source branches a version move reads: [`BRANCHES`] and the v21 branches whose maps
/// detection cannot tell from a converted CS:GO or L4D2 map (their lump tables are L4D2's).
pub const FROM_BRANCHES: &[&str] = &["source2004", "source2006", "source", "l4d2", "csgo", "portal2", "alienswarm", "sfm"];

const HEADER_LEN: usize = 8 + 64 * 16 + 4;
const FACES: usize = 7;
const LIGHTING: usize = 8;
const LEAVES: usize = 10;
const LIGHTING_HDR: usize = 53;
const FACES_HDR: usize = 58;
const WORLD_LIGHTS: usize = 15;
const GAME_LUMP: usize = 35;
const AMBIENT_INDEX_HDR: usize = 51;
const AMBIENT_INDEX: usize = 52;
const WORLD_LIGHTS_HDR: usize = 54;
const AMBIENT_HDR: usize = 55;
const AMBIENT: usize = 56;
/// Lumps of the HDR pass (§19, §20, §23): none goes into a v19 map.
const HDR: &[usize] = &[LIGHTING_HDR, WORLD_LIGHTS_HDR, AMBIENT_INDEX_HDR, AMBIENT_HDR, 58];
const CUBE: usize = 24;
const SAMPLE: usize = 28;
/// Centre of a leaf in `dleafambientlighting_t`'s fractions of the leaf's bounds (§20).
const CENTRE: [u8; 3] = [128, 128, 128];
/// `STATIC_PROP_NO_PER_TEXEL_LIGHTING`, set with a 0 × 0 prop lightmap (see the module notes).
const NO_PER_TEXEL_LIGHTING: u32 = 0x100;

/// The VBSP version a move writes for `to` (keeping 18 / 19 into `source2004` when the
/// source has it).
pub fn version_for(to: &Branch, from_version: u32) -> u32 {
    match to.id {
        "source2004" if (18..=19).contains(&from_version) => from_version,
        "source2004" => 19,
        "source2006" | "source" => 20,
        _ => 21,
    }
}

/// Static prop layouts a branch's engine reads (§14.3 "which version where"; the loader reads
/// every older Valve layout of its line). `source` is SDK 2013: v4–v6 and v7* (stored as 7 or 10).
fn prop_layouts(to: &Branch) -> &'static [PropLayout] {
    use PropLayout::*;
    match to.id {
        "source2004" => &[V4, V5],
        "source2006" => &[V4, V5, V6],
        "source" => &[V4, V5, V6, V7Star],
        "l4d2" => &[V4, V5, V6, V7, V8, V9],
        _ => &[V4, V5, V6, V7, V8, V9, V10, V11],
    }
}

/// The layout and version number a target writes by default (its newest).
fn native_props(to: &Branch) -> (PropLayout, u16) {
    match to.id {
        "source2004" => (PropLayout::V5, 5),
        "source2006" => (PropLayout::V6, 6),
        "source" => (PropLayout::V7Star, 10),
        "l4d2" => (PropLayout::V9, 9),
        _ => (PropLayout::V11, 11),
    }
}

/// The layout `version` means in `to` (SDK 2013 calls v7* both 7 and 10).
fn layout_of(to: &Branch, version: u16) -> Option<PropLayout> {
    if to.id == "source" && matches!(version, 7 | 10) {
        return Some(PropLayout::V7Star);
    }
    let l = PropLayout::candidates(version).first().copied()?;
    prop_layouts(to).contains(&l).then_some(l)
}

/// How a map stores its per-leaf ambient light.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ambient {
    /// In each 56-byte leaf (leaf lump version 0); HDR as one cube per leaf in lump 55.
    InLeaf,
    /// One 24-byte cube per leaf in 55 (HDR) and 56 (LDR).
    PerLeaf,
    /// Index lumps 51/52 into 28-byte samples in 55/56.
    Sampled,
}

fn target_ambient(to: &Branch) -> Ambient {
    match to.id {
        "source2004" => Ambient::InLeaf,
        "source2006" => Ambient::PerLeaf,
        _ => Ambient::Sampled,
    }
}

/// One ambient sample: a cube and its position (fractions of the leaf's bounds).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Sample {
    cube: [u8; CUBE],
    pos: [u8; 3],
    pad: u8,
}

/// Per-leaf samples of one pass (LDR or HDR).
type LeafSamples = Vec<Vec<Sample>>;

fn cube(b: &[u8]) -> [u8; CUBE] {
    b[..CUBE].try_into().expect("24 bytes")
}

fn per_leaf_cubes(data: &[u8], leaves: usize, what: &str) -> Result<LeafSamples> {
    if data.len() != leaves * CUBE {
        return Err(Error::malformed(format!("{what}: {} bytes are not one 24-byte cube for each of {leaves} leaves", data.len())));
    }
    Ok(data.chunks_exact(CUBE).map(|c| vec![Sample { cube: cube(c), pos: CENTRE, pad: 0 }]).collect())
}

fn sampled(index: &[u8], samples: &[u8], leaves: usize, what: &str) -> Result<LeafSamples> {
    if index.len() != leaves * 4 || samples.len() % SAMPLE != 0 {
        return Err(Error::malformed(format!(
            "{what}: index of {} bytes for {leaves} leaves, samples of {} bytes (28 each)",
            index.len(),
            samples.len()
        )));
    }
    let n = samples.len() / SAMPLE;
    index
        .chunks_exact(4)
        .map(|r| {
            let (count, first) = (u16::from_le_bytes([r[0], r[1]]) as usize, u16::from_le_bytes([r[2], r[3]]) as usize);
            if count > 0 && first + count > n {
                return Err(Error::malformed(format!("{what}: samples {first}..{} of {n}", first + count)));
            }
            if count == 0 {
                return Ok(Vec::new());
            }
            Ok(samples[first * SAMPLE..(first + count) * SAMPLE]
                .chunks_exact(SAMPLE)
                .map(|s| Sample { cube: cube(s), pos: [s[24], s[25], s[26]], pad: s[27] })
                .collect())
        })
        .collect()
}

/// The sample nearest the leaf's centre.
fn nearest_centre(s: &[Sample]) -> Option<Sample> {
    s.iter().min_by_key(|s| s.pos.iter().zip(CENTRE).map(|(&a, c)| (a as i32 - c as i32).pow(2)).sum::<i32>()).copied()
}

fn write_sampled(leaves: &LeafSamples) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut index = Vec::with_capacity(leaves.len() * 4);
    let mut samples = Vec::new();
    let mut n = 0usize;
    for l in leaves {
        if n + l.len() > u16::MAX as usize {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "ambient samples (16-bit index)",
                requested: (n + l.len()) as u64,
                limit: u16::MAX as u64,
            }));
        }
        index.extend_from_slice(&(l.len() as u16).to_le_bytes());
        index.extend_from_slice(&(n as u16).to_le_bytes());
        for s in l {
            samples.extend_from_slice(&s.cube);
            samples.extend_from_slice(&s.pos);
            samples.push(s.pad);
        }
        n += l.len();
    }
    Ok((index, samples))
}

/// One game lump child: `(id, flags, version, bytes, filelen)`.
type Child = (u32, u16, u16, Vec<u8>, u32);

/// The target's lumps, by slot: stored bytes (plain) and lump version.
struct Out {
    bytes: Vec<Option<(Vec<u8>, u32)>>,
    /// Slots written empty where their turn comes in the file (the offset vbsp gives an empty
    /// lump) with this lump version, instead of all-zero entries: the all-zero ambient pass
    /// left out on the way back from the Source 2006 marker, so that way is byte-identical.
    blank: Vec<(usize, u32)>,
}

/// Move a little-endian Source map to branch `to` with static props at `prop_version` (or
/// the version chosen as the module notes say).
pub fn convert_version(bsp: &Bsp, to: &'static Branch, prop_version: Option<u16>, report: &mut Report) -> Result<Vec<u8>> {
    let from_branch = bsp.branch();
    if bsp.endian() != Endian::Little {
        return Err(Error::new(ErrorKind::Unsupported(
            "a version move reads PC maps only: convert the console map to its PC form first (--endian little)".into(),
        )));
    }
    if !FROM_BRANCHES.contains(&from_branch.id) || !BRANCHES.contains(&to.id) {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "Source version moves read {} and write {} (not {} to {})",
            FROM_BRANCHES.join(", "),
            BRANCHES.join(", "),
            from_branch.id,
            to.id
        ))));
    }
    let HeaderKind::Valve { version_first } = to.header else {
        return Err(Error::new(ErrorKind::Unsupported(format!("{} is not a Source branch", to.id))));
    };
    let data = bsp.data();
    let (header, entries) = directory::parse(data, from_branch, Endian::Little)?;
    if header.len != HEADER_LEN {
        return Err(Error::malformed(format!("Source header of {} bytes", header.len)));
    }
    let version = version_for(to, header.version);
    report.to.version = version;
    let ed = Editor::new(bsp)?;
    let mut lumps: Vec<Option<Cow<[u8]>>> = Vec::with_capacity(64);
    for e in &entries {
        lumps.push(if e.length == 0 { None } else { Some(ed.lump(e.index).map_err(|err| bsp.lump_error(e.index, err))?) });
    }
    let get = |i: usize| lumps.get(i).and_then(|l| l.as_deref()).unwrap_or(&[]);
    let ver = |i: usize| entries.get(i).and_then(|e| e.version).unwrap_or(0);
    let mut out = Out { bytes: vec![None; 64], blank: Vec::new() };
    let mut done = [false; 64];
    let mut game_kids: Option<Vec<Child>> = None;
    let action = |report: &mut Report, i: usize, what: &'static str, target: &Out| {
        let e = &entries[i];
        report.lumps.push(LumpAction {
            index: i,
            name: to.lumps.get(i).map(|d| d.name).unwrap_or(e.name),
            action: what,
            source_bytes: get(i).len() as u64,
            target_bytes: target.bytes[i].as_ref().map(|b| b.0.len() as u64).unwrap_or(0),
            source_lzma: e.compressed,
            target_lzma: false,
        });
    };

    // Leaves and ambient light.
    let leaf_v = ver(LEAVES);
    let leaf_size = if leaf_v == 0 { 56 } else { 32 };
    let leaves_raw = get(LEAVES);
    if leaves_raw.len() % leaf_size != 0 {
        return Err(Error::new(ErrorKind::BadLumpLength { length: leaves_raw.len() as u64, record_size: leaf_size }).in_lump("LEAVES"));
    }
    let nleaves = leaves_raw.len() / leaf_size;
    let from_form = if leaf_v == 0 {
        Ambient::InLeaf
    } else if [AMBIENT, AMBIENT_HDR].iter().all(|&i| get(i).is_empty() || ver(i) == 0) && (get(AMBIENT).len() + get(AMBIENT_HDR).len()) > 0
    {
        // (Only the lumps with data say: vbsp leaves an empty one's version as it was.)
        Ambient::PerLeaf
    } else {
        Ambient::Sampled
    };
    let to_form = target_ambient(to);
    let to_v19 = to.id == "source2004";
    if from_form != to_form {
        // (LDR, HDR) per leaf.
        let read = |slot_index: usize, slot: usize, what: &str| -> Result<Option<LeafSamples>> {
            let (ix, s) = (get(slot_index), get(slot));
            if s.is_empty() {
                return Ok(None);
            }
            Ok(Some(match from_form {
                Ambient::Sampled => sampled(ix, s, nleaves, what)?,
                _ => per_leaf_cubes(s, nleaves, what)?,
            }))
        };
        let ldr: Option<LeafSamples> = match from_form {
            Ambient::InLeaf => {
                Some(leaves_raw.chunks_exact(56).map(|l| vec![Sample { cube: cube(&l[30..54]), pos: CENTRE, pad: 0 }]).collect())
            }
            _ => read(AMBIENT_INDEX, AMBIENT, "LEAF_AMBIENT_LIGHTING").map_err(|e| e.in_lump("LEAF_AMBIENT_LIGHTING"))?,
        };
        let hdr = read(AMBIENT_INDEX_HDR, AMBIENT_HDR, "LEAF_AMBIENT_LIGHTING_HDR").map_err(|e| e.in_lump("LEAF_AMBIENT_LIGHTING_HDR"))?;
        // Into one cube per leaf: the sample nearest the centre; count what is left behind.
        let one_each = |s: &LeafSamples, lump: &str, report: &mut Report| -> Vec<Sample> {
            let many = s.iter().filter(|l| l.len() > 1).count();
            let off_centre = s.iter().filter(|l| l.len() == 1 && l[0].pos != CENTRE).count();
            if many > 0 || off_centre > 0 {
                report.loss(
                    None,
                    Some(lump.to_string()),
                    "truncated",
                    format!(
                        "one ambient cube per leaf: {many} leaf/leaves had several samples (the one nearest the centre kept, {} dropped), {off_centre} single sample(s) lose their position",
                        s.iter().map(|l| l.len().saturating_sub(1)).sum::<usize>()
                    ),
                );
            }
            s.iter().map(|l| nearest_centre(l).unwrap_or(Sample { cube: [0; CUBE], pos: CENTRE, pad: 0 })).collect()
        };
        // Into samples: a leaf whose only cube is all zero has none.
        let to_samples = |s: &LeafSamples| -> LeafSamples {
            if from_form == Ambient::Sampled {
                return s.clone();
            }
            s.iter().map(|l| l.iter().copied().filter(|c| c.cube.iter().any(|&b| b != 0)).collect()).collect()
        };
        let mut added_dark = false;
        let mut new_leaves = Vec::with_capacity(nleaves * if to_form == Ambient::InLeaf { 56 } else { 32 });
        let ldr_one = match (to_form, &ldr) {
            (Ambient::Sampled, _) | (_, None) => None,
            (_, Some(s)) => Some(one_each(s, if to_form == Ambient::InLeaf { "LEAVES" } else { "LEAF_AMBIENT_LIGHTING" }, report)),
        };
        // Into v19 with only an HDR pass (console builds): its cubes light the leaves, as its
        // faces and lightmaps become the map's (below).
        let hdr_in_leaf = to_form == Ambient::InLeaf && ldr.is_none();
        let ldr_one = match (&hdr, hdr_in_leaf) {
            (Some(h), true) => Some(one_each(h, "LEAVES", report)),
            _ => ldr_one,
        };
        for (i, l) in leaves_raw.chunks_exact(leaf_size).enumerate() {
            new_leaves.extend_from_slice(&l[..30]);
            if to_form == Ambient::InLeaf {
                new_leaves.extend_from_slice(&ldr_one.as_ref().map(|s| s[i].cube).unwrap_or([0; CUBE]));
            }
            new_leaves.extend_from_slice(&l[leaf_size - 2..]);
        }
        out.bytes[LEAVES] = Some((new_leaves, if to_form == Ambient::InLeaf { 0 } else { 1 }));
        action(report, LEAVES, "converted", &out);
        done[LEAVES] = true;
        for s in [AMBIENT_INDEX, AMBIENT_INDEX_HDR, AMBIENT, AMBIENT_HDR] {
            done[s] = true;
        }
        // Slots 51/52 hold Xbox lightmap pages in Source 2006 and nothing in 2004 (§5).
        if from_form != Ambient::Sampled {
            for s in [AMBIENT_INDEX_HDR, AMBIENT_INDEX] {
                if !get(s).is_empty() {
                    report.loss(Some(s), Some(entries[s].name.into()), "dropped", format!("{} has no {} lump", to.id, entries[s].name));
                }
            }
        }
        match to_form {
            Ambient::InLeaf => {
                if hdr.is_some() && hdr_in_leaf {
                    report.loss(
                        Some(AMBIENT_HDR),
                        Some("LEAF_AMBIENT_LIGHTING_HDR".into()),
                        "kept_unconverted",
                        "the map has no LDR ambient light: the HDR cubes are written into the leaves with their HDR-baked values",
                    );
                } else if hdr.is_some() {
                    report.loss(Some(AMBIENT_HDR), Some("LEAF_AMBIENT_LIGHTING_HDR".into()), "dropped", "v19 maps carry no HDR pass");
                }
            }
            Ambient::PerLeaf => {
                if let Some(one) = &ldr_one {
                    out.bytes[AMBIENT] = Some((one.iter().flat_map(|s| s.cube).collect(), 0));
                } else if hdr.is_none() && nleaves > 0 {
                    // An unlit map (no ambient light at all): Source 2006 is told from 2007+
                    // only by its one cube per leaf, so one all-zero cube per leaf is written —
                    // no light, as the empty lumps said — and the map reads back as Source
                    // 2006. The way back writes no lumps for a pass whose every cube is zero.
                    out.bytes[AMBIENT] = Some((vec![0; nleaves * CUBE], 0));
                    added_dark = true;
                }
                if let Some(h) = &hdr {
                    let one = one_each(h, "LEAF_AMBIENT_LIGHTING_HDR", report);
                    out.bytes[AMBIENT_HDR] = Some((one.iter().flat_map(|s| s.cube).collect(), 0));
                }
            }
            Ambient::Sampled => {
                for (s, ix, slot) in [(&ldr, AMBIENT_INDEX, AMBIENT), (&hdr, AMBIENT_INDEX_HDR, AMBIENT_HDR)] {
                    if let Some(s) = s {
                        let s = to_samples(s);
                        if s.iter().all(|l| l.is_empty()) {
                            // No light in this pass (every cube zero): no lumps, as an unlit
                            // map has (and the inverse of the Source 2006 marker above); the
                            // sample lump's entry as vbsp leaves an empty one (version 1).
                            out.blank.push((slot, 1));
                            continue;
                        }
                        let (index, samples) = write_sampled(&s)?;
                        out.bytes[ix] = Some((index, 0));
                        out.bytes[slot] = Some((samples, 1));
                    }
                }
            }
        }
        for s in [AMBIENT_INDEX, AMBIENT_INDEX_HDR, AMBIENT, AMBIENT_HDR] {
            if out.bytes[s].is_some() || !get(s).is_empty() {
                let what = match &out.bytes[s] {
                    Some(_) if added_dark && s == AMBIENT => "added",
                    Some(_) => "converted",
                    // An all-zero pass left out carries nothing lost.
                    None if to_form == Ambient::Sampled && matches!(s, AMBIENT | AMBIENT_HDR) => "converted",
                    None => "dropped",
                };
                action(report, s, what, &out);
            }
        }
    }

    // A map whose faces are in the HDR faces lump alone (console builds leave FACES empty)
    // would draw nothing in v19, which has no HDR lumps: its HDR faces become the faces and
    // their lightmaps (LIGHTING_HDR, which the faces' `lightofs` index) the lighting — the same
    // `dface_t` and `ColorRGBExp32` records (§7, §19), so no offset changes. The light values
    // stay as the HDR pass baked them (reported as kept unconverted); an LDR lighting lump the
    // faces did not use is replaced (reported as dropped).
    if to_v19 && get(FACES).is_empty() && !get(FACES_HDR).is_empty() {
        out.bytes[FACES] = Some((get(FACES_HDR).to_vec(), ver(FACES_HDR)));
        done[FACES] = true;
        action(report, FACES, "converted", &out);
        report.loss(
            Some(FACES),
            Some("FACES".into()),
            "kept_unconverted",
            "the HDR faces (FACES_HDR, lump 58) written here: v19 has no HDR faces lump and FACES was empty",
        );
        if !get(LIGHTING_HDR).is_empty() {
            if !get(LIGHTING).is_empty() {
                report.loss(
                    Some(LIGHTING),
                    Some("LIGHTING".into()),
                    "dropped",
                    "the LDR lightmaps no face used, replaced by the HDR faces' own (LIGHTING_HDR)",
                );
            }
            out.bytes[LIGHTING] = Some((get(LIGHTING_HDR).to_vec(), ver(LIGHTING_HDR)));
            done[LIGHTING] = true;
            action(report, LIGHTING, "converted", &out);
            report.loss(
                Some(LIGHTING),
                Some("LIGHTING".into()),
                "kept_unconverted",
                "the HDR faces' lightmaps (LIGHTING_HDR, lump 53) written here with their HDR-baked values (no tone mapping)",
            );
        }
    }
    // World lights into v19: version 0.
    if to_v19 {
        if ver(WORLD_LIGHTS) == 1 && !get(WORLD_LIGHTS).is_empty() {
            let raw = get(WORLD_LIGHTS);
            if raw.len() % 100 != 0 {
                return Err(Error::new(ErrorKind::BadLumpLength { length: raw.len() as u64, record_size: 100 }).in_lump("WORLD_LIGHTS"));
            }
            let mut v0 = Vec::with_capacity(raw.len() / 100 * 88);
            let mut offsets = 0;
            for r in raw.chunks_exact(100) {
                v0.extend_from_slice(&r[..36]);
                v0.extend_from_slice(&r[48..]);
                offsets += usize::from(r[36..48].iter().any(|&b| b != 0));
            }
            if offsets > 0 {
                report.loss(
                    Some(WORLD_LIGHTS),
                    Some("WORLD_LIGHTS".into()),
                    "dropped",
                    format!("shadow_cast_offset of {offsets} light(s) (version 0 has none)"),
                );
            }
            out.bytes[WORLD_LIGHTS] = Some((v0, 0));
            action(report, WORLD_LIGHTS, "converted", &out);
            done[WORLD_LIGHTS] = true;
        }
        for &h in HDR {
            if !done[h] && !get(h).is_empty() {
                done[h] = true;
                report.loss(Some(h), Some(entries[h].name.into()), "dropped", "v19 maps carry no HDR pass (no HDR faces lump)");
                action(report, h, "dropped", &out);
            }
        }
    }

    // The game lump: static props in the target's layout, other children as they are.
    if !get(GAME_LUMP).is_empty() {
        let raw =
            crate::bytes::slice(data, entries[GAME_LUMP].offset, entries[GAME_LUMP].length).map_err(|e| bsp.lump_error(GAME_LUMP, e))?;
        let place = gamelump::LumpPlace { file_offset: entries[GAME_LUMP].offset, from_lmp: false };
        let dir = gamelump::parse_directory(raw, place, Endian::Little).map_err(|e| bsp.lump_error(GAME_LUMP, e))?;
        let mut kids: Vec<Child> = Vec::new();
        for e in dir.entries.iter().filter(|e| !e.is_dummy()) {
            let child = gamelump::child_bytes(raw, e, bsp.options().max_decompressed).map_err(|err| bsp.lump_error(GAME_LUMP, err))?;
            bsp.charge_decompressed(if e.compressed { child.len() as u64 } else { 0 })?;
            let (bytes, version) = if &e.id.to_be_bytes() == b"sprp" {
                convert_props(&child, e.version, from_branch, to, prop_version, report).map_err(|err| err.in_lump("GAME_LUMP/sprp"))?
            } else {
                (child.into_owned(), e.version)
            };
            let len = bytes.len() as u32;
            kids.push((e.id, e.flags & !gamelump::FLAG_COMPRESSED, version, bytes, len));
        }
        if prop_version.is_some() && !dir.entries.iter().any(|e| &e.id.to_be_bytes() == b"sprp") {
            return Err(Error::new(ErrorKind::Unsupported("the map has no static prop lump to give a version".into())));
        }
        out.bytes[GAME_LUMP] = Some((Vec::new(), ver(GAME_LUMP)));
        done[GAME_LUMP] = true;
        report.lumps.push(LumpAction {
            index: GAME_LUMP,
            name: "GAME_LUMP",
            action: "rebuilt",
            source_bytes: raw.len() as u64,
            // The directory and the children, as `gamelump::assemble` lays them (all plain).
            target_bytes: (4 + 16 * kids.len() + kids.iter().map(|k| k.3.len()).sum::<usize>()) as u64,
            source_lzma: entries[GAME_LUMP].compressed,
            target_lzma: false,
        });
        game_kids = Some(kids);
    } else if prop_version.is_some() {
        return Err(Error::new(ErrorKind::Unsupported("the map has no game lump, so no static props to give a version".into())));
    }

    // Every other lump: kept where the target's table names the slot alike, else dropped.
    for e in &entries {
        let i = e.index;
        if done[i] || e.length == 0 {
            continue;
        }
        let target_name = to.lumps.get(i).map(|d| d.name).unwrap_or("");
        if target_name == e.name {
            out.bytes[i] = Some((get(i).to_vec(), ver(i)));
            action(report, i, "copied", &out);
        } else {
            report.loss(
                Some(i),
                Some(e.name.into()),
                "dropped",
                format!("{} has no {} lump (its slot {i} is {target_name})", to.id, e.name),
            );
            action(report, i, "dropped", &out);
        }
    }
    report.lumps.sort_by_key(|a| a.index);
    layout(data, &entries, out, game_kids, version, version_first, u32_at(data, 8 + 64 * 16, Endian::Little).unwrap_or(0))
}

/// The static prop child in the target's layout: `(bytes, game lump version)`.
fn convert_props(
    child: &[u8],
    version: u16,
    from: &Branch,
    to: &Branch,
    asked: Option<u16>,
    report: &mut Report,
) -> Result<(Vec<u8>, u16)> {
    let parsed =
        StaticProps::parse_in(Cow::Borrowed(child), version, Endian::Little, crate::lumps::staticprops::PropGame::of_branch(from.id))?;
    let from_layout = parsed.layout;
    let (layout, target_version) = match asked {
        Some(n) => match layout_of(to, n) {
            Some(l) => (l, n),
            None => {
                return Err(Error::new(ErrorKind::Unsupported(format!(
                    "static prop version {n} is not one {} reads ({})",
                    to.id,
                    prop_layouts(to).iter().map(|l| format!("{l:?}")).collect::<Vec<_>>().join(", ")
                ))))
            }
        },
        // CS:GO's vbsp writes version 11, and detection tells a CS:GO map from a Portal 2 or
        // Source Filmmaker one by it (a TF2 map keeps its TF2 entity classes; Portal 2 and
        // L4D2 write version 9).
        None if to.id == "csgo" => native_props(to),
        None if prop_layouts(to).contains(&from_layout) => (from_layout, version),
        None => native_props(to),
    };
    if layout == from_layout {
        return Ok((child.to_vec(), target_version));
    }
    if parsed.count > 0 && from_layout == PropLayout::Unknown {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "static props version {version} of {} bytes each: no known layout to convert from",
            parsed.element_size.unwrap_or(0)
        ))));
    }
    let props = parsed.props()?;
    let mut out = child[..parsed.props_start()].to_vec();
    let mut lost = Lost::default();
    let padding = if from_layout == PropLayout::V7Star { parsed.prop_bytes().chunks_exact(72).filter(|p| p[31] != 0).count() } else { 0 };
    for p in &props {
        encode_prop(p, layout, &mut out, &mut lost);
    }
    lost.report(report, from_layout, layout, padding);
    Ok((out, target_version))
}

/// Props whose dropped field held something other than the engine's default, per field.
#[derive(Default)]
struct Lost {
    fade_scale: usize,
    dx_level: usize,
    lightmap: usize,
    wide_flags: usize,
    levels: usize,
    modulation: usize,
    x360: usize,
    flags_ex: usize,
    scale: usize,
}

impl Lost {
    fn report(&self, report: &mut Report, from: PropLayout, to: PropLayout, padding: usize) {
        let label = Some("GAME_LUMP/sprp".to_string());
        for (n, what) in [
            (self.fade_scale, "ForcedFadeScale (not 1)"),
            (self.dx_level, "Min/MaxDXLevel (not 0)"),
            (self.lightmap, "the prop lightmap size (not 0 x 0)"),
            (self.wide_flags, "flag bits above 0xFF"),
            (self.levels, "Min/Max CPU/GPU levels (not 0)"),
            (self.modulation, "DiffuseModulation (not 255 255 255 255)"),
            (self.x360, "DisableX360 (not 0)"),
            (self.flags_ex, "FlagsEx (not 0)"),
            (self.scale, "UniformScale (not 1)"),
        ] {
            if n > 0 {
                report.loss(
                    None,
                    label.clone(),
                    "dropped",
                    format!("{what} of {n} prop(s): the {to:?} layout has no such field ({from:?} had)"),
                );
            }
        }
        if padding > 0 {
            report.loss(
                None,
                label,
                "dropped",
                format!("the v7* padding byte after Solid (no field; vbsp leaves it uninitialised) was not zero in {padding} prop(s) and is not carried"),
            );
        }
    }
}

fn put_f(out: &mut Vec<u8>, v: &[f32]) {
    v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
}

/// Write `p` in `layout` (little-endian, source.md §14.3), counting in `lost` the fields the
/// layout lacks whose value is not the default, and filling added fields with the defaults of
/// the module notes.
fn encode_prop(p: &StaticProp, layout: PropLayout, out: &mut Vec<u8>, lost: &mut Lost) {
    use PropLayout::*;
    let has = |ls: &[PropLayout]| ls.contains(&layout);
    let fade = p.forced_fade_scale.unwrap_or(1.0);
    let dx = p.dx_level.unwrap_or([0, 0]);
    let lightmap = p.lightmap_res.unwrap_or([0, 0]);
    let levels = p.cpu_gpu_levels.unwrap_or([0; 4]);
    let modulation = p.diffuse_modulation.unwrap_or([255; 4]);
    let x360 = p.disable_x360.unwrap_or(0);
    let flags_ex = p.flags_ex.unwrap_or(0);
    let scale = p.uniform_scale.unwrap_or(1.0);
    // v7*'s u32 flags: the no-per-texel-lighting bit goes with a 0 x 0 prop lightmap.
    let wide = p.lightmap_res.is_some();
    let flags = if layout == V7Star {
        if wide {
            p.flags
        } else {
            p.flags | NO_PER_TEXEL_LIGHTING
        }
    } else {
        let implied = if wide && lightmap == [0, 0] { p.flags & !NO_PER_TEXEL_LIGHTING } else { p.flags };
        lost.wide_flags += usize::from(implied > 0xFF);
        p.flags & 0xFF
    };
    lost.fade_scale += usize::from(!has(&[V5, V6, V7, V7Star, V8, V9, V10, V11]) && fade != 1.0);
    lost.dx_level += usize::from(!has(&[V6, V7, V7Star]) && dx != [0, 0]);
    lost.lightmap += usize::from(layout != V7Star && lightmap != [0, 0]);
    lost.levels += usize::from(!has(&[V8, V9, V10, V11]) && levels != [0; 4]);
    lost.modulation += usize::from(!has(&[V7, V8, V9, V10, V11]) && modulation != [255; 4]);
    lost.x360 += usize::from(!has(&[V9, V10]) && x360 != 0);
    lost.flags_ex += usize::from(!has(&[V10, V11]) && flags_ex != 0);
    lost.scale += usize::from(layout != V11 && scale != 1.0);

    put_f(out, &p.origin);
    put_f(out, &p.angles);
    for v in [p.model, p.first_leaf, p.leaf_count] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(p.solid);
    out.push(if layout == V7Star { 0 } else { flags as u8 });
    out.extend_from_slice(&p.skin.to_le_bytes());
    put_f(out, &[p.fade_min, p.fade_max]);
    put_f(out, &p.lighting_origin);
    if layout == V4 {
        return;
    }
    put_f(out, &[fade]);
    match layout {
        V6 | V7 | V7Star => {
            out.extend_from_slice(&dx[0].to_le_bytes());
            out.extend_from_slice(&dx[1].to_le_bytes());
            if layout == V7 {
                out.extend_from_slice(&modulation);
            } else if layout == V7Star {
                out.extend_from_slice(&flags.to_le_bytes());
                out.extend_from_slice(&lightmap[0].to_le_bytes());
                out.extend_from_slice(&lightmap[1].to_le_bytes());
            }
        }
        V8 | V9 | V10 | V11 => {
            out.extend_from_slice(&levels);
            out.extend_from_slice(&modulation);
            if matches!(layout, V9 | V10) {
                out.extend_from_slice(&x360.to_le_bytes());
            }
            if matches!(layout, V10 | V11) {
                out.extend_from_slice(&flags_ex.to_le_bytes());
            }
            if layout == V11 {
                put_f(out, &[scale]);
            }
        }
        _ => {}
    }
}

/// Lay the target out: the source's lump order, non-zero gaps kept, zero gaps redone as
/// alignment (4, or 1 where the source's lumps were not all aligned), empty lumps keeping
/// their version (and their offset where it is still inside the file), the game lump's
/// children at absolute offsets (§14.1).
fn layout(
    data: &[u8],
    entries: &[LumpEntry],
    mut out: Out,
    kids: Option<Vec<Child>>,
    version: u32,
    version_first: bool,
    revision: u32,
) -> Result<Vec<u8>> {
    let mut order: Vec<usize> = (0..entries.len()).filter(|&p| entries[p].length > 0).collect();
    let align = if order.iter().all(|&p| entries[p].offset % 4 == 0) { 4 } else { 1 };
    // Lumps the source lacked (ambient lumps made from leaves) go where the source's empty
    // entry points (vbsp gives an empty lump the offset its turn came at: before the lump
    // with data at that offset), else after the others.
    let (mut new, mut at_end): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for i in (0..64).filter(|&i| !matches!(entries.get(i), Some(e) if e.length > 0) && out.bytes[i].is_some()) {
        match entries.get(i) {
            Some(e) if e.offset >= HEADER_LEN as u64 && e.offset <= data.len() as u64 => new.push(i),
            _ => at_end.push(i),
        }
    }
    let first_at = |p: usize| u8::from(entries[p].length > 0);
    order.extend(new);
    order.sort_by_key(|&p| (entries[p].offset, first_at(p), p));
    order.extend(at_end);
    let mut file = vec![0u8; HEADER_LEN];
    let mut cursor = HEADER_LEN as u64;
    let mut placed: Vec<(u64, u64)> = entries.iter().map(|e| (e.offset, 0)).collect();
    let mut blank_at: Vec<Option<(u64, u32)>> = vec![None; entries.len().max(64)];
    for &p in &order {
        let e = &entries[p];
        if e.length > 0 {
            if e.offset < cursor {
                return Err(Error::new(ErrorKind::Unsupported(format!("lump {} shares bytes with another lump or the header", e.name)))
                    .in_lump(e.name));
            }
            let gap = &data[cursor as usize..e.offset as usize];
            if gap.len() >= 4 && gap.iter().any(|&b| b != 0) {
                file.extend_from_slice(gap);
            }
            cursor = e.offset + e.length;
        }
        file.resize(file.len().next_multiple_of(align), 0);
        let at = file.len() as u64;
        if p == GAME_LUMP {
            if let Some(k) = &kids {
                let k: Vec<(u32, u16, u16, &[u8], u32)> = k.iter().map(|c| (c.0, c.1, c.2, c.3.as_slice(), c.4)).collect();
                let built = gamelump::assemble(&k, at, Endian::Little, true)?;
                if let Some(b) = out.bytes[GAME_LUMP].as_mut() {
                    b.0 = built;
                }
            }
        }
        match &out.bytes[p] {
            Some((b, _)) if !b.is_empty() => {
                file.extend_from_slice(b);
                placed[p] = (at, b.len() as u64);
            }
            _ => {
                placed[p] = (0, 0);
                if let Some(&(_, v)) = out.blank.iter().find(|b| b.0 == p) {
                    blank_at[p] = Some((at, v));
                }
            }
        }
    }
    let tail = &data[(cursor as usize).min(data.len())..];
    if tail.len() >= 4 && tail.iter().any(|&b| b != 0) {
        file.extend_from_slice(tail);
    }
    file.resize(file.len().next_multiple_of(align), 0);
    file[0..4].copy_from_slice(b"VBSP");
    file[4..8].copy_from_slice(&version.to_le_bytes());
    for (i, e) in entries.iter().enumerate().take(64) {
        let (mut ofs, len) = placed[i];
        let (lump_version, fourcc) = match &out.bytes[i] {
            Some((b, v)) if !b.is_empty() => (*v, if e.compressed { 0 } else { e.fourcc.unwrap_or(0) }),
            _ if blank_at[i].is_some() => {
                let (at, v) = blank_at[i].expect("checked");
                ofs = at;
                (v, 0)
            }
            // Empty lumps keep what they had (A4) where their offset still lies in the file.
            _ => {
                if ofs > file.len() as u64 || e.length > 0 {
                    ofs = 0;
                }
                if e.length > 0 {
                    (0, 0)
                } else {
                    (e.version.unwrap_or(0), e.fourcc.unwrap_or(0))
                }
            }
        };
        if ofs > i32::MAX as u64 || len > i32::MAX as u64 {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: ofs.max(len), limit: i32::MAX as u64 }));
        }
        let (f0, f1, f2) = if version_first { (lump_version, ofs as u32, len as u32) } else { (ofs as u32, len as u32, lump_version) };
        let b = 8 + 16 * i;
        file[b..b + 4].copy_from_slice(&f0.to_le_bytes());
        file[b + 4..b + 8].copy_from_slice(&f1.to_le_bytes());
        file[b + 8..b + 12].copy_from_slice(&f2.to_le_bytes());
        file[b + 12..b + 16].copy_from_slice(&fourcc.to_le_bytes());
    }
    file[8 + 64 * 16..HEADER_LEN].copy_from_slice(&revision.to_le_bytes());
    Ok(file)
}

//! [`BspBuilder`]: writes a `.bsp` file from lumps, for every header form.

use crate::branch::{Branch, HeaderKind};
use crate::bytes::Endian;

/// Lays lumps out after the header in index order (directory order for Call of Duty),
/// each starting on a 4-byte boundary.
#[derive(Debug, Clone)]
pub struct BspBuilder {
    pub branch: &'static Branch,
    pub version: u32,
    pub endian: Endian,
    /// Source `mapRevision` / Respawn revision.
    pub revision: u32,
    lumps: Vec<(usize, Vec<u8>, u32)>,
}

/// The version number a branch writes by default (Source: the branch's own VBSP version,
/// [`crate::branches::source::lumps::version_of`]).
pub fn default_version(branch: &Branch) -> u32 {
    // Dark Messiah stores its 20 as the low half of a split version word.
    if branch.id == "darkmessiah" {
        return crate::branches::source::lumps::DARK_MESSIAH_VERSION;
    }
    if let Some(v) = crate::branches::source::lumps::version_of(branch) {
        return v;
    }
    match branch.id {
        "quake1" | "hexen2" => 29,
        "goldsrc" | "blueshift" => 30,
        "nightfire" => 42,
        "quake2" | "qbism" => 38,
        "quake3" => 46,
        "ibsp47" | "quakelive" => 47,
        "rbsp" | "fbsp" => 1,
        "titanfall" | "titanfall_x360" => 29,
        "titanfall2" => 37,
        "apex" => 47,
        "cod4" => 22,
        "cod1_demo" => 58,
        "cod1" => 59,
        "cod2" => 4,
        "sin" => 1,
        "sof" => 46,
        "daikatana" => 41,
        "fakk2" => 12,
        "alice" => 42,
        "ef2" => 20,
        "mohaa_demo" => 18,
        "mohaa" => 19,
        "mohaa_bt" => 21,
        "genesis3d" => crate::branches::genesis3d::lumps::GBSP_VERSION,
        _ => match branch.header {
            HeaderKind::Valve { version_first: true } => 21,
            _ => 20,
        },
    }
}

impl BspBuilder {
    pub fn new(branch: &'static Branch) -> Self {
        // The Xbox 360 Respawn branch has one byte order (its magic says big-endian).
        let endian = if branch.id == "titanfall_x360" { Endian::Big } else { Endian::Little };
        BspBuilder { branch, version: default_version(branch), endian, revision: 1, lumps: Vec::new() }
    }
    pub fn version(mut self, v: u32) -> Self {
        self.version = v;
        self
    }
    pub fn endian(mut self, e: Endian) -> Self {
        self.endian = e;
        self
    }
    /// Set a lump's bytes (and lump version, for branches that store one).
    pub fn lump(mut self, index: usize, bytes: impl Into<Vec<u8>>) -> Self {
        self.set_lump(index, bytes.into(), 0);
        self
    }
    pub fn lump_v(mut self, index: usize, bytes: impl Into<Vec<u8>>, version: u32) -> Self {
        self.set_lump(index, bytes.into(), version);
        self
    }
    fn set_lump(&mut self, index: usize, bytes: Vec<u8>, version: u32) {
        self.lumps.retain(|(i, _, _)| *i != index);
        self.lumps.push((index, bytes, version));
    }

    fn slots(&self) -> usize {
        match self.branch.header {
            HeaderKind::Valve { .. } => 64,
            HeaderKind::Respawn => 128,
            _ => self.branch.lumps.len(),
        }
    }

    /// The finished file.
    pub fn build(&self) -> Vec<u8> {
        if self.branch.header == HeaderKind::Chunks {
            return self.build_chunks();
        }
        let e = self.endian;
        let w32 = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&e.u32_bytes(v));
        let mut lumps = self.lumps.clone();
        if !matches!(self.branch.header, HeaderKind::CodLumpList) {
            lumps.sort_by_key(|l| l.0);
        }
        let header_len = match self.branch.header {
            HeaderKind::Quake { .. } => 4 + 8 * self.slots(),
            HeaderKind::IdMagic { .. } | HeaderKind::IdLengthFirst { .. } => 8 + 8 * self.slots(),
            HeaderKind::Ritual { .. } => 12 + 8 * self.slots(),
            HeaderKind::Valve { .. } => 1036,
            HeaderKind::Respawn => 16 + 16 * 128,
            HeaderKind::CodLumpList => 12 + 8 * lumps.len(),
            HeaderKind::Chunks => 0,
        };
        // Place the data.
        let mut offsets = Vec::new();
        let mut pos = header_len;
        for (_, bytes, _) in &lumps {
            pos = (pos + 3) & !3;
            offsets.push(pos);
            pos += bytes.len();
        }
        // (offset, length, version) of a directory slot; zeros for a lump not set.
        let slot = |s: usize| {
            lumps
                .iter()
                .zip(&offsets)
                .find(|((i, _, _), _)| *i == s)
                .map(|((_, b, v), o)| (*o as u32, b.len() as u32, *v))
                .unwrap_or((0, 0, 0))
        };
        let mut out = Vec::with_capacity(pos + 4);
        match self.branch.header {
            HeaderKind::Quake { .. } | HeaderKind::IdMagic { .. } | HeaderKind::Ritual { .. } | HeaderKind::IdLengthFirst { .. } => {
                match self.branch.header {
                    HeaderKind::Quake { magic: Some(m) } => out.extend_from_slice(&m),
                    HeaderKind::IdMagic { magic } | HeaderKind::IdLengthFirst { magic } => {
                        out.extend_from_slice(&magic);
                        w32(&mut out, self.version);
                    }
                    HeaderKind::Ritual { magic } => {
                        out.extend_from_slice(&magic);
                        w32(&mut out, self.version);
                        // The map checksum (the engine compares it between server and client).
                        w32(&mut out, self.revision);
                    }
                    _ => w32(&mut out, self.version),
                }
                let length_first = matches!(self.branch.header, HeaderKind::IdLengthFirst { .. });
                for s in 0..self.slots() {
                    let (o, l, _) = slot(s);
                    let (a, b) = if length_first { (l, o) } else { (o, l) };
                    w32(&mut out, a);
                    w32(&mut out, b);
                }
            }
            HeaderKind::Valve { version_first } => {
                out.extend_from_slice(if e == Endian::Little { b"VBSP" } else { b"PSBV" });
                w32(&mut out, self.version);
                for s in 0..64 {
                    let (o, l, v) = slot(s);
                    let fields = if version_first { [v, o, l, 0] } else { [o, l, v, 0] };
                    for f in fields {
                        w32(&mut out, f);
                    }
                }
                w32(&mut out, self.revision);
            }
            HeaderKind::Respawn => {
                out.extend_from_slice(if e == Endian::Big { b"PSBr" } else { b"rBSP" });
                w32(&mut out, self.version);
                w32(&mut out, self.revision);
                w32(&mut out, 127);
                for s in 0..128 {
                    let (o, l, v) = slot(s);
                    for f in [o, l, v, 0] {
                        w32(&mut out, f);
                    }
                }
            }
            HeaderKind::CodLumpList => {
                out.extend_from_slice(b"IBSP");
                w32(&mut out, self.version);
                w32(&mut out, lumps.len() as u32);
                for (i, b, _) in &lumps {
                    w32(&mut out, *i as u32);
                    w32(&mut out, b.len() as u32);
                }
            }
            HeaderKind::Chunks => {}
        }
        for ((_, bytes, _), &o) in lumps.iter().zip(&offsets) {
            out.resize(o, 0);
            out.extend_from_slice(bytes);
        }
        if matches!(self.branch.header, HeaderKind::CodLumpList) {
            out.resize((out.len() + 3) & !3, 0);
        }
        out
    }
}

impl BspBuilder {
    /// A Genesis3D chunk file: the header chunk (a `GBSP` header of this builder's version
    /// unless lump 0 is given), every lump as a chunk in type order, then the END chunk. A
    /// chunk's element size is its type's record size, or 1 when the bytes are not a whole
    /// number of records.
    fn build_chunks(&self) -> Vec<u8> {
        use crate::branches::genesis3d::lumps::{element_size, CHUNK_END, CHUNK_HEADER};
        let mut lumps = self.lumps.clone();
        if !lumps.iter().any(|l| l.0 == CHUNK_HEADER) {
            let mut h = b"GBSP\0\0\0\0".to_vec();
            h.extend_from_slice(&self.version.to_le_bytes());
            h.resize(crate::branches::genesis3d::lumps::GBSP_HEADER_LEN, 0);
            lumps.push((CHUNK_HEADER, h, 0));
        }
        lumps.sort_by_key(|l| l.0);
        let mut out = Vec::new();
        for (index, bytes, _) in &lumps {
            let size = element_size(*index);
            let size = if bytes.len() % size == 0 { size } else { 1 };
            for v in [*index as u32, size as u32, (bytes.len() / size) as u32] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(bytes);
        }
        for v in [CHUNK_END, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::source;
    use crate::bsp::{Bsp, OpenOptions};

    /// Every Source branch builds with its own version (source.md §3): detection picks a branch
    /// with that version (the same one where the version alone decides), and `--branch` opens it.
    #[test]
    fn source_builders_write_their_branch_version() {
        let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
        // Branches the version (and lump_t order) alone select, with a map of two lumps.
        let decided_by_version = ["vtmb", "source2004", "source", "l4d2", "dota2", "strata", "contagion", "desolation", "cso2"];
        for branch in source::BRANCHES {
            let version = source::version_of(branch).expect("a Source branch has a version");
            let word = if branch.id == "darkmessiah" { source::DARK_MESSIAH_VERSION } else { version };
            assert_eq!(default_version(branch), word, "{}", branch.id);
            let bytes = BspBuilder::new(branch).lump(0, ents.clone()).lump(1, vec![0u8; 20]).build();
            assert_eq!(crate::bytes::u32_at(&bytes, 4, Endian::Little), Some(word), "{}", branch.id);
            let detected = Bsp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", branch.id));
            assert!(source::versions(detected.branch()).contains(&version), "{} detected as {}", branch.id, detected.branch().id);
            if decided_by_version.contains(&branch.id) {
                assert_eq!(detected.branch().id, branch.id);
            }
            let opts = OpenOptions { branch: Some(branch.id.into()), ..Default::default() };
            let forced = Bsp::from_bytes_with(&bytes, &opts).unwrap_or_else(|e| panic!("{}: {e}", branch.id));
            assert_eq!(forced.branch().id, branch.id);
            assert_eq!(forced.lump(1).unwrap(), &[0u8; 20][..], "{}", branch.id);
        }
        // Tactical Intervention is told from Dota 2's v22 by entity text in lump 24 (§3).
        let bytes = BspBuilder::new(&source::TACINT).lump(0, ents.clone()).lump(24, ents).build();
        assert_eq!(Bsp::from_bytes(&bytes).unwrap().branch().id, "tacint");
        assert_eq!(source::version_of(&crate::branches::quake2::QUAKE2), None);
    }
}

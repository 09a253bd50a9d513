//! The Source game lump (lump 35): a directory of child lumps identified by four-character
//! codes (`sprp` static props, `dprp` detail props, `dplt`/`dplh` detail lighting, …).
//!
//! Layout (source.md §14.1, bsp_tool_notes.md §3.1): `i32 lumpCount` then `lumpCount` 16-byte
//! entries `{ i32 id, u16 flags, u16 version, i32 fileofs, i32 filelen }`, in the file's byte order.
//!
//! * Offsets are absolute (from the start of the `.bsp`) in PC maps and lump-relative in some
//!   console maps; the convention is decided per file by the rule of open_questions.md A12 and
//!   remembered in [`GameLumpDir::base`] so that a writer can reproduce it.
//! * A child with `flags & 1` is LZMA-compressed on its own (source.md §14.2, A13): its stored
//!   size is `next.fileofs − this.fileofs`, `filelen` is the uncompressed size, and the
//!   directory ends with an empty dummy entry that is counted in `lumpCount`.
//! * Unknown ids are kept as raw bytes (source.md §14.4).

use std::borrow::Cow;

use crate::bytes::{u16_at, u32_at, Endian};
use crate::error::{Error, ErrorKind, Result};

/// Index of the game lump in every Source lump table (source.md §5).
pub const LUMP_GAME_LUMP: usize = 35;
/// Bytes per directory entry (source.md §14.1).
pub const ENTRY_LEN: usize = 16;
/// `flags` bit 0: the child is LZMA-compressed (A13; source.md §14.1 background).
pub const FLAG_COMPRESSED: u16 = 1;

/// `MAKE_ID(a,b,c,d) = a<<24 | b<<16 | c<<8 | d` (source.md §14.1).
pub const fn make_id(code: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*code)
}
pub const ID_STATIC_PROPS: u32 = make_id(b"sprp");
pub const ID_DETAIL_PROPS: u32 = make_id(b"dprp");
pub const ID_DETAIL_LIGHTING: u32 = make_id(b"dplt");
pub const ID_DETAIL_LIGHTING_HDR: u32 = make_id(b"dplh");

/// What the children's `fileofs` are measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetBase {
    /// From the start of the `.bsp` file (PC maps; source.md §14.1).
    Absolute,
    /// From the start of the game lump (console Portal 2, X360 Orange Box: A12).
    Relative,
    /// From the start of the `.lmp` file holding the lump, its 20-byte header included
    /// (one of the two readings bsp_tool gives for `.lmp` files, open_questions.md B1).
    LmpFile,
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GameLumpEntry {
    /// Position in the directory.
    pub position: usize,
    /// The raw `id`.
    pub id: u32,
    pub flags: u16,
    pub version: u16,
    /// `fileofs` as stored.
    pub offset: u32,
    /// `filelen` as stored (the uncompressed size for compressed children, A13).
    pub length: u32,
    /// `flags & 1`: the child is LZMA-compressed.
    pub compressed: bool,
    /// Start of the child's stored bytes, relative to the game lump.
    pub start: usize,
    /// Number of stored bytes (compressed size for compressed children).
    pub stored_len: usize,
}

impl GameLumpEntry {
    /// The id as its four characters (`sprp`), or `0x…` hex when they are not printable.
    pub fn fourcc(&self) -> String {
        fourcc(self.id)
    }
    /// The empty trailing entry that ends a directory of compressed children (A13).
    pub fn is_dummy(&self) -> bool {
        self.id == 0 && self.length == 0
    }
}

/// A game lump id as text.
pub fn fourcc(id: u32) -> String {
    let b = id.to_be_bytes();
    if b.iter().all(|c| c.is_ascii_graphic()) {
        b.iter().map(|&c| c as char).collect()
    } else {
        format!("0x{id:08x}")
    }
}

/// A parsed game lump directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GameLumpDir {
    pub entries: Vec<GameLumpEntry>,
    /// The offset convention found in the file.
    pub base: OffsetBase,
    /// The directory's form (Valve's or Dark Messiah's).
    pub form: DirForm,
}

/// Where the game lump's bytes came from, for the offset rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LumpPlace {
    /// File offset of the game lump in the `.bsp`.
    pub file_offset: u64,
    /// The lump was read from a `.lmp` file.
    pub from_lmp: bool,
}

/// One directory entry exactly as stored, before any offset convention is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEntry {
    pub id: u32,
    pub flags: u16,
    pub version: u16,
    /// `fileofs` as stored.
    pub offset: u32,
    /// `filelen` as stored.
    pub length: u32,
}

/// The directory's form: Valve's, or Dark Messiah's (VDC "BSP (Source)/Game-Specific": the
/// header `{int lumpCount; int unknown;}` and 20-byte `dgamelump_dm_t` entries, Valve's 16
/// bytes followed by one more int). The trailing ints' meaning is not given; they are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DirForm {
    #[default]
    Valve,
    DarkMessiah,
    /// Vindictus (bsp_tool `nexon/vindictus69.py` `GameLumpHeader`): Valve's 4-byte count, then
    /// 20-byte entries `{ char id[4]; int flags; int version; int fileofs; int filelen; }`
    /// (flags and version widened to ints; read here as their low 16 bits).
    Vindictus,
}

impl DirForm {
    /// The form a branch's maps use (by its id).
    pub fn of_branch(id: &str) -> DirForm {
        match id {
            "darkmessiah" => DirForm::DarkMessiah,
            "vindictus" | "vindictus69" => DirForm::Vindictus,
            _ => DirForm::Valve,
        }
    }
    /// Bytes before the first entry.
    pub const fn header_len(self) -> usize {
        match self {
            DirForm::Valve | DirForm::Vindictus => 4,
            DirForm::DarkMessiah => 8,
        }
    }
    /// Bytes per entry.
    pub const fn entry_len(self) -> usize {
        match self {
            DirForm::Valve => ENTRY_LEN,
            DirForm::DarkMessiah | DirForm::Vindictus => 20,
        }
    }
    /// Where `fileofs` sits in an entry (after the id, flags and version).
    pub const fn offset_in_entry(self) -> usize {
        match self {
            DirForm::Valve | DirForm::DarkMessiah => 8,
            DirForm::Vindictus => 12,
        }
    }
    /// Bytes of a directory of `n` entries.
    pub const fn dir_len(self, n: usize) -> usize {
        self.header_len() + self.entry_len() * n
    }
}

/// Position, in the game lump, of the `fileofs` field of directory entry `position`.
pub const fn offset_field(position: usize) -> usize {
    offset_field_in(position, DirForm::Valve)
}

/// [`offset_field`] in a directory of form `form`.
pub const fn offset_field_in(position: usize, form: DirForm) -> usize {
    form.dir_len(position) + form.offset_in_entry()
}

fn raw_entry(lump: &[u8], position: usize, endian: Endian, form: DirForm) -> Option<RawEntry> {
    let b = form.dir_len(position);
    let (flags, version) = match form {
        // Ints: their low halves (the values are small; the high halves stay in the bytes).
        DirForm::Vindictus => (u32_at(lump, b + 4, endian)? as u16, u32_at(lump, b + 8, endian)? as u16),
        DirForm::Valve | DirForm::DarkMessiah => (u16_at(lump, b + 4, endian)?, u16_at(lump, b + 6, endian)?),
    };
    let o = b + form.offset_in_entry();
    Some(RawEntry { id: u32_at(lump, b, endian)?, flags, version, offset: u32_at(lump, o, endian)?, length: u32_at(lump, o + 4, endian)? })
}

/// The directory's entries, every one the count declares (source.md §14.1). A negative count
/// or a directory longer than the lump is an error. This is the one reader of the directory's
/// bytes; [`parse_directory`] interprets the offsets.
pub fn read_entries(lump: &[u8], endian: Endian) -> Result<Vec<RawEntry>> {
    read_entries_in(lump, endian, DirForm::Valve)
}

/// [`read_entries`] for a directory of form `form`.
pub fn read_entries_in(lump: &[u8], endian: Endian, form: DirForm) -> Result<Vec<RawEntry>> {
    let count = u32_at(lump, 0, endian).ok_or_else(|| Error::truncated(4, lump.len() as u64))? as i32;
    if count < 0 {
        return Err(Error::malformed(format!("game lump count {count} is negative")).at(0));
    }
    let dir_end =
        (count as u64).checked_mul(form.entry_len() as u64).and_then(|n| n.checked_add(form.header_len() as u64)).unwrap_or(u64::MAX);
    if dir_end > lump.len() as u64 {
        return Err(Error::truncated(dir_end, lump.len() as u64).at(0));
    }
    // Every entry lies inside the lump (checked above).
    Ok((0..count as usize).filter_map(|i| raw_entry(lump, i, endian, form)).collect())
}

/// The entries that lie wholly inside the lump, at most as many as the count declares (none
/// for a negative count or a lump shorter than the count): a tolerant read for reports.
pub fn read_entries_lenient(lump: &[u8], endian: Endian) -> Vec<RawEntry> {
    read_entries_lenient_in(lump, endian, DirForm::Valve)
}

/// [`read_entries_lenient`] for a directory of form `form`.
pub fn read_entries_lenient_in(lump: &[u8], endian: Endian, form: DirForm) -> Vec<RawEntry> {
    let count = u32_at(lump, 0, endian).map_or(0, |c| (c as i32).max(0) as usize);
    let fit = lump.len().saturating_sub(form.header_len()) / form.entry_len();
    (0..count.min(fit)).filter_map(|i| raw_entry(lump, i, endian, form)).collect()
}

/// Parse the directory of a game lump `lump` (its bytes as stored) in byte order `endian`.
pub fn parse_directory(lump: &[u8], place: LumpPlace, endian: Endian) -> Result<GameLumpDir> {
    parse_directory_in(lump, place, endian, DirForm::Valve)
}

/// [`parse_directory`] for a directory of form `form`.
pub fn parse_directory_in(lump: &[u8], place: LumpPlace, endian: Endian, form: DirForm) -> Result<GameLumpDir> {
    if lump.is_empty() {
        return Ok(GameLumpDir { entries: Vec::new(), base: OffsetBase::Absolute, form });
    }
    let raw = read_entries_in(lump, endian, form)?;
    let dir_end = form.dir_len(raw.len());
    let mut candidates = vec![OffsetBase::Absolute, OffsetBase::Relative];
    if place.from_lmp {
        candidates.push(OffsetBase::LmpFile);
    }
    for base in candidates {
        if let Some(entries) = layout(&raw, shift_of(base, place.file_offset) as i64, lump.len(), dir_end) {
            return Ok(GameLumpDir { entries, base, form });
        }
    }
    Err(Error::malformed(format!(
        "game lump children fit neither absolute offsets (lump at {}) nor lump-relative ones ({} bytes)",
        place.file_offset,
        lump.len()
    ))
    .at(4))
}

/// The children's lump-relative ranges if every non-empty child fits between the end of the
/// directory and the end of the lump when offsets are measured from `shift` (A12's rule).
fn layout(raw: &[RawEntry], shift: i64, lump_len: usize, dir_end: usize) -> Option<Vec<GameLumpEntry>> {
    let rel = |ofs: u32| -> Option<usize> {
        let r = ofs as i64 - shift;
        (0..=lump_len as i64).contains(&r).then_some(r as usize)
    };
    let mut out = Vec::with_capacity(raw.len());
    for (i, &RawEntry { id, flags, version, offset, length }) in raw.iter().enumerate() {
        let compressed = flags & FLAG_COMPRESSED != 0;
        let (start, stored_len) = if compressed {
            // Stored size = next.fileofs − this.fileofs (source.md §14.2); the last child runs
            // to the end of the lump when no dummy follows.
            let start = rel(offset)?;
            let end = match raw.get(i + 1) {
                Some(next) => rel(next.offset)?,
                None => lump_len,
            };
            (start, end.checked_sub(start)?)
        } else if length == 0 {
            // Empty children (and the dummy) may carry any offset inside or at the end of the lump.
            (rel(offset).unwrap_or(0), 0)
        } else {
            let start = rel(offset)?;
            let end = start.checked_add(length as usize)?;
            if end > lump_len {
                return None;
            }
            (start, length as usize)
        };
        if stored_len > 0 && start < dir_end {
            return None;
        }
        out.push(GameLumpEntry { position: i, id, flags, version, offset, length, compressed, start, stored_len });
    }
    Some(out)
}

/// The bytes of one child: borrowed from the lump, or decompressed (capped at `max`).
pub fn child_bytes<'a>(lump: &'a [u8], entry: &GameLumpEntry, max: u64) -> Result<Cow<'a, [u8]>> {
    let stored = lump
        .get(entry.start..entry.start + entry.stored_len)
        .ok_or_else(|| Error::truncated((entry.start + entry.stored_len) as u64, lump.len() as u64).at(entry.start as u64))?;
    if !entry.compressed || entry.stored_len == 0 {
        return Ok(Cow::Borrowed(stored));
    }
    let at = |e: Error| e.in_lump(format!("35 (GAME_LUMP) child {}", entry.fourcc())).at(entry.start as u64);
    let header = crate::compression::parse_header(stored).map_err(at)?;
    if header.actual_size as u64 > max {
        return Err(at(Error::new(ErrorKind::LimitExceeded {
            what: "decompressed game lump size",
            requested: header.actual_size as u64,
            limit: max,
        })));
    }
    crate::compression::decompress_valve_lzma(stored, Endian::Little, max).map(Cow::Owned).map_err(at)
}

/// A map's game lump: its bytes and parsed directory. [`GameLumps::of`] (in
/// [`crate::lumps::gamelump_map`], above `Bsp`) reads it from an opened map.
#[derive(Debug, Clone)]
pub struct GameLumps<'a> {
    pub bytes: &'a [u8],
    pub dir: GameLumpDir,
    pub endian: Endian,
    max: u64,
    /// Whose static prop forms [`Self::static_props`] applies (set from the map's branch).
    pub prop_game: crate::lumps::staticprops::PropGame,
}

impl<'a> GameLumps<'a> {
    /// From the bytes and their already parsed directory; `max` bounds each child's decompression.
    pub fn from_parts(bytes: &'a [u8], dir: GameLumpDir, endian: Endian, max: u64) -> Self {
        GameLumps { bytes, dir, endian, max, prop_game: Default::default() }
    }

    /// Build from the game lump's bytes directly.
    pub fn from_bytes(bytes: &'a [u8], place: LumpPlace, endian: Endian, max: u64) -> Result<Self> {
        Ok(GameLumps { bytes, dir: parse_directory(bytes, place, endian)?, endian, max, prop_game: Default::default() })
    }

    /// The directory entries (the dummy included).
    pub fn entries(&self) -> &[GameLumpEntry] {
        &self.dir.entries
    }

    /// The first child with this four-character id.
    pub fn find(&self, code: &[u8; 4]) -> Option<&GameLumpEntry> {
        self.dir.entries.iter().find(|e| e.id == make_id(code))
    }

    /// A child's bytes, decompressed if needed.
    pub fn bytes_of(&self, entry: &GameLumpEntry) -> Result<Cow<'a, [u8]>> {
        child_bytes(self.bytes, entry, self.max)
    }

    /// The static props child, parsed; `None` when the map has none.
    pub fn static_props(&self) -> Result<Option<crate::lumps::staticprops::StaticProps<'a>>> {
        let Some(e) = self.find(b"sprp") else { return Ok(None) };
        let data = self.bytes_of(e)?;
        crate::lumps::staticprops::StaticProps::parse_in(data, e.version, self.endian, self.prop_game).map(Some)
    }

    /// The detail props child (`dprp`), parsed; `None` when the map has none.
    pub fn detail_props(&self) -> Result<Option<crate::lumps::detailprops::DetailProps<'a>>> {
        let Some(e) = self.find(b"dprp") else { return Ok(None) };
        let data = self.bytes_of(e)?;
        crate::lumps::detailprops::DetailProps::parse(data, e.version, self.endian).map(Some)
    }

    /// The number of detail lighting records in `dplt` (or `dplh` when `hdr`); `None` without the child.
    pub fn detail_lighting_count(&self, hdr: bool) -> Result<Option<usize>> {
        let Some(e) = self.find(if hdr { b"dplh" } else { b"dplt" }) else { return Ok(None) };
        let data = self.bytes_of(e)?;
        crate::lumps::detailprops::parse_lighting(&data, self.endian).map(|r| Some(r.len()))
    }

    /// The game lump's bytes with every child offset rewritten for a lump placed at
    /// `new_file_offset`, in convention `base` (bsp_tool_notes.md §3.3: moving lump 35 means
    /// fixing every `fileofs`). Child data is unchanged.
    pub fn relocated(&self, new_file_offset: u64, base: OffsetBase) -> Result<Vec<u8>> {
        let shift = shift_of(base, new_file_offset);
        let mut out = self.bytes.to_vec();
        for e in &self.dir.entries {
            let ofs = u32::try_from(e.start as u64 + shift).map_err(|_| {
                Error::new(ErrorKind::LimitExceeded {
                    what: "game lump child offset",
                    requested: e.start as u64 + shift,
                    limit: u32::MAX as u64,
                })
            })?;
            let at = offset_field_in(e.position, self.dir.form);
            out[at..at + 4].copy_from_slice(&self.endian.u32_bytes(ofs));
        }
        Ok(out)
    }
}

/// The `fileofs` shift of a convention: what offsets are measured from, relative to the game
/// lump's start (`lump_offset` is the lump's position in the file).
fn shift_of(base: OffsetBase, lump_offset: u64) -> u64 {
    match base {
        OffsetBase::Absolute => lump_offset,
        OffsetBase::Relative => 0,
        OffsetBase::LmpFile => crate::lmp::LMP_HEADER_LEN as u64,
    }
}

/// Lay out a game lump: the directory, then each child's stored bytes in order, every
/// `fileofs` being `shift` + the child's position in the lump. Children are
/// `(id, flags, version, stored bytes, filelen)`. When any child is compressed (`flags & 1`) an
/// empty dummy entry holding the end offset is appended and counted (A13), and with
/// `pad_compressed` every child is then padded to 4 bytes. An offset past `i32::MAX` is an error.
/// The one writer of the directory: [`build`] and `write::build_game_lump` call it.
pub fn assemble(children: &[(u32, u16, u16, &[u8], u32)], shift: u64, endian: Endian, pad_compressed: bool) -> Result<Vec<u8>> {
    let any_compressed = children.iter().any(|c| c.1 & FLAG_COMPRESSED != 0);
    let pad = pad_compressed && any_compressed;
    let count = children.len() + usize::from(any_compressed);
    let dir_len = 4 + ENTRY_LEN * count;
    let mut out = Vec::with_capacity(dir_len + children.iter().map(|c| c.3.len() + 3).sum::<usize>());
    out.extend_from_slice(&endian.u32_bytes(count as u32));
    let mut pos = dir_len as u64;
    let mut dir = Vec::with_capacity(count);
    for &(id, flags, version, data, filelen) in children {
        dir.push((id, flags, version, shift + pos, filelen));
        pos += data.len() as u64;
        if pad {
            pos = (pos + 3) & !3;
        }
    }
    if any_compressed {
        dir.push((0, 0, 0, shift + pos, 0));
    }
    for (id, flags, version, ofs, len) in dir {
        if ofs > i32::MAX as u64 {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "game lump offset", requested: ofs, limit: i32::MAX as u64 }));
        }
        out.extend_from_slice(&endian.u32_bytes(id));
        let (f, v) = match endian {
            Endian::Little => (flags.to_le_bytes(), version.to_le_bytes()),
            Endian::Big => (flags.to_be_bytes(), version.to_be_bytes()),
        };
        out.extend_from_slice(&f);
        out.extend_from_slice(&v);
        out.extend_from_slice(&endian.u32_bytes(ofs as u32));
        out.extend_from_slice(&endian.u32_bytes(len));
    }
    for &(_, _, _, data, _) in children {
        out.extend_from_slice(data);
        if pad {
            out.resize((out.len() + 3) & !3, 0);
        }
    }
    Ok(out)
}

/// Build a game lump from `(id, flags, version, data)` children laid out after the directory,
/// with offsets written in the given convention (`lump_offset` is the lump's position in the
/// file, used for [`OffsetBase::Absolute`]). Compressed children (`flags & 1`) must already hold
/// their LZMA bytes (their `filelen` is taken from the LZMA header); a dummy entry is appended
/// when any child is compressed (A13). Empty when an offset would pass `i32::MAX`.
pub fn build(children: &[(u32, u16, u16, Vec<u8>)], base: OffsetBase, lump_offset: u64, endian: Endian) -> Vec<u8> {
    let kids: Vec<(u32, u16, u16, &[u8], u32)> = children
        .iter()
        .map(|(id, flags, version, data)| {
            let length = if flags & FLAG_COMPRESSED != 0 {
                crate::compression::parse_header(data).map(|h| h.actual_size).unwrap_or(data.len() as u32)
            } else {
                data.len() as u32
            };
            (*id, *flags, *version, data.as_slice(), length)
        })
        .collect();
    assemble(&kids, shift_of(base, lump_offset), endian, false).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u64 = 1 << 20;

    fn place(ofs: u64) -> LumpPlace {
        LumpPlace { file_offset: ofs, from_lmp: false }
    }

    #[test]
    fn ids_are_make_id() {
        // source.md §14.1 gives 1936749168 for sprp.
        assert_eq!(ID_STATIC_PROPS, 1936749168);
        assert_eq!(fourcc(ID_DETAIL_LIGHTING_HDR), "dplh");
        assert_eq!(fourcc(0), "0x00000000");
    }

    #[test]
    fn absolute_and_relative_offsets() {
        for endian in [Endian::Little, Endian::Big] {
            let kids = vec![(ID_STATIC_PROPS, 0, 10, vec![1u8; 12]), (ID_DETAIL_PROPS, 0, 4, vec![2u8; 12])];
            let abs = build(&kids, OffsetBase::Absolute, 5000, endian);
            let d = parse_directory(&abs, place(5000), endian).unwrap();
            assert_eq!(d.base, OffsetBase::Absolute);
            assert_eq!(d.entries[1].start, 4 + 32 + 12);
            assert_eq!(child_bytes(&abs, &d.entries[1], MAX).unwrap().as_ref(), &[2u8; 12]);
            let rel = build(&kids, OffsetBase::Relative, 0, endian);
            let d = parse_directory(&rel, place(5000), endian).unwrap();
            assert_eq!(d.base, OffsetBase::Relative);
            assert_eq!(d.entries[0].fourcc(), "sprp");
            assert_eq!(child_bytes(&rel, &d.entries[0], MAX).unwrap().as_ref(), &[1u8; 12]);
        }
    }

    #[test]
    fn relocation_rewrites_offsets_only() {
        let kids = vec![(ID_STATIC_PROPS, 0, 10, vec![1u8; 12]), (ID_DETAIL_PROPS, 0, 4, vec![2u8; 12])];
        let abs = build(&kids, OffsetBase::Absolute, 5000, Endian::Little);
        let gl = GameLumps::from_bytes(&abs, place(5000), Endian::Little, MAX).unwrap();
        let moved = gl.relocated(8000, OffsetBase::Absolute).unwrap();
        assert_eq!(moved, build(&kids, OffsetBase::Absolute, 8000, Endian::Little));
        let rel = gl.relocated(0, OffsetBase::Relative).unwrap();
        assert_eq!(rel, build(&kids, OffsetBase::Relative, 0, Endian::Little));
        let back = GameLumps::from_bytes(&moved, place(8000), Endian::Little, MAX).unwrap();
        assert_eq!(back.bytes_of(&back.entries()[1]).unwrap().as_ref(), &[2u8; 12]);
    }

    #[test]
    fn compressed_children_with_dummy() {
        let plain: Vec<u8> = (0..400u32).map(|i| (i % 7) as u8).collect();
        let packed = crate::compression::compress_valve_lzma(&plain, 6).unwrap();
        let kids = vec![(ID_STATIC_PROPS, FLAG_COMPRESSED, 6, packed.clone()), (ID_DETAIL_PROPS, 0, 4, vec![0u8; 12])];
        let lump = build(&kids, OffsetBase::Relative, 0, Endian::Big);
        let d = parse_directory(&lump, place(9000), Endian::Big).unwrap();
        assert_eq!(d.entries.len(), 3);
        assert!(d.entries[2].is_dummy());
        assert_eq!(d.entries[0].length, 400);
        assert_eq!(d.entries[0].stored_len, packed.len());
        assert_eq!(child_bytes(&lump, &d.entries[0], MAX).unwrap().as_ref(), plain.as_slice());
    }

    #[test]
    fn hostile_directories_are_refused() {
        // A count far beyond the lump.
        let mut lump = vec![0u8; 20];
        lump[..4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        assert!(matches!(parse_directory(&lump, place(0), Endian::Little).unwrap_err().kind, ErrorKind::Truncated { .. }));
        // Negative count.
        lump[..4].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(parse_directory(&lump, place(0), Endian::Little).is_err());
        // A child outside the lump under every convention.
        let bad = build(&[(ID_STATIC_PROPS, 0, 4, vec![0u8; 8])], OffsetBase::Relative, 0, Endian::Little);
        let mut bad2 = bad.clone();
        bad2[12..16].copy_from_slice(&1_000_000u32.to_le_bytes());
        assert!(matches!(parse_directory(&bad2, place(100), Endian::Little).unwrap_err().kind, ErrorKind::Malformed(_)));
    }

    #[test]
    fn hostile_lzma_sizes_are_refused() {
        let mut packed = crate::compression::compress_valve_lzma(&[7u8; 64], 6).unwrap();
        packed[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let lump = build(&[(ID_STATIC_PROPS, FLAG_COMPRESSED, 6, packed.clone())], OffsetBase::Relative, 0, Endian::Little);
        let d = parse_directory(&lump, place(0), Endian::Little).unwrap();
        let err = child_bytes(&lump, &d.entries[0], MAX).unwrap_err();
        assert!(matches!(err.kind, ErrorKind::LimitExceeded { .. }), "{err}");
        // Under the cap but far more than the stream holds: a decode error, not a huge buffer.
        packed[4..8].copy_from_slice(&((MAX - 1) as u32).to_le_bytes());
        let lump = build(&[(ID_STATIC_PROPS, FLAG_COMPRESSED, 6, packed)], OffsetBase::Relative, 0, Endian::Little);
        let d = parse_directory(&lump, place(0), Endian::Little).unwrap();
        assert!(matches!(child_bytes(&lump, &d.entries[0], MAX).unwrap_err().kind, ErrorKind::Decompress(_)));
    }

    #[test]
    fn lenient_read_keeps_the_entries_that_fit() {
        let kids = vec![(ID_STATIC_PROPS, 0, 10, vec![1u8; 4]), (ID_DETAIL_PROPS, 0, 4, vec![2u8; 4])];
        let lump = build(&kids, OffsetBase::Relative, 0, Endian::Little);
        assert_eq!(read_entries(&lump, Endian::Little).unwrap().len(), 2);
        // Cut inside the second entry: the strict read refuses, the tolerant one keeps the first.
        let cut = &lump[..4 + ENTRY_LEN + 8];
        assert!(matches!(read_entries(cut, Endian::Little).unwrap_err().kind, ErrorKind::Truncated { .. }));
        let first = read_entries_lenient(cut, Endian::Little);
        assert_eq!(first.len(), 1);
        assert_eq!((first[0].id, first[0].version, first[0].length), (ID_STATIC_PROPS, 10, 4));
        assert!(read_entries_lenient(&[1, 2], Endian::Little).is_empty());
        let mut negative = lump.clone();
        negative[..4].copy_from_slice(&(-3i32).to_le_bytes());
        assert!(read_entries_lenient(&negative, Endian::Little).is_empty());
    }
}

//! The writer: rebuilds a `.bsp` from its header, its lumps and the bytes between them, so that
//! an unchanged map comes out byte for byte as it went in, and an edited one moves only what
//! must move.
//!
//! The file is read as a sequence: header (with the lump directory), then *blocks* of lump data
//! in file order (lumps whose bytes overlap share one block), with the *gaps* between them and
//! the *trailing* bytes after the last one. Unchanged blocks and gaps are copied; a resized lump
//! shifts the blocks after it by a multiple of the file's alignment, so every later lump keeps
//! its alignment and its bytes. Gaps shorter than the alignment are padding and are rewritten;
//! longer gaps are data (compiler signatures, the Quake 3 header tail) and are kept.
//!
//! Offsets that point into the file from *inside* lumps are rebased when their target moves:
//! the Source / Respawn game lump (lump 35; source.md §14.1, open_questions.md A12) and Quake's
//! BSPX block after the last lump (quake_facts.md §2).
//!
//! Source maps carry a checksum over every lump but the entities (source.md §25), and the game
//! lump holds absolute offsets, so moving it changes the checksum. With
//! [`WriteOptions::keep_checksum`] (the default) a lump placed before the game lump that grows
//! is moved to the end of the lump data instead, and one that shrinks is rewritten in place with
//! its slot's tail zeroed: nothing else moves.
//!
//! Every file is written by [`atomic`] (`write_file`, `write_streaming`): a temporary file
//! beside the target, synced, checked and renamed over it, with symbolic links followed,
//! FIFOs/devices written through, the mode kept and concurrent edits refused. An output made of
//! several files (a `.gltf` with its `.bin` and images, an `.obj` with its `.mtl`) is written as
//! one set by [`set`] (old set or new set at every step).

use std::collections::BTreeMap;
use std::path::Path;

use crate::branch::HeaderKind;
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::directory::{self, LumpEntry};
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump::{self, DirForm};

pub mod atomic;
mod chunks;
pub mod folder;
pub mod set;

/// The Source / Respawn game lump's index (source.md §5; respawn_cod_facts.md §1.4: 0x23).
pub const GAME_LUMP: usize = gamelump::LUMP_GAME_LUMP;

/// New contents for one lump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LumpChange {
    /// The bytes as stored in the file (already compressed if the lump is to be compressed).
    /// Empty removes the lump's data.
    pub bytes: Vec<u8>,
    /// New lump version (Source, Respawn); `None` keeps the directory's value.
    pub version: Option<u32>,
    /// New `fourCC` (Source: the uncompressed size of an LZMA lump, else 0); `None` keeps it.
    pub fourcc: Option<u32>,
}

impl LumpChange {
    pub fn bytes(bytes: Vec<u8>) -> Self {
        LumpChange { bytes, version: None, fourcc: None }
    }
}

/// How the writer lays out an edited map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// Source maps, when only the entity lump changes: never move the game lump (keeps the map
    /// checksum of source.md §25). Off, or when any other lump changes: later lumps shift as in
    /// every other family and the game lump's offsets are rebased.
    pub keep_checksum: bool,
    /// Write even when `check` finds problems in the result that the source did not have (the
    /// file must still open and every lump read). For edits that are meant to change references,
    /// or a map that is repaired in several steps.
    pub allow_new_problems: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { keep_checksum: true, allow_new_problems: false }
    }
}

/// The directory entry as the writer sees it: fields of the file itself (external `.lmp` /
/// `.bsp_lump` data is not written into the `.bsp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    index: usize,
    offset: u64,
    length: u64,
    version: Option<u32>,
    fourcc: Option<u32>,
}

/// Lump alignment the branches use: 4 bytes everywhere (CoD: respawn_cod_facts.md §2.1; Respawn
/// §1.2; Quake/Source compilers pad to 4). A file whose lumps are not all aligned was written
/// packed (e.g. a Dota 2 beta map, gchimp's writer) and keeps being packed.
fn alignment(kind: HeaderKind, slots: &[Slot]) -> u64 {
    let a = match kind {
        HeaderKind::Quake { .. }
        | HeaderKind::IdMagic { .. }
        | HeaderKind::Ritual { .. }
        | HeaderKind::IdLengthFirst { .. }
        | HeaderKind::Valve { .. }
        | HeaderKind::Respawn => 4,
        HeaderKind::CodLumpList => return 4,
        HeaderKind::Chunks => return 1,
    };
    if slots.iter().all(|s| s.length == 0 || s.offset % a == 0) {
        a
    } else {
        1
    }
}

/// Gaps shorter than this between lumps are alignment padding, not data.
const PAD: u64 = 4;

/// Smallest `x >= at` with `x ≡ like (mod a)`.
fn align_like(at: u64, like: u64, a: u64) -> u64 {
    let want = like % a;
    let have = at % a;
    at + (want + a - have) % a
}

/// What happens to one lump's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Copied with its block.
    Keep,
    /// New bytes at the block's place; later blocks shift.
    InPlace,
    /// New bytes at the block's place, padded with zeros to the old length (nothing shifts).
    InPlaceFixed,
    /// Old place zeroed (solo block) or left as is (shared block); new bytes go after the last block.
    Relocate,
    /// New bytes after the last block (the lump was empty).
    Append,
}

struct Block {
    start: u64,
    end: u64,
    /// Positions in the slot list, in file order.
    members: Vec<usize>,
}

/// Convention of the game lump's child offsets (open_questions.md A12): the game lump
/// module's own type. The writer only meets `Absolute` and `Relative` (`.bsp` files).
pub use crate::lumps::gamelump::OffsetBase as GameLumpOffsets;

/// One child of a game lump directory: `{id, u16 flags, u16 version, fileofs, filelen}`
/// (source.md §14.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameLumpChild {
    /// Position of the `fileofs` field in the lump.
    pub field: usize,
    pub id: u32,
    pub flags: u16,
    pub version: u16,
    pub offset: i64,
    /// `filelen` (the uncompressed size when the child is compressed, A13).
    pub length: i64,
    /// Bytes the child occupies: `filelen`, or for an LZMA child (flags bit 0) the distance to
    /// the next entry's offset (source.md §14.2).
    pub stored: i64,
}

/// The directory of a game lump, or `None` if the count does not fit the lump (read by
/// [`gamelump::read_entries`]).
pub fn game_lump_directory(bytes: &[u8], endian: Endian) -> Option<Vec<GameLumpChild>> {
    game_lump_directory_in(bytes, endian, DirForm::Valve)
}

/// [`game_lump_directory`] for a directory of form `form` (Dark Messiah's 20-byte entries).
pub fn game_lump_directory_in(bytes: &[u8], endian: Endian, form: DirForm) -> Option<Vec<GameLumpChild>> {
    let raw = gamelump::read_entries_in(bytes, endian, form).ok()?;
    let mut v: Vec<GameLumpChild> = raw
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let length = e.length as i32 as i64;
            GameLumpChild {
                field: gamelump::offset_field_in(i, form),
                id: e.id,
                flags: e.flags,
                version: e.version,
                offset: e.offset as i32 as i64,
                length,
                stored: length,
            }
        })
        .collect();
    for i in 0..v.len() {
        if v[i].flags & gamelump::FLAG_COMPRESSED != 0 {
            if let Some(next) = v.get(i + 1).map(|n| n.offset) {
                v[i].stored = next - v[i].offset;
            }
        }
    }
    Some(v)
}

fn game_lump_children(bytes: &[u8], endian: Endian, form: DirForm) -> Option<Vec<(usize, i64, i64)>> {
    Some(game_lump_directory_in(bytes, endian, form)?.iter().map(|c| (c.field, c.offset, c.stored)).collect())
}

/// Build a game lump from its children `(id, flags, version, stored bytes, filelen)`, data
/// placed after the directory at `base` + position (base = the lump's file offset for absolute
/// offsets, 0 for relative). With any LZMA child, each child is padded to 4 bytes and an empty
/// dummy entry holding the end offset is appended and counted (open_questions.md A13).
pub fn build_game_lump(children: &[(u32, u16, u16, Vec<u8>, u32)], endian: Endian, base: u64) -> Result<Vec<u8>> {
    let kids: Vec<(u32, u16, u16, &[u8], u32)> =
        children.iter().map(|(id, f, v, data, len)| (*id, *f, *v, data.as_slice(), *len)).collect();
    gamelump::assemble(&kids, base, endian, true)
}

/// Which convention a game lump stored at `lump_offset` uses, by the rule of open_questions.md
/// A12 as [`gamelump::parse_directory`] applies it: absolute if every non-empty child lies
/// inside the lump read from the file start, relative if every one lies inside it read from the
/// lump start. `None`: no non-empty child, or neither fits (a corrupt directory, left alone).
pub fn game_lump_convention(bytes: &[u8], endian: Endian, lump_offset: u64) -> Option<GameLumpOffsets> {
    game_lump_convention_in(bytes, endian, lump_offset, DirForm::Valve)
}

/// [`game_lump_convention`] for a directory of form `form`.
pub fn game_lump_convention_in(bytes: &[u8], endian: Endian, lump_offset: u64, form: DirForm) -> Option<GameLumpOffsets> {
    let place = gamelump::LumpPlace { file_offset: lump_offset, from_lmp: false };
    let dir = gamelump::parse_directory_in(bytes, place, endian, form).ok()?;
    if !dir.entries.iter().any(|e| e.stored_len > 0) {
        return None;
    }
    match dir.base {
        // At offset 0 both readings are the same; the writer then has nothing to rebase.
        GameLumpOffsets::Absolute if lump_offset > 0 => Some(GameLumpOffsets::Absolute),
        GameLumpOffsets::Absolute | GameLumpOffsets::Relative => Some(GameLumpOffsets::Relative),
        GameLumpOffsets::LmpFile => None,
    }
}

/// The base a game lump's absolute child offsets were computed for: the first child's offset
/// minus the directory size, if every child then fits. Used for replacement bytes that came
/// from another position or another file.
pub fn game_lump_base(bytes: &[u8], endian: Endian) -> Option<u64> {
    game_lump_base_in(bytes, endian, DirForm::Valve)
}

/// [`game_lump_base`] for a directory of form `form`.
pub fn game_lump_base_in(bytes: &[u8], endian: Endian, form: DirForm) -> Option<u64> {
    let children = game_lump_children(bytes, endian, form)?;
    let dir_len = form.dir_len(children.len()) as i64;
    let first = children.iter().filter(|c| c.2 > 0).map(|c| c.1).min()?;
    let base = first - dir_len;
    let len = bytes.len() as i64;
    let ok = base >= 0 && children.iter().filter(|c| c.2 > 0).all(|&(_, o, l)| o >= base && o.saturating_add(l) <= base + len);
    ok.then_some(base as u64)
}

/// Add `delta` to every child offset of a game lump (absolute convention), in place. Entries
/// that are all zero (offset and length) are left alone.
pub fn rebase_game_lump(bytes: &mut [u8], endian: Endian, delta: i64) -> Result<()> {
    rebase_game_lump_in(bytes, endian, delta, DirForm::Valve)
}

/// [`rebase_game_lump`] for a directory of form `form`.
pub fn rebase_game_lump_in(bytes: &mut [u8], endian: Endian, delta: i64, form: DirForm) -> Result<()> {
    if delta == 0 {
        return Ok(());
    }
    let children = game_lump_children(bytes, endian, form).ok_or_else(|| Error::malformed("game lump directory does not fit the lump"))?;
    for (at, ofs, len) in children {
        if ofs == 0 && len == 0 {
            continue;
        }
        let new = ofs + delta;
        if !(0..=i32::MAX as i64).contains(&new) {
            return Err(Error::malformed(format!("game lump child offset {ofs} cannot move by {delta}")));
        }
        bytes[at..at + 4].copy_from_slice(&endian.u32_bytes(new as u32));
    }
    Ok(())
}

/// A BSPX block (quake_facts.md §2): `"BSPX"`, `u32 count`, `count × {char name[24], u32 ofs, u32 len}`
/// with absolute offsets. Returns the byte positions of the offset fields.
fn bspx_offset_fields(data: &[u8], start: usize) -> Option<Vec<usize>> {
    if data.get(start..start + 4)? != b"BSPX" {
        return None;
    }
    let n = u32_at(data, start + 4, Endian::Little)? as usize;
    if n > data.len().saturating_sub(start + 8) / 32 {
        return None;
    }
    Some((0..n).map(|i| start + 8 + 32 * i + 24).collect())
}

/// How the bytes after the last lump are treated.
enum Trail {
    None,
    /// Zero (or sub-alignment) padding that made the file a multiple of `k` bytes.
    PadTo(u64),
    /// A BSPX block at this old offset (with padding before it).
    Bspx(u64),
    /// Unknown data, kept.
    Data,
}

fn classify_trail(data: &[u8], from: u64) -> Trail {
    let len = data.len() as u64;
    if from >= len {
        return Trail::None;
    }
    let bspx_at = (from + 3) & !3;
    if bspx_offset_fields(data, bspx_at as usize).is_some() {
        return Trail::Bspx(bspx_at);
    }
    let t = len - from;
    let tail = &data[from as usize..];
    let mut k = (t + 1).next_power_of_two();
    if k < 4 {
        k = 4;
    }
    if k <= 1 << 16 && len % k == 0 && (t < PAD || tail.iter().all(|&b| b == 0)) {
        Trail::PadTo(k)
    } else {
        Trail::Data
    }
}

/// The slots of the file itself.
fn file_slots(bsp: &Bsp) -> Result<(usize, Vec<Slot>)> {
    let (header, entries) = directory::parse(bsp.data(), bsp.branch(), bsp.endian())?;
    let slots = entries
        .iter()
        .map(|e: &LumpEntry| Slot { index: e.index, offset: e.offset, length: e.length, version: e.version, fourcc: e.fourcc })
        .collect();
    Ok((header.len, slots))
}

/// Rebuild the file with no change: the same bytes, through the same path edits take.
pub fn rewrite(bsp: &Bsp) -> Result<Vec<u8>> {
    build(bsp, &BTreeMap::new(), &WriteOptions::default())
}

/// Rebuild the file with some lumps changed (keys are lump indices; Call of Duty: lump ids).
pub fn build(bsp: &Bsp, changes: &BTreeMap<usize, LumpChange>, opts: &WriteOptions) -> Result<Vec<u8>> {
    let data = bsp.data();
    let endian = bsp.endian();
    let kind = bsp.branch().header;
    if kind == HeaderKind::Chunks {
        // Genesis3D: no directory, the chain of chunk headers is rewritten (`write/chunks.rs`).
        let bytes: BTreeMap<usize, &[u8]> = changes.iter().map(|(&i, c)| (i, c.bytes.as_slice())).collect();
        return chunks::build(bsp, &bytes);
    }
    let is_cod = kind == HeaderKind::CodLumpList;
    let (old_hl, mut slots) = file_slots(bsp)?;
    let old_count = slots.len();

    // Changes for lumps the directory lacks: a Call of Duty list grows; other forms have fixed slots.
    for &index in changes.keys() {
        if !slots.iter().any(|s| s.index == index) {
            if is_cod && index <= u32::MAX as usize {
                slots.push(Slot { index, offset: 0, length: 0, version: None, fourcc: None });
            } else {
                return Err(Error::new(ErrorKind::NoSuchLump(index.to_string())));
            }
        }
    }
    let change_at = |p: usize| changes.get(&slots[p].index);
    let a = alignment(kind, &slots);

    // Blocks of non-empty lumps in file order; overlapping lumps share a block.
    let mut order: Vec<usize> = (0..old_count).filter(|&p| slots[p].length > 0).collect();
    order.sort_by_key(|&p| (slots[p].offset, p));
    let mut blocks: Vec<Block> = Vec::new();
    // Lumps whose bytes overlap the header (damaged or odd files) stay where they are, with the
    // header; an edit of one puts its new bytes after the last block.
    let mut header_end = old_hl as u64;
    let mut header_members: Vec<usize> = Vec::new();
    for p in order {
        let (s, e) = (slots[p].offset, slots[p].offset + slots[p].length);
        if blocks.is_empty() && s < header_end {
            header_end = header_end.max(e);
            header_members.push(p);
            continue;
        }
        match blocks.last_mut() {
            Some(b) if s < b.end => {
                b.end = b.end.max(e);
                b.members.push(p);
            }
            _ => blocks.push(Block { start: s, end: e, members: vec![p] }),
        }
    }
    if is_cod && !header_members.is_empty() {
        return Err(Error::malformed("a lump overlaps the lump list; the file cannot be rewritten"));
    }

    // Source checksum policy: blocks before the game lump's block stay where they are.
    // Only an entity-only edit can keep the checksum: any other change alters it anyway.
    let entities_only = !changes.is_empty() && changes.keys().all(|&i| i == 0);
    let pin_block = if opts.keep_checksum && entities_only && matches!(kind, HeaderKind::Valve { .. }) {
        blocks.iter().position(|b| b.members.iter().any(|&p| slots[p].index == GAME_LUMP)).filter(|&bi| {
            let b = &blocks[bi];
            let p = *b.members.iter().find(|&&p| slots[p].index == GAME_LUMP).unwrap_or(&0);
            let s = slots[p];
            data.get(s.offset as usize..(s.offset + s.length) as usize)
                .and_then(|g| game_lump_convention(g, endian, s.offset))
                .is_some_and(|c| c == GameLumpOffsets::Absolute)
        })
    } else {
        None
    };
    let block_of: BTreeMap<usize, usize> = blocks.iter().enumerate().flat_map(|(bi, b)| b.members.iter().map(move |&p| (p, bi))).collect();

    let mut plan = vec![Plan::Keep; slots.len()];
    for (p, pl) in plan.iter_mut().enumerate() {
        let Some(ch) = change_at(p) else { continue };
        let s = slots[p];
        let new_len = ch.bytes.len() as u64;
        *pl = match block_of.get(&p) {
            None if header_members.contains(&p) => Plan::Relocate,
            None => {
                if new_len > 0 {
                    Plan::Append
                } else {
                    Plan::Keep
                }
            }
            Some(&bi) if blocks[bi].members.len() > 1 => Plan::Relocate,
            Some(&bi) if pin_block.is_some_and(|pb| bi < pb) => {
                if new_len <= s.length {
                    Plan::InPlaceFixed
                } else {
                    Plan::Relocate
                }
            }
            Some(_) => Plan::InPlace,
        };
        if ch.bytes == data.get(s.offset as usize..(s.offset + s.length) as usize).unwrap_or(&[]) && s.length > 0 {
            // Same bytes: nothing moves (directory fields may still change).
            *pl = Plan::Keep;
        }
    }

    // The header size (only a Call of Duty list changes size: entries are dropped or added).
    let cod_keep = |p: usize, slots: &[Slot]| {
        let len = change_at(p).map(|c| c.bytes.len() as u64).unwrap_or(slots[p].length);
        len > 0 || (p < old_count && slots[p].length == 0)
    };
    let new_hl = if is_cod { 12 + 8 * (0..slots.len()).filter(|&p| cod_keep(p, &slots)).count() } else { old_hl };

    // Dark Messiah's game lump directory has its own form (gamelump::DirForm).
    let form = DirForm::of_branch(bsp.branch().id);
    let game_fix = |bytes: &mut Vec<u8>, old_base: u64, new_base: u64, replaced: bool| -> Result<()> {
        if !matches!(kind, HeaderKind::Valve { .. } | HeaderKind::Respawn) {
            return Ok(());
        }
        let original = slots.iter().find(|s| s.index == GAME_LUMP).copied();
        let conv = original.and_then(|s| {
            data.get(s.offset as usize..(s.offset + s.length) as usize).and_then(|g| game_lump_convention_in(g, endian, s.offset, form))
        });
        let conv = match conv {
            Some(c) => c,
            None if replaced => match game_lump_convention_in(bytes, endian, old_base, form) {
                Some(c) => c,
                None => return Ok(()),
            },
            None => return Ok(()),
        };
        if conv == GameLumpOffsets::Relative {
            return Ok(());
        }
        let from = if replaced && game_lump_convention_in(bytes, endian, old_base, form) != Some(GameLumpOffsets::Absolute) {
            match game_lump_base_in(bytes, endian, form) {
                Some(b) => b,
                None => return Ok(()),
            }
        } else {
            old_base
        };
        rebase_game_lump_in(bytes, endian, new_base as i64 - from as i64, form)
    };

    let mut out: Vec<u8> = vec![0; new_hl];
    let mut shift: i64 = new_hl as i64 - old_hl as i64;
    let mut cursor = old_hl as u64; // old position consumed so far
    let mut anchors: Vec<(u64, u64)> = vec![(old_hl as u64, new_hl as u64)];
    let mut new_offset: Vec<Option<u64>> = vec![None; slots.len()];
    let mut new_length: Vec<u64> = slots.iter().map(|s| s.length).collect();
    if header_end > old_hl as u64 {
        out.extend_from_slice(&data[old_hl..header_end as usize]);
        cursor = header_end;
    }
    for &p in &header_members {
        if plan[p] == Plan::Keep {
            new_offset[p] = Some(slots[p].offset);
        }
    }

    for b in &blocks {
        let synced = out.len() as i64 == cursor as i64 + shift;
        let gap = &data[cursor as usize..b.start as usize];
        if synced || gap.len() as u64 >= PAD {
            out.extend_from_slice(gap);
        }
        cursor = b.end;
        let solo = b.members.len() == 1;
        let p0 = b.members[0];
        let dropped = solo && plan[p0] == Plan::InPlace && change_at(p0).is_some_and(|c| c.bytes.is_empty());
        if dropped {
            anchors.push((b.start, out.len() as u64));
            new_length[p0] = 0;
            continue;
        }
        if out.len() as i64 != b.start as i64 + shift {
            let start = align_like(out.len() as u64, b.start, a);
            out.resize(start as usize, 0);
            shift = start as i64 - b.start as i64;
        }
        let start = out.len() as u64;
        anchors.push((b.start, start));
        match (solo, plan[p0]) {
            (true, Plan::InPlace) | (true, Plan::InPlaceFixed) => {
                let ch = change_at(p0).expect("planned lumps have a change");
                let mut bytes = ch.bytes.clone();
                if slots[p0].index == GAME_LUMP {
                    game_fix(&mut bytes, slots[p0].offset, start, true)?;
                }
                out.extend_from_slice(&bytes);
                new_offset[p0] = Some(start);
                new_length[p0] = bytes.len() as u64;
                if plan[p0] == Plan::InPlaceFixed {
                    out.resize((start + slots[p0].length) as usize, 0);
                }
            }
            (true, Plan::Relocate) => {
                out.resize((start + slots[p0].length) as usize, 0);
            }
            _ => {
                out.extend_from_slice(&data[b.start as usize..b.end as usize]);
                for &p in &b.members {
                    if plan[p] == Plan::Keep {
                        new_offset[p] = Some(slots[p].offset.wrapping_add_signed(shift));
                        if slots[p].index == GAME_LUMP && shift != 0 {
                            let (s, e) = (
                                (slots[p].offset as i64 + shift) as usize,
                                (slots[p].offset as i64 + shift) as usize + slots[p].length as usize,
                            );
                            let mut g = out[s..e].to_vec();
                            game_fix(&mut g, slots[p].offset, s as u64, false)?;
                            out[s..e].copy_from_slice(&g);
                        }
                    }
                }
            }
        }
    }

    // Lumps that move to the end of the lump data, in index order.
    let mut moved: Vec<usize> = (0..slots.len()).filter(|&p| matches!(plan[p], Plan::Relocate | Plan::Append)).collect();
    // (Call of Duty: in directory order, which is the data order.)
    if !is_cod {
        moved.sort_by_key(|&p| slots[p].index);
    }
    let trail = classify_trail(data, cursor);
    let mut appended_any = false;
    for p in moved {
        let ch = change_at(p).expect("planned lumps have a change");
        if ch.bytes.is_empty() {
            new_length[p] = 0;
            continue;
        }
        let start = align_like(out.len() as u64, 0, a);
        out.resize(start as usize, 0);
        let mut bytes = ch.bytes.clone();
        if slots[p].index == GAME_LUMP {
            game_fix(&mut bytes, slots[p].offset, start, true)?;
        }
        out.extend_from_slice(&bytes);
        new_offset[p] = Some(start);
        new_length[p] = bytes.len() as u64;
        appended_any = true;
    }

    // The trailing bytes.
    let synced = !appended_any && out.len() as i64 == cursor as i64 + shift;
    match trail {
        Trail::None => {}
        Trail::PadTo(k) => {
            if synced && shift.rem_euclid(k as i64) == 0 {
                out.extend_from_slice(&data[cursor as usize..]);
            } else {
                let end = align_like(out.len() as u64, 0, k);
                out.resize(end as usize, 0);
            }
        }
        Trail::Bspx(at) => {
            let start = if synced {
                out.extend_from_slice(&data[cursor as usize..at as usize]);
                out.len() as u64
            } else {
                let s = align_like(out.len() as u64, at, 4);
                out.resize(s as usize, 0);
                s
            };
            out.extend_from_slice(&data[at as usize..]);
            let delta = start as i64 - at as i64;
            if delta != 0 {
                for f in bspx_offset_fields(data, at as usize).unwrap_or_default() {
                    let old = u32_at(data, f, Endian::Little).unwrap_or(0) as i64;
                    let new = old + delta;
                    if !(0..=u32::MAX as i64).contains(&new) {
                        return Err(Error::malformed("BSPX lump offset out of range after the move"));
                    }
                    let at_out = (f as i64 + delta) as usize;
                    out[at_out..at_out + 4].copy_from_slice(&(new as u32).to_le_bytes());
                }
            }
        }
        Trail::Data => {
            if !synced {
                let s = align_like(out.len() as u64, cursor, a);
                out.resize(s as usize, 0);
            }
            out.extend_from_slice(&data[cursor as usize..]);
        }
    }

    // Offsets of empty lumps follow the bytes they pointed at.
    let remap = |old: u64| -> u64 {
        if old < old_hl as u64 {
            return old;
        }
        let (o, n) = anchors.iter().rev().find(|(o, _)| *o <= old).copied().unwrap_or((old_hl as u64, new_hl as u64));
        // Offsets beyond the file are kept relative to the last anchor; one that would no
        // longer fit the directory field keeps its old value (an empty lump's offset is unused).
        let new = n + (old - o);
        if new > i32::MAX as u64 {
            old
        } else {
            new
        }
    };
    let final_slots: Vec<Slot> = (0..slots.len())
        .map(|p| {
            let s = slots[p];
            let ch = change_at(p);
            let length = new_length[p];
            let offset = match new_offset[p] {
                Some(o) => o,
                None if length == 0 => remap(s.offset),
                None => s.offset,
            };
            Slot {
                index: s.index,
                offset,
                length,
                version: ch.and_then(|c| c.version).or(s.version),
                fourcc: ch.and_then(|c| c.fourcc).or(s.fourcc),
            }
        })
        .collect();
    write_header(&mut out, data, kind, endian, old_hl, &final_slots, |p| !is_cod || cod_keep(p, &slots))?;
    Ok(out)
}

fn put(out: &mut [u8], at: usize, v: u64, endian: Endian, signed: bool) -> Result<()> {
    let limit = if signed { i32::MAX as u64 } else { u32::MAX as u64 };
    if v > limit {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "lump offset or length", requested: v, limit }));
    }
    out[at..at + 4].copy_from_slice(&endian.u32_bytes(v as u32));
    Ok(())
}

fn write_header(
    out: &mut [u8],
    data: &[u8],
    kind: HeaderKind,
    endian: Endian,
    old_hl: usize,
    slots: &[Slot],
    keep: impl Fn(usize) -> bool,
) -> Result<()> {
    match kind {
        HeaderKind::Quake { .. } | HeaderKind::IdMagic { .. } | HeaderKind::Ritual { .. } | HeaderKind::IdLengthFirst { .. } => {
            out[..old_hl].copy_from_slice(&data[..old_hl]);
            let base = kind.dir_base().unwrap_or(8);
            // Call of Duty 1 / 2 store `{length, offset}`.
            let (o, l) = if matches!(kind, HeaderKind::IdLengthFirst { .. }) { (4, 0) } else { (0, 4) };
            for (i, s) in slots.iter().enumerate() {
                put(out, base + 8 * i + o, s.offset, endian, true)?;
                put(out, base + 8 * i + l, s.length, endian, true)?;
            }
        }
        HeaderKind::Valve { version_first } => {
            out[..old_hl].copy_from_slice(&data[..old_hl]);
            for (i, s) in slots.iter().enumerate() {
                let b = 8 + 16 * i;
                let (o, l, v) = if version_first { (b + 4, b + 8, b) } else { (b, b + 4, b + 8) };
                put(out, o, s.offset, endian, true)?;
                put(out, l, s.length, endian, true)?;
                put(out, v, s.version.unwrap_or(0) as u64, endian, false)?;
                put(out, b + 12, s.fourcc.unwrap_or(0) as u64, endian, false)?;
            }
        }
        HeaderKind::Respawn => {
            out[..old_hl].copy_from_slice(&data[..old_hl]);
            for (i, s) in slots.iter().enumerate() {
                let b = 16 + 16 * i;
                put(out, b, s.offset, endian, true)?;
                put(out, b + 4, s.length, endian, true)?;
                put(out, b + 8, s.version.unwrap_or(0) as u64, endian, false)?;
                put(out, b + 12, s.fourcc.unwrap_or(0) as u64, endian, false)?;
            }
        }
        HeaderKind::CodLumpList => {
            // magic, version, count, then {id, length} in data order (respawn_cod_facts.md §2.1).
            out[..8].copy_from_slice(&data[..8]);
            // Lumps are never relocated in this form, so directory order is still data order.
            let ordered: Vec<&Slot> = slots.iter().enumerate().filter(|(p, _)| keep(*p)).map(|(_, s)| s).collect();
            put(out, 8, ordered.len() as u64, endian, false)?;
            for (i, s) in ordered.iter().enumerate() {
                put(out, 12 + 8 * i, s.index as u64, endian, false)?;
                put(out, 16 + 8 * i, s.length, endian, false)?;
            }
        }
        HeaderKind::Chunks => return Err(Error::malformed("chunk files have no directory to write")),
    }
    Ok(())
}

/// The Source map checksum (source.md §25); one implementation, shared with `bsp info`.
pub use crate::branches::source::map_checksum;

pub use atomic::{write_file, write_streaming, Fingerprint, Written, ABORT_HOOK_ENV};

/// Write `bytes` to `target` through the one write primitive ([`atomic`]: symbolic links
/// followed, FIFOs and devices written through, mode kept, temporary file removed on error),
/// calling `verify` on the temporary file before it replaces the target.
pub fn write_atomic(target: &Path, bytes: &[u8], verify: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    atomic::write_streaming(target, &atomic::WriteOptions::default(), |w| w.write_all(bytes), verify).map(drop)
}

/// A problem's text with every number replaced by `#`: the same problem before and after an
/// edit can carry a different length or count.
pub fn problem_shape(problem: &str) -> String {
    let mut out = String::with_capacity(problem.len());
    let mut in_num = false;
    for c in problem.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                out.push('#');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// Check a written file: it opens as `branch`, every lump can be read, and `check` reports no
/// problem whose [`problem_shape`] is not among those of `before` (the source map's problems).
pub fn verify_written(path: &Path, branch: &str, before: &[String]) -> Result<()> {
    let new = new_problems(path, branch, before)?;
    if new.is_empty() {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::NewProblems(new)).in_file(path))
    }
}

/// Open `bytes` as `branch` and read every lump (an error if any fails), then return the
/// `check` problems that are not in `before`.
pub fn new_problems_in(bytes: &[u8], branch: &str, before: &[String]) -> Result<Vec<String>> {
    Ok(new_problem_list_in(bytes, branch, before)?.iter().map(|p| p.to_string()).collect())
}

/// [`new_problems_in`] with each problem whole (its severity and code), for callers that treat
/// notes apart from warnings and errors.
pub fn new_problem_list_in(bytes: &[u8], branch: &str, before: &[String]) -> Result<Vec<crate::check::Problem>> {
    let opts = crate::bsp::OpenOptions { branch: Some(branch.to_string()), external_lumps: false, ..Default::default() };
    let bsp = Bsp::from_bytes_with(bytes, &opts)?;
    for e in bsp.lumps() {
        bsp.raw_lump(e.index)?;
    }
    Ok(crate::check::check(&bsp).into_iter().filter(|p| !before.contains(&p.to_string())).collect())
}

/// Reopen a written file as `branch` and read every lump (an error if any fails), then return
/// the `check` problems that are not in `before`.
pub fn new_problems(path: &Path, branch: &str, before: &[String]) -> Result<Vec<String>> {
    let opts = crate::bsp::OpenOptions { branch: Some(branch.to_string()), external_lumps: false, ..Default::default() };
    // Checked from bytes, not by path: the temporary file's name has no siblings (Respawn `.ent`
    // partitions, `.lmp` files), and checks about those describe the input, not what was written.
    let bytes = std::fs::read(path).map_err(|e| Error::from(e).in_file(path))?;
    let bsp = Bsp::from_bytes_with(&bytes, &opts).map_err(|e| e.in_file(path))?;
    for e in bsp.lumps() {
        bsp.raw_lump(e.index).map_err(|e| e.in_file(path))?;
    }
    Ok(crate::check::check(&bsp).iter().map(|p| p.to_string()).filter(|p| !before.contains(p)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches;
    use crate::build::BspBuilder;

    #[test]
    fn align_like_keeps_residue() {
        assert_eq!(align_like(9, 0, 4), 12);
        assert_eq!(align_like(9, 13, 4), 9);
        assert_eq!(align_like(10, 13, 4), 13);
        assert_eq!(align_like(7, 5, 1), 7);
    }

    #[test]
    fn rewrite_is_identity_on_built_maps() {
        for b in branches::all() {
            let bytes = BspBuilder::new(b).lump(1, vec![1u8; 21]).lump(3, vec![2u8; 7]).build();
            let bsp = Bsp::from_bytes_with(&bytes, &crate::bsp::OpenOptions { branch: Some(b.id.into()), ..Default::default() }).unwrap();
            assert_eq!(rewrite(&bsp).unwrap(), bytes, "{}", b.id);
        }
    }

    #[test]
    fn resize_shifts_later_lumps_keeping_alignment() {
        let bytes =
            BspBuilder::new(&branches::quake2::QUAKE2).lump(0, b"{}\0".to_vec()).lump(1, vec![7u8; 20]).lump(2, vec![9u8; 12]).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let mut ch = BTreeMap::new();
        ch.insert(0, LumpChange::bytes(b"{\"a\" \"b\"}\0".to_vec()));
        let out = build(&bsp, &ch, &WriteOptions::default()).unwrap();
        let nb = Bsp::from_bytes(&out).unwrap();
        assert_eq!(nb.lump(0).unwrap(), b"{\"a\" \"b\"}\0");
        assert_eq!(nb.lump(1).unwrap(), bsp.lump(1).unwrap());
        assert_eq!(nb.lump(2).unwrap(), bsp.lump(2).unwrap());
        assert!(nb.lumps().iter().all(|e| e.length == 0 || e.offset % 4 == 0));
    }

    #[test]
    fn game_lump_offsets_are_rebased_when_it_moves() {
        // A game lump with one child; absolute offsets (A12).
        let mk = |base: u32| {
            let mut g = Vec::new();
            g.extend_from_slice(&1u32.to_le_bytes());
            g.extend_from_slice(b"prps");
            g.extend_from_slice(&[0, 0, 10, 0]);
            g.extend_from_slice(&(base + 20).to_le_bytes());
            g.extend_from_slice(&4u32.to_le_bytes());
            g.extend_from_slice(&[1, 2, 3, 4]);
            g
        };
        let b = &branches::source::SOURCE;
        // Lump 35 sits after lump 1 at 1036 + 8 = 1044.
        let bytes = BspBuilder::new(b).lump(1, vec![5u8; 8]).lump(35, mk(1044)).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.entry(35).unwrap().offset, 1044);
        let mut ch = BTreeMap::new();
        ch.insert(1, LumpChange::bytes(vec![6u8; 24]));
        let out = build(&bsp, &ch, &WriteOptions::default()).unwrap();
        let nb = Bsp::from_bytes(&out).unwrap();
        let ofs = nb.entry(35).unwrap().offset;
        assert_eq!(ofs, 1060);
        assert_eq!(nb.lump(35).unwrap(), &mk(1060)[..]);
        // An entity-only edit moves the entity lump to the end instead; lump 35 stays.
        let bytes = BspBuilder::new(b).lump(0, b"{}\0".to_vec()).lump(35, mk(1036 + 4)).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let mut ch = BTreeMap::new();
        ch.insert(0, LumpChange::bytes(b"{\"classname\" \"worldspawn\"}\0".to_vec()));
        let out = build(&bsp, &ch, &WriteOptions::default()).unwrap();
        let nb = Bsp::from_bytes(&out).unwrap();
        assert_eq!(nb.entry(35).unwrap().offset, 1040);
        assert_eq!(nb.lump(0).unwrap(), b"{\"classname\" \"worldspawn\"}\0");
        assert_eq!(map_checksum(&nb).unwrap(), map_checksum(&bsp).unwrap());
        let out = build(&bsp, &ch, &WriteOptions { keep_checksum: false, ..Default::default() }).unwrap();
        let nb = Bsp::from_bytes(&out).unwrap();
        assert_eq!(nb.entry(35).unwrap().offset, 1064);
        assert_eq!(nb.lump(35).unwrap(), &mk(1064)[..]);
    }
}

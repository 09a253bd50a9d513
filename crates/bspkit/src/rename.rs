//! Renaming a texture (material, shader) in a map of any family, through an [`Editor`]: the
//! one edit bsp_tool users make most, without byte surgery on the lump that holds the names.
//!
//! Where the names are, per family (names compared ASCII-case-insensitively, as the engines
//! look textures up):
//! - Quake / GoldSrc: the `char name[16]` of each miptex in TEXTURES (quake_family.md §B.4).
//! - Quake 2: TEXINFO's `char texture[32]` (every texinfo naming it).
//! - Quake 3: SHADERS' `char name[64]` and FOGS' `char shader[64]`.
//! - Call of Duty: MATERIALS' `char name[64]`; Genesis3D: TEXTURES' `char name[32]`.
//! - Source / Respawn: the NUL-terminated strings of TEXDATA_STRING_DATA (Respawn:
//!   TEXTURE_DATA_STRING_DATA), found through the string table's offsets: the string is
//!   replaced in place and every offset after it moves by the change in length (source.md
//!   §10.4; Source names are under `TEXTURE_NAME_LENGTH`, 128 bytes with the NUL).
//!
//! Fixed-size names keep a NUL: a new name must be shorter than the field (an error otherwise).
//!
//! ```
//! # fn main() -> Result<(), bspkit::Error> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let old = bspkit::lumps::miptex::of(&bsp)?.unwrap().get(0)?.unwrap().name().into_owned();
//! let mut ed = bspkit::edit::Editor::new(&bsp)?;
//! let renamed = bspkit::rename::rename_texture(&mut ed, &old, "new_name")?;
//! assert_eq!(renamed.count, 1);
//! let out = ed.to_bytes()?;
//! let back = bspkit::Bsp::from_bytes(&out)?;
//! assert_eq!(bspkit::lumps::miptex::of(&back)?.unwrap().get(0)?.unwrap().name(), "new_name");
//! # Ok(()) }
//! ```

use crate::branches::any;
use crate::branches::ops::TextureNameStore;
use crate::bytes::{c_str, Endian};
use crate::edit::Editor;
use crate::error::{Error, Result};

/// What [`rename_texture`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Renamed {
    /// Names changed: records (miptex entries, texinfos, shaders, fogs, materials) or string
    /// table entries that named the texture.
    pub count: usize,
    /// Indices of the lumps rewritten (none when nothing named the texture).
    pub lumps: Vec<usize>,
}

/// Rename every reference to texture `old` to `new` in the editor's map (its current lumps,
/// edits included). `count` 0 when no texture has that name. Errors: an empty name, a name with
/// a NUL, a name too long for a fixed-size field, or a lump that cannot be read.
pub fn rename_texture(ed: &mut Editor, old: &str, new: &str) -> Result<Renamed> {
    if old.is_empty() || new.is_empty() || new.contains('\0') {
        return Err(Error::malformed(format!("cannot rename texture {old:?} to {new:?}: names are non-empty and have no NUL")));
    }
    let mut out = Renamed::default();
    match any::of(ed.bsp().family()).texture_name_store() {
        TextureNameStore::Miptex => miptex(ed, old, new, &mut out)?,
        TextureNameStore::Fixed(fields) => fixed(ed, fields, old, new, &mut out)?,
        TextureNameStore::StringTable { max_len: Some((max, game)), .. } if new.len() >= max => {
            return Err(Error::malformed(format!("texture name {new:?} is {} bytes; {game} names hold {} and a NUL", new.len(), max - 1)));
        }
        TextureNameStore::StringTable { data, table, .. } => string_table(ed, data, table, old, new, &mut out)?,
    }
    Ok(out)
}

/// Write `new` over a fixed-size name field, NUL-padded (what follows the old name's NUL goes).
fn put_name(field: &mut [u8], new: &str, what: &str) -> Result<()> {
    if new.len() >= field.len() {
        return Err(Error::malformed(format!("texture name {new:?} is {} bytes; {what} holds {} and a NUL", new.len(), field.len() - 1)));
    }
    field.fill(0);
    field[..new.len()].copy_from_slice(new.as_bytes());
    Ok(())
}

/// Records with a fixed-size name field: `(lump, field)` pairs, the field's place from the
/// lump's record schema ([`crate::schema`]). A lump the branch does not have is skipped.
fn fixed(ed: &mut Editor, fields: &[(&str, &str)], old: &str, new: &str, out: &mut Renamed) -> Result<()> {
    let bsp = ed.bsp();
    let mut changes = Vec::new();
    for &(lump, field) in fields {
        let Some(index) = bsp.lump_index(lump) else { continue };
        let version = bsp.entry(index).and_then(|e| e.version).unwrap_or(0);
        let schema = crate::schema::lump_schema(bsp.branch(), lump, version, bsp.endian())
            .ok_or_else(|| bsp.lump_error(index, Error::malformed(format!("no record layout known for {lump} version {version}"))))?;
        let f = schema.field(field).ok_or_else(|| Error::malformed(format!("{} has no field {field}", schema.name)))?;
        let (at, len) = (f.offset, f.ty.size());
        let mut data = ed.lump(index)?.into_owned();
        let mut n = 0;
        for (i, rec) in data.chunks_exact_mut(schema.size).enumerate() {
            let name = &mut rec[at..at + len];
            if c_str(name).eq_ignore_ascii_case(old) {
                put_name(name, new, &format!("{lump}[{i}].{field}")).map_err(|e| bsp.lump_error(index, e))?;
                n += 1;
            }
        }
        if n > 0 {
            out.count += n;
            changes.push((index, data));
        }
    }
    for (index, data) in changes {
        ed.set_lump(index, data)?;
        out.lumps.push(index);
    }
    Ok(())
}

/// Quake / GoldSrc: `i32 count; i32 offsets[count]`, a miptex at each offset starting with
/// `char name[16]` (quake_family.md §B.4; negative offsets are missing textures).
fn miptex(ed: &mut Editor, old: &str, new: &str, out: &mut Renamed) -> Result<()> {
    let bsp = ed.bsp();
    let Some(index) = bsp.branch().lump_index("TEXTURES") else { return Ok(()) };
    let mut data = ed.lump(index)?.into_owned();
    let i32_at = |d: &[u8], at: usize| crate::bytes::i32_at(d, at, Endian::Little);
    let count = i32_at(&data, 0).unwrap_or(0).max(0) as usize;
    let mut n = 0;
    for i in 0..count {
        let Some(ofs) = i32_at(&data, 4 + 4 * i) else { break };
        let Ok(ofs) = usize::try_from(ofs) else { continue };
        let Some(name) = data.get_mut(ofs..ofs + 16) else {
            return Err(bsp.lump_error(index, Error::malformed(format!("texture {i} at {ofs} is past the end of the lump"))));
        };
        if c_str(name).eq_ignore_ascii_case(old) {
            put_name(name, new, &format!("texture {i}'s name")).map_err(|e| bsp.lump_error(index, e))?;
            n += 1;
        }
    }
    if n > 0 {
        ed.set_lump(index, data)?;
        out.count += n;
        out.lumps.push(index);
    }
    Ok(())
}

/// Source / Respawn: a string table of `i32` offsets (the map's byte order) into a lump of
/// NUL-terminated names (source.md §10.4).
fn string_table(ed: &mut Editor, data_lump: &str, table_lump: &str, old: &str, new: &str, out: &mut Renamed) -> Result<()> {
    let bsp = ed.bsp();
    let (Some(di), Some(ti)) = (bsp.lump_index(data_lump), bsp.lump_index(table_lump)) else { return Ok(()) };
    let endian = bsp.endian();
    let mut data = ed.lump(di)?.into_owned();
    let table_bytes = ed.lump(ti)?.into_owned();
    let mut table: Vec<i64> = table_bytes.chunks_exact(4).map(|c| crate::bytes::i32_at(c, 0, endian).unwrap_or(-1) as i64).collect();
    // Each string the table points at that names `old`, last first: splicing one leaves the
    // offsets before it as they are.
    let mut starts: Vec<usize> = table
        .iter()
        .filter_map(|&o| usize::try_from(o).ok())
        .filter(|&o| o < data.len() && c_str(&data[o..]).eq_ignore_ascii_case(old))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    if starts.is_empty() {
        return Ok(());
    }
    out.count += table.iter().filter(|&&o| usize::try_from(o).is_ok_and(|o| starts.binary_search(&o).is_ok())).count();
    for &start in starts.iter().rev() {
        let end = data[start..].iter().position(|&b| b == 0).map_or(data.len(), |p| start + p);
        let unterminated = end == data.len();
        data.splice(start..end, new.bytes());
        if unterminated {
            data.push(0);
        }
        let delta = new.len() as i64 - (end - start) as i64;
        for o in table.iter_mut().filter(|o| **o >= end as i64) {
            *o += delta;
        }
    }
    if i32::try_from(data.len()).is_err() {
        return Err(bsp.lump_error(di, Error::malformed("the texture name strings would pass 2 GiB")));
    }
    let mut tb = Vec::with_capacity(table_bytes.len());
    for o in &table {
        let v = *o as i32;
        tb.extend_from_slice(&match endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }
    ed.set_lump(di, data)?;
    out.lumps.push(di);
    if tb != table_bytes {
        ed.set_lump(ti, tb)?;
        out.lumps.push(ti);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::{quake3, source};
    use crate::bsp::Bsp;
    use crate::build::BspBuilder;

    fn renamed(bytes: &[u8], old: &str, new: &str) -> Result<(Renamed, Vec<u8>)> {
        let bsp = Bsp::from_bytes(bytes)?;
        let mut ed = Editor::new(&bsp)?;
        let r = rename_texture(&mut ed, old, new)?;
        Ok((r, ed.to_bytes()?))
    }

    fn table(offsets: &[i32], e: Endian) -> Vec<u8> {
        offsets.iter().flat_map(|o| if e == Endian::Big { o.to_be_bytes() } else { o.to_le_bytes() }).collect()
    }

    /// The name each string table entry points at.
    fn names(bsp: &Bsp, e: Endian) -> Vec<String> {
        let data = bsp.lump(43).unwrap();
        let t = bsp.lump(44).unwrap();
        t.chunks_exact(4).map(|c| c_str(&data[crate::bytes::i32_at(c, 0, e).unwrap() as usize..]).into_owned()).collect()
    }

    #[test]
    fn source_string_moves_the_offsets_after_it() {
        for e in [Endian::Little, Endian::Big] {
            let data = b"a/one\0tools/nodraw\0b/two\0".to_vec();
            let bytes = BspBuilder::new(&source::SOURCE).endian(e).lump(43, data).lump(44, table(&[0, 6, 19, 6], e)).build();
            let (r, out) = renamed(&bytes, "TOOLS/NoDraw", "x/y").unwrap();
            assert_eq!(r.count, 2, "two table entries named it");
            let back = Bsp::from_bytes(&out).unwrap();
            assert_eq!(back.lump(43).unwrap(), b"a/one\0x/y\0b/two\0");
            assert_eq!(back.lump(44).unwrap(), table(&[0, 6, 10, 6], e));
            assert_eq!(names(&back, e), ["a/one", "x/y", "b/two", "x/y"]);
            // Longer, and a name that is not there.
            let (r, out) = renamed(&out, "a/one", "a/much/longer/name").unwrap();
            assert_eq!((r.count, r.lumps.len()), (1, 2));
            let back = Bsp::from_bytes(&out).unwrap();
            assert_eq!(names(&back, e), ["a/much/longer/name", "x/y", "b/two", "x/y"]);
            let (r, again) = renamed(&out, "nothing", "z").unwrap();
            assert_eq!(r, Renamed::default());
            assert_eq!(again, out, "nothing renamed: the same bytes");
        }
    }

    fn shader(name: &str) -> Vec<u8> {
        let mut r = vec![0u8; 72];
        r[..name.len()].copy_from_slice(name.as_bytes());
        r[name.len() + 1..name.len() + 5].copy_from_slice(b"junk");
        r
    }

    #[test]
    fn quake3_shaders_and_fogs_and_the_length_limit() {
        let shaders = [shader("textures/a"), shader("textures/b")].concat();
        let mut fog = vec![0u8; 72];
        fog[..10].copy_from_slice(b"textures/b");
        let bytes = BspBuilder::new(&quake3::QUAKE3).lump(quake3::LUMP_SHADERS, shaders).lump(quake3::LUMP_FOGS, fog).build();
        let (r, out) = renamed(&bytes, "textures/b", "textures/c").unwrap();
        assert_eq!(r.count, 2);
        let back = Bsp::from_bytes(&out).unwrap();
        let s = back.lump(quake3::LUMP_SHADERS).unwrap();
        assert_eq!(&s[72..72 + 11], b"textures/c\0");
        assert!(s[72 + 10..72 + 64].iter().all(|&b| b == 0), "the junk after the old NUL is cleared");
        assert_eq!(&s[..14], &shader("textures/a")[..14], "the other shader is untouched");
        assert_eq!(&back.lump(quake3::LUMP_FOGS).unwrap()[..11], b"textures/c\0");
        let long = "x".repeat(64);
        let e = renamed(&bytes, "textures/a", &long).unwrap_err();
        assert!(e.to_string().contains("holds 63 and a NUL"), "{e}");
        assert!(renamed(&bytes, "textures/a", "").is_err());
    }
}

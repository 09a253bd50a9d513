//! Respawn entity partitions: the `ENTITY_PARTITIONS` lump and the `<map>_<kind>.ent` files
//! beside a map (respawn_cod_facts.md §1.3, §1.4).

use std::path::{Path, PathBuf};

use super::lumps::*;
use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::lumps::entities::{self, Entities, EntityDoc};

/// The length the `.bsp` directory itself gives for a lump (before any external replacement).
pub fn directory_length(bsp: &Bsp, index: usize) -> Option<u64> {
    if index >= 128 {
        return None;
    }
    let v = crate::bytes::i32_at(bsp.data(), 16 + 16 * index + 4, bsp.endian())?;
    u64::try_from(v).ok()
}

/// The partition kinds listed in ENTITY_PARTITIONS (facts §1.4): space-separated tokens after
/// the first (`01*`, the entity lump in the `.bsp` itself), e.g. `["env", "spawn"]`.
pub fn partition_kinds(bsp: &Bsp) -> Result<Vec<String>> {
    let raw = bsp.lump(LUMP_ENTITY_PARTITIONS)?;
    let text = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
    Ok(text
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty() && !t.contains(&b'*'))
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect())
}

/// Whether a partition kind from the map may be part of a file name: letters, digits, `_`, `-`
/// and `.` only, and no `..` (a name like `/../../secret` must never be joined into a path).
pub fn is_safe_kind(kind: &str) -> bool {
    !kind.is_empty() && !kind.contains("..") && kind.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The map's file name without `.bsp`, the prefix of its `.ent` files.
pub(crate) fn map_stem(bsp: &Bsp) -> Option<String> {
    let name = bsp.path()?.file_name()?.to_string_lossy().into_owned();
    Some(match name.len().checked_sub(4) {
        Some(n) if name.is_char_boundary(n) && name[n..].eq_ignore_ascii_case(".bsp") => name[..n].to_string(),
        _ => name,
    })
}

/// `(kind, path)` of every `.ent` partition beside the map: those ENTITY_PARTITIONS names, or,
/// when that lump is empty, every `<map>_<kind>.ent` in the map's folder. Empty for maps read
/// from memory.
pub fn entity_partition_paths(bsp: &Bsp) -> Result<Vec<(String, PathBuf)>> {
    let (Some(path), Some(stem)) = (bsp.path(), map_stem(bsp)) else { return Ok(Vec::new()) };
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let kinds = partition_kinds(bsp).unwrap_or_default();
    // Files a set write cut off by a crash listed as no part of the set on disk (its journal,
    // crate::fsio::SetJournal) are left out, as its `.bsp_lump` files are.
    let not_in_set = crate::fsio::SetJournal::find(dir, path).map(|j| j.not_in_set().to_vec()).unwrap_or_default();
    let listed = |p: &Path| p.file_name().is_some_and(|n| not_in_set.iter().any(|x| n == x.as_str()));
    let mut out = Vec::new();
    if !kinds.is_empty() {
        // Kinds come from the map: unsafe ones are never joined into a path (`check` reports them).
        for k in kinds.into_iter().filter(|k| is_safe_kind(k)) {
            let p = dir.join(format!("{stem}_{k}.ent"));
            if p.is_file() && !listed(&p) {
                out.push((k, p));
            }
        }
        return Ok(out);
    }
    let prefix = format!("{stem}_");
    let entries = std::fs::read_dir(dir).map_err(|e| Error::from(e).in_file(dir))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(kind) = name.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".ent")) {
            if !kind.is_empty() && e.path().is_file() && !listed(&e.path()) {
                out.push((kind.to_string(), e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Largest `.ent` file read into memory.
const MAX_ENT_FILE: u64 = 256 << 20;

/// One `<map>_<kind>.ent` entity partition file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntPartition {
    /// `env`, `fx`, `script`, `snd`, `spawn`, …
    pub kind: String,
    pub path: PathBuf,
    /// The whole file.
    pub data: Vec<u8>,
}

impl EntPartition {
    /// Read a partition file.
    pub fn read(kind: impl Into<String>, path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        // Regular files only (a FIFO would block), bounded by the size at open.
        let data = crate::fsio::read_regular(&path, MAX_ENT_FILE, ".ent file size")?;
        Ok(EntPartition { kind: kind.into(), path, data })
    }
    /// The header line, e.g. `ENTITIES01` or `ENTITIES02 model_count=3` (facts §1.3).
    pub fn header(&self) -> Result<&[u8]> {
        split_ent_file(&self.data).map(|(h, _)| h).map_err(|e| e.in_file(&self.path))
    }
    /// The entity text after the header line (up to the first NUL).
    pub fn text(&self) -> Result<&[u8]> {
        split_ent_file(&self.data).map(|(_, t)| t).map_err(|e| e.in_file(&self.path))
    }
    /// The parsed entities; error offsets are from the start of the file.
    pub fn entities(&self) -> Result<Entities<'_>> {
        parse_ent_file(&self.data).map_err(|e| e.in_file(&self.path))
    }
    /// The entities for editing: an [`EntityDoc`] over the text after the header line, so
    /// [`EntPartition::with_doc`] writes unchanged entities back byte for byte.
    pub fn doc(&self) -> Result<EntityDoc> {
        split_ent_file(&self.data).map_err(|e| e.in_file(&self.path))?;
        let start = body_start(&self.data);
        EntityDoc::parse(&self.data[start..])
            .map_err(|e| match e.offset {
                Some(o) => Error { offset: Some(start as u64 + o), ..e },
                None => e,
            })
            .map_err(|e| e.in_file(&self.path))
    }
    /// The file with `doc` (from [`EntPartition::doc`], edited) after this file's header line.
    /// The header is kept as it is (a `model_count=` in it is not recounted).
    pub fn with_doc(&self, doc: &EntityDoc) -> Vec<u8> {
        let start = body_start(&self.data);
        let body = doc.to_bytes();
        let mut out = Vec::with_capacity(start + body.len());
        out.extend_from_slice(&self.data[..start]);
        out.extend_from_slice(&body);
        out
    }
}

/// Where a `.ent` file's entity text starts: after the header line's `\n` (the file's end
/// when there is none).
fn body_start(data: &[u8]) -> usize {
    data.iter().position(|&b| b == b'\n').map_or(data.len(), |n| n + 1)
}

/// Split a `.ent` file into its header line (without the line end) and its entity text (up to
/// the first NUL). The header must start with `ENTITIES`.
pub fn split_ent_file(data: &[u8]) -> Result<(&[u8], &[u8])> {
    let line_end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let header = &data[..line_end];
    let header = header.strip_suffix(b"\r").unwrap_or(header);
    if !header.starts_with(b"ENTITIES") {
        let shown: String = header.iter().take(16).map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        return Err(Error::malformed(format!(".ent file does not start with an ENTITIESnn header line (starts {shown:?})")).at(0));
    }
    let body = data.get(line_end + 1..).unwrap_or(&[]);
    let body = &body[..body.iter().position(|&b| b == 0).unwrap_or(body.len())];
    Ok((header, body))
}

/// Parse a `.ent` file's entities (error offsets from the start of the file).
pub fn parse_ent_file(data: &[u8]) -> Result<Entities<'_>> {
    let (_, body) = split_ent_file(data)?;
    // `body` starts right after the header line.
    let start = data.iter().position(|&b| b == b'\n').map_or(data.len() as u64, |n| n as u64 + 1);
    entities::parse(body).map_err(|e| match e.offset {
        Some(o) => Error { offset: Some(start + o), ..e },
        None => e,
    })
}

/// Every `.ent` partition beside the map, read into memory.
pub fn entity_partitions(bsp: &Bsp) -> Result<Vec<EntPartition>> {
    entity_partition_paths(bsp)?.into_iter().map(|(k, p)| EntPartition::read(k, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ent_file_header_and_body() {
        let file = b"ENTITIES01\n{\n\"classname\" \"info_target\"\n}\n\0";
        let (h, body) = split_ent_file(file).unwrap();
        assert_eq!(h, b"ENTITIES01");
        assert!(body.ends_with(b"}\n"));
        let ents = parse_ent_file(file).unwrap();
        assert_eq!(ents.len(), 1);
        assert_eq!(ents.list[0].classname().as_deref(), Some("info_target"));
        // Header only, as fx/snd partitions can be.
        assert!(parse_ent_file(b"ENTITIES02 model_count=0\n\0").unwrap().is_empty());
        assert!(parse_ent_file(b"{\n}\n").is_err());
        assert!(parse_ent_file(b"").is_err());
        // An error inside the text is located from the start of the file.
        let err = parse_ent_file(b"ENTITIES01\n{ \"a").unwrap_err();
        assert_eq!(err.offset, Some(13));
    }

    #[test]
    fn partition_doc_round_trips_and_edits() {
        let data = b"ENTITIES02 model_count=0\r\n{\n\"classname\" \"info_target\"\n}\n{\n\"classname\" \"info_null\"\n}\n\0".to_vec();
        let part = EntPartition { kind: "env".into(), path: PathBuf::from("m_env.ent"), data: data.clone() };
        let mut doc = part.doc().unwrap();
        assert_eq!(doc.entities.len(), 2);
        assert_eq!(part.with_doc(&doc), data);
        doc.entities[1].set("targetname", "spot").unwrap();
        let out = part.with_doc(&doc);
        assert!(out.starts_with(b"ENTITIES02 model_count=0\r\n{\n\"classname\" \"info_target\"\n}\n"));
        let back = parse_ent_file(&out).unwrap();
        assert_eq!(back.list[1].get("targetname").as_deref(), Some("spot"));
        assert_eq!(out.last(), Some(&0));
        // A bad header is refused, naming the file.
        let bad = EntPartition { kind: "env".into(), path: PathBuf::from("m_env.ent"), data: b"{}".to_vec() };
        assert!(bad.doc().unwrap_err().to_string().contains("m_env.ent"));
    }
}

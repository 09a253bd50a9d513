//! The `bsp info --json` document (schema in README.md, "JSON output").

use serde::Serialize;

use crate::bsp::Bsp;
use crate::stats::Stat;

#[derive(Debug, Clone, Serialize)]
pub struct FormatInfo {
    pub family: &'static str,
    pub branch: &'static str,
    pub title: &'static str,
    pub magic: Option<String>,
    pub version: u32,
    pub endianness: crate::bytes::Endian,
    pub why: Vec<String>,
    pub runners_up: Vec<RunnerUp>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunnerUp {
    pub branch: &'static str,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LumpInfo {
    pub index: usize,
    pub name: &'static str,
    pub offset: u64,
    pub length: u64,
    pub version: Option<u32>,
    pub compressed: bool,
    pub record_size: Option<usize>,
    pub count: Option<u64>,
    /// `file`, or the path of the external lump file the data came from.
    pub source: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Info {
    pub path: String,
    pub size: u64,
    pub format: FormatInfo,
    pub lumps: Vec<LumpInfo>,
    pub stats: Vec<Stat>,
    pub entities: usize,
    /// `check`'s problems, as objects (`lump`, `index`, `message`, `severity`, `code`), the same
    /// shape `bsp check --json` and `bsp scan --json` print.
    pub problems: Vec<crate::check::problem::Problem>,
    /// Source map checksum (CRC-32 the engine compares between client and server,
    /// source.md §25); absent for other families.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum: Option<u32>,
}

/// A version as people say it: the number, or the magic for formats that have no version
/// field (BSP2, 2PSB report version 0).
pub fn version_label(version: u32, magic: Option<&str>) -> String {
    match magic {
        Some(m) if version == 0 => m.to_string(),
        _ => version.to_string(),
    }
}

/// The file's magic as text (`IBSP`, `BSP2`, …); `None` for formats that start with a number.
pub fn magic(bsp: &Bsp) -> Option<String> {
    bsp.header().magic.map(|m| String::from_utf8_lossy(&m).into_owned())
}

pub fn format_info(bsp: &Bsp) -> FormatInfo {
    let d = bsp.detection();
    FormatInfo {
        family: d.branch.family.as_str(),
        branch: d.branch.id,
        title: d.branch.title,
        magic: magic(bsp),
        version: d.version,
        endianness: d.endian,
        why: d.why.clone(),
        runners_up: d.runners_up.iter().map(|(b, w)| RunnerUp { branch: b, why: w.clone() }).collect(),
    }
}

pub fn lump_infos(bsp: &Bsp) -> Vec<LumpInfo> {
    bsp.lumps()
        .iter()
        .map(|e| {
            let record_size = bsp.record_size(e.index);
            // An LZMA lump's length from its header: counting records needs no decoding.
            let data_len = if e.compressed { bsp.lump_len(e.index).ok() } else { Some(e.length) };
            LumpInfo {
                index: e.index,
                name: e.name,
                offset: e.offset,
                length: e.length,
                version: e.version,
                compressed: e.compressed,
                record_size,
                count: record_size.zip(data_len).map(|(s, l)| l / s as u64),
                source: match &e.origin {
                    crate::directory::LumpOrigin::File => "file".into(),
                    crate::directory::LumpOrigin::Lmp(p) | crate::directory::LumpOrigin::BspLump(p) => p.to_string_lossy().into_owned(),
                },
            }
        })
        .collect()
}

/// Everything `bsp info` reports about a map.
pub fn info(bsp: &Bsp) -> Info {
    let problems = crate::check::check(bsp);
    Info {
        path: bsp.display_name().into_owned(),
        size: bsp.data().len() as u64,
        format: format_info(bsp),
        lumps: lump_infos(bsp),
        stats: crate::stats::stats(bsp),
        entities: bsp.entities().map(|e| e.len()).unwrap_or(0),
        problems,
        checksum: crate::branches::source::map_checksum(bsp).ok().flatten(),
    }
}

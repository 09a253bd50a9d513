//! Cross-reference checks of Respawn maps (respawn_cod_facts.md §1.7).

use super::ent::{directory_length, entity_partition_paths, map_stem, partition_kinds};
use super::lumps::*;
use crate::bsp::Bsp;
use crate::check::problem::{Code, Problem};
use crate::directory::LumpOrigin;

/// Cross-reference checks (facts §1.7): parallel arrays have equal counts, texture-name
/// offsets fall inside the string data, external lumps agree with the directory, and the
/// entity partitions the map names are present beside it.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |index: usize| -> Option<usize> {
        let size = bsp.record_size(index)?;
        let len = bsp.lump(index).ok()?.len();
        (len % size == 0).then_some(len / size)
    };
    let names = |index: usize| bsp.entry(index).map(|e| e.name).unwrap_or("?");
    for (a, b) in [(LUMP_MESHES, LUMP_MESH_BOUNDS), (LUMP_OBJ_REFERENCES, LUMP_OBJ_REFERENCE_BOUNDS)] {
        if let (Some(na), Some(nb)) = (count(a), count(b)) {
            if na != nb {
                problems.push(Problem::error(Code::COUNT_MISMATCH, names(b), None, format!("{nb} records, but {} has {na}", names(a))));
            }
        }
    }
    // Titanfall / Titanfall 2: the string table holds u32 offsets into the string data.
    if bsp.branch().id != APEX.id {
        if let (Ok(table), Ok(data)) =
            (bsp.records::<zerocopy::little_endian::U32>(LUMP_TEXTURE_DATA_STRING_TABLE), bsp.lump(LUMP_TEXTURE_DATA_STRING_DATA))
        {
            let mut c = crate::check::problem::Checker::new(problems, names(LUMP_TEXTURE_DATA_STRING_TABLE));
            for (i, off) in table.iter().enumerate() {
                c.index(i, "string offset", off.get() as i64, data.len(), "TEXTURE_DATA_STRING_DATA bytes");
            }
        }
    }
    // open_questions.md B5: a `.bsp_lump` may differ in size from the lump it replaces (seen:
    // LIGHTMAP_DATA_REAL_TIME_LIGHTS in mp_looby). The external data is used; say so.
    for e in bsp.lumps() {
        if let LumpOrigin::BspLump(p) = &e.origin {
            if let Some(stored) = directory_length(bsp, e.index) {
                if stored != e.length {
                    let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    problems.push(Problem::note(
                        Code::EXTERNAL_SIZE,
                        format!("{} ({})", e.index, e.name),
                        None,
                        format!("external {file} holds {} bytes, the .bsp directory says {stored}; the external data is used", e.length),
                    ));
                }
            }
        }
    }
    if bsp.path().is_some() {
        if let Ok(kinds) = partition_kinds(bsp) {
            let found = entity_partition_paths(bsp).unwrap_or_default();
            for k in kinds {
                if !found.iter().any(|(kind, _)| *kind == k) {
                    problems.push(Problem::warning(
                        Code::MISSING_PARTITION,
                        names(LUMP_ENTITY_PARTITIONS),
                        None,
                        format!("partition {k:?} is listed but no {}_{k}.ent lies beside the map", map_stem(bsp).unwrap_or_default()),
                    ));
                }
            }
        }
    }
}

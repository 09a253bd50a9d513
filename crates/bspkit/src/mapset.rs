//! Respawn map sets: a `.bsp` with its `<map>.bsp.<xxxx>.bsp_lump` external lumps and its
//! `<map>_<kind>.ent` entity partitions (respawn_cod_facts.md §1.3, §1.4), written as one set.
//!
//! [`write_set`] writes what an [`Editor`] over a Respawn map (opened *with* its external lumps,
//! so edits start from the bytes the game reads) holds:
//!
//! - an edit of a lump that lives in a `.bsp_lump` goes to that file, and to the `.bsp`'s own
//!   copy of the lump too, so the two agree (the compiler writes both);
//! - written in place, only the changed `.bsp_lump` files and the `.bsp` are written; under a new
//!   name (`-o NEW.bsp`) every `.bsp_lump` and `.ent` is written beside it, renamed for the new
//!   map (`NEW.bsp.0000.bsp_lump`, `NEW_env.ent`; the lump number's case and a `.client` suffix
//!   are kept);
//! - `.ent` partitions edited elsewhere ([`SetOptions::partitions`], e.g. the Python package's
//!   `bsp.ENTITIES_<kind>`) replace their files, in place or renamed with the set;
//! - with [`SetOptions::fold_external`] the external lumps are folded into the `.bsp` instead
//!   (their bytes replace the in-file copies) and no `.bsp_lump` is written; in place, the old
//!   `.bsp_lump` files are removed once the new `.bsp` is in place (the game would otherwise
//!   still read them). The `.ent` partitions are always kept: they are not lumps.
//!
//! Each file goes through [`write::write_atomic`] (temporary file in the same directory, synced,
//! read back and compared, renamed). The writes are nested: every temporary file of the set is
//! written and verified before the first rename, then the renames run, the `.bsp_lump` and
//! `.ent` files first and the `.bsp` last. Afterwards the set is reopened from the target path
//! with its external files and checked: every lump written externally must be loaded from its
//! file with the intended bytes, and `check` must report no problem the source set lacked.
//!
//! Apex "streaming" sets, whose `.bsp` is the header alone (its directory points past the end
//! of the file at lumps that live in `.bsp_lump` files, facts §1.1), are written as they are:
//! the `.bsp` keeps its bytes, a changed lump's directory length becomes its new length (its
//! offset, part of a layout no file holds, is kept), and a changed lump the set had no
//! `.bsp_lump` for gets one (the game reads no lump from such a `.bsp`). Folding one is refused:
//! its directory describes no layout the lumps could be put back in.
//!
//! [`split_external`] is the reverse of folding: a `.bsp` written with `.bsp_lump` files for the
//! lumps named (their in-file bytes, or the start of them: [`split_plan`] reads a set's plan), so
//! a set folded and split again is the set it was.
//!
//! On failure: while writing or verifying a temporary file, nothing is replaced (every temporary
//! file is removed). If a rename fails (the directory became unwritable, say), the files renamed
//! before it — `.bsp_lump` / `.ent` files, never the `.bsp`, which is renamed last — are already
//! replaced and the error names the file that failed. The `.bsp_lump` names are fixed by the
//! game, so unlike an export set ([`crate::write::set`]) the new files cannot wait under other
//! names: a crash between the renames leaves new `.bsp_lump` files beside the old `.bsp`. That
//! state is made detectable instead: the `.bsp`'s modification time is set just before its
//! rename, so in a whole set it is never older than a `.bsp_lump` written with it, and `check`
//! reports a `.bsp_lump` newer than its `.bsp` whose size disagrees with the directory as an
//! error (an interrupted set write), not a note. Writing the set again repairs it. If the final check of the set fails,
//! every file is already written; the error says so and lists the problems.
//!
//! Files that appear or go with a write — the old `.bsp_lump` files a fold in place removes
//! after the `.bsp`'s rename, the files a write creates under names no file had (a set under a
//! new name beside an older `.bsp` of that name, a split) — are journalled first, as export sets
//! are ([`crate::write::set`]: `.NAME.bspkit-stale` beside the `.bsp` with the new `.bsp`'s
//! inode, synced before the first rename, removed when the write is done). A crash in between
//! leaves the journal: opening the map leaves out the files it lists as no part of the set on
//! disk (the old ones once the `.bsp` is the new one, the created ones otherwise), `check`
//! reports each as an error (`interrupted_set`: the game would still read it), and the next
//! write of the set removes them. Before, a fold killed after its rename left the old
//! `.bsp_lump` files beside the folded `.bsp`, overriding its lumps with no sign. A failed
//! removal is an error naming the file, and the journal stays.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::branch::Family;
use crate::branches::respawn::ent::{entity_partition_paths, parse_ent_file, split_ent_file, EntPartition};
use crate::bsp::{Bsp, OpenOptions};
use crate::directory::LumpOrigin;
use crate::edit::Editor;
use crate::error::{Error, Result};
use crate::write;

/// How [`write_set`] writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetOptions {
    /// Fold the external lumps into the `.bsp` (no `.bsp_lump` written).
    pub fold_external: bool,
    /// Write even if `check` finds problems the source set lacked (returned in the report).
    pub allow_new_problems: bool,
    /// New contents (whole files, header line included) for `.ent` partitions, by kind: edits
    /// made elsewhere (e.g. [`EntPartition::with_doc`]). Written in place of the partition's
    /// file, or as the renamed partition under a new name; a kind the set lacks is an error.
    pub partitions: BTreeMap<String, Vec<u8>>,
}

/// The files beside a Respawn map that belong to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapSet {
    /// `(lump index, path)` of each `.bsp_lump` the map was opened with.
    pub lumps: Vec<(usize, PathBuf)>,
    /// `(kind, path)` of each `.ent` partition.
    pub partitions: Vec<(String, PathBuf)>,
}

impl MapSet {
    /// The set of `bsp` (opened from a path, with its external lumps).
    pub fn of(bsp: &Bsp) -> Result<MapSet> {
        let lumps = bsp
            .lumps()
            .iter()
            .filter_map(|e| match &e.origin {
                LumpOrigin::BspLump(p) => Some((e.index, p.clone())),
                _ => None,
            })
            .collect();
        Ok(MapSet { lumps, partitions: entity_partition_paths(bsp)? })
    }
    pub fn is_empty(&self) -> bool {
        self.lumps.is_empty() && self.partitions.is_empty()
    }
}

/// What [`write_set`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetReport {
    /// Files written, the `.bsp` last.
    pub written: Vec<PathBuf>,
    /// Old `.bsp_lump` files removed (folding in place).
    pub removed: Vec<PathBuf>,
    /// Problems `check` found in the written set that the source set lacked (only with
    /// [`SetOptions::allow_new_problems`]; otherwise they are an error).
    pub new_problems: Vec<String>,
}

impl SetReport {
    /// `files` written, then `target` (the `.bsp`).
    fn written(files: &[(PathBuf, Vec<u8>)], target: &Path) -> Self {
        let mut written: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
        written.push(target.to_path_buf());
        SetReport { written, ..Default::default() }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn dir_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A map file name without `.bsp` (the `.ent` prefix).
fn stem_of(name: &str) -> &str {
    match name.len().checked_sub(4) {
        Some(n) if name.is_char_boundary(n) && name[n..].eq_ignore_ascii_case(".bsp") => &name[..n],
        _ => name,
    }
}

/// The name a `.bsp_lump` gets beside a map named `new_name`: the old map name replaced.
fn renamed_lump(old: &Path, old_name: &str, new_name: &str) -> Result<String> {
    let name = file_name(old);
    match name.strip_prefix(old_name) {
        Some(rest) => Ok(format!("{new_name}{rest}")),
        None => Err(Error::malformed(format!("{name} is not named after its map {old_name}")).in_file(old)),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Write files[i..] atomically, nested: every temporary file is written and read back before
/// the first rename, and the innermost (last) file is renamed first.
fn stage(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let Some(((path, bytes), rest)) = files.split_first() else { return Ok(()) };
    write::write_atomic(path, bytes, |tmp| {
        read_back(tmp, bytes)?;
        stage(rest)
    })?;
    // Renamed (the files after it in the list already were): one step of the set write.
    write::set::step_done();
    Ok(())
}

/// The temporary file `tmp` must hold `bytes`.
fn read_back(tmp: &Path, bytes: &[u8]) -> Result<()> {
    let back = std::fs::read(tmp).map_err(|e| Error::from(e).in_file(tmp))?;
    if back != bytes {
        return Err(Error::malformed(format!("read back {} bytes, wrote {}", back.len(), bytes.len())).in_file(tmp));
    }
    Ok(())
}

/// Write `bytes` to `target` with `files` staged inside its write ([`stage`]): every temporary
/// file written and read back before the first rename, `target` renamed last, under the set's
/// [`Journal`] (what an earlier write cut off by a crash left is removed first).
fn write_with_files(target: &Path, bytes: &[u8], files: &[(PathBuf, Vec<u8>)]) -> Result<SetReport> {
    let dir = dir_of(target);
    write::set::recover_stale(&dir, target);
    let journal = Journal::new(&dir, target, &[], files);
    write::write_atomic(target, bytes, |tmp| {
        read_back(tmp, bytes)?;
        journal.write(tmp)?;
        write::set::step_done();
        stage(files)
    })
    .inspect_err(|_| journal.failed())?;
    write::set::step_done();
    journal.done();
    Ok(SetReport::written(files, target))
}

/// A problem's text with the map's stem replaced and numbers blanked, to compare a set's
/// problems with those of a set under another name.
fn shape(problem: &str, stem: &str) -> String {
    write::problem_shape(&replace_stem(problem, stem))
}

/// `text` with each file name of the set (`stem` followed by `.`, or by `_<kind>.ent`, not
/// inside a longer name) written `<map>`: a short stem such as `m` must not change a folder name like `maps`.
fn replace_stem(text: &str, stem: &str) -> String {
    if stem.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(stem) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + stem.len()..].chars().next();
        let starts_name = before.map_or(true, |c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        let tail = &rest[at + stem.len()..];
        // `<stem>.…` (the .bsp, its .bsp_lump files) or `<stem>_<kind>.ent` (a partition).
        let partition = || {
            let kind = tail[1..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(&tail[1..], |e| &tail[1..1 + e]);
            !kind.is_empty() && tail[1 + kind.len()..].starts_with(".ent")
        };
        let ends_name = after == Some('.') || (after == Some('_') && partition());
        out.push_str(&rest[..at]);
        out.push_str(if starts_name && ends_name { "<map>" } else { stem });
        rest = &rest[at + stem.len()..];
    }
    out.push_str(rest);
    out
}

/// Write the editor's map as a set to `target` (the `.bsp` path). The editor's map must be a
/// Respawn map opened from a path with its external lumps. See the module doc for the order of
/// the writes and what a failure midway leaves.
pub fn write_set(ed: &mut Editor, target: &Path, opts: &SetOptions) -> Result<SetReport> {
    let bsp = ed.bsp();
    if bsp.family() != Family::Respawn {
        return Err(Error::malformed("only Respawn maps are written as a set"));
    }
    let input = bsp.path().map(Path::to_path_buf).ok_or_else(|| Error::malformed("a map read from memory has no file set to write"))?;
    let branch = bsp.branch().id;
    let set = MapSet::of(bsp)?;
    let input_data = bsp.data()[..bsp.data().len().min(16 + 16 * 128)].to_vec();
    let in_place = same_file(&input, target);
    let (old_name, new_name) = (file_name(&input), file_name(target));
    if new_name.is_empty() {
        return Err(Error::malformed("the target has no file name").in_file(target));
    }
    let (old_stem, new_stem) = (stem_of(&old_name).to_string(), stem_of(&new_name).to_string());
    let dir = dir_of(target);
    let streaming = is_streaming(bsp)?;
    if streaming && opts.fold_external {
        return Err(Error::malformed(
            "an Apex streaming .bsp (the header alone, every lump in a .bsp_lump) cannot be folded: its directory points past its end",
        )
        .in_file(&input));
    }

    // The source set's problems, to compare the written set with; and the `.bsp`'s own (without
    // its external files), to compare the written `.bsp` with before it is renamed.
    let before_set: Vec<String> = crate::check::check(bsp).iter().map(|p| shape(&p.to_string(), &old_stem)).collect();
    // A streaming `.bsp` does not open alone: the set's check below stands for it.
    let alone = if streaming {
        None
    } else {
        Some(Bsp::open_with(&input, &OpenOptions { branch: Some(branch.to_string()), external_lumps: false, ..Default::default() })?)
    };
    let before_bsp: Vec<String> = alone.iter().flat_map(|a| crate::check::check(a)).map(|p| p.to_string()).collect();

    // The sibling files to write, and the lumps the written set must load from them.
    let changed: Vec<usize> = ed.changed().collect();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut expect_external: Vec<(usize, PathBuf, usize)> = Vec::new();
    let mut fold: Vec<(usize, Vec<u8>)> = Vec::new();
    for (index, path) in &set.lumps {
        let bytes = ed.raw_lump(*index).map_err(|e| e.in_file(path))?.into_owned();
        if opts.fold_external {
            // An unchanged external lump that is a prefix of the in-file copy (Titanfall 2's
            // real-time-light lightmaps, open_questions.md B5: the `.bsp` holds a third page the
            // `.bsp_lump` lacks) keeps the in-file copy, which loses nothing.
            let inside = alone.as_ref().and_then(|a| a.raw_lump(*index).ok()).unwrap_or(&[]);
            if !changed.contains(index) && inside.len() > bytes.len() && inside.starts_with(&bytes) {
                continue;
            }
            fold.push((*index, bytes));
            continue;
        }
        let dest = if in_place { path.clone() } else { dir.join(renamed_lump(path, &old_name, &new_name)?) };
        expect_external.push((*index, dest.clone(), bytes.len()));
        if !in_place || changed.contains(index) {
            files.push((dest, bytes));
        }
    }
    if streaming {
        // A changed lump the set has no `.bsp_lump` for gets one: the game reads nothing else.
        for &index in &changed {
            if !set.lumps.iter().any(|(i, _)| *i == index) {
                let dest = dir.join(format!("{new_name}.{index:04x}.bsp_lump"));
                let bytes = ed.raw_lump(index)?.into_owned();
                expect_external.push((index, dest.clone(), bytes.len()));
                files.push((dest, bytes));
            }
        }
    }
    if let Some(kind) = opts.partitions.keys().find(|k| !set.partitions.iter().any(|(s, _)| s == *k)) {
        return Err(Error::malformed(format!("the map has no entity partition {kind:?} to write")).in_file(&input));
    }
    for (kind, path) in &set.partitions {
        let dest = if in_place { path.clone() } else { dir.join(format!("{new_stem}_{kind}.ent")) };
        match opts.partitions.get(kind) {
            Some(data) => {
                // Edited: it must still read as a partition.
                parse_ent_file(data).map_err(|e| e.in_file(&dest))?;
                files.push((dest, data.clone()));
            }
            None if !in_place => {
                let part = EntPartition::read(kind.clone(), path)?;
                split_ent_file(&part.data).map_err(|e| e.in_file(path))?;
                files.push((dest, part.data));
            }
            None => {}
        }
    }
    drop(alone);
    for (index, bytes) in fold {
        ed.set_raw_lump(index, bytes, None, None)?;
    }

    // Files left by an earlier write of this set cut off by a crash (its journal): they are no
    // part of the set on disk and go first (the map was opened without them).
    write::set::recover_stale(&dir, target);
    // `.bsp_lump` files already beside the target that the set does not write would override
    // the written lumps when the map is opened: refuse (under a new name) or remove them
    // (folding in place) rather than leave a set that is not what was written.
    let stale: Vec<PathBuf> = stray_lump_files(&dir, &new_name, |name| expect_external.iter().any(|(_, p, _)| file_name(p) == name))
        .into_iter()
        .map(|n| dir.join(n))
        .collect();
    if !(stale.is_empty() || (in_place && opts.fold_external)) {
        let names: Vec<String> = stale.iter().map(|p| file_name(p)).collect();
        return Err(Error::malformed(format!(
            "{} beside the target would override the written lumps; remove {} first",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        ))
        .in_file(target));
    }

    let bytes = if streaming { streaming_header(ed, &changed)? } else { ed.to_bytes()? };
    // An external game lump holds child offsets into the `.bsp`, at the in-file copy's place
    // (open_questions.md A12): when the writer moved that copy, the external file moves with it.
    if !opts.fold_external {
        if let Some(pos) = expect_external.iter().position(|(i, _, _)| *i == write::GAME_LUMP) {
            let at = |data: &[u8]| crate::bytes::u32_at(data, 16 + 16 * write::GAME_LUMP, crate::bytes::Endian::Little).map(u64::from);
            if let (Some(old), Some(new)) = (at(&input_data), at(&bytes)) {
                let dest = expect_external[pos].1.clone();
                let mut lump = ed.raw_lump(write::GAME_LUMP)?.into_owned();
                if old != new
                    && write::game_lump_convention(&lump, crate::bytes::Endian::Little, old) == Some(write::GameLumpOffsets::Absolute)
                {
                    write::rebase_game_lump(&mut lump, crate::bytes::Endian::Little, new as i64 - old as i64)
                        .map_err(|e| e.in_file(&dest))?;
                    files.retain(|(p, _)| *p != dest);
                    files.push((dest, lump));
                }
            }
        }
    }
    let allow = opts.allow_new_problems;
    let mut bsp_new = Vec::new();
    let removed: Vec<PathBuf> = if in_place && opts.fold_external { stale } else { Vec::new() };
    let journal = Journal::new(&dir, target, &removed, &files);
    write::write_atomic(target, &bytes, |tmp| {
        if streaming {
            // The header must read back as the branch (the set's check follows the renames).
            let back = std::fs::read(tmp).map_err(|e| Error::from(e).in_file(tmp))?;
            let found = crate::detect::detect_as(&back, branch).map_err(|e| e.in_file(tmp))?;
            crate::directory::parse_with(&back, found.branch, found.endian, true).map_err(|e| e.in_file(tmp))?;
        } else if allow {
            bsp_new = write::new_problems(tmp, branch, &before_bsp)?;
        } else {
            write::verify_written(tmp, branch, &before_bsp)?;
        }
        // Every temporary file written and checked so far; the journal goes first, then the
        // renames (innermost first).
        journal.write(tmp)?;
        write::set::step_done();
        stage(&files)?;
        // The `.bsp_lump` / `.ent` files are in place; the `.bsp` is renamed next. Its time is
        // set now, so that a whole set written here has a `.bsp` at least as new as each
        // `.bsp_lump`: a `.bsp_lump` newer than its `.bsp` whose size disagrees with the
        // directory is a write cut off between these renames, which `check` reports as an
        // error (branches::respawn::check).
        let f = std::fs::OpenOptions::new().write(true).open(tmp).map_err(|e| Error::from(e).in_file(tmp))?;
        f.set_modified(std::time::SystemTime::now()).map_err(|e| Error::from(e).in_file(tmp))?;
        Ok(())
    })
    .inspect_err(|_| journal.failed())?;
    write::set::step_done();
    let mut report = SetReport::written(&files, target);
    // After the switch: the old `.bsp_lump` files a fold replaces go, one step each. A crash
    // among these leaves the rest listed in the journal (not read, reported by `check`,
    // removed by the next write); a failed removal is an error and keeps the journal.
    for p in removed {
        std::fs::remove_file(&p).map_err(|e| Error::from(e).in_file(&p))?;
        write::set::step_done();
        report.removed.push(p);
    }
    journal.done();

    // The set as the game will load it.
    let written = Bsp::open_with(target, &OpenOptions { branch: Some(branch.to_string()), ..Default::default() })?;
    for (index, path, len) in &expect_external {
        match written.entry(*index).map(|e| (&e.origin, e.length)) {
            Some((LumpOrigin::BspLump(p), l)) if file_name(p) == file_name(path) && l == *len as u64 => {}
            _ => {
                return Err(Error::malformed(format!("the written set does not load lump {index} from {}", path.display())).in_file(target))
            }
        }
    }
    if let Some(e) = written.lumps().iter().find(|e| opts.fold_external && e.origin != LumpOrigin::File) {
        return Err(
            Error::malformed(format!("the written set loads lump {} from an external file ({:?})", e.index, e.origin)).in_file(target)
        );
    }
    let mut new: Vec<String> =
        crate::check::check(&written).iter().map(|p| p.to_string()).filter(|p| !before_set.contains(&shape(p, &new_stem))).collect();
    for p in bsp_new {
        if !new.contains(&p) {
            new.push(p);
        }
    }
    if !new.is_empty() && !allow {
        return Err(
            Error::malformed(format!("the written set (every file already replaced) has new problems: {}", new.join("; "))).in_file(target)
        );
    }
    report.new_problems = new;
    Ok(report)
}

/// One lump [`split_external`] writes to a `.bsp_lump`: its index and, where the file holds only
/// the start of the in-file copy, that length (Titanfall 2's real-time-light lightmaps: the
/// `.bsp` holds more than the `.bsp_lump`, open_questions.md B5); `None` writes the whole lump.
pub type SplitLump = (usize, Option<u64>);

/// The lumps a set keeps in `.bsp_lump` files, as [`split_external`] takes them: each external
/// lump with its file's length where that is shorter than the in-file copy. Folding a set
/// ([`SetOptions::fold_external`]) and splitting the folded `.bsp` with this plan gives the set
/// back.
pub fn split_plan(bsp: &Bsp) -> Result<Vec<SplitLump>> {
    let path = bsp.path().ok_or_else(|| Error::malformed("a map read from memory has no file set"))?;
    let alone =
        Bsp::open_with(path, &OpenOptions { branch: Some(bsp.branch().id.to_string()), external_lumps: false, ..Default::default() })?;
    Ok(MapSet::of(bsp)?
        .lumps
        .iter()
        .map(|(i, _)| {
            let external = bsp.entry(*i).map_or(0, |e| e.length);
            let inside = alone.entry(*i).map_or(0, |e| e.length);
            (*i, (external < inside).then_some(external))
        })
        .collect())
}

/// The reverse of folding: write the Respawn `.bsp` (`bsp`, opened without external lumps) to
/// `target` unchanged, with a `<target>.<xxxx>.bsp_lump` beside it holding each of `lumps`'
/// in-file bytes (or their first `length` bytes), as Respawn's compiler writes both copies; its
/// `.ent` partitions are copied, renamed for a new name. Refused: an Apex streaming `.bsp`, a
/// lump already loaded from a `.bsp_lump`, a length past the lump's end, a `.bsp_lump` beside the
/// target that the split does not write (it would override a lump). Written as [`write_set`]
/// writes (every file staged and read back before the renames, the `.bsp` last); the written set
/// is reopened, must load each lump from its file with the bytes intended, and `check` must find
/// no problem the `.bsp` lacked.
pub fn split_external(bsp: &Bsp, target: &Path, lumps: &[SplitLump]) -> Result<SetReport> {
    if bsp.family() != Family::Respawn {
        return Err(Error::malformed("only Respawn maps have .bsp_lump files"));
    }
    let input = bsp.path().map(Path::to_path_buf).ok_or_else(|| Error::malformed("a map read from memory has no file set to write"))?;
    if is_streaming(bsp)? {
        return Err(Error::malformed("an Apex streaming .bsp is already split (every lump in a .bsp_lump)").in_file(&input));
    }
    let new_name = file_name(target);
    if new_name.is_empty() {
        return Err(Error::malformed("the target has no file name").in_file(target));
    }
    let (old_stem, new_stem) = (stem_of(&file_name(&input)).to_string(), stem_of(&new_name).to_string());
    let dir = dir_of(target);
    let branch = bsp.branch().id;
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut expect: Vec<(usize, PathBuf, Vec<u8>)> = Vec::new();
    for &(index, length) in lumps {
        let entry = bsp.entry(index).ok_or_else(|| Error::new(crate::error::ErrorKind::NoSuchLump(index.to_string())))?;
        if entry.origin != LumpOrigin::File {
            return Err(
                Error::malformed(format!("lump {index} is already loaded from an external file ({:?})", entry.origin)).in_file(&input)
            );
        }
        let whole = bsp.raw_lump(index).map_err(|e| bsp.lump_error(index, e))?;
        let bytes = match length {
            Some(n) if n <= whole.len() as u64 => &whole[..n as usize],
            Some(n) => {
                return Err(
                    Error::malformed(format!("lump {index} has {} bytes, fewer than the {n} asked for", whole.len())).in_file(&input)
                )
            }
            None => whole,
        };
        if expect.iter().any(|(i, _, _)| *i == index) {
            return Err(Error::malformed(format!("lump {index} is named twice")));
        }
        let dest = dir.join(format!("{new_name}.{index:04x}.bsp_lump"));
        files.push((dest.clone(), bytes.to_vec()));
        expect.push((index, dest, bytes.to_vec()));
    }
    let in_place = same_file(&input, target);
    for (kind, path) in entity_partition_paths(bsp)? {
        let dest = dir.join(format!("{new_stem}_{kind}.ent"));
        if !(in_place || same_file(&path, &dest)) {
            let part = EntPartition::read(kind.clone(), &path)?;
            split_ent_file(&part.data).map_err(|e| e.in_file(&path))?;
            files.push((dest, part.data));
        }
    }
    // Files left by an earlier write of this set cut off by a crash go first (its journal).
    write::set::recover_stale(&dir, target);
    // A `.bsp_lump` already beside the target that the split does not write would override a lump.
    let stale = stray_lump_files(&dir, &new_name, |name| expect.iter().any(|(_, p, _)| file_name(p) == name));
    if !stale.is_empty() {
        return Err(Error::malformed(format!("{} beside the target would override lumps; remove first", stale.join(", "))).in_file(target));
    }
    let before: Vec<String> = crate::check::check(bsp).iter().map(|p| shape(&p.to_string(), &old_stem)).collect();
    let report = write_with_files(target, bsp.data(), &files)?;

    // The set as the game will load it.
    let written = Bsp::open_with(target, &OpenOptions { branch: Some(branch.to_string()), ..Default::default() })?;
    for (index, path, data) in &expect {
        let loaded = matches!(written.entry(*index).map(|e| &e.origin), Some(LumpOrigin::BspLump(p)) if file_name(p) == file_name(path));
        if !loaded || written.raw_lump(*index).ok() != Some(data.as_slice()) {
            return Err(Error::malformed(format!("the written set does not load lump {index} from {}", path.display())).in_file(target));
        }
    }
    let new: Vec<String> =
        crate::check::check(&written).iter().map(|p| p.to_string()).filter(|p| !before.contains(&shape(p, &new_stem))).collect();
    if !new.is_empty() {
        return Err(
            Error::malformed(format!("the written set (every file already replaced) has new problems: {}", new.join("; "))).in_file(target)
        );
    }
    Ok(report)
}

/// Write `bytes`, a map converted from the Respawn map `bsp` ([`crate::convert`]), to `target`
/// with `bsp`'s `.ent` partitions copied beside it under the target's name (as
/// [`split_external`] copies them): every file staged and read back before the renames, the
/// `.bsp` last. Without this a converted map names partitions no file holds. The written set is
/// reopened as `branch` and must find every partition.
pub fn write_converted(bsp: &Bsp, bytes: &[u8], branch: &str, target: &Path) -> Result<SetReport> {
    let new_name = file_name(target);
    if new_name.is_empty() {
        return Err(Error::malformed("the target has no file name").in_file(target));
    }
    let new_stem = stem_of(&new_name).to_string();
    let dir = dir_of(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let partitions = entity_partition_paths(bsp)?;
    for (kind, path) in &partitions {
        let dest = dir.join(format!("{new_stem}_{kind}.ent"));
        if !same_file(path, &dest) {
            let part = EntPartition::read(kind.clone(), path)?;
            split_ent_file(&part.data).map_err(|e| e.in_file(path))?;
            files.push((dest, part.data));
        }
    }
    let report = write_with_files(target, bytes, &files)?;
    let written = Bsp::open_with(target, &OpenOptions { branch: Some(branch.to_string()), ..Default::default() })?;
    let found = entity_partition_paths(&written)?.len();
    if found != partitions.len() {
        return Err(Error::malformed(format!("the written map finds {found} of its {} .ent partitions", partitions.len())).in_file(target));
    }
    Ok(report)
}

/// The journal of one set write (`.NAME.bspkit-stale` beside the `.bsp`, the one export sets
/// use: [`write::set`], [`crate::fsio::SetJournal`]): the old `.bsp_lump` files a fold removes
/// after the `.bsp`'s rename, and the files the write creates (names no file had) before it.
/// Written, synced, before the first rename; removed when the write is done. A crash in
/// between leaves it: a reader leaves out the files it lists as no part of the set on disk
/// (the old ones once the `.bsp` is the new one, else the created ones), `check` reports them
/// and the next write of the set removes them. Files replaced under their own name are listed
/// as such: their old bytes are gone, but one newer than the journal while the `.bsp` is still
/// the old one marks the set as mixed, which `check` reports and the next write makes whole
/// ([`crate::fsio::SetJournal::replaced_before_switch`]).
struct Journal {
    path: PathBuf,
    main: PathBuf,
    old: Vec<String>,
    created: Vec<String>,
    replaced: Vec<String>,
}

impl Journal {
    fn new(dir: &Path, target: &Path, removed: &[PathBuf], files: &[(PathBuf, Vec<u8>)]) -> Journal {
        let (new, replaced): (Vec<_>, Vec<_>) = files.iter().partition(|(p, _)| std::fs::symlink_metadata(p).is_err());
        let names = |v: Vec<&(PathBuf, Vec<u8>)>| v.into_iter().map(|(p, _)| file_name(p)).collect();
        Journal {
            path: crate::fsio::SetJournal::path_for(dir, target),
            main: target.to_path_buf(),
            old: removed.iter().map(|p| file_name(p)).collect(),
            created: names(new),
            replaced: names(replaced),
        }
    }

    /// Written with the inode of the `.bsp`'s temporary file `tmp` (kept by its rename).
    fn write(&self, tmp: &Path) -> Result<()> {
        write::set::write_journal(&self.path, tmp, &self.old, &self.created, &self.replaced)
            .map(drop)
            .map_err(|e| Error::from(e).in_file(&self.path))
    }

    /// The write failed before its switch: the journal stays only while a file it created is
    /// there (the next write removes it) or a file it replaced already is the new one (the set
    /// is mixed); otherwise it lists nothing left and goes.
    fn failed(&self) {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mixed = crate::fsio::SetJournal::find(dir, &self.main).is_some_and(|j| !j.replaced_before_switch(dir).is_empty());
        if !mixed && !self.created.iter().any(|n| std::fs::symlink_metadata(dir.join(n)).is_ok()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn done(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Is the map an Apex streaming set: a `.bsp` whose own directory points past its end at a
/// lump loaded from a `.bsp_lump` (facts §1.1)?
fn is_streaming(bsp: &Bsp) -> Result<bool> {
    let (_, own) = crate::directory::parse_with(bsp.data(), bsp.branch(), bsp.endian(), true)?;
    let size = bsp.data().len() as u64;
    Ok(own.iter().any(|e| {
        e.length > 0
            && e.offset.saturating_add(e.length) > size
            && bsp.entry(e.index).is_some_and(|l| matches!(l.origin, LumpOrigin::BspLump(_)))
    }))
}

/// The streaming `.bsp` with each changed lump's directory length set to its new length (the
/// rest of the file unchanged: the game reads the lumps from their `.bsp_lump` files).
fn streaming_header(ed: &Editor, changed: &[usize]) -> Result<Vec<u8>> {
    let bsp = ed.bsp();
    let mut bytes = bsp.data().to_vec();
    for &index in changed {
        let len = ed.raw_lump(index)?.len();
        let len = u32::try_from(len).map_err(|_| Error::malformed(format!("lump {index} is {len} bytes, more than a directory holds")))?;
        let at = 16 + 16 * index + 4;
        match bytes.get_mut(at..at + 4) {
            Some(field) if index < 128 => field.copy_from_slice(&bsp.endian().u32_bytes(len)),
            _ => return Err(Error::new(crate::error::ErrorKind::NoSuchLump(index.to_string()))),
        }
    }
    Ok(bytes)
}

/// The `.bsp_lump` (and `.bsp_lump.client`) files of map `stem` in `dir` that `written` does
/// not claim, sorted by name: beside a set being written they would override its lumps when the
/// map is opened.
fn stray_lump_files(dir: &Path, stem: &str, written: impl Fn(&str) -> bool) -> Vec<String> {
    let prefix = format!("{stem}.");
    let mut stray: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix) && (n.ends_with(".bsp_lump") || n.ends_with(".bsp_lump.client")) && !written(n))
        .collect();
    stray.sort();
    stray
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_sets_file_names_become_map() {
        assert_eq!(replace_stem("m.bsp.0000.bsp_lump in /tmp/maps/m_dir: bad", "m"), "<map>.bsp.0000.bsp_lump in /tmp/maps/m_dir: bad");
        assert_eq!(replace_stem("/x/mp_a_env.ent and /x/mp_a.bsp", "mp_a"), "/x/<map>_env.ent and /x/<map>.bsp");
        assert_eq!(replace_stem("amp_a.bsp", "mp_a"), "amp_a.bsp");
    }
}

//! `bsp pak …`: list, read, extract and edit the Source pakfile (lump 40, an embedded Zip).
//! Edits produce new pakfile bytes through the library and write the map through the lossless
//! writer (`bspkit::edit::Editor`: every other lump kept, temporary file, check, rename).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bspkit::edit::Editor;
use bspkit::lumps::pakfile::{self, PakBuilder, PakCompression, Pakfile, DEFAULT_MAX_ENTRY, LUMP_PAKFILE};
use bspkit::Bsp;
use clap::{Args, Subcommand};

use crate::cmd_edit::{finish, open_for_edit, OutArgs};
use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(
    after_help = "Examples:\n  bsp pak list map.bsp\n  bsp pak extract map.bsp --out pak/\n  bsp pak add map.bsp materials/custom/a.vmt a.vmt -o new.bsp\n  bsp pak addlist map.bsp files.txt -o new.bsp"
)]
pub struct PakArgs {
    #[command(subcommand)]
    pub command: PakCommand,
}

#[derive(Args, Clone)]
pub struct WriteArgs {
    #[command(flatten)]
    out: OutArgs,
    /// LZMA-compress the entries (Zip method 14); only some Source branches read it
    #[arg(long)]
    lzma: bool,
}

#[derive(Subcommand)]
pub enum PakCommand {
    /// List the entries: name, size, compressed size, method
    #[command(after_help = "Examples:\n  bsp pak list map.bsp\n  bsp pak list --json map.bsp | jq '.[].name'")]
    List {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Extract all entries (or the NAMEs given) below a directory; unsafe names are refused
    #[command(
        after_help = "Examples:\n  bsp pak extract map.bsp --out pak/\n  bsp pak extract map.bsp materials/maps/x/cubemapdefault.vtf"
    )]
    Extract {
        file: PathBuf,
        /// Target directory (default: the current directory)
        #[arg(short, long, default_value = ".")]
        out: PathBuf,
        names: Vec<String>,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Write one entry's contents to stdout
    #[command(after_help = "Examples:\n  bsp pak cat map.bsp maps/map.txt\n  bsp pak cat map.bsp materials/x.vtf > x.vtf")]
    Cat {
        file: PathBuf,
        name: String,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Add (or replace) an entry from a local file
    #[command(
        after_help = "Examples:\n  bsp pak add map.bsp materials/custom/a.vmt a.vmt -o new.bsp\n  bsp pak add map.bsp maps/map.txt notes.txt --in-place"
    )]
    Add {
        file: PathBuf,
        /// Path inside the pakfile
        name: String,
        /// Local file to store
        local: PathBuf,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Remove an entry
    #[command(after_help = "Examples:\n  bsp pak remove map.bsp maps/map.txt -o new.bsp")]
    Remove {
        file: PathBuf,
        name: String,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Add files from a bspzip-style addlist (pairs of lines: internal path, local file)
    #[command(
        after_help = "Examples:\n  bsp pak addlist map.bsp files.txt -o new.bsp\n\nRelative local paths are taken from the addlist's directory."
    )]
    Addlist {
        file: PathBuf,
        list: PathBuf,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Rewrite every entry (stored by default, as the engine expects; --lzma for method 14)
    #[command(after_help = "Examples:\n  bsp pak repack map.bsp -o new.bsp\n  bsp pak repack map.bsp --lzma --in-place")]
    Repack {
        file: PathBuf,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
}

fn pak_lump<'a>(bsp: &'a Bsp) -> Result<&'a [u8], Fatal> {
    if bsp.family() != bspkit::Family::Source {
        return Err(Fatal(format!("{}: only Source maps have a pakfile lump", bsp.display_name())));
    }
    Ok(bsp.lump(LUMP_PAKFILE)?)
}

pub fn run(args: PakArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    match args.command {
        PakCommand::List { file, json, open: o } => {
            let bsp = open(&file, &o)?;
            let pak = Pakfile::parse(pak_lump(&bsp)?).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
            if json {
                let list: Vec<_> = pak
                    .entries
                    .iter()
                    .map(|e| {
                        serde_json::json!({"name": e.name, "size": e.size, "compressed_size": e.compressed_size,
                            "method": e.method, "method_name": pakfile::method_name(e.method), "crc32": e.crc32})
                    })
                    .collect();
                serde_json::to_writer_pretty(&mut *out, &list)?;
                writeln!(out)?;
            } else {
                for e in &pak.entries {
                    writeln!(out, "{:>10} {:>10} {:<7} {}", e.size, e.compressed_size, pakfile::method_name(e.method), e.name)?;
                }
                eprintln!("{}: {} entries", file.display(), pak.entries.len());
            }
        }
        PakCommand::Extract { file, out: dir, names, open: o } => {
            let bsp = open(&file, &o)?;
            let pak = Pakfile::parse(pak_lump(&bsp)?).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
            let x = pak.extract(&dir, &names, DEFAULT_MAX_ENTRY).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
            for p in &x.written {
                writeln!(out, "{}", p.display())?;
            }
            for (name, e) in &x.skipped {
                eprintln!("warning: {}: skipped pakfile entry {name:?}: {}", file.display(), e.kind);
            }
            eprintln!("{}: extracted {} files to {}, skipped {}", file.display(), x.written.len(), dir.display(), x.skipped.len());
            if !x.skipped.is_empty() {
                return Ok(ExitCode::from(1));
            }
        }
        PakCommand::Cat { file, name, open: o } => {
            let bsp = open(&file, &o)?;
            let pak = Pakfile::parse(pak_lump(&bsp)?).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
            let entry = pak.find(&name).ok_or_else(|| Fatal(format!("{}: no pakfile entry {name}", file.display())))?;
            let data = pak.read(entry, DEFAULT_MAX_ENTRY).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
            out.write_all(&data)?;
        }
        PakCommand::Add { file, name, local, write, open: o } => {
            // The one entry cap: what `pak add` accepts, `pak cat/extract/remove/repack` read.
            let data = crate::read_input(&local, DEFAULT_MAX_ENTRY)?;
            edit(&file, &o, &write, |b| {
                if let Some(old) = b.existing(&name) {
                    let how = if old == name.replace('\\', "/") {
                        ""
                    } else {
                        " (the names differ only in case or slashes; the engine ignores both)"
                    };
                    eprintln!("warning: {}: replaces pakfile entry {old}{how}", file.display());
                }
                Ok(b.insert(&name, data)?)
            })?;
        }
        PakCommand::Remove { file, name, write, open: o } => {
            edit(&file, &o, &write, |b| {
                if b.remove(&name) {
                    Ok(())
                } else {
                    Err(Fatal(format!("{}: no pakfile entry {name}", file.display())))
                }
            })?;
        }
        PakCommand::Addlist { file, list, write, open: o } => {
            let text = String::from_utf8(crate::read_input(&list, crate::MAX_INPUT)?)
                .map_err(|_| Fatal(format!("{}: the addlist is not UTF-8 text", list.display())))?;
            let base = list.parent().map(Path::to_path_buf).unwrap_or_default();
            edit(&file, &o, &write, |b| {
                let n = b.add_addlist(&text, &base)?;
                eprintln!("{}: {n} files from the addlist", list.display());
                Ok(())
            })?;
        }
        PakCommand::Repack { file, write, open: o } => edit(&file, &o, &write, |_| Ok(()))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Read the map's pakfile, apply `change`, and write the map with the new pakfile.
fn edit(file: &Path, o: &OpenArgs, w: &WriteArgs, change: impl FnOnce(&mut PakBuilder) -> Result<(), Fatal>) -> Result<(), Fatal> {
    let bsp = open_for_edit(file, o)?;
    let mut builder = PakBuilder::from_bytes(pak_lump(&bsp)?, DEFAULT_MAX_ENTRY).map_err(|e| bsp.lump_error(LUMP_PAKFILE, e))?;
    change(&mut builder)?;
    let compression = if w.lzma { PakCompression::Lzma } else { PakCompression::Stored };
    let pak = builder.build(compression)?;
    let (entries, pak_len) = (builder.entries.len(), pak.len());
    let mut ed = with_pakfile(&bsp, pak)?;
    finish(&mut ed, &w.out, file)?;
    eprintln!("pakfile: {entries} entries ({pak_len} bytes)");
    Ok(())
}

/// An editor holding `bsp` with its pakfile replaced by `pak` (stored: the engine reads lump 40
/// uncompressed; the Zip entries carry their own compression).
pub fn with_pakfile<'a, 'd>(bsp: &'a Bsp<'d>, pak: Vec<u8>) -> Result<Editor<'a, 'd>, Fatal> {
    let mut ed = Editor::new(bsp)?;
    ed.set_raw_lump(LUMP_PAKFILE, pak, None, Some(0))?;
    Ok(ed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bspkit::build::BspBuilder;

    fn pak(names: &[&str]) -> Vec<u8> {
        let mut b = PakBuilder::new();
        for n in names {
            b.insert(n, n.as_bytes().to_vec()).unwrap();
        }
        b.build(PakCompression::Stored).unwrap()
    }

    #[test]
    fn a_new_pakfile_keeps_every_other_lump() {
        for (version_first, branch) in [(false, &bspkit::branches::source::SOURCE), (true, &bspkit::branches::source::L4D2)] {
            let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
            // Pakfile last in the file: it stays where it was.
            let map = BspBuilder::new(branch).lump(0, ents.clone()).lump(40, pak(&["a.txt"])).build();
            let bsp = Bsp::from_bytes(&map).unwrap();
            let new = with_pakfile(&bsp, pak(&["a.txt", "b/c.txt"])).map_err(|e| e.0).unwrap().to_bytes().unwrap();
            let re = Bsp::from_bytes(&new).unwrap();
            assert_eq!(re.entry(40).unwrap().offset, bsp.entry(40).unwrap().offset, "version_first {version_first}");
            assert_eq!(re.lump(0).unwrap(), ents.as_slice());
            let p = Pakfile::parse(re.lump(40).unwrap()).unwrap();
            assert_eq!(p.read(p.find("b/c.txt").unwrap(), 100).unwrap(), b"b/c.txt");
            // A lump after the pakfile: it moves, byte for byte.
            let map = BspBuilder::new(branch).lump(40, pak(&["a.txt"])).lump(42, vec![7u8; 16]).build();
            let bsp = Bsp::from_bytes(&map).unwrap();
            let new = with_pakfile(&bsp, pak(&["x.txt", "y.txt"])).map_err(|e| e.0).unwrap().to_bytes().unwrap();
            let re = Bsp::from_bytes(&new).unwrap();
            assert_eq!(re.lump(42).unwrap(), &[7u8; 16]);
            let p = Pakfile::parse(re.lump(40).unwrap()).unwrap();
            assert_eq!(p.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["x.txt", "y.txt"]);
        }
    }
}

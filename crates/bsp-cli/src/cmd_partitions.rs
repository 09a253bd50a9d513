//! `bsp ents --partition <kind>`: Respawn entity partitions (`<map>_<kind>.ent` files beside
//! the map), through `bspkit::branches::respawn`.

use std::io::Write;

use bspkit::branches::respawn;
use bspkit::lumps::entities::Entities;
use bspkit::Bsp;

use crate::Fatal;

/// Print one partition's entities (text or JSON pairs). `kind` "list" prints the kinds found.
pub fn run(out: &mut impl Write, bsp: &Bsp, kind: &str, json: bool) -> Result<(), Fatal> {
    let parts = respawn::entity_partitions(bsp)?;
    if kind == "list" {
        if json {
            let list: Vec<_> = parts.iter().map(|p| serde_json::json!({"kind": p.kind, "path": p.path.to_string_lossy()})).collect();
            serde_json::to_writer_pretty(&mut *out, &list)?;
            writeln!(out)?;
        } else {
            for p in &parts {
                writeln!(out, "{}\t{}", p.kind, p.path.display())?;
            }
        }
        return Ok(());
    }
    let Some(part) = parts.iter().find(|p| p.kind == kind) else {
        let kinds: Vec<&str> = parts.iter().map(|p| p.kind.as_str()).collect();
        return Err(Fatal(format!("{}: no entity partition {kind:?} (found: {})", bsp.display_name(), kinds.join(", "))));
    };
    print_entities(out, &part.entities()?, json)
}

/// Entities as `bsp ents` prints them: the text as stored (ending in a newline), or with
/// `json` an array of `[key, value]` pair lists.
pub fn print_entities(out: &mut impl Write, ents: &Entities, json: bool) -> Result<(), Fatal> {
    if json {
        let list: Vec<Vec<[String; 2]>> = ents.iter().map(|e| e.iter().map(|(k, v)| [k.into_owned(), v.into_owned()]).collect()).collect();
        serde_json::to_writer_pretty(&mut *out, &list)?;
        writeln!(out)?;
    } else {
        out.write_all(ents.text)?;
        if !ents.text.ends_with(b"\n") && !ents.text.is_empty() {
            writeln!(out)?;
        }
    }
    Ok(())
}

/// A note on stderr naming the partitions beside a Respawn map, when it has any.
pub fn note(bsp: &Bsp) {
    if let Ok(parts) = respawn::entity_partitions(bsp) {
        if !parts.is_empty() {
            let kinds: Vec<&str> = parts.iter().map(|p| p.kind.as_str()).collect();
            eprintln!("note: more entities in partitions beside the map: {} (show with --partition <kind>)", kinds.join(", "));
        }
    }
}

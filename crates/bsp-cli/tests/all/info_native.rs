//! `bsp info` prints the family's own info-tool table line for line: for every corpus map with
//! the tool's output beside it (`*.info.txt`), the table cut out of that file appears verbatim in
//! bspkit's output. Tools: ericw-tools `bspinfo`, q2tools `4bsp` (the last FILE STATS block of
//! the compile log), `q3map2 -info`, `vbspinfo`, and `cod4map -info` (its Limit% column
//! included).

use std::process::Command;

use crate::common;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

/// The table lines of a tool's output, by the markers that tool prints around it.
fn native_table(family: &str, text: &str) -> Option<Vec<String>> {
    let lines: Vec<String> = text.replace('\r', "").lines().map(str::to_string).collect();
    let pos = |pred: &dyn Fn(&str) -> bool, from: usize| lines.iter().skip(from).position(|l| pred(l)).map(|i| i + from);
    let (start, end) = match family {
        "quake1" | "goldsrc" => {
            let s = pos(&|l| l.starts_with("BSP is version"), 0)? + 1;
            (s, pos(&|l| l.starts_with("-----"), s)?)
        }
        "quake2" => {
            let s = lines.iter().rposition(|l| l.contains("FILE STATS"))? + 1;
            (s, pos(&|l| l.contains("<<<<") || l.trim().is_empty(), s)?)
        }
        "quake3" => {
            let s = pos(&|l| l.starts_with("Abstracted BSP file components"), 0)? + 1;
            (s, pos(&|l| l.starts_with("-----"), s)?)
        }
        "source" => {
            let s = pos(&|l| l.starts_with("Object names"), 0)?;
            (s, pos(&|l| l.starts_with("Total triangle count"), s)? + 1)
        }
        "cod" => {
            let s = pos(&|l| l.starts_with(" Limit%"), 0)?;
            (s, pos(&|l| l.starts_with("-----"), s + 2)?)
        }
        _ => return None,
    };
    Some(lines[start..end].to_vec())
}

#[test]
fn info_tables_match_the_native_tools_line_for_line() {
    let Some(corpus) = common::corpus("info_tables_match_the_native_tools_line_for_line") else { return };
    let mut compared = Vec::new();
    // source_x360 is left out: its info.txt was made from the PC build of the map (see
    // crates/bspkit/tests/source_core.rs), so only counts are compared there.
    for family in ["quake1", "goldsrc", "quake2", "quake3", "source", "cod"] {
        for m in common::maps_in(&corpus, family) {
            let Some(text) = common::info_txt(&m.path) else { continue };
            let info = format!("{}.info.txt", m.path.display());
            let map = m.path;
            let table = native_table(family, &text).unwrap_or_else(|| panic!("{info}: no table found"));
            assert!(table.len() > 10, "{info}: table of {} lines", table.len());
            let out = Command::new(BSP).arg("info").arg(&map).output().unwrap();
            assert!(out.status.success(), "{}", map.display());
            let ours: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
            let found = ours.windows(table.len()).any(|w| w == table.as_slice());
            assert!(found, "{}: the native table\n{}\nis not in bsp info's output\n{}", map.display(), table.join("\n"), ours.join("\n"));
            compared.push(map);
        }
    }
    eprintln!("{} maps' info tables compared", compared.len());
    assert!(compared.len() >= 13, "only {} maps compared", compared.len());
}

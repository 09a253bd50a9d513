//! The JSON that `bsp info --json` and `bsp scan --json` print has exactly the fields README.md
//! documents (fields may only be added, and then to both), with the documented types.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[path = "../../bspkit/tests/common/mod.rs"]
mod common;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

/// Every key of `obj` is in `required` or `optional`, every required key is present, and each
/// is documented in the README's schema block `doc`.
fn assert_keys(what: &str, obj: &Value, required: &[&str], optional: &[&str], doc: &str) {
    let map = obj.as_object().unwrap_or_else(|| panic!("{what}: not an object: {obj}"));
    for k in map.keys() {
        assert!(required.contains(&k.as_str()) || optional.contains(&k.as_str()), "{what}: undocumented field {k:?}");
    }
    for k in required {
        assert!(map.contains_key(*k), "{what}: missing field {k:?}");
    }
    for k in required.iter().chain(optional) {
        assert!(doc.contains(&format!("\"{k}\"")), "{what}: field {k:?} is not in README.md's schema");
    }
}

fn block<'a>(readme: &'a str, heading: &str) -> &'a str {
    let start = readme.find(heading).unwrap_or_else(|| panic!("README has no {heading:?}"));
    let body = &readme[start..];
    let open = body.find("```").unwrap() + 3;
    let close = body[open..].find("```").unwrap() + open;
    &body[open..close]
}

fn check_info(v: &Value, doc: &str) {
    assert_keys("info", v, &["path", "size", "format", "lumps", "stats", "entities", "problems"], &["checksum"], doc);
    assert!(v["size"].is_u64() && v["entities"].is_u64() && v["path"].is_string());
    let f = &v["format"];
    assert_keys("format", f, &["family", "branch", "title", "magic", "version", "endianness", "why", "runners_up"], &[], doc);
    assert!(["quake", "goldsrc", "quake2", "quake3", "source", "respawn", "cod"].contains(&f["family"].as_str().unwrap()));
    assert!(["little", "big"].contains(&f["endianness"].as_str().unwrap()), "{f}");
    assert!(f["magic"].is_null() || f["magic"].is_string());
    for r in f["runners_up"].as_array().unwrap() {
        assert_keys("runner-up", r, &["branch", "why"], &[], doc);
    }
    for l in v["lumps"].as_array().unwrap() {
        assert_keys("lump", l, &["index", "name", "offset", "length", "version", "compressed", "record_size", "count", "source"], &[], doc);
        assert!(l["compressed"].is_boolean() && (l["version"].is_null() || l["version"].is_u64()));
    }
    for s in v["stats"].as_array().unwrap() {
        assert_keys("stat", s, &["name", "count", "bytes"], &["max_count", "max_bytes"], doc);
    }
    assert!(v["problems"].as_array().unwrap().iter().all(Value::is_string));
}

#[test]
fn info_json_has_the_documented_fields() {
    let readme = readme();
    let doc = block(&readme, "`bsp info --json` prints");
    let mut maps = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp")];
    if let Some(corpus) = common::corpus("info_json_has_the_documented_fields (corpus part)") {
        // One map of each family folder (the first in the manifest).
        for family in ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod"] {
            maps.extend(common::maps_in(&corpus, family).into_iter().next().map(|m| m.path));
        }
    }
    let out = Command::new(BSP).arg("info").arg("--json").args(&maps).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // An array for several files, one object for one.
    let list = if maps.len() == 1 { vec![v] } else { v.as_array().unwrap().clone() };
    assert_eq!(list.len(), maps.len());
    for item in &list {
        check_info(item, doc);
    }
}

#[test]
fn scan_json_lines_have_the_documented_fields() {
    let readme = readme();
    let doc = block(&readme, "`bsp scan --json` prints");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let out = Command::new(BSP).args(["scan", "--json"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert!(!lines.is_empty());
    for line in lines {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_keys(
            "scan",
            &v,
            &["path", "entry", "size", "family", "branch", "version", "lumps", "problems", "error", "micros"],
            &[],
            doc,
        );
        assert_keys("scan lumps", &v["lumps"], &["count", "non_empty", "compressed"], &[], doc);
        assert!(v["error"].is_null());
    }
}

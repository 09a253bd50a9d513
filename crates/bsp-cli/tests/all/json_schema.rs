//! The JSON that `bsp info --json`, `bsp check --json` and `bsp scan --json` print has exactly
//! the fields README.md documents (fields may only be added, and then to both), with the
//! documented types; problems have one shape in all three, and a file that cannot be read is an
//! `{"path", "error"}` object.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common;

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
    for p in v["problems"].as_array().unwrap() {
        check_problem(p);
    }
}

/// A problem object: the fields of README's `PROBLEM` block, with the documented types.
fn check_problem(p: &Value) {
    let readme = readme();
    let doc = block(&readme, "`PROBLEM`, in");
    assert_keys("problem", p, &["lump", "index", "message", "severity", "code"], &[], doc);
    assert!(p["lump"].is_string() && p["message"].is_string() && (p["index"].is_null() || p["index"].is_u64()), "{p}");
    assert!(["error", "warning", "note"].contains(&p["severity"].as_str().unwrap()), "{p}");
    // The code is one of README's problem table.
    let code = p["code"].as_str().unwrap();
    assert!(readme.contains(&format!("| `{code}` |")), "code {code} is not in README's table");
}

/// Maps with one problem of each severity (builder-made Quake 3 maps), in a temporary directory.
fn problem_maps() -> (crate::cli::Scratch, Vec<std::path::PathBuf>) {
    use common::fixtures::{fog, q3, surface};
    let dir = crate::cli::scratch("json-schema");
    let mut maps = Vec::new();
    for (name, bytes) in [
        ("note.bsp", q3(&[fog(-1, -1)], &[surface(1, 0)])),
        ("warning.bsp", q3(&[], &[surface(4, 2)])),
        ("error.bsp", q3(&[], &[surface(1, 2)])),
    ] {
        std::fs::write(dir.join(name), bytes).unwrap();
        maps.push(dir.join(name));
    }
    (dir, maps)
}

#[test]
fn problems_and_errors_have_one_documented_shape() {
    let readme = readme();
    let (dir, mut maps) = problem_maps();
    maps.push(dir.join("missing.bsp"));
    let mut severities = std::collections::BTreeSet::new();
    // info: problem objects inside the info objects; the missing file is an error object.
    let out = Command::new(BSP).args(["info", "--json"]).args(&maps).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    for item in &list[..3] {
        check_info(item, block(&readme, "`bsp info --json` prints"));
        for p in item["problems"].as_array().unwrap() {
            severities.insert(p["severity"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(severities.len(), 3, "{severities:?}");
    let error_doc = "{\"path\": str, \"error\": {\"kind\": str, \"message\": str}}";
    assert!(readme.contains(error_doc), "README documents the error object");
    let check_error = |e: &Value| {
        assert_keys("error object", e, &["path", "error"], &[], error_doc);
        assert_keys("error", &e["error"], &["kind", "message"], &[], error_doc);
        assert!(readme.contains(&format!("`{}`", e["error"]["kind"].as_str().unwrap())), "{e}");
    };
    check_error(&list[3]);
    // check: one object per file, with counts.
    let out = Command::new(BSP).args(["check", "--json"]).args(&maps).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    let doc = block(&readme, "`bsp check --json` prints an array");
    for item in &list[..3] {
        assert_keys("check", item, &["path", "problems", "counts"], &[], doc);
        assert_keys("check counts", &item["counts"], &["errors", "warnings", "notes"], &[], doc);
        assert_eq!(item["problems"].as_array().unwrap().len(), 1);
        check_problem(&item["problems"][0]);
    }
    check_error(&list[3]);
    // lumps: the same error object.
    let out = Command::new(BSP).args(["lumps", "--json"]).args(&maps).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_error(&v[3]);
    // scan: the same problem objects.
    let out = Command::new(BSP).args(["scan", "--json"]).arg(&dir).output().unwrap();
    let mut n = 0;
    for line in std::str::from_utf8(&out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        for p in v["problems"].as_array().unwrap() {
            check_problem(p);
            n += 1;
        }
    }
    assert_eq!(n, 3);
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
            &["path", "entry", "size", "family", "branch", "version", "magic", "lumps", "problems", "error", "micros"],
            &[],
            doc,
        );
        assert_keys("scan lumps", &v["lumps"], &["count", "non_empty", "compressed"], &[], doc);
        assert!(v["error"].is_null());
    }
}

#[test]
fn readme_lists_every_problem_code() {
    let readme = readme();
    let start = readme.find("| code | meaning |").expect("README has the problem code table");
    let table: Vec<&str> = readme[start..].lines().skip(2).take_while(|l| l.starts_with('|')).collect();
    let listed: Vec<String> = table.iter().map(|l| l.split('`').nth(1).unwrap().to_string()).collect();
    let known: Vec<String> = bspkit::check::Code::ALL.iter().map(|(c, _)| c.as_str().to_string()).collect();
    assert_eq!(listed, known, "README's problem codes (in order) differ from bspkit::check::Code::ALL");
}

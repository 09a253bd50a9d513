//! `bsp convert` as a child process: the report's keys are the ones README documents, an
//! unsupported pair and a `--strict` refusal write nothing, with their exit codes.

use crate::cli;

use cli::{run, s, scratch};

use crate::common;

fn readme_report_block() -> String {
    let readme = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let start = readme.find("### Converting (`bsp convert`)").expect("README has a bsp convert section");
    let rest = &readme[start..];
    let block = rest.find("```json").expect("a report example");
    let end = rest[block + 7..].find("```").unwrap();
    rest[block + 7..block + 7 + end].to_string()
}

fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                keys(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

#[test]
fn convert_writes_the_documented_report_and_refuses_cleanly() {
    let d = scratch("cli-convert");
    let input = d.join("q1.bsp");
    std::fs::write(&input, bspkit::build::sample_quake1()).unwrap();
    let out = d.join("q2.bsp");
    let report = d.join("r.json");
    let o = run(&["convert", s(&input), "--to", "bsp2", "-o", s(&out), "--report", s(&report), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(printed, written);
    assert_eq!((printed["from"]["branch"].as_str(), printed["to"]["branch"].as_str()), (Some("quake1"), Some("bsp2")));
    let doc = readme_report_block();
    let mut ks = Vec::new();
    keys(&printed, &mut ks);
    for k in ks {
        assert!(doc.contains(&format!("\"{k}\"")), "{k:?} is not in README's report example");
    }
    assert_eq!(&std::fs::read(&out).unwrap()[..4], b"BSP2");
    // And back, byte-identical.
    let back = d.join("back.bsp");
    assert!(run(&["convert", s(&out), "--to", "quake1", "-o", s(&back)]).status.success());
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&input).unwrap());
    // A pair not covered: exit 2, nothing written.
    let none = d.join("none.bsp");
    let o = run(&["convert", s(&input), "--to", "quake2", "-o", s(&none)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unsupported"));
    assert!(!none.exists());
}

#[test]
fn strict_refusal_exits_1_and_writes_nothing() {
    let Some(corpus) = common::corpus("strict_refusal_exits_1_and_writes_nothing") else { return };
    let map = &common::maps_in(&corpus, "source_x360")[0].path;
    let d = scratch("cli-convert-strict");
    let out = d.join("pc.bsp");
    let report = d.join("r.json");
    let o = run(&["convert", s(map), "--to", "source", "--endian", "little", "-o", s(&out), "--report", s(&report), "--strict"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("loss: PAKFILE"));
    assert!(!out.exists() && !report.exists());
    let o = run(&["convert", s(map), "--to", "source", "--endian", "little", "-o", s(&out)]);
    assert!(o.status.success());
    let o = run(&["check", s(&out)]);
    assert!(o.status.success());
}

/// A Source version move and a static prop version on the command line: the report names the
/// target version, the output reads as asked, and a version the target does not read exits 2
/// with nothing written.
#[test]
fn source_version_move_and_prop_version() {
    let Some(corpus) = common::corpus("source_version_move_and_prop_version") else { return };
    let map = corpus.join("source/bsp_tool__tf2_mp_lobby.bsp");
    let d = scratch("cli-convert-version");
    let out = d.join("csgo.bsp");
    let o = run(&["convert", s(&map), "--to", "csgo", "-o", s(&out), "--json", "--strict"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((r["to"]["branch"].as_str(), r["to"]["version"].as_u64(), r["lossless"].as_bool()), (Some("csgo"), Some(21), Some(true)));
    let back = d.join("back.bsp");
    assert!(run(&["convert", s(&out), "--to", "source", "-o", s(&back), "--strict"]).status.success());
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&map).unwrap());
    let v5 = d.join("v5.bsp");
    let o = run(&["convert", s(&map), "--to", "source", "--prop-version", "5", "-o", s(&v5)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["props", s(&v5)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("sprp version 5"), "{}", String::from_utf8_lossy(&o.stderr));
    let none = d.join("none.bsp");
    let o = run(&["convert", s(&map), "--to", "source", "--prop-version", "9", "-o", s(&none)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("static prop version 9"));
    assert!(!none.exists());
}

/// `bsp convert` between Titanfall and its Xbox 360 form on the 3 corpus Titanfall 2 maps:
/// taken to Titanfall, then to `titanfall_x360` (the report says big-endian, every loss a lump
/// kept as bytes), the console map is detected as `titanfall_x360` by `info`, checks clean,
/// exports the same triangle count as the PC form, has its `.ent` partitions beside it, and
/// converts back to the Titanfall map byte for byte.
#[test]
fn titanfall_to_xbox360_and_back() {
    let Some(corpus) = common::corpus("titanfall_to_xbox360_and_back") else { return };
    let d = scratch("cli-convert-tfx360");
    let (mut n, mut with_props) = (0, 0);
    for m in common::maps_in(&corpus, "respawn") {
        let info: serde_json::Value = serde_json::from_slice(&run(&["info", "--json", s(&m.path)]).stdout).unwrap();
        if info["format"]["branch"] != "titanfall2" {
            continue;
        }
        let what = m.path.display().to_string();
        let (a, b, c) = (d.join(format!("a{n}/m.bsp")), d.join(format!("b{n}/m.bsp")), d.join(format!("c{n}/m.bsp")));
        for p in [&a, &b, &c] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        }
        let pc = run(&["convert", s(&m.path), "--to", "titanfall", "-o", s(&a)]);
        assert!(pc.status.success(), "{what}: {}", String::from_utf8_lossy(&pc.stderr));
        let x = run(&["convert", s(&a), "--to", "titanfall_x360", "-o", s(&b), "--json"]);
        assert!(x.status.success(), "{what}: {}", String::from_utf8_lossy(&x.stderr));
        let r: serde_json::Value = serde_json::from_slice(&x.stdout).unwrap();
        assert_eq!(
            (&r["to"]["branch"], &r["to"]["endian"], &r["from"]["endian"]),
            (&"titanfall_x360".into(), &"big".into(), &"little".into())
        );
        for l in r["losses"].as_array().unwrap() {
            assert_eq!(l["kind"], "kept_unconverted", "{what}: {l}");
        }
        // Every lump with records swapped (hippodrome has no game lump).
        let lumps = r["lumps"].as_array().unwrap();
        assert!(lumps.iter().any(|l| l["name"] == "VERTICES" && l["action"] == "swapped"), "{what}");
        with_props += usize::from(lumps.iter().any(|l| l["name"] == "GAME_LUMP" && l["action"] == "swapped"));
        let info: serde_json::Value = serde_json::from_slice(&run(&["info", "--json", s(&b)]).stdout).unwrap();
        assert_eq!(info["format"]["branch"], "titanfall_x360", "{what}");
        let check = run(&["check", s(&b)]);
        assert!(check.status.success(), "{what}: {}", String::from_utf8_lossy(&check.stdout));
        let tris = |p: &std::path::Path| -> u64 {
            let glb = p.with_extension("glb");
            let e = run(&["export", s(p), "-o", s(&glb), "--json"]);
            assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
            let v: serde_json::Value = serde_json::from_slice(&e.stdout).unwrap_or_default();
            v["triangles"].as_u64().unwrap()
        };
        let t = tris(&b);
        assert!(t > 0 && t == tris(&a), "{what}: {t} triangles");
        let ents = |p: &std::path::Path| {
            let mut v: Vec<_> = std::fs::read_dir(p.parent().unwrap())
                .unwrap()
                .map(|f| f.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "ent"))
                .map(|p| (p.file_name().unwrap().to_owned(), std::fs::read(&p).unwrap()))
                .collect();
            v.sort();
            v
        };
        assert!(!ents(&a).is_empty() && ents(&b) == ents(&a), "{what}: .ent partitions");
        assert!(run(&["convert", s(&b), "--to", "titanfall", "-o", s(&c)]).status.success(), "{what}");
        assert!(std::fs::read(&c).unwrap() == std::fs::read(&a).unwrap(), "{what}: the way back differs");
        eprintln!("{what}: {t} triangles, {} lump(s) kept as bytes", r["losses"].as_array().unwrap().len());
        n += 1;
    }
    assert!(n >= 3 && with_props >= 1, "{n} Titanfall 2 maps, {with_props} with a game lump");
}

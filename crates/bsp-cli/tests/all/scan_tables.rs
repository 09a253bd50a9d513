//! `bsp scan --out`: the library tables, their deduplication, the index (re-runs read only
//! changed files, an interrupted run resumes), hostile files as `problems` rows; and on the
//! corpus (BSPKIT_CORPUS) row counts against each map's own counts and hashes against
//! `sha256sum`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn temp_dir(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("scan-tables-{name}"))
}

fn bsp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bsp"))
}

/// Run `bsp scan ROOT --out OUT --format F --json`; the statistics object.
fn scan(root: &Path, out: &Path, format: &str) -> Value {
    let o = bsp().arg("scan").arg(root).arg("--out").arg(out).args(["--format", format, "--json"]).output().unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn snapshot(dir: &Path) -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "scan-index.jsonl")
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn tables_dedup_index_and_hostile_files() {
    let root = temp_dir("lib");
    let out = temp_dir("out");
    let good = bspkit::build::sample_quake1();
    std::fs::write(root.join("good.bsp"), &good).unwrap();
    std::fs::write(root.join("copy.bsp"), &good).unwrap();
    std::fs::write(root.join("garbage.bsp"), b"this is not a map").unwrap();
    std::fs::write(root.join("truncated.bsp"), &good[..good.len() / 2]).unwrap();

    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files"].as_u64(), s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(4), Some(4), Some(0)));
    let maps = jsonl(&out.join("maps.jsonl"));
    assert_eq!(maps.len(), 4);
    let sha = bspkit::catalog::sha256_hex(&good);
    let with_hash: Vec<&Value> = maps.iter().filter(|m| m["sha256"] == sha.as_str()).collect();
    assert_eq!(with_hash.len(), 2, "both copies have a maps row");
    // Content once: the two copies share their entity and lump rows.
    let bsp = bspkit::Bsp::from_bytes(&good).unwrap();
    let entities = jsonl(&out.join("entities.jsonl"));
    assert_eq!(entities.len(), bsp.entities().unwrap().len());
    assert!(entities.iter().all(|e| e["map_sha256"] == sha.as_str()));
    assert_eq!(jsonl(&out.join("lumps.jsonl")).len(), bsp.lumps().len());
    // Hostile files: a maps row with the error kind and a problems row each; no crash.
    let problems = jsonl(&out.join("problems.jsonl"));
    for name in ["garbage.bsp", "truncated.bsp"] {
        let m = maps.iter().find(|m| m["path"].as_str().unwrap().ends_with(name)).unwrap();
        assert!(m["error"].is_string() && m["sha256"].is_null(), "{m}");
        assert!(problems.iter().any(|p| p["path"].as_str().is_some_and(|p| p.ends_with(name)) && p["severity"] == "error"), "{name}");
    }
    let schema: Value = serde_json::from_slice(&std::fs::read(out.join("schema.json")).unwrap()).unwrap();
    assert_eq!(schema["schema_version"], bspkit::catalog::SCHEMA_VERSION);
    assert_eq!(schema["tables"]["maps"][0]["name"], "path");

    // Again: nothing read, nothing changed.
    let before = snapshot(&out);
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(0), Some(4)));
    assert_eq!(snapshot(&out), before);

    // One file changed: only it is read. A file removed: its rows go.
    std::fs::write(root.join("garbage.bsp"), b"still not a map, longer").unwrap();
    std::fs::remove_file(root.join("copy.bsp")).unwrap();
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files"].as_u64(), s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(3), Some(1), Some(2)));
    assert_eq!(jsonl(&out.join("maps.jsonl")).len(), 3);

    // An interrupted run: the journal ends in a torn line; a new file is read, the rest not.
    let index = out.join("scan-index.jsonl");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str("{\"path\": \"torn");
    std::fs::write(&index, text).unwrap();
    std::fs::write(root.join("new.bsp"), &good).unwrap();
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(1), Some(3)));

    // The same tables as Parquet and CSV.
    let pq = temp_dir("pq");
    scan(&root, &pq, "parquet");
    let file = std::fs::File::open(pq.join("entities.parquet")).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    use parquet::file::reader::FileReader;
    assert_eq!(reader.metadata().file_metadata().num_rows() as usize, entities.len());
    let kv = reader.metadata().file_metadata().key_value_metadata().unwrap();
    assert!(kv
        .iter()
        .any(|k| k.key == "bspkit.schema_version" && k.value.as_deref() == Some(bspkit::catalog::SCHEMA_VERSION.to_string().as_str())));
    let csv = temp_dir("csv");
    scan(&root, &csv, "csv");
    let text = std::fs::read_to_string(csv.join("maps.csv")).unwrap();
    assert!(text.starts_with("path,entry,size,mtime_ns,sha256,"));
    assert_eq!(text.lines().count(), 1 + 4);
}

/// The corpus: one `maps` row per file, hashes equal to `sha256sum`'s, entity / lump / prop
/// rows equal to each map's own counts, and a second run reads nothing.
#[test]
fn corpus_tables() {
    let Some(corpus) = crate::common::corpus("scan_tables::corpus_tables") else { return };
    let out = temp_dir("corpus");
    let s = scan(&corpus, &out, "jsonl");
    let maps = jsonl(&out.join("maps.jsonl"));
    assert_eq!(s["files_read"].as_u64(), Some(maps.len() as u64));
    assert!(maps.len() >= 50, "{}", maps.len());
    let per = |table: &str| {
        let mut n: HashMap<String, usize> = HashMap::new();
        for r in jsonl(&out.join(format!("{table}.jsonl"))) {
            *n.entry(r["map_sha256"].as_str().unwrap().to_string()).or_default() += 1;
        }
        n
    };
    let (ents, lumps, props) = (per("entities"), per("lumps"), per("props"));
    let sums = Command::new("sha256sum").args(maps.iter().map(|m| m["path"].as_str().unwrap())).output();
    let sums: HashMap<String, String> = match sums {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once("  ").map(|(h, p)| (p.to_string(), h.to_string())))
            .collect(),
        _ => {
            eprintln!("note: sha256sum not available; hashes checked against the manifest only");
            HashMap::new()
        }
    };
    let manifest: HashMap<String, String> = std::fs::read_to_string(corpus.join("manifest.jsonl"))
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter_map(|v| Some((v["file"].as_str()?.to_string(), v["sha256"].as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    for m in &maps {
        let path = m["path"].as_str().unwrap();
        assert!(m["error"].is_null(), "{m}");
        let sha = m["sha256"].as_str().unwrap();
        if let Some(h) = sums.get(path) {
            assert_eq!(h, sha, "{path}");
        }
        let name = Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
        if let Some(h) = manifest.get(&name) {
            assert_eq!(h, sha, "{path}");
        }
        let map = bspkit::Bsp::open(path).unwrap();
        let n_ents = map.entities().map(|e| e.len()).unwrap_or(0);
        assert_eq!(ents.get(sha).copied().unwrap_or(0), n_ents, "{path} entities");
        assert_eq!(m["entities"].as_u64(), Some(n_ents as u64), "{path}");
        assert_eq!(lumps.get(sha).copied().unwrap_or(0), map.lumps().len(), "{path} lumps");
        // Props: `bsp props`' own count (the static prop lump's).
        let o = bsp().args(["props", "--json", path]).output().unwrap();
        if o.status.success() {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
            if let Some(n) = v.get("count").and_then(|n| n.as_u64()) {
                assert_eq!(props.get(sha).copied().unwrap_or(0) as u64, n, "{path} props");
            }
        }
    }
    assert!(!sums.is_empty() || !manifest.is_empty(), "no independent hash to compare with");
    let before = snapshot(&out);
    let s = scan(&corpus, &out, "jsonl");
    assert_eq!(s["files_read"].as_u64(), Some(0));
    assert_eq!(snapshot(&out), before);
}

/// A rewrite that keeps the file's size and modification time (`cp -p`, `rsync -t`, a tool
/// that restores the mtime) is found by the status-change time or the inode the index keeps;
/// the rewrite the timestamps cannot show (the index's stamp made to equal the new file's,
/// as a rewrite in the same clock tick would leave it) is found by `--verify`'s re-hash.
#[cfg(unix)]
#[test]
fn same_size_same_mtime_rewrites_are_found() {
    use std::os::unix::fs::MetadataExt;
    let root = temp_dir("rewrite");
    let out = temp_dir("rewrite-out");
    let good = bspkit::build::sample_quake1();
    // Same size, other bytes: one letter of the worldspawn's classname changed.
    let at = good.windows(10).position(|w| w == b"worldspawn").unwrap() + 9;
    let mut other = good.clone();
    other[at] = b'm';
    let (a, b) = (root.join("a.bsp"), root.join("b.bsp"));
    std::fs::write(&a, &good).unwrap();
    std::fs::write(&b, &good).unwrap();
    let sha_of = |out: &Path| -> Vec<String> {
        let mut v: Vec<String> = jsonl(&out.join("maps.jsonl"))
            .iter()
            .filter(|m| m["path"].as_str().unwrap().ends_with("a.bsp"))
            .map(|m| m["sha256"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let (old_sha, new_sha) = (bspkit::catalog::sha256_hex(&good), bspkit::catalog::sha256_hex(&other));
    let s = scan(&root, &out, "jsonl");
    assert_eq!(s["files_read"].as_u64(), Some(2));
    assert_eq!(sha_of(&out), vec![old_sha.clone()]);
    let mtime = std::fs::metadata(&a).unwrap().modified().unwrap();
    let restore = |p: &Path| std::fs::File::options().write(true).open(p).unwrap().set_modified(mtime).unwrap();

    // In place, the mtime set back: size and mtime equal, the status-change time is not.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&a, &other).unwrap();
    restore(&a);
    let m = std::fs::metadata(&a).unwrap();
    assert_eq!((m.len(), m.modified().unwrap()), (good.len() as u64, mtime));
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(1), Some(1)), "{s}");
    assert_eq!(sha_of(&out), vec![new_sha.clone()]);

    // Replaced by a rename, the mtime set back: another inode.
    let tmp = root.join("a.tmp");
    std::fs::write(&tmp, &good).unwrap();
    restore(&tmp);
    std::fs::rename(&tmp, &a).unwrap();
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(1), Some(1)), "{s}");
    assert_eq!(sha_of(&out), vec![old_sha.clone()]);

    // What the timestamps cannot show: rewritten, and the index's stamp made to equal the new
    // file's (status-change time and inode). Without --verify the old rows stay; --verify
    // hashes both files, keeps b.bsp's rows and reads a.bsp again.
    std::fs::write(&a, &other).unwrap();
    restore(&a);
    let m = std::fs::metadata(&a).unwrap();
    let index = out.join(bspkit::catalog::INDEX_FILE);
    let text = std::fs::read_to_string(&index).unwrap();
    let mut patched = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["path"].as_str().is_some_and(|p| p.ends_with("a.bsp")) {
                v["stamp"]["ctime_ns"] = (m.ctime() * 1_000_000_000 + m.ctime_nsec()).into();
                v["stamp"]["inode"] = m.ino().into();
                patched += 1;
            }
            v.to_string()
        })
        .collect();
    assert_eq!(patched, 1);
    std::fs::write(&index, lines.join("\n") + "\n").unwrap();
    let s = scan(&root, &out, "jsonl");
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64()), (Some(0), Some(2)), "{s}");
    assert_eq!(sha_of(&out), vec![old_sha], "the stale rows: what --verify is for");
    let o = bsp().arg("scan").arg(&root).arg("--out").arg(&out).args(["--format", "jsonl", "--json", "--verify"]).output().unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((s["files_read"].as_u64(), s["files_unchanged"].as_u64(), s["files_verified"].as_u64()), (Some(1), Some(1), Some(1)), "{s}");
    assert_eq!(sha_of(&out), vec![new_sha]);
}

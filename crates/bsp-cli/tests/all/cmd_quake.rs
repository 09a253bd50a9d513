//! `bsp miptex` and `bsp bspx` on the committed sample map.

use std::process::Command;

fn bsp(args: &[&str]) -> (i32, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_bsp")).args(args).current_dir(root).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn miptex_lists_the_sample_texture() {
    let (code, text) = bsp(&["miptex", "samples/sample_quake1.bsp"]);
    assert_eq!(code, 0);
    assert!(text.contains("bspkit_grey") && text.contains("16x16") && text.contains("embedded"), "{text}");
    let (code, json) = bsp(&["miptex", "--json", "samples/sample_quake1.bsp"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["name"], "bspkit_grey");
    assert_eq!(v[0]["width"], 16);
    assert_eq!(v[0]["palette"], serde_json::Value::Null);
}

#[test]
fn bspx_reports_none_for_the_sample_and_errors_exit_2() {
    let (code, json) = bsp(&["bspx", "--json", "samples/sample_quake1.bsp"]);
    assert_eq!(code, 0);
    assert_eq!(json.trim(), "null");
    let (code, _) = bsp(&["bspx", "no/such/map.bsp"]);
    assert_eq!(code, 2);
}

//! Every command and subcommand of `bsp` shows examples in its `--help` (found by walking the
//! "Commands:" sections, so a new command without examples fails here).

use std::process::Command;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn help(path: &[String]) -> String {
    let out = Command::new(BSP).args(path).arg("--help").output().unwrap();
    assert!(out.status.success(), "bsp {} --help failed", path.join(" "));
    String::from_utf8(out.stdout).unwrap()
}

/// The command names listed under "Commands:" (without clap's own `help`).
fn subcommands(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            if let Some(name) = line.split_whitespace().next() {
                if name != "help" && !line.starts_with("   ") {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

#[test]
fn every_command_has_examples() {
    let mut todo = vec![Vec::<String>::new()];
    let mut seen = 0;
    let mut missing = Vec::new();
    while let Some(path) = todo.pop() {
        let text = help(&path);
        if !text.contains("Examples:") {
            missing.push(path.join(" "));
        }
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        seen += 1;
    }
    assert!(seen > 30, "only {seen} commands found");
    assert!(missing.is_empty(), "no examples in --help of: {missing:?}");
}

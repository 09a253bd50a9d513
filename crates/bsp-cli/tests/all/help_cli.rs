//! Every command and subcommand of `bsp` shows examples in its `--help` (found by walking the
//! "Commands:" sections, so a new command without examples fails here), and README.md tells the
//! truth about flags: its "Flags of every command" table lists exactly the flags each command
//! accepts, and every `bsp …` example in it uses only flags its command accepts.

use std::collections::{BTreeMap, BTreeSet};

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

/// The long flags listed under "Options:" (without `--help` / `--version`).
fn flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Options:") {
            inside = true;
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with(' ') {
            break;
        }
        let t = line.trim_start();
        if inside && t.starts_with('-') {
            // `-o, --output <OUT>` or `--json`: the long name.
            if let Some(long) = t.split([' ', ',', '=']).find(|w| w.starts_with("--")) {
                if long != "--help" && long != "--version" {
                    out.insert(long.to_string());
                }
            }
        }
    }
    out
}

/// Every command path (e.g. `ents set`) with the flags its `--help` lists.
fn all_flags() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let text = help(&path);
        out.insert(path.join(" "), flags(&text));
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
    }
    out
}

fn readme() -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

/// `--flag` words of a piece of README text.
fn flag_words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let mut end = start + 2;
        while end < b.len() && (b[end].is_ascii_lowercase() || b[end].is_ascii_digit() || b[end] == b'-') {
            end += 1;
        }
        if end > start + 2 && (start == 0 || !b[start - 1].is_ascii_alphanumeric()) {
            out.insert(text[start..end].to_string());
        }
        i = end.max(start + 2);
    }
    out
}

#[test]
fn readme_lists_every_flag_of_every_command() {
    let readme = readme();
    let start = readme.find("### Flags of every command").expect("README has a \"Flags of every command\" section");
    let section = &readme[start..];
    let section = &section[..section[4..].find("\n#").map_or(section.len(), |e| e + 4)];
    // Groups: `- **R** (…): --a, --b`.
    let mut groups = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("- **")) {
        let name = line[4..].split("**").next().unwrap().to_string();
        groups.insert(format!("**{name}**"), flag_words(line));
    }
    assert!(groups.contains_key("**R**") && groups.contains_key("**W**"), "{groups:?}");
    let mut documented = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let command = cells[1].trim_matches('`').to_string();
        let mut set = flag_words(cells[2]);
        for (g, members) in &groups {
            if cells[2].contains(g.as_str()) {
                set.extend(members.iter().cloned());
            }
        }
        assert!(documented.insert(command.clone(), set).is_none(), "{command} listed twice");
    }
    let actual = all_flags();
    let mut wrong = Vec::new();
    for (command, flags) in &actual {
        // `bsp` itself and the grouping commands (`lump`, `pak`) take no flags of their own.
        if flags.is_empty() && !documented.contains_key(command) {
            continue;
        }
        match documented.get(command) {
            None => wrong.push(format!("`{command}` is missing from the table (flags {flags:?})")),
            Some(doc) if doc != flags => wrong.push(format!(
                "`{command}`: README lists {:?} it does not take, and misses {:?}",
                doc.difference(flags).collect::<Vec<_>>(),
                flags.difference(doc).collect::<Vec<_>>()
            )),
            Some(_) => {}
        }
    }
    for command in documented.keys() {
        if !actual.contains_key(command) {
            wrong.push(format!("`{command}` is in the table but is no command"));
        }
    }
    assert!(wrong.is_empty(), "README flags table disagrees with the program:\n{}", wrong.join("\n"));
    assert!(documented.len() > 30, "only {} rows", documented.len());
}

#[test]
fn readme_examples_use_flags_their_commands_take() {
    let readme = readme();
    let actual = all_flags();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in readme.lines().map(str::trim_start).filter(|l| l.starts_with("bsp ")) {
        // The example itself, without its comment.
        let example = line.split(" # ").next().unwrap();
        let words: Vec<&str> = example.split_whitespace().skip(1).collect();
        // The longest run of leading words that names a command (flags may come first, as in
        // `bsp ents --partition list …`, so skip them).
        let names: Vec<&str> = words.iter().copied().filter(|w| !w.starts_with('-')).collect();
        let mut command = String::new();
        for n in &names {
            let longer = if command.is_empty() { n.to_string() } else { format!("{command} {n}") };
            if actual.contains_key(&longer) {
                command = longer;
            } else {
                break;
            }
        }
        assert!(!command.is_empty(), "README example names no command: {line}");
        for f in flag_words(example) {
            if !actual[&command].contains(&f) {
                wrong.push(format!("`bsp {command}` does not take {f}: {line}"));
            }
        }
        checked += 1;
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 40, "only {checked} README examples found");
}

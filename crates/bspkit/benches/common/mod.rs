//! Corpus maps for the benches, found through `BSPKIT_CORPUS`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Maps of the corpus, one folder per family, when `BSPKIT_CORPUS` is set.
pub fn corpus_maps(folder: &str) -> Vec<PathBuf> {
    let Some(dir) = std::env::var_os("BSPKIT_CORPUS") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![Path::new(&dir).join(folder)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if bspkit::scan::is_map_file(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The largest corpus map of a folder, read into memory.
pub fn largest(folder: &str) -> Option<(String, Vec<u8>)> {
    let p = corpus_maps(folder).into_iter().max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))?;
    let bytes = std::fs::read(&p).ok()?;
    Some((p.file_name()?.to_string_lossy().into_owned(), bytes))
}

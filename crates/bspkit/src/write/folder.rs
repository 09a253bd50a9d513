//! The one rule for every command that writes many files into a folder (`pak extract`,
//! `textures --out`, `lightmaps --out`, `scan --thumbnails`): the folder the user named may
//! itself be a link, but nothing *below* it is followed. A symbolic link, FIFO or device planted
//! inside the folder (`tx/materials` → elsewhere, `thumbs/x.png` → another file) makes that one
//! file an error instead of a write outside the folder or over something that is not a file.
//!
//! The check runs before the parent directories are made and again after, so a link created in
//! between is refused too; the file itself is then written by [`super::atomic`].

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

/// Every existing component of `rel` below `dir` is a real directory, and the last one a
/// regular file (a directory when `last_is_dir`): never a symbolic link, FIFO or device. `rel`
/// must be a plain relative path (only normal components), else [`ErrorKind::UnsafePath`].
pub fn check_below(dir: &Path, rel: &Path, last_is_dir: bool) -> Result<()> {
    if rel.as_os_str().is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(Error::new(ErrorKind::UnsafePath(rel.display().to_string())));
    }
    let mut p = dir.to_path_buf();
    let n = rel.components().count();
    for (i, c) in rel.components().enumerate() {
        p.push(c);
        let Ok(m) = std::fs::symlink_metadata(&p) else { return Ok(()) };
        let last = i + 1 == n;
        let ok = if m.file_type().is_symlink() {
            false
        } else if last && !last_is_dir {
            m.is_file()
        } else {
            m.is_dir()
        };
        if !ok {
            let what = crate::fsio::kind_name(&m);
            return Err(Error::new(ErrorKind::NotRegularFile(format!(
                "{what} in the way (files written into a folder never go through links or over special files)"
            )))
            .in_file(&p));
        }
    }
    Ok(())
}

/// Makes the directories of `rel` below `dir` (checked before and after) and returns the full
/// path, ready for one write.
pub fn prepare_below(dir: &Path, rel: &Path) -> Result<PathBuf> {
    check_below(dir, rel, false)?;
    let target = dir.join(rel);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::from(e).in_file(parent))?;
    }
    check_below(dir, rel, false)?;
    Ok(target)
}

/// Writes `bytes` to `dir/rel` under the folder rule, atomically ([`super::atomic::write_file`]
/// with `options`). Returns the path written.
pub fn write_below(dir: &Path, rel: &Path, bytes: &[u8], options: &super::atomic::WriteOptions) -> Result<PathBuf> {
    let target = prepare_below(dir, rel)?;
    super::atomic::write_file(&target, bytes, options)?;
    Ok(target)
}

/// [`write_below`] counted against `budget` (the command's written-bytes budget, every file
/// together): a file that would pass it is not made (an old one stays) and the error names
/// [`super::set::BUDGET_WRITTEN`].
pub fn write_below_counted(
    dir: &Path,
    rel: &Path,
    bytes: &[u8],
    options: &super::atomic::WriteOptions,
    budget: &super::set::ByteBudget,
) -> Result<PathBuf> {
    let target = prepare_below(dir, rel)?;
    if !budget.take(bytes.len() as u64) {
        return Err(budget.error().in_file(&target));
    }
    super::atomic::write_file(&target, bytes, options)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bspkit-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_nested_files_and_refuses_links_below() {
        let d = tmp("links");
        let out = d.join("out");
        let elsewhere = d.join("elsewhere");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        let opts = super::super::atomic::WriteOptions::OUTPUT;
        let p = write_below(&out, Path::new("a/b.png"), b"x", &opts).unwrap();
        assert_eq!(std::fs::read(p).unwrap(), b"x");
        // A directory link planted inside the folder.
        std::os::unix::fs::symlink(&elsewhere, out.join("materials")).unwrap();
        let e = write_below(&out, Path::new("materials/m.png"), b"y", &opts).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotRegularFile(_)), "{e}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A file link planted where a file will be written.
        std::fs::write(elsewhere.join("victim"), b"keep").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("victim"), out.join("t.png")).unwrap();
        assert!(write_below(&out, Path::new("t.png"), b"z", &opts).is_err());
        assert_eq!(std::fs::read(elsewhere.join("victim")).unwrap(), b"keep");
        // Names that leave the folder.
        assert!(matches!(write_below(&out, Path::new("../x"), b"z", &opts).unwrap_err().kind, ErrorKind::UnsafePath(_)));
        assert!(write_below(&out, Path::new("/abs"), b"z", &opts).is_err());
        // The folder itself may be a link the user named.
        let link = d.join("link");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        assert!(write_below(&link, Path::new("ok.png"), b"w", &opts).is_ok());
        assert!(out.join("ok.png").is_file());
        let _ = std::fs::remove_dir_all(&d);
    }
}

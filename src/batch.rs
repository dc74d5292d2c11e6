//! Folders into files, the same way for every command that takes many (`validate`, `replay`):
//! recursively, by file-name suffix, following symlinked files but never a symlinked folder, so
//! a link loop cannot recurse forever. (The thread pool is `crate::workers`'.)

use std::path::{Path, PathBuf};

/// A folder or file that could not be read while walking.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WalkError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Every file below `dir` whose name ends with `suffix`, in no particular order (callers sort).
/// Symlinked folders are not entered (no loops); symlinked files to regular files are kept.
pub fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) -> Result<(), WalkError> {
    let fail = |source| WalkError {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let path = entry.path();
        let kind = entry.file_type().map_err(fail)?;
        if kind.is_dir() {
            walk(&path, suffix, out)?;
        } else if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(suffix))
            && std::fs::metadata(&path).is_ok_and(|m| m.is_file())
        {
            out.push(path);
        }
    }
    Ok(())
}

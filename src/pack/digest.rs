//! A pack's digest (SPEC §9.2): `sha256:` + the hex SHA-256 of the RFC 8785 canonical JSON
//! `[[relative path, hex sha256 of the file's bytes], …]` over every regular file under the pack
//! directory except the root's `pack.sig`, sorted by path (`/` separators). The walk is
//! iterative (no recursion to overflow), refuses symbolic links and other non-regular files
//! (P801, located at the file) and reads each file through `crate::input::read_capped`.

use super::{MANIFEST, MAX_FILE_BYTES, MAX_FILES, PackErrors, SIGNATURE};
use crate::codes;
use sha2::{Digest, Sha256};
use std::path::Path;

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Every regular file under `dir`, relative, `/`-separated, sorted; a symbolic link or another
/// non-regular entry is a P801 at that path.
pub fn list_files(dir: &Path) -> Result<Vec<String>, PackErrors> {
    let mut out = Vec::new();
    let mut stack: Vec<(std::path::PathBuf, String)> = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, rel)) = stack.pop() {
        let entries = std::fs::read_dir(&path).map_err(|e| {
            PackErrors::whole_file(
                &path.display().to_string(),
                codes::P801.at("", format!("cannot read the pack folder: {e}")),
            )
        })?;
        for entry in entries {
            let entry = entry.map_err(|e| {
                PackErrors::whole_file(
                    &path.display().to_string(),
                    codes::P801.at("", format!("cannot read the pack folder: {e}")),
                )
            })?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(PackErrors::whole_file(
                    &entry.path().display().to_string(),
                    codes::P801.at("", "a file name in a pack must be UTF-8"),
                ));
            };
            let child_rel = if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            let file_type = entry.file_type().map_err(|e| {
                PackErrors::whole_file(
                    &entry.path().display().to_string(),
                    codes::P801.at("", format!("cannot read: {e}")),
                )
            })?;
            if file_type.is_symlink() {
                return Err(PackErrors::whole_file(
                    &entry.path().display().to_string(),
                    codes::P801.at(
                        "",
                        format!(
                            "`{child_rel}` is a symbolic link; a pack holds regular files only \
                             (its digest covers their bytes, and a link could point anywhere)"
                        ),
                    ),
                ));
            }
            if file_type.is_dir() {
                stack.push((entry.path(), child_rel));
            } else if file_type.is_file() {
                out.push(child_rel);
                if out.len() > MAX_FILES {
                    return Err(PackErrors::whole_file(
                        &dir.display().to_string(),
                        codes::P801.at("", format!("the pack holds more than {MAX_FILES} files")),
                    ));
                }
            } else {
                return Err(PackErrors::whole_file(
                    &entry.path().display().to_string(),
                    codes::P801.at(
                        "",
                        format!(
                            "`{child_rel}` is {}; a pack holds regular files only",
                            crate::input::kind_of(file_type)
                        ),
                    ),
                ));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The pack's digest (SPEC §9.2), every file read from `dir` now.
pub fn digest_dir(dir: &Path) -> Result<String, PackErrors> {
    // Every file hashed as read, `pack.json` too: no loaded text stands in for it.
    Ok(DigestFiles::read(dir, false)?.digest(&[]))
}

/// What a pack's digest covers, read when the pack loads: every regular file's path and hex
/// SHA-256, except that `pack.json`'s hash may be left for [`DigestFiles::digest`], over the
/// text the loader kept. A load that nothing asks the digest of (no lock, no signature, no
/// trace written) then never hashes its largest file; a digest asked for later is still of
/// the bytes that were loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DigestFiles {
    /// Sorted by path; `None`: `pack.json`, hashed from the loaded text.
    entries: Vec<(String, Option<String>)>,
}

impl DigestFiles {
    /// List `dir` (refusing links and special files, P801) and hash its files, `pack.json`'s
    /// too unless `manifest_loaded` (its bytes are the loader's, hashed on demand).
    pub(crate) fn read(dir: &Path, manifest_loaded: bool) -> Result<DigestFiles, PackErrors> {
        let files = list_files(dir)?;
        let mut entries = Vec::with_capacity(files.len());
        for rel in files {
            if rel == SIGNATURE {
                continue;
            }
            if manifest_loaded && rel == MANIFEST {
                entries.push((rel, None));
                continue;
            }
            let path = dir.join(&rel);
            let bytes = crate::input::read_capped(&path, MAX_FILE_BYTES).map_err(|e| {
                PackErrors::whole_file(
                    &path.display().to_string(),
                    codes::P801.at("", e.to_string()),
                )
            })?;
            entries.push((rel, Some(sha256_hex(&bytes))));
        }
        Ok(DigestFiles { entries })
    }

    /// The digest, `manifest` being `pack.json`'s bytes as loaded.
    pub(crate) fn digest(&self, manifest: &[u8]) -> String {
        let entries: Vec<serde_json::Value> = self
            .entries
            .iter()
            .map(|(rel, sha)| {
                let sha = sha.clone().unwrap_or_else(|| sha256_hex(manifest));
                serde_json::json!([rel, sha])
            })
            .collect();
        digest_of_entries(&entries)
    }
}

/// `sha256:` + the SHA-256 of the RFC 8785 form of the `[[path, sha], …]` list.
pub fn digest_of_entries(entries: &[serde_json::Value]) -> String {
    let canonical = serde_jcs::to_vec(&entries).unwrap_or_default();
    format!("sha256:{}", sha256_hex(&canonical))
}

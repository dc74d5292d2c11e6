//! `pack sign DIR --key KEY` (SPEC §9.2): write `pack.sig`, the Ed25519 signature (a §4.1 key
//! file, `primgraph keygen`) over `"primgraph-pack-v1\n" + name + "\n" + version + "\n" +
//! digest`. Only a pack that loads is signed (a signature vouches for a checked pack); a stale
//! `pack.sig` — the reason to sign again after an edit — does not stop it. The written file is
//! verified by loading the pack again.

use super::lock::write_atomically;
use super::{Findings, ToolError, require_pack_dir};
use crate::pack::{SIGNATURE, digest, manifest, signature};
use crate::registry::Registry;
use crate::replay::SealKey;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What signing did.
#[derive(Debug)]
pub enum Signed {
    /// `pack.sig` written and verified.
    Written {
        path: PathBuf,
        /// `name@version`.
        label: String,
        digest: String,
        signer: String,
    },
    /// The pack has errors (other than a stale signature): nothing written.
    Refused(Findings),
}

/// Sign the pack in `dir` with `key`.
pub fn sign(dir: &Path, key: &SealKey, base: &Registry) -> Result<Signed, ToolError> {
    require_pack_dir(dir)?;
    let sig_path = dir.join(SIGNATURE);
    let (name, version, digest) = match manifest::load(dir, base) {
        Ok(pack) => (
            pack.name.clone(),
            pack.version.to_string(),
            pack.digest().to_string(),
        ),
        Err(mut errors) => {
            // A signature that no longer verifies is what signing replaces.
            let sig_file = sig_path.display().to_string();
            errors.reports.retain(|r| r.file != sig_file);
            for r in &mut errors.reports {
                r.diagnostics.retain(|d| d.code != crate::codes::P807.code);
            }
            errors.reports.retain(|r| !r.diagnostics.is_empty());
            if !errors.is_empty() {
                let mut findings = Findings::new();
                findings.extend_errors(errors);
                return Ok(Signed::Refused(findings));
            }
            let (name, version) = name_and_version(dir)?;
            let digest = digest::digest_dir(dir).map_err(|e| ToolError::Input(e.to_string()))?;
            (name, version, digest)
        }
    };
    let sig = key.sign_message(&signature::message(&name, &version, &digest));
    write_atomically(&sig_path, &signature::file_text(&key.signer(), &sig))?;
    match manifest::load(dir, base) {
        Ok(pack)
            if pack
                .signature
                .as_ref()
                .is_some_and(|s| s.signer == key.signer()) =>
        {
            Ok(Signed::Written {
                path: sig_path,
                label: format!("{name}@{version}"),
                digest,
                signer: key.signer(),
            })
        }
        Ok(_) => Err(ToolError::Input(format!(
            "{}: written, but the pack does not read it back as signed by {}",
            sig_path.display(),
            key.signer()
        ))),
        Err(errors) => {
            let mut findings = Findings::new();
            findings.extend_errors(errors);
            Ok(Signed::Refused(findings))
        }
    }
}

/// `pack` and `version` of `dir/pack.json` (already checked by the loader).
fn name_and_version(dir: &Path) -> Result<(String, String), ToolError> {
    let manifest = dir.join(crate::pack::MANIFEST);
    let bytes = crate::input::read_capped(&manifest, crate::pack::MAX_MANIFEST_BYTES)
        .map_err(|e| ToolError::Input(e.to_string()))?;
    let parsed = crate::json::parse(&bytes, &crate::pack::LIMITS)
        .map_err(|e| ToolError::Input(format!("{}: {}", manifest.display(), e.kind)))?;
    let field = |k: &str| {
        parsed
            .value
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (field("pack"), field("version")) {
        (Some(n), Some(v)) => Ok((n, v)),
        _ => Err(ToolError::Input(format!(
            "{}: needs `pack` and `version`",
            manifest.display()
        ))),
    }
}

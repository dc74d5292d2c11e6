//! Pack signatures (SPEC §9.2): `pack.sig` is `{"signer": "ed25519:" + 64 hex, "sig":
//! "ed25519:" + 128 hex}`, an Ed25519 signature (the §4.1 key files) over the UTF-8 bytes of
//! `"primgraph-pack-v1\n" + name + "\n" + version + "\n" + digest`. A present `pack.sig` must
//! always verify (P807, whoever signed it); under trusted keys (`--trust-pack`, `trust_pack`)
//! every loaded pack must carry one by a trusted key. Signing itself needs the private key,
//! which the command line reads (`primgraph pack sign`); this module builds the message and
//! the file and verifies.

// A refusal here is one located diagnostic, built at most once per pack or rule: returned by
// value rather than boxed, as every other check reports.
#![allow(clippy::result_large_err)]
use super::{Pack, PackSignature, SIGNATURE};
use crate::codes;
use crate::diagnostic::Diagnostic;
use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::Value;
use std::path::Path;

/// The domain-separation prefix of the signed message.
pub const PACK_CONTEXT: &str = "primgraph-pack-v1\n";
const SCHEME: &str = "ed25519:";

/// The message a pack's signature signs.
pub fn message(name: &str, version: &str, digest: &str) -> Vec<u8> {
    format!("{PACK_CONTEXT}{name}\n{version}\n{digest}").into_bytes()
}

/// The bytes of a `pack.sig` file.
pub fn file_text(signer: &str, sig: &str) -> String {
    let doc = serde_json::json!({"signer": signer, "sig": sig});
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

fn hex_bytes<const N: usize>(text: &str) -> Option<[u8; N]> {
    let hex = text.strip_prefix(SCHEME)?;
    if hex.len() != 2 * N
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let mut out = [0u8; N];
    for (i, chunk) in hex.as_bytes().chunks(2).enumerate() {
        let s = std::str::from_utf8(chunk).ok()?;
        out[i] = u8::from_str_radix(s, 16).ok()?;
    }
    Some(out)
}

fn p807(line: u32, column: u32, message: String) -> Diagnostic {
    let mut d = codes::P807.at("", message);
    d.line = line.max(1);
    d.column = column.max(1);
    d
}

/// A P807 about the value at `pointer` in `pack.sig`: that pointer, and the value's whole span.
fn p807_at(parsed: &crate::json::Parsed, pointer: &str, message: String) -> Diagnostic {
    let mut d = codes::P807.at(pointer, message);
    locate(&mut d, parsed);
    d
}

fn locate(d: &mut Diagnostic, parsed: &crate::json::Parsed) {
    let span = parsed.locate_nearest(&d.pointer);
    d.line = span.line.max(1);
    d.column = span.column.max(1);
    d.end_line = span.end_line;
    d.end_column = span.end_column;
}

/// Read and verify `dir/pack.sig` for a loaded pack (whose digest is set): `None` when there is
/// none; a P807 (located in `pack.sig`) when it is malformed or does not verify.
pub fn read(dir: &Path, pack: &Pack) -> Result<Option<PackSignature>, Diagnostic> {
    let path = dir.join(SIGNATURE);
    let shown = path.display().to_string();
    match std::fs::symlink_metadata(&path) {
        Err(_) => return Ok(None),
        Ok(m) if !m.file_type().is_file() => {
            return Err(p807(1, 1, "`pack.sig` is not a regular file".into()));
        }
        Ok(_) => {}
    }
    let bytes = crate::input::read_capped(&path, 4096)
        .map_err(|e| p807(1, 1, format!("cannot read `pack.sig`: {e}")))?;
    let parsed = crate::json::parse(&bytes, &super::LIMITS).map_err(|e| {
        p807(
            e.span.line,
            e.span.column,
            format!("`pack.sig` is not valid JSON: {}", e.kind),
        )
    })?;
    let text: std::sync::Arc<str> = String::from_utf8_lossy(&bytes).into();
    verify_parsed(&parsed, pack).map_err(|mut d| {
        d.sources.push((shown, text));
        d
    })
}

/// The checks of a parsed `pack.sig`: its shape, its key, and the signature over the pack.
fn verify_parsed(
    parsed: &crate::json::Parsed,
    pack: &Pack,
) -> Result<Option<PackSignature>, Diagnostic> {
    let Value::Object(o) = &parsed.value else {
        return Err(p807(
            1,
            1,
            "`pack.sig` must be an object {\"signer\", \"sig\"}".into(),
        ));
    };
    if let Some(k) = o.keys().find(|k| *k != "signer" && *k != "sig") {
        return Err(p807_at(
            parsed,
            &format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            format!("unknown field `{k}` in `pack.sig`"),
        ));
    }
    let field = |name: &str| o.get(name).and_then(Value::as_str).map(str::to_string);
    let (Some(signer), Some(sig)) = (field("signer"), field("sig")) else {
        return Err(p807(
            1,
            1,
            "`pack.sig` needs the strings `signer` and `sig`".into(),
        ));
    };
    let Some(key) = hex_bytes::<32>(&signer).and_then(|b| VerifyingKey::from_bytes(&b).ok()) else {
        return Err(p807_at(
            parsed,
            "/signer",
            "`signer` must be `ed25519:` and 64 lowercase hex digits of a public key".into(),
        ));
    };
    let Some(sig_bytes) = hex_bytes::<64>(&sig) else {
        return Err(p807_at(
            parsed,
            "/sig",
            "`sig` must be `ed25519:` and 128 lowercase hex digits".into(),
        ));
    };
    let signature = Signature::from_bytes(&sig_bytes);
    let msg = message(&pack.name, &pack.version.to_string(), pack.digest());
    if key.verify_strict(&msg, &signature).is_err() {
        return Err(p807_at(
            parsed,
            "/sig",
            format!(
                "the signature does not verify for {}@{} with digest {}: the pack changed after \
                 it was signed, or the signature is not for this pack",
                pack.name,
                pack.version,
                pack.digest()
            ),
        ));
    }
    Ok(Some(PackSignature { signer, sig }))
}

/// Under trusted keys (signers `ed25519:` + hex, as `TrustedKey::signer` writes them), a pack
/// must carry a verified signature by one of them.
pub fn check_trusted(pack: &Pack, trusted: &[String]) -> Result<(), Diagnostic> {
    if trusted.is_empty() {
        return Ok(());
    }
    match &pack.signature {
        None => Err(codes::P807.at(
            "",
            format!(
                "pack {}@{} has no `pack.sig`, and trusted pack keys are required \
                 (`--trust-pack` / `trust_pack`)",
                pack.name, pack.version
            ),
        )),
        Some(s) if trusted.iter().any(|t| t == &s.signer) => Ok(()),
        Some(s) => Err(codes::P807.at(
            "/signer",
            format!(
                "pack {}@{} is signed by {}, which is not a trusted pack key",
                pack.name, pack.version, s.signer
            ),
        )),
    }
}

/// A finding about `dir/pack.sig` located at its pointer there, with the file's text to quote
/// (the untrusted signer of [`check_trusted`], found after the pack loaded).
pub fn locate_in_file(dir: &Path, mut d: Diagnostic) -> Diagnostic {
    let path = dir.join(SIGNATURE);
    d.line = 1;
    d.column = 1;
    let Ok(bytes) = crate::input::read_capped(&path, 4096) else {
        return d;
    };
    if let Ok(parsed) = crate::json::parse(&bytes, &super::LIMITS) {
        locate(&mut d, &parsed);
        d.sources.push((
            path.display().to_string(),
            String::from_utf8_lossy(&bytes).into(),
        ));
    }
    d
}

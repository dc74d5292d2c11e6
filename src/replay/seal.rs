//! Sealed traces (SPEC §4.1): the Ed25519 key pair a recorder seals a run with (`SealKey`, the
//! private key; `TrustedKey`, a public key replay is told to trust), the key files `primgraph
//! keygen` writes, the signed message, and the check of a recorded seal.
//!
//! The hash chain covers every line but the last, and anyone can rebuild it after an edit; the
//! seal closes both holes. The end event carries `"signer": "ed25519:" + 64 hex digits` (the
//! public key) and `"sig": "ed25519:" + 128 hex digits`, a signature over the UTF-8 bytes of
//! `"primgraph-seal-v1\n" + run + "\n" + seq + "\n" + end + "\n" + prev` — the end event's own
//! `seq` (decimal), `end` and `prev` and the header's `run`. `prev` covers every earlier line
//! through the chain, so one signature covers the whole run.
//!
//! Key files are hex text, one key and a newline, marked with their role: `KEY` holds
//! `ed25519-private:` and the 32-byte private seed, `KEY.pub` holds `ed25519:` and the 32-byte
//! public key (the same text as the `signer` it verifies). Both are 32 bytes of hex, and about
//! half of all seeds are also valid public keys, so without the marks a public file passed to
//! `--sign` sealed with a key nobody holds and a private file passed to `--trust` was trusted;
//! now each is refused in the other's place, saying which is which. An unmarked file (as keygen
//! wrote before the marks) is read by its name: `*.pub` is public, anything else private.
//! Reading accepts upper- or lowercase hex and surrounding whitespace; a recorded `signer`/`sig`
//! must be lowercase exactly as written, so that no two spellings of one seal exist.
//! Verification is `verify_strict` (no malleable signatures, no weak keys).

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The domain-separation prefix of the signed message (its version is the seal's version).
pub const SEAL_CONTEXT: &str = "primgraph-seal-v1\n";

/// The prefix of `signer` and `sig` values, and the mark of a public key file.
pub const SEAL_SCHEME: &str = "ed25519:";

/// The mark of a private key file.
pub const PRIVATE_SCHEME: &str = "ed25519-private:";

/// Which half of a key pair a key file or text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Private,
    Public,
}

/// Why a key could not be made, read or written.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The key file is not a regular file of at most [`MAX_KEY_FILE_BYTES`], or cannot be read.
    #[error("cannot read key file {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: crate::input::InputError,
    },
    #[error("cannot write key file {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("key file {path} already exists (pass --force to overwrite it)")]
    Exists { path: PathBuf },
    #[error("key file {path}: {message}")]
    BadKeyFile { path: PathBuf, message: String },
    #[error("not a key: {0}")]
    BadKey(String),
    #[error("cannot get random bytes from the operating system: {0}")]
    Random(String),
}

/// A private Ed25519 key that seals traces. Its `Debug` shows only the public key.
#[derive(Clone)]
pub struct SealKey {
    signing: SigningKey,
}

/// A public Ed25519 key whose seals replay accepts (`--trust`).
#[derive(Clone, PartialEq, Eq)]
pub struct TrustedKey {
    verifying: VerifyingKey,
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealKey({})", self.signer())
    }
}

impl std::fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TrustedKey({})", self.signer())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

fn nibble(c: u8, lowercase_only: bool) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' if !lowercase_only => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Exactly `N` bytes of hex, or `None`.
fn from_hex_exact<const N: usize>(text: &str, lowercase_only: bool) -> Option<[u8; N]> {
    let t = text.as_bytes();
    if t.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, pair) in t.chunks_exact(2).enumerate() {
        out[i] = (nibble(pair[0], lowercase_only)? << 4) | nibble(pair[1], lowercase_only)?;
    }
    Some(out)
}

/// A key's text, trimmed, as the role it must have: 64 hex digits of either case, marked
/// `ed25519-private:` (private) or `ed25519:` (public), or unmarked when `unmarked` allows it
/// (a legacy file of the right name, or key text handed over directly). A text marked with the
/// other role is refused, saying which it is.
fn key_bytes(text: &str, role: Role, unmarked: bool) -> Result<[u8; 32], SealError> {
    let t = text.trim();
    let (found, hex) = if let Some(hex) = t.strip_prefix(PRIVATE_SCHEME) {
        (Some(Role::Private), hex)
    } else if let Some(hex) = t.strip_prefix(SEAL_SCHEME) {
        (Some(Role::Public), hex)
    } else {
        (None, t)
    };
    match (role, found) {
        (Role::Private, Some(Role::Public)) => {
            return Err(SealError::BadKey(
                "this is a public key (`ed25519:`, a `KEY.pub` file): sealing needs the private key file `KEY` that `primgraph keygen` wrote beside it (`ed25519-private:`)".into(),
            ));
        }
        (Role::Public, Some(Role::Private)) => {
            return Err(SealError::BadKey(
                "this is a private key (`ed25519-private:`, a `KEY` file): trust takes the public key file `KEY.pub` (`ed25519:`); never hand the private key to a verifier".into(),
            ));
        }
        (Role::Private, None) if !unmarked => {
            return Err(SealError::BadKey(
                "an unmarked key in a `.pub` file is a public key: sealing needs the private key file `KEY` (`ed25519-private:`)".into(),
            ));
        }
        (Role::Public, None) if !unmarked => {
            return Err(SealError::BadKey(
                "an unmarked key in a file not named `*.pub` is taken for a private key: trust takes the public key file `KEY.pub` (`ed25519:`)".into(),
            ));
        }
        _ => {}
    }
    from_hex_exact::<32>(hex, false).ok_or_else(|| {
        SealError::BadKey(format!(
            "a key is 64 hex digits (32 bytes) after its mark (`ed25519-private:` or `ed25519:`); found {} characters",
            hex.chars().count()
        ))
    })
}

/// The largest key file read (a key file is one line of under 100 bytes).
pub const MAX_KEY_FILE_BYTES: usize = 4096;

fn read_key_file(path: &Path, role: Role) -> Result<[u8; 32], SealError> {
    let bytes =
        crate::input::read_capped(path, MAX_KEY_FILE_BYTES).map_err(|source| SealError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8(bytes).map_err(|e| SealError::BadKeyFile {
        path: path.to_path_buf(),
        message: format!(
            "a key file is text; byte {} is not UTF-8",
            e.utf8_error().valid_up_to()
        ),
    })?;
    // An unmarked (legacy) file's role is its name's: `KEY.pub` public, `KEY` private.
    let named_public = path.extension().is_some_and(|e| e == "pub");
    let unmarked = named_public == (role == Role::Public);
    key_bytes(&text, role, unmarked).map_err(|e| SealError::BadKeyFile {
        path: path.to_path_buf(),
        message: match e {
            SealError::BadKey(m) => m,
            other => other.to_string(),
        },
    })
}

/// The bytes a seal signs (SPEC §4.1).
pub fn seal_message(run: &str, seq: u64, end: &str, prev: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(SEAL_CONTEXT.len() + run.len() + end.len() + prev.len() + 24);
    m.extend_from_slice(SEAL_CONTEXT.as_bytes());
    m.extend_from_slice(run.as_bytes());
    m.push(b'\n');
    m.extend_from_slice(seq.to_string().as_bytes());
    m.push(b'\n');
    m.extend_from_slice(end.as_bytes());
    m.push(b'\n');
    m.extend_from_slice(prev.as_bytes());
    m
}

impl SealKey {
    /// A new key from the operating system's random number generator.
    ///
    /// # Panics
    ///
    /// When the operating system has no randomness to give (as `rand`'s `OsRng` does); use
    /// [`SealKey::try_generate`] to get that as an error.
    pub fn generate() -> SealKey {
        match SealKey::try_generate() {
            Ok(k) => k,
            Err(e) => panic!("{e}"),
        }
    }

    /// A new key from the operating system's random number generator.
    pub fn try_generate() -> Result<SealKey, SealError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| SealError::Random(e.to_string()))?;
        let key = SealKey {
            signing: SigningKey::from_bytes(&seed),
        };
        seed.fill(0);
        Ok(key)
    }

    /// The key from its 32-byte seed in hex (the content of a `KEY` file: marked
    /// `ed25519-private:`, or bare hex; a public `ed25519:` key is refused).
    pub fn from_hex(text: &str) -> Result<SealKey, SealError> {
        let mut seed = key_bytes(text, Role::Private, true)?;
        let key = SealKey {
            signing: SigningKey::from_bytes(&seed),
        };
        seed.fill(0);
        Ok(key)
    }

    /// Read a `KEY` file written by `primgraph keygen`.
    pub fn read(path: &Path) -> Result<SealKey, SealError> {
        let mut seed = read_key_file(path, Role::Private)?;
        let key = SealKey {
            signing: SigningKey::from_bytes(&seed),
        };
        seed.fill(0);
        Ok(key)
    }

    /// The public key, 64 lowercase hex digits (the content of `KEY.pub` after its mark).
    pub fn public_hex(&self) -> String {
        to_hex(self.signing.verifying_key().as_bytes())
    }

    /// The `signer` value this key writes: `ed25519:` and the public key in hex.
    pub fn signer(&self) -> String {
        format!("{SEAL_SCHEME}{}", self.public_hex())
    }

    /// The public half, as replay trusts it.
    pub fn trusted_key(&self) -> TrustedKey {
        TrustedKey {
            verifying: self.signing.verifying_key(),
        }
    }

    /// The `sig` value sealing an end event: `ed25519:` and 128 hex digits.
    pub fn sign_end(&self, run: &str, seq: u64, end: &str, prev: &str) -> String {
        let sig = self.signing.sign(&seal_message(run, seq, end, prev));
        format!("{SEAL_SCHEME}{}", to_hex(&sig.to_bytes()))
    }

    /// The `ed25519:` + 128 hex digits signature of any message (a pack's signature, SPEC §9.2,
    /// signs `primgraph-pack-v1` messages with the same key files).
    pub fn sign_message(&self, message: &[u8]) -> String {
        format!(
            "{SEAL_SCHEME}{}",
            to_hex(&self.signing.sign(message).to_bytes())
        )
    }

    /// Write the key pair: `path` (the private seed, mode 0600 on Unix) and `path` + `.pub`.
    /// Refuses to replace an existing file unless `overwrite`; returns the public file's path.
    pub fn write_pair(&self, path: &Path, overwrite: bool) -> Result<PathBuf, SealError> {
        let public = public_path(path);
        if !overwrite {
            for p in [path, public.as_path()] {
                if std::fs::symlink_metadata(p).is_ok() {
                    return Err(SealError::Exists {
                        path: p.to_path_buf(),
                    });
                }
            }
        }
        let secret = format!("{PRIVATE_SCHEME}{}\n", to_hex(&self.signing.to_bytes()));
        let written = write_new(path, secret.as_bytes(), 0o600);
        // The hex copy of the seed is not left in memory longer than it has to be.
        let mut bytes = secret.into_bytes();
        bytes.fill(0);
        written?;
        write_new(&public, format!("{}\n", self.signer()).as_bytes(), 0o644)?;
        Ok(public)
    }
}

/// `KEY` → `KEY.pub`.
pub fn public_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

/// Create `path` afresh with `mode` (an existing file is removed first, so an old file's looser
/// permissions never carry over to a new private key).
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), SealError> {
    let err = |source| SealError::Write {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(e)),
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).map_err(err)?;
    file.write_all(bytes).map_err(err)?;
    file.sync_all().map_err(err)?;
    Ok(())
}

impl TrustedKey {
    /// A public key in hex (64 digits, marked `ed25519:` or bare; a private
    /// `ed25519-private:` key is refused).
    pub fn from_hex(text: &str) -> Result<TrustedKey, SealError> {
        let bytes = key_bytes(text, Role::Public, true)?;
        VerifyingKey::from_bytes(&bytes)
            .map(|verifying| TrustedKey { verifying })
            .map_err(|_| SealError::BadKey("not an Ed25519 public key (not a curve point)".into()))
    }

    /// Read a `KEY.pub` file written by `primgraph keygen`.
    pub fn read(path: &Path) -> Result<TrustedKey, SealError> {
        let bytes = read_key_file(path, Role::Public)?;
        VerifyingKey::from_bytes(&bytes)
            .map(|verifying| TrustedKey { verifying })
            .map_err(|_| SealError::BadKeyFile {
                path: path.to_path_buf(),
                message: "not an Ed25519 public key (not a curve point)".into(),
            })
    }

    /// The public key, 64 lowercase hex digits.
    pub fn public_hex(&self) -> String {
        to_hex(self.verifying.as_bytes())
    }

    /// The `signer` value of seals made with this key.
    pub fn signer(&self) -> String {
        format!("{SEAL_SCHEME}{}", self.public_hex())
    }

    pub(crate) fn bytes(&self) -> &[u8; 32] {
        self.verifying.as_bytes()
    }
}

/// Why a recorded seal does not verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealFault {
    /// `signer` is not `ed25519:` and 64 lowercase hex digits of a valid public key.
    BadSigner(String),
    /// `sig` is not `ed25519:` and 128 lowercase hex digits.
    BadSig(String),
    /// The signature does not match the signer and the signed fields.
    Mismatch,
}

/// Check a recorded seal; on success, the signer's public key.
pub fn verify_seal(
    run: &str,
    seq: u64,
    end: &str,
    prev: &str,
    signer: &str,
    sig: &str,
) -> Result<[u8; 32], SealFault> {
    let key = signer
        .strip_prefix(SEAL_SCHEME)
        .and_then(|h| from_hex_exact::<32>(h, true))
        .ok_or_else(|| {
            SealFault::BadSigner(
                "`signer` must be `ed25519:` and 64 lowercase hex digits".to_string(),
            )
        })?;
    let verifying = VerifyingKey::from_bytes(&key).map_err(|_| {
        SealFault::BadSigner("`signer` is not an Ed25519 public key (not a curve point)".into())
    })?;
    let sig = sig
        .strip_prefix(SEAL_SCHEME)
        .and_then(|h| from_hex_exact::<64>(h, true))
        .ok_or_else(|| {
            SealFault::BadSig("`sig` must be `ed25519:` and 128 lowercase hex digits".to_string())
        })?;
    let signature = Signature::from_bytes(&sig);
    verifying
        .verify_strict(&seal_message(run, seq, end, prev), &signature)
        .map_err(|_| SealFault::Mismatch)?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8032 §7.1, TEST 1: the seed and its public key.
    const SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    const PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

    #[test]
    fn keys_match_rfc8032_and_seals_verify() {
        let k = SealKey::from_hex(SEED).unwrap();
        assert_eq!(k.public_hex(), PUBLIC);
        assert_eq!(TrustedKey::from_hex(PUBLIC).unwrap(), k.trusted_key());
        assert_eq!(
            TrustedKey::from_hex(&format!("ed25519:{}", PUBLIC.to_uppercase())).unwrap(),
            k.trusted_key()
        );
        let sig = k.sign_end("r-1", 7, "success", "sha256:00");
        assert_eq!(sig.len(), 8 + 128);
        let key = verify_seal("r-1", 7, "success", "sha256:00", &k.signer(), &sig).unwrap();
        assert_eq!(&key, k.trusted_key().bytes());
        for (run, seq, end, prev) in [
            ("r-2", 7, "success", "sha256:00"),
            ("r-1", 8, "success", "sha256:00"),
            ("r-1", 7, "failure", "sha256:00"),
            ("r-1", 7, "success", "sha256:01"),
        ] {
            assert_eq!(
                verify_seal(run, seq, end, prev, &k.signer(), &sig),
                Err(SealFault::Mismatch)
            );
        }
        let upper = format!("ed25519:{}", sig[8..].to_uppercase());
        assert!(matches!(
            verify_seal("r-1", 7, "success", "sha256:00", &k.signer(), &upper),
            Err(SealFault::BadSig(_))
        ));
    }

    #[test]
    fn the_message_is_the_spec_one() {
        assert_eq!(
            seal_message("r", 12, "failure", "sha256:ab"),
            b"primgraph-seal-v1\nr\n12\nfailure\nsha256:ab"
        );
    }

    #[test]
    fn bad_keys_are_errors_not_panics() {
        for bad in ["", "zz", &SEED[..63], &format!("{SEED}00"), "ed25519:"] {
            assert!(SealKey::from_hex(bad).is_err(), "{bad}");
            assert!(TrustedKey::from_hex(bad).is_err(), "{bad}");
        }
    }
}

//! `primgraph keygen --out KEY [--force]`: write an Ed25519 key pair for sealing traces (SPEC
//! §4.1): `KEY`, the private seed in hex (mode 0600), and `KEY.pub`, the public key in hex.
//! Refuses to replace either file unless `--force` (a lost private key cannot be recovered, and
//! traces sealed with it would no longer match a new `KEY.pub`). Exit 0, or 2 when the files
//! cannot be written.

use primgraph::replay::SealKey;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// The private key file to write; the public key goes to the same path plus `.pub`.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace existing key files.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: KeygenArgs) -> ExitCode {
    let key = match SealKey::try_generate() {
        Ok(k) => k,
        Err(e) => return super::usage_error(e),
    };
    match key.write_pair(&args.out, args.force) {
        Ok(public) => {
            eprintln!(
                "wrote {} (private, mode 0600) and {} (public: {})",
                args.out.display(),
                public.display(),
                key.signer()
            );
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}

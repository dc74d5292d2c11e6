//! `primgraph pack …` (SPEC §9.2, §9.5): `lock`, `sign`, `show`, `lint` and `test`. Each
//! parses its arguments, calls `primgraph::pack_tools` and prints; the work is in the library.
//! [`PackPathArgs`] (`--pack DIR`, repeatable) and [`TrustPackArgs`] (`--trust-pack KEY.pub`,
//! repeatable) are the option types other commands flatten into their own arguments.
//!
//! Exit codes: 0 clean, 1 findings (for `lint` and `test` an error or a warning, SPEC §9.5; the
//! lock or signature is then not written), 2 the command could not run (not a pack directory,
//! an unreadable key, registry or path).

use primgraph::diagnostic::{self, FileReport, Tally};
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::pack_tools::{self, Findings};
use primgraph::replay::{SealKey, TrustedKey};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::validate::Format;

#[derive(Debug, clap::Args)]
pub struct PackArgs {
    #[command(subcommand)]
    pub command: PackCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum PackCommand {
    /// Resolve the packs of the graphs under PATH and write `primgraph.lock` beside
    /// `primgraph.toml` (or in the working directory).
    Lock(LockArgs),
    /// Sign a pack: write `DIR/pack.sig` with an Ed25519 key from `primgraph keygen`.
    Sign(SignArgs),
    /// Show a pack: its contents, derived capability requirements and environment.
    Show(ShowArgs),
    /// Lint one pack: P8xx, L5xx, its rules (P840/P841) and plugins (P870–P872).
    Lint(LintArgs),
    /// Test a pack: lint it, validate its fixture graphs, replay their runs against expect.json.
    Test(TestArgs),
    /// Compare two versions of a pack (SPEC §9.6): its primitives as `registry diff` does, its
    /// fragment interfaces (P860/P861) and rules (P862), and the version bump they require.
    Diff(super::pack_diff::PackDiffArgs),
}

/// `--pack DIR` (repeatable): the pack path (SPEC §9.2).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PackPathArgs {
    /// A pack, or a folder whose sub-folders are packs (repeatable): the pack path.
    #[arg(long = "pack", value_name = "DIR")]
    pub pack: Vec<PathBuf>,
}

/// `--trust-pack KEY.pub` (repeatable): every loaded pack must be signed by one of these keys
/// (SPEC §9.2, P807).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TrustPackArgs {
    /// A public key file (`KEY.pub` of `primgraph keygen`) whose signature every loaded pack
    /// must carry (repeatable; P807 otherwise).
    #[arg(long = "trust-pack", value_name = "KEY.pub")]
    pub trust_pack: Vec<PathBuf>,
}

impl TrustPackArgs {
    /// The trusted signers, `ed25519:` + hex (an unreadable or private key file: an error).
    pub fn signers(&self) -> Result<Vec<String>, String> {
        self.trust_pack
            .iter()
            .map(|p| {
                TrustedKey::read(p)
                    .map(|k| k.signer())
                    .map_err(|e| e.to_string())
            })
            .collect()
    }
}

#[derive(Debug, clap::Args)]
pub struct LockArgs {
    /// Graph files, or folders searched recursively for `*.graph.json` (default: `.`).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub pack_path: PackPathArgs,
    #[command(flatten)]
    pub trust: TrustPackArgs,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Output format of the findings when the packs cannot be resolved.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct SignArgs {
    /// The pack folder (holding `pack.json`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The private key file (`primgraph keygen --out KEY`).
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowFormat {
    /// A page for people: the contents, environment and capability requirements.
    Human,
    /// One JSON document with every member of the pack.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The pack folder (holding `pack.json`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ShowFormat,
    /// Where the packs it requires are found: the capability requirements then include the
    /// primitives of their fragments that its fragments use.
    #[command(flatten)]
    pub pack_path: PackPathArgs,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The pack folder (holding `pack.json`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub pack_path: PackPathArgs,
    #[command(flatten)]
    pub trust: TrustPackArgs,
    /// Output format (`json` of `pack test` adds each run's outcome).
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Accepted as `validate` accepts it; a warning is a finding of `pack lint` and `pack test`
    /// already (exit 1).
    #[arg(long)]
    pub deny_warnings: bool,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
}

pub type TestArgs = LintArgs;

pub fn run(args: PackArgs) -> ExitCode {
    match args.command {
        PackCommand::Lock(a) => lock(a),
        PackCommand::Sign(a) => sign(a),
        PackCommand::Show(a) => show(a),
        PackCommand::Lint(a) => lint(a),
        PackCommand::Test(a) => test(a),
        PackCommand::Diff(a) => super::pack_diff::run(a),
    }
}

fn base(registry: &Option<PathBuf>) -> Result<Base, String> {
    match registry {
        None => Ok(Base::Builtin),
        Some(p) => primgraph::registry::Registry::from_path(p)
            .map(|r| Base::Loaded(Arc::new(r)))
            .map_err(|e| e.to_string()),
    }
}

fn render(reports: &[FileReport], format: Format) -> String {
    render_with(reports, format, None)
}

/// [`render`]; a SARIF log describes the pack rules its results use from `packs` (the pack
/// under test and the `--pack` path).
fn render_with(reports: &[FileReport], format: Format, packs: Option<PackRules<'_>>) -> String {
    match format {
        Format::Human => diagnostic::human::render(reports, super::io::color_stdout()),
        Format::Json => diagnostic::json::render(reports),
        Format::Sarif => {
            let rules = diagnostic::sarif::rules_used(reports, primgraph::codes::ALL);
            let described = match packs {
                Some(packs) => packs.entries(reports),
                None => Vec::new(),
            };
            diagnostic::sarif::render_described(reports, &rules, &described)
        }
        Format::Github => diagnostic::github::render_reports(reports),
    }
}

/// Where `pack lint` and `pack test` find the pack rules their SARIF describes: the pack at
/// `dir`, then the highest version of a pack of that name on the `--pack` path.
#[derive(Clone, Copy)]
struct PackRules<'a> {
    dir: &'a Path,
    pack_path: &'a [PathBuf],
    base: &'a Base,
}

impl PackRules<'_> {
    fn entries(self, reports: &[FileReport]) -> Vec<diagnostic::sarif::RuleEntry> {
        let registry = self.base.registry();
        let own = primgraph::pack::manifest::load(self.dir, registry)
            .ok()
            .map(Arc::new);
        let path = PackPath::scan(self.pack_path);
        super::pack_path::rule_entries(reports, None, &|name| {
            let mut packs: Vec<Arc<primgraph::pack::Pack>> =
                own.iter().filter(|p| p.name == name).cloned().collect();
            packs.extend(path.versions(name).first().and_then(|c| {
                primgraph::pack::manifest::load(&c.dir, registry)
                    .ok()
                    .map(Arc::new)
            }));
            packs
        })
    }
}

/// `pack lint` and `pack test` (SPEC §9.5: "0 clean, 1 findings"): an error or a warning is a
/// finding; an info is not.
fn exit_for(reports: &[FileReport]) -> ExitCode {
    let t = Tally::of(reports);
    if t.errors > 0 || t.warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn lock(args: LockArgs) -> ExitCode {
    let base = match base(&args.registry) {
        Ok(b) => b,
        Err(e) => return super::usage_error(e),
    };
    let mut trusted = match args.trust.signers() {
        Ok(t) => t,
        Err(e) => return super::usage_error(e),
    };
    // The pack path as every other command has it: `--pack`, then `packs` of primgraph.toml;
    // the trusted keys likewise.
    let config = match primgraph::config::Config::discover_from_cwd() {
        Ok(c) => c,
        Err(e) => return super::usage_error(e.to_string()),
    };
    let mut entries = args.pack_path.pack.clone();
    if let Some(c) = &config {
        entries.extend(
            c.packs
                .iter()
                .map(|p| primgraph::config::relative_to_cwd(p)),
        );
        for key in &c.trust_pack {
            match TrustedKey::read(key) {
                Ok(k) => trusted.push(k.signer()),
                Err(e) => return super::usage_error(format!("{}: {e}", c.file)),
            }
        }
    }
    let cwd = PathBuf::from(".");
    let lock_dir = primgraph::config::find(&primgraph::config::absolute(&cwd))
        .and_then(|toml| toml.parent().map(Path::to_path_buf))
        .unwrap_or(cwd);
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    // Resolution afresh: an existing lock is what is being replaced.
    let composer = Composer::new(
        base,
        PackPath::scan(&entries),
        ComposerOptions {
            trusted,
            lock: None,
            locked: false,
        },
    );
    let locked = match pack_tools::lock::lock(&paths, &composer, &lock_dir) {
        Ok(l) => l,
        Err(e) => return super::usage_error(e),
    };
    if locked.findings.has_errors() {
        let reports = locked.findings.into_reports();
        super::io::print(&render(&reports, args.format));
        eprintln!("error: primgraph.lock not written: the packs of the graphs do not resolve");
        return ExitCode::from(1);
    }
    let path = primgraph::pack::lock::location(Some(&lock_dir), &lock_dir);
    if let Err(e) = pack_tools::lock::write_atomically(&path, &locked.builder.to_text()) {
        return super::usage_error(e);
    }
    eprintln!(
        "wrote {}: {} pack(s) for {} of {} graph(s)",
        path.display(),
        locked.builder.len(),
        locked.with_packs,
        locked.graphs
    );
    ExitCode::SUCCESS
}

fn sign(args: SignArgs) -> ExitCode {
    let base = match base(&args.registry) {
        Ok(b) => b,
        Err(e) => return super::usage_error(e),
    };
    let key = match SealKey::read(&args.key) {
        Ok(k) => k,
        Err(e) => return super::usage_error(e),
    };
    match pack_tools::sign::sign(&args.dir, &key, base.registry()) {
        Err(e) => super::usage_error(e),
        Ok(pack_tools::sign::Signed::Refused(findings)) => {
            let reports = findings.into_reports();
            super::io::print(&render(&reports, Format::Human));
            eprintln!(
                "error: {} not signed: the pack has errors",
                args.dir.display()
            );
            ExitCode::from(1)
        }
        Ok(pack_tools::sign::Signed::Written {
            path,
            label,
            digest,
            signer,
        }) => {
            eprintln!(
                "wrote {} for {label} ({digest}), signed by {signer}",
                path.display()
            );
            ExitCode::SUCCESS
        }
    }
}

fn show(args: ShowArgs) -> ExitCode {
    let base = match base(&args.registry) {
        Ok(b) => b,
        Err(e) => return super::usage_error(e),
    };
    if let Err(e) = pack_tools::require_pack_dir(&args.dir) {
        return super::usage_error(e);
    }
    match primgraph::pack::manifest::load(&args.dir, base.registry()) {
        Ok(pack) => {
            let required = pack_tools::show::required_packs(&pack, base, &args.pack_path.pack);
            let text = match args.format {
                ShowFormat::Human => pack_tools::show::to_text(&pack, &required),
                ShowFormat::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(&pack_tools::show::to_json(&pack, &required))
                        .unwrap_or_default()
                ),
            };
            super::io::print(&text);
            ExitCode::SUCCESS
        }
        Err(errors) => {
            let mut findings = Findings::new();
            findings.extend_errors(errors);
            let reports = findings.into_reports();
            let format = match args.format {
                ShowFormat::Human => Format::Human,
                ShowFormat::Json => Format::Json,
            };
            super::io::print(&render(&reports, format));
            ExitCode::from(1)
        }
    }
}

fn lint(args: LintArgs) -> ExitCode {
    let base = match base(&args.registry) {
        Ok(b) => b,
        Err(e) => return super::usage_error(e),
    };
    let trusted = match args.trust.signers() {
        Ok(t) => t,
        Err(e) => return super::usage_error(e),
    };
    let options = pack_tools::lint::LintOptions {
        pack_path: args.pack_path.pack.clone(),
        trusted,
    };
    let rules_base = base.clone();
    match pack_tools::lint::lint(&args.dir, base, &options) {
        Err(e) => super::usage_error(e),
        Ok(linted) => {
            let reports = linted.findings.into_reports();
            let packs = PackRules {
                dir: &args.dir,
                pack_path: &args.pack_path.pack,
                base: &rules_base,
            };
            super::io::print(&render_with(&reports, args.format, Some(packs)));
            exit_for(&reports)
        }
    }
}

fn test(args: TestArgs) -> ExitCode {
    let base = match base(&args.registry) {
        Ok(b) => b,
        Err(e) => return super::usage_error(e),
    };
    let trusted = match args.trust.signers() {
        Ok(t) => t,
        Err(e) => return super::usage_error(e),
    };
    let options = pack_tools::fixtures::TestOptions {
        pack_path: args.pack_path.pack.clone(),
        trusted,
    };
    let rules_base = base.clone();
    let tested = match pack_tools::fixtures::test(&args.dir, base, &options) {
        Ok(t) => t,
        Err(e) => return super::usage_error(e),
    };
    let reports = tested.findings.into_reports();
    let runs = &tested.runs;
    let passed = runs.iter().filter(|r| r.ok).count();
    let text = match args.format {
        Format::Json => {
            let mut doc = diagnostic::json::to_value(&reports);
            if let Some(o) = doc.as_object_mut() {
                o.insert(
                    "runs".into(),
                    runs.iter().map(|r| r.to_json()).collect::<Vec<_>>().into(),
                );
                o.insert(
                    "tests".into(),
                    serde_json::json!({"graphs": tested.graphs, "runs": runs.len(), "passed": passed}),
                );
            }
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
        Format::Human => {
            let mut s = render(&reports, Format::Human);
            for r in runs {
                let first = match (&r.first_code, r.seq) {
                    (Some(c), Some(seq)) => format!(" ({c} at seq {seq})"),
                    _ => String::new(),
                };
                s.push_str(&format!(
                    "{} fixture {} run {}: {}{first}\n",
                    if r.ok { "ok  " } else { "FAIL" },
                    r.fixture,
                    r.run,
                    r.verdict.as_str()
                ));
            }
            s.push_str(&format!(
                "pack test: {} fixture graph(s), {passed} of {} run(s) as expected\n",
                tested.graphs,
                runs.len()
            ));
            s
        }
        other => {
            let packs = PackRules {
                dir: &args.dir,
                pack_path: &args.pack_path.pack,
                base: &rules_base,
            };
            render_with(&reports, other, Some(packs))
        }
    };
    super::io::print(&text);
    exit_for(&reports)
}

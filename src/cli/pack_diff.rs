//! `primgraph pack diff OLD NEW [--graphs PATH…] [--format human|json|sarif|markdown|github]
//! [--deny-warnings] [--registry FILE] [--pack DIR]…` (SPEC §9.6): two versions of a pack (its
//! folders) compared — the §6.1 comparison of its primitives, its fragments' interfaces
//! (P860/P861), its rules (P862), the required bump against NEW's `version` (V718) and, with
//! `--graphs`, the graphs NEW breaks (V719: each graph validated with OLD's folder first on the
//! pack path, then NEW's; the rest of the pack path — `--pack`, `packs` of primgraph.toml —
//! serves the packs they require). Prints every output format of `registry diff`. Exit 0: no
//! errors (warnings allowed unless `--deny-warnings`); 1: findings that fail; 2: a side is not a
//! pack that loads — strictly, and composed with the packs it requires on the pack path (its
//! findings printed first) —, the two sides are different packs (their `pack` names differ), or
//! the command could not run.

use super::registry::DiffFormat;
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::pack::{Pack, manifest};
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Debug, clap::Args)]
pub struct PackDiffArgs {
    /// The old version: a pack folder (with `pack.json`).
    pub old: PathBuf,
    /// The new version: a pack folder.
    pub new: PathBuf,
    /// Graph files or folders (recursively `*.graph.json`) to validate with OLD and with NEW
    /// (V719 for each graph NEW breaks).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub graphs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: DiffFormat,
    /// Treat warnings as errors for the exit code.
    #[arg(long)]
    pub deny_warnings: bool,
    /// The base registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

/// One side: loaded strictly, then composed with the packs it requires (its own folder first
/// on the pack path, then `rest`), as any graph declaring it would load it — a pack whose
/// failure modes, say, name nothing (P808 at composition) is as unusable as one that does not
/// parse.
fn load(
    dir: &Path,
    role: &str,
    base: &'static Registry,
    rest: &[PathBuf],
    format: DiffFormat,
) -> Result<Pack, ExitCode> {
    if !dir.join(primgraph::pack::MANIFEST).is_file() {
        return Err(super::usage_error(format!(
            "{role}: {} is not a pack folder (no {})",
            dir.display(),
            primgraph::pack::MANIFEST
        )));
    }
    let refused = |reports: &[primgraph::diagnostic::FileReport]| {
        // The findings themselves, in the requested shape, then why nothing was diffed.
        match format {
            DiffFormat::Json => print!("{}", primgraph::diagnostic::json::render(reports)),
            _ => print!("{}", primgraph::diagnostic::human::render(reports, false)),
        }
        super::usage_error(format!(
            "{role} {} does not load: a diff of a broken pack means nothing",
            dir.display()
        ))
    };
    let pack = manifest::load(dir, base).map_err(|errors| refused(&errors.reports))?;
    if let Err(located) =
        primgraph::pack_tools::compose_with_requirements(&pack, base_of(base), rest, Vec::new())
    {
        let mut findings = primgraph::pack_tools::Findings::new();
        findings.extend_located(located, &pack.manifest, Some(&pack.source));
        return Err(refused(&findings.into_reports()));
    }
    Ok(pack)
}

fn base_of(base: &'static Registry) -> Base {
    if std::ptr::eq(base, Registry::builtin()) {
        Base::Builtin
    } else {
        Base::Static(base)
    }
}

pub fn run(args: PackDiffArgs) -> ExitCode {
    let base = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let config = match primgraph::config::Config::discover_from_cwd() {
        Ok(c) => c,
        Err(e) => return super::usage_error(e),
    };
    let rest = args.packs.entries(config.as_ref());
    let old = match load(&args.old, "OLD", base, &rest, args.format) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let new = match load(&args.new, "NEW", base, &rest, args.format) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Two packs of different names share no history: "no change required" would be a reading
    // of nothing.
    if old.name != new.name {
        return super::usage_error(format!(
            "`pack diff` compares two versions of one pack, and OLD {} is pack `{}` while NEW {} \
             is pack `{}`",
            args.old.display(),
            old.name,
            args.new.display(),
            new.name
        ));
    }
    let report = if args.graphs.is_empty() {
        primgraph::versions::pack_diff::diff(&old, &new, base)
    } else {
        let side = |dir: &Path| -> Options {
            let mut entries = vec![dir.to_path_buf()];
            entries.extend(rest.iter().cloned());
            Options {
                packs: Some(Arc::new(Composer::new(
                    base_of(base),
                    PackPath::scan(&entries),
                    ComposerOptions::default(),
                ))),
                ..Options::default()
            }
        };
        let (old_options, new_options) = (side(&args.old), side(&args.new));
        let name = old.name.clone();
        let under_old = |file: &str, bytes: &[u8]| check_source(file, bytes, base, &old_options);
        // Under NEW as if the graph asked for NEW's version (a major bump alone is no finding,
        // as `registry diff --graphs` reads a graph as targeting NEW).
        let under_new = |file: &str, bytes: &[u8]| {
            let bytes = accepting_any(bytes, &name);
            check_source(file, &bytes, base, &new_options)
        };
        primgraph::versions::pack_diff::diff_with_graphs(
            &old,
            &new,
            base,
            Some((&args.graphs, &under_old, &under_new)),
        )
    };
    let report = match report {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    super::registry::print_diff(&report, args.format, args.deny_warnings)
}

/// The graph's bytes with its `packs` range for `name` replaced by `"*"` (on the same line, so
/// every other location is unchanged): NEW is checked as the version the graph asks for.
fn accepting_any(bytes: &[u8], name: &str) -> Vec<u8> {
    let Ok(parsed) = primgraph::json::parse(bytes, &primgraph::json::Limits::default()) else {
        return bytes.to_vec();
    };
    let pointer = primgraph::json::pointer::push("/packs", name);
    match parsed.locate(&pointer) {
        Some(span)
            if parsed
                .value
                .pointer(&pointer)
                .is_some_and(|v| v.is_string()) =>
        {
            let mut out = bytes[..span.start].to_vec();
            out.extend_from_slice(b"\"*\"");
            out.extend_from_slice(&bytes[span.end..]);
            out
        }
        _ => bytes.to_vec(),
    }
}

//! The documentation of the registry-diff codes V701–V720 (SPEC §6.1): one file per code,
//! whose `//!` header is what `primgraph explain V7xx` prints, registered with its severity,
//! title and help in the one code table (`crate::codes`). A code whose severity depends on the
//! direction of the change has its most severe one in the table; the finding carries the
//! severity of its direction. The checks themselves live one concern per file in
//! `versions::registry_diff` and report through these rows.

mod v701;
mod v702;
mod v703;
mod v704;
mod v705;
mod v706;
mod v707;
mod v708;
mod v709;
mod v710;
mod v711;
mod v712;
mod v713;
mod v714;
mod v715;
mod v716;
mod v717;
mod v718;
mod v719;
mod v720;

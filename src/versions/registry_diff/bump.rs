//! Semantic versions of registry ABIs and the bump a diff requires (SPEC §6.1): any error needs a
//! higher major; otherwise a warning, an added primitive or a minor-level info needs a higher
//! minor; otherwise metadata needs a higher patch; no difference needs nothing. V718 fires when
//! NEW's `abi` is not above OLD's by at least that much.

use super::{Draft, Place, Sink};
use crate::codes;
use crate::diagnostic::Severity;
use std::fmt;

/// How much a version must rise. Ordered: `None < Patch < Minor < Major`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    None,
    Patch,
    Minor,
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `MAJOR.MINOR.PATCH` version (the registry's `abi`; no pre-release or build part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    pub fn parse(text: &str) -> Option<Version> {
        let (major, minor, patch) = crate::graph::load::parse_version(text)?;
        Some(Version {
            major,
            minor,
            patch,
        })
    }

    /// How far `self` rises above `old`: `Some(Major)` for a higher major, `Some(Minor)` for
    /// the same major and a higher minor, `Some(Patch)` for the same major and minor and a
    /// higher patch, `Some(None)` when equal, and `None` (no rise at all) when lower.
    pub fn rise_from(self, old: Version) -> Option<Bump> {
        use std::cmp::Ordering::*;
        match (
            self.major.cmp(&old.major),
            self.minor.cmp(&old.minor),
            self.patch.cmp(&old.patch),
        ) {
            (Greater, _, _) => Some(Bump::Major),
            (Equal, Greater, _) => Some(Bump::Minor),
            (Equal, Equal, Greater) => Some(Bump::Patch),
            (Equal, Equal, Equal) => Some(Bump::None),
            _ => None,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The smallest version above `old` that a `bump` allows (`1.4.2` + minor = `1.5.0`).
pub fn next_version(old: Version, bump: Bump) -> Version {
    match bump {
        Bump::None => old,
        Bump::Patch => Version {
            patch: old.patch + 1,
            ..old
        },
        Bump::Minor => Version {
            minor: old.minor + 1,
            patch: 0,
            ..old
        },
        Bump::Major => Version {
            major: old.major + 1,
            minor: 0,
            patch: 0,
        },
    }
}

/// Whether going from `old` to `new` satisfies `required`; `None` when either is not a version.
pub fn satisfies(old: &str, new: &str, required: Bump) -> Option<bool> {
    let (old, new) = (Version::parse(old)?, Version::parse(new)?);
    Some(new.rise_from(old).is_some_and(|rise| rise >= required))
}

/// V718: NEW's `abi` must rise above OLD's by at least `required`. A lower version never
/// satisfies, even with no difference (the ABI does not go backwards).
pub(crate) fn check_rise(sink: &mut Sink, old_abi: &str, new_abi: &str, required: Bump) {
    let (old, new) = (Version::parse(old_abi), Version::parse(new_abi));
    let message = match (old, new) {
        (Some(old), Some(new)) => match new.rise_from(old) {
            Some(rise) if rise >= required => return,
            Some(rise) => format!(
                "NEW's abi {new} rises by {rise} over OLD's {old}, but the differences require a {required} bump (at least {})",
                next_version(old, required)
            ),
            None => format!("NEW's abi {new} is below OLD's {old}"),
        },
        (None, _) => format!("OLD's abi `{old_abi}` is not a MAJOR.MINOR.PATCH version"),
        (_, None) => format!("NEW's abi `{new_abi}` is not a MAJOR.MINOR.PATCH version"),
    };
    let help = match old {
        Some(old) if required > Bump::None => format!(
            "set NEW's `abi` to {} or higher; graphs target a registry of the same major and a minor at least theirs (G005)",
            next_version(old, required)
        ),
        Some(old) => format!("set NEW's `abi` to {old} or higher"),
        None => "an abi is MAJOR.MINOR.PATCH, e.g. 1.1.0".to_string(),
    };
    sink.push(Draft {
        code: &codes::V718,
        severity: Severity::Error,
        // Derived from the others: it adds nothing to the bump itself.
        bump: Bump::None,
        place: Place::New,
        primitive: None,
        pointer: "/abi".into(),
        message,
        help,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap()
    }

    #[test]
    fn rises_compare_by_the_first_differing_part() {
        assert_eq!(v("2.0.0").rise_from(v("1.9.9")), Some(Bump::Major));
        assert_eq!(v("1.10.0").rise_from(v("1.9.9")), Some(Bump::Minor));
        assert_eq!(v("1.9.10").rise_from(v("1.9.9")), Some(Bump::Patch));
        assert_eq!(v("1.9.9").rise_from(v("1.9.9")), Some(Bump::None));
        assert_eq!(v("1.8.20").rise_from(v("1.9.0")), None);
        assert_eq!(v("0.1.0").rise_from(v("1.0.0")), None);
    }

    #[test]
    fn satisfies_needs_at_least_the_required_rise() {
        assert_eq!(satisfies("1.0.0", "1.1.0", Bump::Minor), Some(true));
        assert_eq!(satisfies("1.0.0", "2.0.0", Bump::Minor), Some(true));
        assert_eq!(satisfies("1.0.0", "1.0.1", Bump::Minor), Some(false));
        assert_eq!(satisfies("1.0.0", "1.0.0", Bump::None), Some(true));
        assert_eq!(satisfies("1.2.0", "1.1.0", Bump::None), Some(false));
        assert_eq!(satisfies("1.0", "1.1.0", Bump::None), None);
    }

    #[test]
    fn next_version_resets_the_lower_parts() {
        assert_eq!(next_version(v("1.4.2"), Bump::Minor), v("1.5.0"));
        assert_eq!(next_version(v("1.4.2"), Bump::Major), v("2.0.0"));
        assert_eq!(next_version(v("1.4.2"), Bump::Patch), v("1.4.3"));
    }
}

//! P808 (error): a reference in a pack to nothing: decision set, error class, schema file, command, fragment file.
//!
//! ## What it checks
//!
//! Every name a pack refers to exists: `{"decision_set": NAME}` in `decision_sets`, a
//! primitive's `commands` in `commands`, each `failure_modes` entry among the registry's error
//! classes, the pack's `error_classes` or a required pack's, a schema `$ref` to a file in the
//! pack, each `fragments` glob matching a file, each `plugins` path an existing file of a
//! primitive of the pack.
//!
//! ## Why it matters
//!
//! A reference to nothing either fails later, far from its cause, or silently means less
//! than it says (a decision set that does not exist closes nothing).
//!
//! ## Example
//!
//! A decision primitive whose `outcomes` name the decision set `yes-no`, which is declared as `yes-or-no`.
//!
//! Fixture `tests/fixtures/packs/p808/pack.json` (linted with `primgraph pack lint`) reports P808 at line 14:
//!
//! ```json
//! "outcomes": {"decision_set": "yes-no"}}
//! ```
//!
//! ## Fix
//!
//! Declare the thing referred to, or fix the name (the message suggests the nearest).
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.

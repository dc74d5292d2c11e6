//! P850 (error): `pack test`: a fixture run's verdict or first divergence differs from its expectation.
//!
//! ## What it checks
//!
//! `primgraph pack test DIR` replays every recorded run of each fixture (`fixtures` in
//! `pack.json`: `{"graph", "runs", "expect"}`) against the fixture graph with the pack loaded,
//! and compares the run with its entry in `expect.json`, `{"RUN": {"verdict": "...",
//! "first_code": "D6xx"?, "seq": N?}}`, keyed by the trace header's `run`. Only the fields an
//! expectation states are compared: `{"verdict": "violated"}` holds for any violation.
//!
//! It fires, one finding per run, for a run whose verdict, first code or seq differs (in
//! `expect.json`, at the run's entry); a run with no expectation (in `pack.json`, at the
//! fixture's `expect`, the help giving the entry to add); an expectation with no run, and a
//! run recorded twice (in `expect.json`); a fixture whose `runs` folder holds no
//! `*.trace.jsonl`, and a fixture graph whose runs cannot be replayed (in `pack.json`).
//!
//! ## Why it matters
//!
//! A pack's fixtures are its regression suite: runs recorded against it, with what replay is
//! expected to say about each. A change to a contract, a rule or a schema that turns a
//! faithful run into a violation — or lets a known violation pass — shows up as a P850 in the
//! pack's CI, before any graph that uses the pack meets it.
//!
//! ## Example
//!
//! `expect.json` says the simulated run `sim-7-000001` is `violated`; it replays `faithful`.
//!
//! Fixture `tests/fixtures/packs/p850/fixtures/expect.json` (tested with `primgraph pack test tests/fixtures/packs/p850`) reports P850 at line 2:
//!
//! ```json
//!   "sim-7-000001": {"verdict": "violated"},
//! ```
//!
//! ## Fix
//!
//! When the new outcome is the intended one, update `expect.json` (the message says what
//! replay now reports); otherwise fix the pack change that altered it, or record the run again.
//!
//! ## Implements
//!
//! SPEC §9.5 (evaluation fixtures and `pack test`); the code is listed in §9's table.

//! P827 placeholder

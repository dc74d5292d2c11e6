//! P824 placeholder

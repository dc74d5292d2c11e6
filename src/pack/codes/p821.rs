//! P821 placeholder

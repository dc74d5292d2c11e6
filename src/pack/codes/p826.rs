//! P826 placeholder

//! P825 placeholder

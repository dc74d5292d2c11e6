//! P828 placeholder

//! P823 placeholder

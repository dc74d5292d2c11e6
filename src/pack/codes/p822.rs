//! P822 placeholder

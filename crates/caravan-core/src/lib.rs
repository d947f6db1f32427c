//! The Caravan engine (work in progress).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

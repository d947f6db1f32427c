//! The error of a simulation: bad arguments, or a failure while playing.

/// An error of [`crate::simulate::simulate_spec`] and of the helpers it
/// uses: its message says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// Bad arguments (unknown agent, bad player count, bad configuration,
    /// a seed range past the last seed…): the command's usage error.
    #[error("{0}")]
    Usage(String),
    /// Something went wrong while playing (an engine refused a move…).
    #[error("{0}")]
    Runtime(String),
}

//! [`LabError`]: everything that can go wrong in the lab, with messages that
//! say what was wrong.

/// An error of the lab.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A `--sweep` text that is not `path=values`.
    #[error("sweep `{text}`: {reason}")]
    Sweep {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A JSON path that the configuration does not have.
    #[error("the configuration has no field `{path}` ({known})")]
    Path {
        /// The path as given.
        path: String,
        /// The fields that exist where the path failed.
        known: String,
    },
    /// A configuration of the grid that the engine refuses.
    #[error("invalid configuration at {settings}: {reason}")]
    Config {
        /// The settings of the grid cell.
        settings: String,
        /// The engine's (or the deserializer's) message.
        reason: String,
    },
    /// An agent list that does not fit a configuration.
    #[error("{0}")]
    Agents(String),
    /// A game that failed while playing.
    #[error("a game of seeds {seeds} at {settings}: {reason}")]
    Play {
        /// The seed of the failing game, or the range it is in.
        seeds: String,
        /// The settings of the grid cell.
        settings: String,
        /// The error.
        reason: String,
    },
    /// Results that cannot be merged.
    #[error("cannot merge results: {0}")]
    Merge(String),
    /// Writing the report failed.
    #[error("writing {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The cause.
        reason: String,
    },
}

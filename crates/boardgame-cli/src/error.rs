//! The command's error: a usage error (exit 2), a runtime error (exit 1),
//! or a closed output pipe (exit 0, silently).

/// An error of the command: a usage error (exit 2) or a runtime error (exit 1).
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments found after parsing (unknown agent, bad player count…).
    Usage(String),
    /// Anything that went wrong while running (I/O, a corrupted record…).
    Runtime(String),
    /// The reader of our output went away (`boardgame … | head`): stop quietly.
    BrokenPipe,
}

impl CliError {
    /// The one-line message printed after `error: `.
    pub fn message(&self) -> &str {
        match self {
            CliError::Usage(m) | CliError::Runtime(m) => m,
            CliError::BrokenPipe => "broken pipe",
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError::BrokenPipe;
        }
        CliError::Runtime(e.to_string())
    }
}

impl From<boardgame_sim::SimError> for CliError {
    fn from(e: boardgame_sim::SimError) -> Self {
        match e {
            boardgame_sim::SimError::Usage(m) => CliError::Usage(m),
            boardgame_sim::SimError::Runtime(m) => CliError::Runtime(m),
        }
    }
}

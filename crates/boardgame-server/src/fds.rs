//! File descriptors: every connection holds one, so the connections the
//! server admits are bounded by the descriptors the process may open. At
//! start the soft limit (`RLIMIT_NOFILE`) is raised to the hard one, and
//! `max_connections` is lowered, with a warning, when what is left after
//! a headroom for everything else (listener, data files, the runtime, the
//! standard streams) would not hold it — so that a full server refuses
//! connections with its `503` instead of failing to accept (`EMFILE`).

use crate::config::ServerConfig;

/// The descriptors kept for what is not a connection, out of `limit`: 64,
/// and an eighth of the limit (the data directory's files, the runtime's,
/// the connections refused at once, which hold one for a moment).
pub(crate) fn headroom(limit: u64) -> u64 {
    64 + limit / 8
}

/// The most connections a limit of `limit` open descriptors allows, when
/// `wanted` are asked for (`None`: no limit).
pub(crate) fn connections_within(limit: Option<u64>, wanted: usize) -> usize {
    match limit {
        None => wanted,
        Some(n) => {
            let room = usize::try_from(n.saturating_sub(headroom(n))).unwrap_or(usize::MAX);
            wanted.min(room).max(1)
        }
    }
}

/// Raises the soft limit of open descriptors to the hard one; the soft
/// limit now in force (`None`: unlimited).
#[cfg(unix)]
fn raise_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    if now.current != now.maximum
        && let Err(e) = setrlimit(Resource::Nofile, Rlimit { current: now.maximum, maximum: now.maximum })
    {
        eprintln!("could not raise the open-file limit to the hard limit ({:?}): {e}", now.maximum);
    }
    getrlimit(Resource::Nofile).current
}

/// Elsewhere the limit is not read.
#[cfg(not(unix))]
fn raise_limit() -> Option<u64> {
    None
}

/// Raises the descriptor limit and fits `config.max_connections` under it.
pub(crate) fn fit(config: &mut ServerConfig) {
    let limit = raise_limit();
    let most = connections_within(limit, config.max_connections);
    if most < config.max_connections {
        eprintln!(
            "warning: max_connections lowered from {} to {most}: the process may open {} files (RLIMIT_NOFILE), and {} are kept for the rest",
            config.max_connections,
            limit.unwrap_or(0),
            headroom(limit.unwrap_or(0)),
        );
        config.max_connections = most;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_stay_below_the_descriptors() {
        // The case: 1024 descriptors could not hold 1024 connections.
        assert_eq!(connections_within(Some(1024), 1024), 1024 - 64 - 128);
        assert_eq!(connections_within(Some(256), 1024), 256 - 64 - 32);
        // Enough descriptors: the configured cap stands.
        assert_eq!(connections_within(Some(1 << 20), 1024), 1024);
        assert_eq!(connections_within(None, 1024), 1024);
        // Almost none: still one, never zero (the config stays valid).
        assert_eq!(connections_within(Some(10), 1024), 1);
        for limit in [100u64, 1000, 4096, 65_536] {
            let n = connections_within(Some(limit), usize::MAX) as u64;
            assert!(n + headroom(limit) <= limit, "{limit}");
        }
    }

    #[test]
    fn fitting_lowers_only_what_does_not_fit() {
        let mut config = ServerConfig { max_connections: 3, ..ServerConfig::default() };
        fit(&mut config);
        assert_eq!(config.max_connections, 3, "a small cap fits any limit of 67 or more");
    }
}

//! The connection layer under the router: accepting connections within a
//! cap (in all and per client address), hyper's HTTP/1.1 with a deadline on
//! every request's headers, idle-connection expiry, and JSON bodies on the
//! refusals hyper writes itself (malformed requests, headers too large).

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tower_service::Service;

use crate::config::ServerConfig;

/// The largest request head (request line and headers) hyper buffers; a
/// larger one is answered `431`.
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// The most headers a request may have (`431` beyond).
pub(crate) const MAX_HEADERS: usize = 100;

/// A client as the limits count it: an IPv4 address, or the /64 network of
/// an IPv6 address (one host usually holds a whole /64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey(IpAddr);

impl ClientKey {
    pub(crate) fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(_) => ClientKey(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None => {
                    let [a, b, c, d, ..] = v6.segments();
                    ClientKey(IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
                }
            },
        }
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(a) => write!(f, "{a}"),
            IpAddr::V6(a) => write!(f, "{a}/64"),
        }
    }
}

/// The client of a request, when the server knows it (its own accept loop
/// records it; an embedding app may give `ConnectInfo<SocketAddr>`).
pub(crate) struct Client(pub(crate) Option<ClientKey>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let key = parts
            .extensions
            .get::<ClientKey>()
            .copied()
            .or_else(|| parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| ClientKey::of(c.0.ip())));
        Ok(Client(key))
    }
}

/// Counts held per client, each given back when its [`ClientSlot`] drops.
pub(crate) struct PerClient {
    counts: Mutex<HashMap<ClientKey, usize>>,
    limit: usize,
}

/// One unit of a [`PerClient`] count.
pub(crate) struct ClientSlot {
    owner: Arc<PerClient>,
    key: ClientKey,
}

impl PerClient {
    pub(crate) fn new(limit: usize) -> Arc<PerClient> {
        Arc::new(PerClient { counts: Mutex::new(HashMap::new()), limit })
    }

    /// One more for `key`, unless it holds the limit already.
    pub(crate) fn try_take(self: &Arc<Self>, key: ClientKey) -> Option<ClientSlot> {
        let mut counts = self.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = counts.entry(key).or_insert(0);
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(ClientSlot { owner: self.clone(), key })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut counts = self.owner.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// A whole HTTP/1.1 response with a JSON error body, for the refusals
/// written below the router.
pub(crate) fn raw_error(status: u16, reason: &str, code: &str, message: &str, retry_after: Option<u64>) -> Vec<u8> {
    let body = serde_json::json!({ "error": message, "code": code }).to_string();
    let retry = retry_after.map(|s| format!("retry-after: {s}\r\n")).unwrap_or_default();
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{retry}connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The JSON answer replacing an empty refusal hyper writes on its own, if
/// `head` is one.
fn replace_canned(head: &[u8]) -> Option<Vec<u8>> {
    let rest = head.strip_prefix(b"HTTP/1.1 ").or_else(|| head.strip_prefix(b"HTTP/1.0 "))?;
    // The status first: every other answer (each view, with its whole log)
    // passes without the buffer being copied and scanned.
    let (status, reason, code, message) = match rest.get(..3)? {
        b"400" => (400, "Bad Request", "bad_request", "the request is not valid HTTP/1.1".to_string()),
        b"414" => (414, "URI Too Long", "uri_too_long", format!("the request line is above {MAX_HEAD} bytes")),
        b"431" => (
            431,
            "Request Header Fields Too Large",
            "headers_too_large",
            format!("the headers are above {MAX_HEAD} bytes or {MAX_HEADERS} fields"),
        ),
        _ => return None,
    };
    let lower = head.to_ascii_lowercase();
    if !lower.windows(19).any(|w| w == b"content-length: 0\r\n") {
        return None;
    }
    Some(raw_error(status, reason, code, &message, None))
}

/// A connection with an idle deadline (nothing read or written for that
/// long: the connection fails with `TimedOut` and hyper drops it), and
/// hyper's own empty refusals rewritten as JSON.
pub(crate) struct Guarded {
    inner: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
    /// A replacement answer being written: bytes and how many are out.
    pending: Option<(Vec<u8>, usize)>,
}

impl Guarded {
    fn new(inner: TcpStream, idle: Duration) -> Guarded {
        Guarded { inner, idle, deadline: Box::pin(tokio::time::sleep(idle)), pending: None }
    }

    fn progress(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }

    /// Writes out the replacement answer, if any.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some((bytes, done)) = &mut self.pending {
            let Some(rest) = bytes.get(*done..).filter(|r| !r.is_empty()) else {
                self.pending = None;
                break;
            };
            match Pin::new(&mut self.inner).poll_write(cx, rest) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *done += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    fn timed_out() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::TimedOut, "idle connection")
    }
}

impl AsyncRead for Guarded {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                this.progress();
                Poll::Ready(r)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(Guarded::timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending if this.expired(cx) => return Poll::Ready(Err(Guarded::timed_out())),
            Poll::Pending => return Poll::Pending,
        }
        if let Some(replacement) = replace_canned(buf) {
            this.pending = Some((replacement, 0));
            this.progress();
            return Poll::Ready(Ok(buf.len()));
        }
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => {
                this.progress();
                Poll::Ready(r)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(Guarded::timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.inner).poll_flush(cx),
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(Guarded::timed_out())),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match this.poll_pending(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.inner).poll_shutdown(cx),
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(Guarded::timed_out())),
            other => other,
        }
    }
}

/// Says no to a connection above a cap, without waiting for it: the answer
/// is written only if the socket takes it at once.
fn refuse(stream: TcpStream, code: &str, message: &str) {
    let _ = stream.try_write(&raw_error(503, "Service Unavailable", code, message, Some(1)));
}

/// Accepts connections on `listener` and serves `router` on them until
/// `shutdown` completes; then lets the requests in flight finish (for at
/// most `config.header_timeout`).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    config: &ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let total = Arc::new(Semaphore::new(config.max_connections));
    let per_client = PerClient::new(config.max_connections_per_client);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(MAX_HEAD)
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS);
    let idle = config.idle_connection_timeout;
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it
                    // was accepted: wait a little rather than spin.
                    eprintln!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let key = ClientKey::of(peer.ip());
        let Ok(permit) = total.clone().try_acquire_owned() else {
            refuse(
                stream,
                "too_many_connections",
                &format!("the server holds its maximum of {} connections; try again", config.max_connections),
            );
            continue;
        };
        let Some(slot) = per_client.try_take(key) else {
            refuse(
                stream,
                "too_many_connections",
                &format!("{key} holds its maximum of {} connections", config.max_connections_per_client),
            );
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Guarded::new(stream, idle));
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(key);
            let mut router = router.clone();
            async move { router.call(req).await }
        });
        let connection = graceful.watch(builder.serve_connection(io, service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(10), graceful.shutdown()).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_refusals_become_json_and_others_pass() {
        let r = replace_canned(b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n")
            .unwrap();
        let text = String::from_utf8(r).unwrap();
        assert!(text.starts_with("HTTP/1.1 431 "));
        let body: serde_json::Value = serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(body["code"], "headers_too_large");
        assert!(replace_canned(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(replace_canned(b"HTTP/1.1 431 X\r\ncontent-length: 40\r\n\r\n{...}").is_none(), "ours have bodies");
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let a = ClientKey::of("2001:db8:1:2:3:4:5:6".parse().unwrap());
        let b = ClientKey::of("2001:db8:1:2:ffff::1".parse().unwrap());
        let c = ClientKey::of("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(ClientKey::of("::ffff:10.0.0.1".parse().unwrap()), ClientKey::of("10.0.0.1".parse().unwrap()));
        let limit = PerClient::new(2);
        let one = limit.try_take(a).unwrap();
        let _two = limit.try_take(b).unwrap();
        assert!(limit.try_take(a).is_none());
        assert!(limit.try_take(c).is_some());
        drop(one);
        assert!(limit.try_take(a).is_some());
    }
}

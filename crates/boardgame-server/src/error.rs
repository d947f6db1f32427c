//! [`ApiError`]: every refusal as a status, a stable code and a message,
//! answered as JSON.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to a client: a status, a stable code and a message.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    /// Seconds to wait before trying again (`Retry-After`).
    retry_after: Option<u64>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: String) -> Self {
        ApiError { status, code, message, retry_after: None }
    }
    /// The same refusal with a `Retry-After` of `seconds`.
    pub(crate) fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }
    pub(crate) fn unprocessable(code: &'static str, message: String) -> Self {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }
    pub(crate) fn conflict(code: &'static str, message: String) -> Self {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }
    pub(crate) fn internal(message: String) -> Self {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
    pub(crate) fn entropy(e: getrandom::Error) -> Self {
        ApiError::internal(format!("the operating system's random generator failed: {e}"))
    }
    pub(crate) fn bad_token() -> Self {
        ApiError::new(StatusCode::FORBIDDEN, "bad_token", "this token holds no seat at this table".into())
    }
    pub(crate) fn no_token() -> Self {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "no_token",
            "acting needs the seat's token: `Authorization: Bearer <token>`".into(),
        )
    }
    pub(crate) fn set_aside(id: &str, why: &str) -> Self {
        ApiError::new(
            StatusCode::GONE,
            "set_aside",
            format!(
                "table `{id}` was set aside and is not served: {why}. Its rows are kept; the server's operator can \
                 export its record up to its last verified step (docs/serve.md, \"Operating it\")"
            ),
        )
    }
    pub(crate) fn unknown_table(id: &str) -> Self {
        let shown: String = id.chars().take(40).collect();
        ApiError::new(StatusCode::NOT_FOUND, "unknown_table", format!("no table `{shown}` (it may have expired)"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, Json(json!({ "error": self.message, "code": self.code }))).into_response();
        if self.status == StatusCode::UNAUTHORIZED
            && let Ok(v) = "Bearer".parse()
        {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        if let Some(s) = self.retry_after {
            r.headers_mut().insert(header::RETRY_AFTER, s.into());
        }
        r
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "not_json",
            _ => "bad_body",
        };
        ApiError::new(status, code, r.body_text())
    }
}

/// A path parameter, refused as JSON when it is not valid (not UTF-8).
pub(crate) struct Param(pub(crate) String);

impl<S: Send + Sync> FromRequestParts<S> for Param {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(p)) => Ok(Param(p)),
            Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_path", e.body_text())),
        }
    }
}

//! The page: HTML, CSS and plain JavaScript embedded in the binary (no
//! build step). Every path serves the same page; its script picks the
//! lobby, a table or the replay viewer from the address.

use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");

const FILES: &[(&str, &str, &str)] = &[
    ("app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("i18n.js", "text/javascript; charset=utf-8", include_str!("../assets/i18n.js")),
    ("caravan.js", "text/javascript; charset=utf-8", include_str!("../assets/caravan.js")),
    ("korovan.js", "text/javascript; charset=utf-8", include_str!("../assets/korovan.js")),
    ("style.css", "text/css; charset=utf-8", include_str!("../assets/style.css")),
    ("favicon.svg", "image/svg+xml", include_str!("../assets/favicon.svg")),
];

/// The page.
pub(crate) async fn page() -> Html<&'static str> {
    Html(INDEX)
}

/// One embedded file.
pub(crate) async fn asset(crate::error::Param(file): crate::error::Param) -> Response {
    match FILES.iter().find(|(name, _, _)| *name == file) {
        Some((_, mime, body)) => {
            ([(header::CONTENT_TYPE, *mime), (header::CACHE_CONTROL, "no-cache")], *body).into_response()
        }
        None => crate::error::ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such file".into()).into_response(),
    }
}

//! The connection as the HTTP layer writes it, with problem bodies for the HTTP layer's own
//! errors.
//!
//! actix-http's HTTP/1 dispatcher answers a request it cannot parse (400), a request head over
//! its buffer (431) and a client too slow to send its head (408) itself, before any application
//! code runs, with an empty body. This wrapper around each accepted TCP stream recognises those
//! three responses on the wire — their status line and `content-length: 0`; every response the
//! application produces for these statuses is already a problem document with a body — and
//! writes the same response with an RFC 9457 problem body instead.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::error::{ApiError, ErrorCode, PROBLEM_JSON};

/// A stream whose dispatcher-generated error responses get problem bodies.
#[derive(Debug)]
pub struct ProblemWire<T> {
    io: T,
    /// A rewritten response still being written, how much of it is out, and how many bytes of
    /// the caller's buffer it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<T> ProblemWire<T> {
    pub fn new(io: T) -> ProblemWire<T> {
        ProblemWire { io, pending: None }
    }
}

/// The dispatcher's own error responses: status line → code and detail.
const HTTP_LAYER_ERRORS: &[(&[u8], ErrorCode, &str)] = &[
    (
        b"HTTP/1.1 400 Bad Request\r\n",
        ErrorCode::MalformedRequest,
        "the request head cannot be parsed (request line, header syntax or framing)",
    ),
    (
        b"HTTP/1.1 408 Request Timeout\r\n",
        ErrorCode::RequestTimeout,
        "the request head was not received in time (FABRIC_TCO_REQUEST_TIMEOUT_MS)",
    ),
    (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
        ErrorCode::HeadersTooLarge,
        "the request head is larger than the service accepts",
    ),
];

/// The same response with a problem body, if `buf` is one of the dispatcher's bodiless errors.
pub fn with_problem_body(buf: &[u8]) -> Option<Vec<u8>> {
    let (status, code, detail) = HTTP_LAYER_ERRORS
        .iter()
        .find(|(s, ..)| buf.starts_with(s))?;
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&buf[status.len()..end]).ok()?;
    let mut lines: Vec<&str> = head.split("\r\n").filter(|l| !l.is_empty()).collect();
    let empty = lines
        .iter()
        .position(|l| l.eq_ignore_ascii_case("content-length: 0"))?;
    lines.remove(empty);
    let body = serde_json::to_vec(ApiError::new(*code, *detail).problem()).ok()?;
    let mut out = Vec::with_capacity(buf.len() + body.len() + 96);
    out.extend_from_slice(status);
    out.extend_from_slice(format!("content-type: {PROBLEM_JSON}\r\n").as_bytes());
    out.extend_from_slice(b"cache-control: no-store\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&body);
    out.extend_from_slice(&buf[end + 4..]);
    Some(out)
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemWire<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemWire<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none()
            && let Some(out) = with_problem_body(buf)
        {
            this.pending = Some((out, 0, buf.len()));
        }
        if let Some((out, sent, stands_for)) = &mut this.pending {
            while *sent < out.len() {
                match Pin::new(&mut this.io).poll_write(cx, &out[*sent..]) {
                    Poll::Ready(Ok(0)) => {
                        return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                    }
                    Poll::Ready(Ok(n)) => *sent += n,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            let n = *stands_for;
            this.pending = None;
            return Poll::Ready(Ok(n));
        }
        Pin::new(&mut this.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dispatchers_bodiless_errors_get_problem_bodies() {
        let raw = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let out = with_problem_body(raw).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{text}");
        assert!(text.contains("content-type: application/problem+json\r\n"));
        assert!(text.contains("connection: close\r\n"));
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or_default();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let p: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        assert_eq!(p["status"], 400);
        assert_eq!(p["code"], "malformed_request");
        // An application response (it has a body) and other statuses pass untouched.
        assert!(
            with_problem_body(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{}")
                .is_none()
        );
        assert!(with_problem_body(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}

//! The connection as the HTTP layer writes it, with problem bodies for the HTTP layer's own
//! errors.
//!
//! actix-http's HTTP/1 dispatcher answers a request it cannot parse (400), a request head over
//! its buffer (431) and a client too slow to send its head (408) itself, before any application
//! code runs, with an empty body. This wrapper around each accepted TCP stream recognises those
//! three responses on the wire — their status line and `content-length: 0`; every response the
//! application produces for these statuses is already a problem document with a body — and
//! writes the same response with an RFC 9457 problem body instead.
//!
//! It also closes a connection whose client takes none of the answer for a stall limit
//! (`FABRIC_TCO_WRITE_STALL_SECS`): nothing else bounds how long an unread answer is held, and a client
//! that sends a 150-byte sweep request and never reads kept ~30 MB each (audit 28: 30 such
//! connections took the process from 364 MB to 1.26 GB, still held after the deadline).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::error::{ApiError, ErrorCode, PROBLEM_JSON};

/// A stream whose dispatcher-generated error responses get problem bodies.
#[derive(Debug)]
pub struct ProblemWire<T> {
    io: T,
    /// A rewritten response still being written, how much of it is out, and how many bytes of
    /// the caller's buffer it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
    /// Bytes of the request line read so far, whether it is still being read (only a
    /// request's first line is measured: a body without line feeds is no request line), and
    /// whether it was longer than a URI may be: the dispatcher answers such a request line
    /// with a bare 400 ("uri too long" in its log), which is then written as the 414 it is.
    line: usize,
    in_request_line: bool,
    long_line: bool,
    /// How long a write may wait for the client to take bytes, and since when it has.
    stall_limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// The longest URI the HTTP layer parses (the `http` crate's limit), bytes.
const MAX_URI_BYTES: usize = 65_534;

impl<T> ProblemWire<T> {
    /// `stall_limit`: a connection whose client takes no byte of an answer for that long is
    /// closed (its answer freed).
    pub fn new(io: T, stall_limit: Duration) -> ProblemWire<T> {
        ProblemWire {
            io,
            pending: None,
            line: 0,
            in_request_line: true,
            long_line: false,
            stall_limit,
            stalled: None,
        }
    }

    /// Notes the bytes just read: the request line's length so far, until its line feed.
    fn saw(&mut self, read: &[u8]) {
        if !self.in_request_line {
            return;
        }
        let (segment, ended) = match read.iter().position(|&b| b == b'\n') {
            Some(end) => (&read[..end], true),
            None => (read, false),
        };
        self.line = self.line.saturating_add(segment.len());
        if self.line > MAX_URI_BYTES {
            self.long_line = true;
        }
        if ended {
            self.in_request_line = false;
        }
    }
}

/// `polled`, a write or flush: progress ends a stall; a wait starts one (its timer wakes the
/// connection's task, whose dispatcher writes again); a wait past `limit` is an error, on
/// which the dispatcher drops the connection and its answer.
fn watch<R>(
    stalled: &mut Option<Pin<Box<tokio::time::Sleep>>>,
    limit: Duration,
    cx: &mut Context<'_>,
    polled: Poll<io::Result<R>>,
) -> Poll<io::Result<R>> {
    if polled.is_ready() {
        *stalled = None;
        return polled;
    }
    let timer = stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
    match timer.as_mut().poll(cx) {
        Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the client took none of the answer for {} s",
                limit.as_secs_f64()
            ),
        ))),
        Poll::Pending => Poll::Pending,
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

/// The dispatcher's 400 for a request line longer than [`MAX_URI_BYTES`], as the 414 it is.
const URI_TOO_LONG: (&[u8], ErrorCode, &str) = (
    b"HTTP/1.1 414 URI Too Long\r\n",
    ErrorCode::UriTooLong,
    "the request line is longer than the service reads (65,534 bytes); query strings are limited to 8 KiB",
);

/// The same response with a problem body, if `buf` is one of the dispatcher's bodiless errors
/// (`long_line`: a request line over [`MAX_URI_BYTES`] was read, so its 400 is a 414).
pub fn with_problem_body(buf: &[u8], long_line: bool) -> Option<Vec<u8>> {
    let (matched, code, detail) = HTTP_LAYER_ERRORS
        .iter()
        .find(|(s, ..)| buf.starts_with(s))?;
    let (status, code, detail) = if long_line && *code == ErrorCode::MalformedRequest {
        (URI_TOO_LONG.0, &URI_TOO_LONG.1, &URI_TOO_LONG.2)
    } else {
        (*matched, code, detail)
    };
    let skip = matched.len();
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&buf[skip..end]).ok()?;
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
    for (name, value) in super::middleware::SECURITY_HEADERS {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "content-security-policy: {}\r\n",
            super::middleware::CSP_DEFAULT
        )
        .as_bytes(),
    );
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
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let this = &mut *self;
            this.saw(&buf.filled()[before..]);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemWire<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none() {
            if let Some(out) = with_problem_body(buf, this.long_line) {
                this.pending = Some((out, 0, buf.len()));
            }
            // A response starts: the next request's line is measured afresh.
            if buf.starts_with(b"HTTP/1.1 ") {
                this.long_line = false;
                this.line = 0;
                this.in_request_line = true;
            }
        }
        if let Some((out, sent, stands_for)) = &mut this.pending {
            while *sent < out.len() {
                let polled = Pin::new(&mut this.io).poll_write(cx, &out[*sent..]);
                match watch(&mut this.stalled, this.stall_limit, cx, polled) {
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
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        watch(&mut this.stalled, this.stall_limit, cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_flush(cx);
        watch(&mut this.stalled, this.stall_limit, cx, polled)
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
        let out = with_problem_body(raw, false).unwrap_or_default();
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
            with_problem_body(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{}",
                false
            )
            .is_none()
        );
        assert!(
            with_problem_body(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", false).is_none()
        );
        // After a request line over 65,534 bytes the dispatcher's bare 400 is written as 414.
        let out = with_problem_body(raw, true).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{text}");
        assert!(text.contains("\"code\":\"uri_too_long\""), "{text}");
    }
}

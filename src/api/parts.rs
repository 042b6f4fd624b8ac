//! A response body sent in the parts it was written in — a sweep's rows, encoded on several
//! threads — without joining them into one buffer first (a 10,000-point sweep is ~30 MB).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use bytes::Bytes;

/// Parts of a body, in order, with their total length (sent as `Content-Length`).
#[derive(Debug, Default)]
pub struct Parts {
    parts: VecDeque<Bytes>,
    len: u64,
}

impl Parts {
    /// Appends a part (empty ones are dropped).
    pub fn push(&mut self, part: Vec<u8>) {
        if !part.is_empty() {
            self.len = self.len.saturating_add(part.len() as u64);
            self.parts.push_back(Bytes::from(part));
        }
    }

    /// The whole body's length, bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The parts, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().map(|b| b.as_ref())
    }
}

impl From<Vec<u8>> for Parts {
    fn from(body: Vec<u8>) -> Parts {
        let mut p = Parts::default();
        p.push(body);
        p
    }
}

impl MessageBody for Parts {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.len)
    }

    fn poll_next(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Poll::Ready(self.get_mut().parts.pop_front().map(Ok))
    }
}

/// A body that holds `H` until it is dropped: sent whole, or its connection closed. A
/// sweep's admission slot rides in its answer, so that at most
/// [`super::sheets::sweeps::MAX_CONCURRENT_SWEEPS`] answers are held at once, sending
/// included (audit 28: the slot was given back once encoded, and clients that read nothing
/// kept ~30 MB each without bound).
#[derive(Debug)]
pub struct Held<B, H> {
    body: B,
    _hold: H,
}

impl<B, H> Held<B, H> {
    pub fn new(body: B, hold: H) -> Held<B, H> {
        Held { body, _hold: hold }
    }
}

impl<B: MessageBody + Unpin, H: Unpin> MessageBody for Held<B, H> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body actix sends is the parts in order, with their total length.
    #[actix_web::test]
    async fn the_body_is_the_parts_in_order() {
        let mut p = Parts::from(b"[1".to_vec());
        p.push(Vec::new());
        p.push(b",2".to_vec());
        p.push(b"]".to_vec());
        assert_eq!(p.len(), 5);
        assert!(matches!(p.size(), BodySize::Sized(5)));
        let bytes = actix_web::body::to_bytes(p).await.expect("body");
        assert_eq!(&bytes[..], b"[1,2]");
        assert!(Parts::default().is_empty());
    }

    /// What a held body holds is given back when the body is dropped, not before.
    #[actix_web::test]
    async fn a_held_body_gives_back_its_hold_when_dropped() {
        let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(1));
        let slot = std::sync::Arc::clone(&slots)
            .try_acquire_owned()
            .expect("a free slot");
        let body = Held::new(Parts::from(b"[1,2]".to_vec()), slot);
        assert!(matches!(body.size(), BodySize::Sized(5)));
        assert_eq!(slots.available_permits(), 0);
        let bytes = actix_web::body::to_bytes(body).await.expect("body");
        assert_eq!(&bytes[..], b"[1,2]");
        assert_eq!(slots.available_permits(), 1);
    }
}

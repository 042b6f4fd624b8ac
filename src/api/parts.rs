//! A response body sent in the parts it was written in — a sweep's rows, encoded on several
//! threads — without joining them into one buffer first (a 10,000-point sweep is ~30 MB).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use bytes::Bytes;

/// KiB of heavy answers (sweeps, analyses) that may wait for their clients at once: 256 MiB,
/// about eight of the largest sweep answers (10,000 points as JSON, ~30 MB) or 25 of the
/// largest CSV. Past it a new heavy request is a 503 busy that says why.
pub const UNSENT_KIB: usize = 256 * 1024;

/// Heavy answers one client address may leave unread at once; past it, its next heavy
/// request is a 503 busy (other addresses are served). Four clients that never read, from one
/// address, then hold two answers, not the whole budget.
pub const MAX_UNSENT_PER_PEER: usize = 2;

/// Heavy answers not yet taken, counted by client address.
#[derive(Debug, Clone, Default)]
pub struct UnsentByPeer(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
);

impl UnsentByPeer {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<std::net::IpAddr, usize>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `peer` may ask another heavy answer: it has fewer than [`MAX_UNSENT_PER_PEER`]
    /// being sent. Answers still computing are not counted (a client that reads takes its
    /// answers at once; compute is bounded by the sweep slots), so a burst of one address may
    /// leave up to the slots' number unread, and then no more.
    pub fn admits(&self, peer: Option<std::net::IpAddr>) -> bool {
        peer.is_none_or(|ip| self.lock().get(&ip).copied().unwrap_or(0) < MAX_UNSENT_PER_PEER)
    }

    /// Counts one answer of `peer` being sent until the returned guard is dropped (the answer
    /// sent or its connection closed).
    pub fn hold(&self, peer: Option<std::net::IpAddr>) -> PeerHold {
        if let Some(ip) = peer {
            *self.lock().entry(ip).or_insert(0) += 1;
        }
        PeerHold {
            by_peer: self.clone(),
            peer,
        }
    }
}

/// One unread answer of a client address (see [`UnsentByPeer::hold`]).
#[derive(Debug)]
pub struct PeerHold {
    by_peer: UnsentByPeer,
    peer: Option<std::net::IpAddr>,
}

impl Drop for PeerHold {
    fn drop(&mut self) {
        if let Some(ip) = self.peer {
            let mut map = self.by_peer.lock();
            if let Some(n) = map.get_mut(&ip) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    map.remove(&ip);
                }
            }
        }
    }
}

/// The KiB an answer of `len` bytes takes of [`UNSENT_KIB`] (at least 1, at most all of it).
pub fn unsent_kib(len: u64) -> u32 {
    let kib = len.div_ceil(1024).max(1);
    u32::try_from(kib.min(UNSENT_KIB as u64)).unwrap_or(u32::MAX)
}

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

/// A body that holds `H` until it is dropped: sent whole, or its connection closed. A heavy
/// answer's share of [`UNSENT_KIB`] rides in it, so the memory of answers that clients have
/// not taken yet is bounded, while the computing slot was given back once the answer was
/// encoded (four clients that never read held every slot for the deadline, and every other
/// sweep and analysis answered 503). A client that takes nothing for the write-stall time
/// (`FABRIC_TCO_WRITE_STALL_SECS`) is cut off (`api::wire`), which drops the body.
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

    /// An address is refused past its unread answers, others are not, and a sent answer
    /// gives its place back.
    #[test]
    fn unread_answers_are_counted_per_address() {
        let by_peer = UnsentByPeer::default();
        let (a, b) = (Some([10, 0, 0, 1].into()), Some([10, 0, 0, 2].into()));
        let held: Vec<PeerHold> = (0..MAX_UNSENT_PER_PEER).map(|_| by_peer.hold(a)).collect();
        assert!(!by_peer.admits(a));
        assert!(by_peer.admits(b));
        assert!(by_peer.admits(None));
        drop(held);
        assert!(by_peer.admits(a));
        assert!(by_peer.lock().is_empty());
    }

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

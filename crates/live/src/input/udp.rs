//! Datagrams: one is one message, no framing. On `coap://` each carries where its
//! answer goes ([`Ack::Coap`]).

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{Ack, Feed, Input, Started};
use crate::counters::Reason;
use crate::endpoint::Endpoint;
use crate::error::LiveError;
use crate::gateway::GatewayConfig;

pub(super) fn start(
    addr: SocketAddr,
    coap: bool,
    config: &GatewayConfig,
    feed: Feed,
    stop: Arc<AtomicBool>,
) -> Result<Started, LiveError> {
    let socket = UdpSocket::bind(addr).map_err(|e| LiveError::io(format!("udp {addr}"), e))?;
    enlarge_receive_buffer(&socket);
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .map_err(|e| LiveError::io("udp", e))?;
    let local = socket.local_addr().map_err(|e| LiveError::io("udp", e))?;
    let bound = if coap {
        Endpoint::Coap(local)
    } else {
        Endpoint::Udp(local)
    };
    let max = config.limits.max_message;
    let t = std::thread::spawn(move || receive(Arc::new(socket), coap, max, feed, &stop));
    Ok(Started {
        bound,
        threads: vec![t],
    })
}

fn receive(socket: Arc<UdpSocket>, answer: bool, max: usize, mut feed: Feed, stop: &AtomicBool) {
    let scheme = if answer { "coap" } else { "udp" };
    let mut buf = vec![0u8; 65_536];
    let mut sources: HashMap<SocketAddr, Arc<str>> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, peer)) = socket.recv_from(&mut buf) else {
            continue;
        };
        if sources.len() > 10_000 {
            sources.clear();
        }
        let source = sources
            .entry(peer)
            .or_insert_with(|| Arc::from(format!("{scheme} {peer}")))
            .clone();
        let input = if n == 0 {
            Input::broken(Reason::Truncated, "empty datagram", source)
        } else if n > max {
            Input::broken(
                Reason::Oversize,
                format!("datagram of {n} bytes, above --max-message {max}"),
                source,
            )
        } else {
            Input::message(buf[..n].to_vec(), source)
        };
        let ack = answer.then(|| Ack::Coap(socket.clone(), peer));
        if !feed.send(input.with_ack(ack)) {
            return;
        }
    }
}

/// Bursts at tens of thousands of datagrams per second overflow Linux's default
/// 208 KiB socket buffer; ask for 16 MiB (forced when privileged, else up to rmem_max).
pub(crate) fn enlarge_receive_buffer(socket: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 16 << 20;
    for opt in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
        // SAFETY: a valid socket fd and a pointer to a c_int of the stated size.
        let rc = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc == 0 {
            return;
        }
    }
}

//! Datagrams: one is one message, no framing. On `coap://` each carries where its
//! answer goes ([`Ack::Coap`]).

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Started;
use crate::config::GatewayConfig;
use crate::counters::Reason;
use crate::endpoint::{Endpoint, enlarge_receive_buffer};
use crate::error::LiveError;
use crate::feed::{Ack, Feed, Input};

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

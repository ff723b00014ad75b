//! The MQTT v5 client over rumqttc (feature `mqtt`): [`Subscriber`] for the gateway,
//! [`Publisher`] for `send`. See the parent module for what each does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Packet, Publish};
use rumqttc::v5::{Client, Connection, Event, MqttOptions};

use super::{MqttUrl, Subscription};
use crate::error::LiveError;

/// Acknowledges delivered messages through the connection's event loop.
pub struct Acks {
    client: Client,
}

/// One delivered message to acknowledge later: its packet id is all PUBACK needs.
pub struct Delivery {
    acks: Arc<Acks>,
    pkid: u16,
    qos: QoS,
}

impl Delivery {
    pub fn ack(self) {
        let mut p = Publish::new("", self.qos, Vec::<u8>::new(), None);
        p.pkid = self.pkid;
        // Fails only once the connection is gone; the broker then redelivers.
        let _ = self.acks.client.ack(&p);
    }
}

/// One message as the gateway's reader hands it on.
pub struct Received {
    pub payload: Vec<u8>,
    pub topic: String,
    pub dup: bool,
    pub delivery: Delivery,
}

fn options(url: &MqttUrl, client_id: &str, session_expiry: u32, clean: bool) -> MqttOptions {
    let mut o = MqttOptions::new(client_id, url.host.clone(), url.port);
    o.set_keep_alive(Duration::from_secs(30));
    o.set_clean_start(clean);
    o.set_session_expiry_interval(Some(session_expiry));
    o.set_max_packet_size(Some(1 << 20));
    o
}

/// A subscribed connection whose reader runs in [`Subscriber::run`].
pub struct Subscriber {
    client: Client,
    conn: Connection,
    filter: String,
    /// A persistent session's messages can arrive before the SUBACK: kept for `run`.
    early: Vec<Publish>,
}

impl Subscriber {
    /// Connects and subscribes, waiting (at most 10 s) until the broker confirms both.
    pub fn connect(url: &MqttUrl, sub: &Subscription) -> Result<Subscriber, LiveError> {
        let persistent = sub.client_id.is_some();
        let id = sub
            .client_id
            .clone()
            .unwrap_or_else(|| format!("ciphermeter-gateway-{}", std::process::id()));
        let expiry = if persistent {
            sub.session_expiry.as_secs().min(u32::MAX as u64) as u32
        } else {
            0
        };
        let mut o = options(url, &id, expiry, !persistent);
        o.set_manual_acks(true);
        o.set_receive_maximum(Some(sub.receive_max));
        // Acks wait in this channel: it must hold a whole receive window.
        let (client, mut conn) = Client::new(o, usize::from(sub.receive_max) * 2 + 64);
        let filter = match &sub.share {
            Some(group) => format!("$share/{group}/{}", url.topic),
            None => url.topic.clone(),
        };
        let end = Instant::now() + Duration::from_secs(10);
        let mut subscribed = false;
        let mut early = Vec::new();
        while !subscribed {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LiveError::Io(format!("{url}: no answer from the broker")));
            }
            match conn.recv_timeout(left) {
                Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                    client
                        .subscribe(filter.clone(), QoS::AtLeastOnce)
                        .map_err(|e| LiveError::Io(format!("{url}: {e}")))?;
                }
                Ok(Ok(Event::Incoming(Packet::SubAck(ack)))) => {
                    if ack.return_codes.iter().any(|c| !is_granted(c)) {
                        return Err(LiveError::Io(format!(
                            "{url}: the broker refused the subscription to {filter}: {:?}",
                            ack.return_codes
                        )));
                    }
                    subscribed = true;
                }
                Ok(Ok(Event::Incoming(Packet::Publish(p)))) => early.push(p),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(LiveError::Io(format!("{url}: {e}"))),
                Err(_) => {}
            }
        }
        Ok(Subscriber {
            client,
            conn,
            filter,
            early,
        })
    }

    /// Hands every message to `deliver` until `stop`; then sends the acknowledgements
    /// already queued and disconnects (the session stays for the next start).
    /// Broken connections are retried; the subscription is renewed on each reconnect.
    pub fn run(mut self, stop: &AtomicBool, mut deliver: impl FnMut(Received) -> bool) {
        let acks = Arc::new(Acks {
            client: self.client.clone(),
        });
        let received = |p: Publish| Received {
            payload: p.payload.to_vec(),
            topic: String::from_utf8_lossy(&p.topic).into_owned(),
            dup: p.dup,
            delivery: Delivery {
                acks: acks.clone(),
                pkid: p.pkid,
                qos: p.qos,
            },
        };
        let mut open = true;
        for p in std::mem::take(&mut self.early) {
            open = open && deliver(received(p));
        }
        while open && !stop.load(Ordering::Relaxed) {
            match self.conn.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(Event::Incoming(Packet::Publish(p)))) => open = deliver(received(p)),
                Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                    let _ = self
                        .client
                        .try_subscribe(self.filter.clone(), QoS::AtLeastOnce);
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    eprintln!("gateway: mqtt: {e}; reconnecting");
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(_) => {}
            }
        }
        let _ = self.client.try_disconnect();
        let end = Instant::now() + Duration::from_secs(2);
        while Instant::now() < end {
            match self.conn.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect))) | Ok(Err(_)) => return,
                _ => {}
            }
        }
    }
}

fn is_granted(code: &rumqttc::v5::mqttbytes::v5::SubscribeReasonCode) -> bool {
    use rumqttc::v5::mqttbytes::v5::SubscribeReasonCode as C;
    matches!(code, C::Success(_))
}

/// Publishes QoS 1 messages and counts the broker's acknowledgements.
pub struct Publisher {
    client: Client,
    topic: String,
    acked: Arc<AtomicU64>,
    failed: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Publisher {
    pub fn connect(url: &MqttUrl) -> Result<Publisher, LiveError> {
        if url.topic.contains(['+', '#']) {
            return Err(LiveError::Usage(format!(
                "{url}: a topic to publish to has no wildcards (+, #)"
            )));
        }
        let id = format!("ciphermeter-send-{}", std::process::id());
        let (client, mut conn) = Client::new(options(url, &id, 0, true), 4096);
        // Wait for the broker to accept us, so a wrong address is a clear error.
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LiveError::Io(format!("{url}: no answer from the broker")));
            }
            match conn.recv_timeout(left) {
                Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => break,
                Ok(Err(e)) => return Err(LiveError::Io(format!("{url}: {e}"))),
                _ => {}
            }
        }
        let acked = Arc::new(AtomicU64::new(0));
        let failed = Arc::new(AtomicBool::new(false));
        let (a, f) = (acked.clone(), failed.clone());
        let reader = std::thread::spawn(move || {
            for event in conn.iter() {
                match event {
                    Ok(Event::Incoming(Packet::PubAck(_))) => {
                        a.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect)) => return,
                    Ok(_) => {}
                    Err(_) => {
                        f.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            }
        });
        Ok(Publisher {
            client,
            topic: url.topic.clone(),
            acked,
            failed,
            reader: Some(reader),
        })
    }

    pub fn publish(&self, payload: Vec<u8>) -> Result<(), LiveError> {
        if self.failed.load(Ordering::Relaxed) {
            return Err(LiveError::Io(
                "the connection to the broker was lost".into(),
            ));
        }
        self.client
            .publish(self.topic.clone(), QoS::AtLeastOnce, false, payload)
            .map_err(|e| LiveError::Io(format!("mqtt publish: {e}")))
    }

    pub fn acked(&self) -> u64 {
        self.acked.load(Ordering::Relaxed)
    }

    /// Waits (at most `wait`) until `sent` messages are acknowledged, then disconnects.
    pub fn finish(mut self, sent: u64, wait: Duration) -> u64 {
        let end = Instant::now() + wait;
        while self.acked() < sent && Instant::now() < end && !self.failed.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.client.disconnect();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.acked()
    }
}

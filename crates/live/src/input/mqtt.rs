//! A broker subscription ([`crate::mqtt::Subscriber`]): each uplink taken out of its
//! envelope, its PUBACK released after the commit.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::Started;
use crate::config::GatewayConfig;
use crate::envelope::Envelope;
use crate::error::LiveError;
use crate::feed::{Ack, Acknowledge, Feed, Input};
use crate::mqtt::{Delivery, MqttUrl, Received, Subscriber};

impl Acknowledge for Delivery {
    fn ack(self: Box<Self>) {
        Delivery::ack(*self);
    }
}

pub(super) fn start(
    url: &MqttUrl,
    config: &GatewayConfig,
    mut feed: Feed,
    stop: Arc<AtomicBool>,
) -> Result<Started, LiveError> {
    let sub = Subscriber::connect(url, &config.mqtt)?;
    let envelope = config.envelope;
    let max = config.limits.max_message;
    let t = std::thread::spawn(move || {
        sub.run(&stop, |r| feed.send(input(r, envelope, max)));
    });
    Ok(Started {
        bound: config.listen.clone(),
        threads: vec![t],
    })
}

/// One MQTT message as the pipeline's input: the sealed message out of its envelope,
/// or the reason it is none. The source names the uplink, so that a redelivery (same
/// uplink id) can be told from a replay (an old message in a new uplink) in the log.
fn input(r: Received, envelope: Envelope, max: usize) -> Input {
    let ack = Some(Ack::After(Box::new(r.delivery)));
    let dup = if r.dup { " dup" } else { "" };
    super::uplink_input(&r.payload, envelope, max, |id| {
        format!("mqtt {} uplink {id}{dup}", r.topic)
    })
    .with_ack(ack)
}

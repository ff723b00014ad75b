//! An AMQP 0-9-1 queue ([`crate::amqp::Consumer`]): competing consumers on one durable
//! queue, each uplink taken out of its envelope, `basic.ack` released after the commit.
//! A worker that dies for good loses nothing: the broker requeues what it had not
//! acknowledged to the others.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::Started;
use crate::amqp::{AmqpUrl, Consumer, Delivery, Received};
use crate::config::GatewayConfig;
use crate::envelope::Envelope;
use crate::error::LiveError;
use crate::feed::{Ack, Acknowledge, Feed, Input};

impl Acknowledge for Delivery {
    fn ack(self: Box<Self>) {
        Delivery::ack(*self);
    }
}

pub(super) fn start(
    url: &AmqpUrl,
    config: &GatewayConfig,
    mut feed: Feed,
    stop: Arc<AtomicBool>,
) -> Result<Started, LiveError> {
    let consumer = Consumer::connect(url, &config.amqp)?;
    let envelope = config.envelope;
    let max = config.limits.max_message;
    let t = std::thread::spawn(move || {
        consumer.run(&stop, |r| feed.send(input(r, envelope, max)));
    });
    Ok(Started {
        bound: config.listen.clone(),
        threads: vec![t],
    })
}

/// The source names the uplink, so that a redelivery (same uplink id) can be told from
/// a replay (an old message in a new uplink) in the log.
fn input(r: Received, envelope: Envelope, max: usize) -> Input {
    let ack = Some(Ack::After(Box::new(r.delivery)));
    let again = if r.redelivered { " redelivered" } else { "" };
    super::uplink_input(&r.payload, envelope, max, |id| {
        format!("amqp {} uplink {id}{again}", r.routing_key)
    })
    .with_ack(ack)
}

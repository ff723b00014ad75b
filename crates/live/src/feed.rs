//! The hand-off between the inputs and the pipeline: what arrived ([`Input`]), how it
//! is acknowledged once committed ([`Ack`]), and the queue a transport puts it on
//! ([`Feed`]). The inputs ([`crate::input`]) put, the pipeline ([`crate::pipeline`])
//! takes; this module imports neither.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::mpsc::SyncSender;

use crate::clock::now_us;
use crate::counters::Reason;
use crate::envelope::FrameCounter;
use crate::framing::Event;
use crate::reassembly::{Carried, Reassembler, Settled};
use crate::verify::{SealedRing, Verified};

/// One thing that arrived: a message to open, or bytes already known to be none.
pub enum Input {
    Message {
        bytes: Vec<u8>,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        /// How a network server numbered the uplink (each uplink, for a
        /// message that came in fragments), when its envelope says.
        counters: Vec<FrameCounter>,
    },
    /// A message the feed opened already (sealed containers: see [`Feed`]).
    Verified {
        verified: Verified,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        counters: Vec<FrameCounter>,
    },
    Broken {
        reason: Reason,
        detail: String,
        source: Arc<str>,
        ack: Option<Ack>,
        counters: Vec<FrameCounter>,
    },
}

impl Input {
    pub fn broken(reason: Reason, detail: impl Into<String>, source: Arc<str>) -> Input {
        Input::Broken {
            reason,
            detail: detail.into(),
            source,
            ack: None,
            counters: Vec::new(),
        }
    }

    pub fn message(bytes: Vec<u8>, source: Arc<str>) -> Input {
        Input::Message {
            bytes,
            arrived_us: now_us(),
            source,
            ack: None,
            counters: Vec::new(),
        }
    }

    pub fn with_ack(mut self, with: Option<Ack>) -> Input {
        match &mut self {
            Input::Message { ack, .. }
            | Input::Verified { ack, .. }
            | Input::Broken { ack, .. } => *ack = with,
        }
        self
    }

    #[cfg(any(feature = "mqtt", feature = "amqp"))]
    pub(crate) fn with_counter(mut self, with: Option<FrameCounter>) -> Input {
        match &mut self {
            Input::Message { counters, .. }
            | Input::Verified { counters, .. }
            | Input::Broken { counters, .. } => *counters = with.into_iter().collect(),
        }
        self
    }

    /// A deframer's event as the pipeline's input.
    pub fn from_event(event: Event, source: Arc<str>) -> Input {
        match event {
            Event::Message(bytes) => Input::message(bytes, source),
            Event::Garbage(n) => Input::broken(
                Reason::Garbage,
                format!("{n} bytes that start no frame"),
                source,
            ),
            Event::Truncated(n) => Input::broken(
                Reason::Truncated,
                format!("partial frame of {n} bytes stopped arriving"),
                source,
            ),
            Event::Oversize(n) => Input::broken(
                Reason::Oversize,
                format!("line of {n} bytes, above --max-message"),
                source,
            ),
        }
    }
}

/// Something a transport does once the message it belongs to is committed (stored, or
/// refused for good): PUBACK, `basic.ack`, an `ack N` line.
pub trait Acknowledge: Send {
    fn ack(self: Box<Self>);
}

/// How a message is acknowledged once its batch is committed.
pub enum Ack {
    /// Released after the commit, in arrival order.
    After(Box<dyn Acknowledge>),
    /// A CoAP request, answered after the commit with what the store decided
    /// ([`crate::verify::oscore`]): the answer depends on the verdict, so the pipeline writes it.
    Coap(Arc<UdpSocket>, SocketAddr),
}

/// Where a transport puts what arrived. Sending blocks while the pipeline is a full
/// queue behind: back-pressure, not loss. `false` once the pipeline has stopped.
///
/// With sealing keys, the feed opens each message on the transport's thread, so that
/// verifying (a third of the work per message) runs beside the pipeline's commits
/// instead of before them. OSCORE keeps its keys in the pipeline: its replay window
/// and answers are decided there, in order.
///
/// A fragment (`seal::fragment`) waits here for the rest of its message
/// ([`Reassembler`]), per device: the envelope's DevEUI and session, else the
/// source (a UDP peer, an MQTT topic). Only a whole message goes on, with every
/// fragment's acknowledgement and frame counter; one given up goes on as
/// `incomplete`, and so does one still in fragments when the inputs stop,
/// unless a broker would redeliver its fragments (see `Drop`).
pub struct Feed {
    tx: SyncSender<Input>,
    ring: Option<SealedRing>,
    fragments: Reassembler<Box<dyn Acknowledge>>,
}

/// The acknowledgements of a message's fragments, released together.
struct AckAll(Vec<Box<dyn Acknowledge>>);

impl Acknowledge for AckAll {
    fn ack(self: Box<Self>) {
        for a in self.0 {
            a.ack();
        }
    }
}

impl Feed {
    pub fn new(tx: SyncSender<Input>, ring: Option<SealedRing>) -> Feed {
        Feed {
            tx,
            ring,
            fragments: Reassembler::default(),
        }
    }

    pub fn send(&mut self, input: Input) -> bool {
        match input {
            Input::Message {
                bytes,
                arrived_us,
                source,
                ack,
                counters,
            } if seal::fragment::is_fragment(&bytes) => {
                self.fragment(&bytes, arrived_us, source, ack, counters)
            }
            input => self.open_and_send(input),
        }
    }

    fn fragment(
        &mut self,
        bytes: &[u8],
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        counters: Vec<FrameCounter>,
    ) -> bool {
        let broken = |detail: &str, ack, counters| Input::Broken {
            reason: Reason::Garbage,
            detail: detail.to_string(),
            source: source.clone(),
            ack,
            counters,
        };
        let fragment = match seal::fragment::parse(bytes) {
            Some(Ok(f)) => f,
            _ => return self.open_and_send(broken("a fragment without a body", ack, counters)),
        };
        let ack = match ack {
            Some(Ack::After(a)) => Some(a),
            None => None,
            // A CoAP request is answered by the pipeline, one request a message.
            Some(coap @ Ack::Coap(..)) => {
                return self.open_and_send(broken(
                    "a fragment in a CoAP request",
                    Some(coap),
                    counters,
                ));
            }
        };
        let device = counters.first().map_or_else(
            || source.to_string(),
            |c| format!("{} {}", c.dev_eui, c.session),
        );
        let carried = Carried {
            ack,
            counter: counters.into_iter().next(),
        };
        for settled in self.fragments.push(&device, fragment, carried) {
            let input = match settled {
                Settled::Whole {
                    bytes,
                    acks,
                    counters,
                } => Input::Message {
                    bytes,
                    arrived_us,
                    source: source.clone(),
                    ack: Some(Ack::After(Box::new(AckAll(acks)))),
                    counters,
                },
                Settled::Incomplete {
                    detail,
                    acks,
                    counters,
                } => Input::Broken {
                    reason: Reason::Incomplete,
                    detail,
                    source: source.clone(),
                    ack: Some(Ack::After(Box::new(AckAll(acks)))),
                    counters,
                },
                Settled::Duplicate { acks, counters } => Input::Broken {
                    reason: Reason::Replay,
                    detail: "a fragment of a message already settled".into(),
                    source: source.clone(),
                    ack: Some(Ack::After(Box::new(AckAll(acks)))),
                    counters,
                },
            };
            if !self.open_and_send(input) {
                return false;
            }
        }
        true
    }

    fn open_and_send(&mut self, input: Input) -> bool {
        let input = match (input, &mut self.ring) {
            (
                Input::Message {
                    bytes,
                    arrived_us,
                    source,
                    ack,
                    counters,
                },
                Some(ring),
            ) => match ring.open(&bytes) {
                Ok(verified) => Input::Verified {
                    verified,
                    arrived_us,
                    source,
                    ack,
                    counters,
                },
                Err((reason, detail)) => Input::Broken {
                    reason,
                    detail,
                    source,
                    ack,
                    counters,
                },
            },
            (input, _) => input,
        };
        self.tx.send(input).is_ok()
    }
}

/// The inputs are stopping, before the pipeline: a message still in fragments
/// that nothing will send again is settled as `incomplete`; one whose
/// fragments a broker would redeliver is left unacknowledged, and said.
impl Drop for Feed {
    fn drop(&mut self) {
        let (given_up, stay) = self.fragments.give_up_unacknowledged();
        for settled in given_up {
            if let Settled::Incomplete {
                detail,
                acks,
                counters,
            } = settled
            {
                let _ = self.tx.send(Input::Broken {
                    reason: Reason::Incomplete,
                    detail: format!("{detail} before the gateway stopped"),
                    source: Arc::from("the gateway's stop"),
                    ack: Some(Ack::After(Box::new(AckAll(acks)))),
                    counters,
                });
            }
        }
        if stay > 0 {
            eprintln!(
                "gateway: {stay} message(s) still in fragments at the stop, neither stored nor \
                 counted; their fragments are not acknowledged, so the broker redelivers them"
            );
        }
    }
}

//! The hand-off between the inputs and the pipeline: what arrived ([`Input`]), how it
//! is acknowledged once committed ([`Ack`]), and the queue a transport puts it on
//! ([`Feed`]). The inputs ([`crate::input`]) put, the pipeline ([`crate::pipeline`])
//! takes; this module imports neither.

use std::net::{SocketAddr, UdpSocket};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};

use crate::clock::now_us;
use crate::counters::Reason;
use crate::envelope::FrameCounter;
use crate::framing::Event;
use crate::verify::{SealedRing, Verified};

/// One thing that arrived: a message to open, or bytes already known to be none.
pub enum Input {
    Message {
        bytes: Vec<u8>,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        /// How a network server numbered the uplink, when its envelope says.
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
/// A fragment (`seal::fragment`) goes on as it came: the pipeline puts it into its
/// message in the store ([`crate::reassembly`]), where the workers sharing it meet,
/// and opens the message it completes with these same keys, inside the commit
/// (so those few are verified in the pipeline, not beside it).
pub struct Feed {
    tx: SyncSender<Input>,
    ring: Option<Arc<Mutex<SealedRing>>>,
}

impl Feed {
    pub fn new(tx: SyncSender<Input>, ring: Option<Arc<Mutex<SealedRing>>>) -> Feed {
        Feed { tx, ring }
    }

    pub fn send(&mut self, input: Input) -> bool {
        let input = match (input, &self.ring) {
            (
                Input::Message {
                    bytes,
                    arrived_us,
                    source,
                    ack,
                    counters,
                },
                Some(ring),
            ) if !seal::fragment::is_fragment(&bytes) => {
                let opened = ring.lock().unwrap_or_else(|e| e.into_inner()).open(&bytes);
                match opened {
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
                }
            }
            (input, _) => input,
        };
        self.tx.send(input).is_ok()
    }
}

//! The gateway's options as a user gives them (`gateway`): which keyring and
//! framing a container takes, the batch and stats limits, and the connection
//! limit's default, turned into a [`GatewayConfig`] and its [`Keyring`].

use std::path::PathBuf;
use std::time::Duration;

use seal::host::container::MessageContainer;
use store::Location;

use crate::amqp::AmqpSubscription;
use crate::{Endpoint, Envelope, Framing, GatewayConfig, Keyring, Limits, LiveError};

/// Everything `gateway` takes; [`GatewayOptions::prepare`] checks it whole.
#[derive(Clone, Debug)]
pub struct GatewayOptions {
    pub listen: String,
    pub key_files: Vec<PathBuf>,
    pub container: MessageContainer,
    /// coap:// with the oscore container: keys come from EDHOC handshakes.
    pub edhoc: bool,
    /// `schc` or `schc:RULES`: OSCORE requests compressed over a serial radio.
    pub compression: Option<String>,
    /// `None`: line for json, len otherwise.
    pub framing: Option<Framing>,
    pub db: Location,
    pub stats_file: Option<PathBuf>,
    pub stats_interval_s: f64,
    pub batch: usize,
    pub batch_ms: u64,
    pub exit_after: Option<u64>,
    pub envelope: Envelope,
    pub amqp: AmqpSubscription,
    pub share: Option<String>,
    pub client_id: Option<String>,
    /// `None`: 4000, or what the hard open-file limit leaves room for.
    pub max_connections: Option<usize>,
    pub idle_timeout_s: u64,
    pub frame_timeout_ms: u64,
    pub max_message: usize,
    pub max_age_s: u64,
    pub fragments: crate::FragmentLimits,
}

impl GatewayOptions {
    /// The gateway's configuration and keys, or why these options cannot run
    /// (a usage error: exit 2). A note for the user (the connection limit
    /// clamped to the open-file limit) goes to `note`.
    pub fn prepare(
        self,
        note: &mut dyn FnMut(&str),
    ) -> Result<(GatewayConfig, Keyring), LiveError> {
        let usage = |why: &str| LiveError::Usage(why.into());
        let listen: Endpoint = self.listen.parse()?;
        if self.edhoc && self.container != MessageContainer::Oscore {
            return Err(usage("--edhoc keys OSCORE: use --container oscore"));
        }
        let interval = self.stats_interval_s;
        if self.batch == 0 || !(interval.is_finite() && interval > 0.0 && interval <= 86_400.0) {
            return Err(usage(
                "--batch must be positive and --stats-interval more than 0 and at most 86400 seconds",
            ));
        }
        let (keyring, framing) = match self.container.sealed() {
            Some(container) => {
                let framing = self.framing.unwrap_or(Framing::for_container(container));
                crate::config::check_framing(framing, container)?;
                (Keyring::load(&self.key_files, container)?, framing)
            }
            // CoAP datagrams need no framing.
            None if self.edhoc => (Keyring::load_edhoc(&self.key_files)?, Framing::Len),
            None => (Keyring::load_oscore(&self.key_files)?, Framing::Len),
        };
        let mut config = GatewayConfig::new(listen, framing, self.db);
        config.batch_max = self.batch;
        config.batch_wait = Duration::from_millis(self.batch_ms);
        config.stats_file = self.stats_file;
        config.stats_interval = Duration::from_secs_f64(interval);
        config.exit_after = self.exit_after;
        config.envelope = self.envelope;
        config.mqtt.share = self.share;
        config.mqtt.client_id = self.client_id;
        config.amqp = self.amqp;
        if let Some(text) = &self.compression {
            let (rules, _) = schc::rules_file::named(text).map_err(LiveError::Usage)?;
            config.schc = Some(std::sync::Arc::new(rules));
        }
        let max_connections = self.max_connections.unwrap_or_else(|| {
            let (n, clamped) = crate::limits::default_max_connections();
            if let Some(why) = clamped {
                note(&why);
            }
            n
        });
        config.limits = Limits {
            max_connections,
            idle_timeout: Duration::from_secs(self.idle_timeout_s),
            frame_timeout: Duration::from_millis(self.frame_timeout_ms),
            max_message: self.max_message,
            max_age: Duration::from_secs(self.max_age_s),
            fragments: self.fragments,
        };
        Ok((config, keyring))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(container: MessageContainer) -> GatewayOptions {
        GatewayOptions {
            listen: "udp://127.0.0.1:0".into(),
            key_files: Vec::new(),
            container,
            edhoc: false,
            compression: None,
            framing: None,
            db: Location::from("unused.sqlite"),
            stats_file: None,
            stats_interval_s: 1.0,
            batch: 4096,
            batch_ms: 20,
            exit_after: None,
            envelope: Envelope::Raw,
            amqp: AmqpSubscription::default(),
            share: None,
            client_id: None,
            max_connections: Some(10),
            idle_timeout_s: 60,
            frame_timeout_ms: 1000,
            max_message: 4096,
            max_age_s: 300,
            fragments: crate::FragmentLimits::default(),
        }
    }

    fn refusal(o: GatewayOptions) -> String {
        match o.prepare(&mut |_| {}) {
            Err(LiveError::Usage(why)) => why,
            Err(e) => panic!("not a usage error: {e}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn edhoc_needs_the_oscore_container_and_the_limits_are_checked_before_any_key() {
        let mut o = options(MessageContainer::Sealed(seal::Container::Json));
        o.edhoc = true;
        assert!(refusal(o).contains("--edhoc keys OSCORE"));
        for (batch, interval) in [(0, 1.0), (1, 0.0), (1, f64::NAN), (1, 86_401.0)] {
            let mut o = options(MessageContainer::Oscore);
            o.key_files = vec!["none.json".into()];
            (o.batch, o.stats_interval_s) = (batch, interval);
            let why = refusal(o);
            assert!(why.contains("--batch must be positive"), "{why}");
        }
        let mut binary = options(MessageContainer::Sealed(seal::Container::Binary));
        binary.framing = Some(Framing::Line);
        assert!(
            refusal(binary).contains("line"),
            "binary messages need len framing"
        );
    }
}

//! What one message costs on a link, as `link` shows it: bytes on air,
//! frames or packets, time on air, duty cycle and whether the last packet
//! waits for a timeout; for a real reading, the plaintext beside the sealed
//! message.

use link::{LinkCost, LinkSpec, Micros};
use serde_json::{Value, json};

use crate::Error;
use crate::data::ms;
use crate::message::{Message, MessageSpec, message_len};

/// The serialized reading and, with a scheme, the sealed one, costed on `spec`.
pub struct MessageCosts {
    pub message: Message,
    pub plain: LinkCost,
    pub sealed: Option<LinkCost>,
}

pub fn cost_message(
    spec: &LinkSpec,
    message: &MessageSpec,
    pad_to_packet: bool,
) -> Result<MessageCosts, Error> {
    let msg = Message::build(message)?;
    let plain = spec
        .cost(message_len(msg.plaintext.len())?, pad_to_packet)
        .map_err(Error::invalid)?;
    let sealed = match &msg.sealed {
        Some(s) => Some(
            spec.cost(message_len(s.bytes.len())?, pad_to_packet)
                .map_err(Error::invalid)?,
        ),
        None => None,
    };
    Ok(MessageCosts {
        message: msg,
        plain,
        sealed,
    })
}

impl MessageCosts {
    pub fn json(&self, spec: &LinkSpec) -> Value {
        let (msg, plain) = (&self.message, &self.plain);
        let mut out = json!({
            "link": spec.name,
            "sample": msg.sample.to_string(),
            "serialization": msg.format.map(|f| f.to_string()),
            "seed": msg.seed,
            "plaintext": cost_json(spec, plain),
        });
        if let (Some(s), Some(c)) = (&msg.sealed, &self.sealed) {
            let mut sealed_json = cost_json(spec, c);
            sealed_json["scheme"] = json!(s.scheme.name());
            sealed_json["container"] = json!(s.container.as_str());
            sealed_json["encoding"] = json!(s.encoding.as_str());
            sealed_json["insecure"] = json!(s.insecurity);
            out["sealed"] = sealed_json;
            out["added_bytes"] = json!(c.message_bytes as i64 - plain.message_bytes as i64);
            out["added_airtime_ms"] = json!(ms(c.airtime) - ms(plain.airtime));
        }
        out
    }

    pub fn text(&self, spec: &LinkSpec) -> String {
        comparison_text(spec, &self.message, &self.plain, self.sealed.as_ref())
    }
}

fn frames_text(c: &LinkCost) -> String {
    if c.frames == 1 {
        format!("fits one (<= {} B)", c.frame_capacity)
    } else {
        format!("{} frames (<= {} B each)", c.frames, c.frame_capacity)
    }
}

fn comparison_text(
    spec: &LinkSpec,
    msg: &Message,
    plain: &LinkCost,
    sealed: Option<&LinkCost>,
) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "{} — {}", spec.name, spec.title);
    let _ = writeln!(
        o,
        "  plaintext: {}, {} B",
        msg.describe_plaintext(),
        msg.plaintext.len()
    );
    if let Some(s) = &msg.sealed {
        let added = s.bytes.len() as i64 - msg.plaintext.len() as i64;
        let _ = writeln!(
            o,
            "  sealed:    {}, {} B ({added:+} B, x{:.2})",
            s.describe(),
            s.bytes.len(),
            s.bytes.len() as f64 / msg.plaintext.len().max(1) as f64
        );
        for why in &s.insecurity {
            let _ = writeln!(
                o,
                "  INSECURE:  {why} (sealed only because of --allow-insecure)"
            );
        }
    }
    let _ = writeln!(o);
    let rows: Vec<(&str, &LinkCost)> = std::iter::once(("plaintext", plain))
        .chain(sealed.map(|c| ("sealed", c)))
        .collect();
    let line = |o: &mut String, what: &str, cell: &dyn Fn(&LinkCost) -> String| {
        let _ = write!(o, "  {what:<20}");
        for (_, c) in &rows {
            let _ = write!(o, " {:>26}", cell(c));
        }
        let _ = writeln!(o);
    };
    let _ = write!(o, "  {:<20}", "");
    for (label, _) in &rows {
        let _ = write!(o, " {label:>26}");
    }
    let _ = writeln!(o);
    line(&mut o, "message bytes", &|c| {
        if c.padding > 0 {
            format!("{} + {} padding", c.message_bytes, c.padding)
        } else {
            c.message_bytes.to_string()
        }
    });
    line(&mut o, "bytes on air", &|c| c.on_air_bytes.to_string());
    line(&mut o, "frames", &frames_text);
    line(&mut o, "time on air (TX)", &|c| c.airtime.to_string());
    if rows.iter().any(|(_, c)| c.rx_time > Micros::ZERO) {
        line(&mut o, "receiver on (RX)", &|c| c.rx_time.to_string());
    }
    if rows.iter().any(|(_, c)| c.delivery != c.airtime) {
        line(&mut o, "delivered after", &|c| c.delivery.to_string());
    }
    if spec.serial.is_some() {
        line(&mut o, "last packet waits", &|c| {
            if c.last_waits_timeout {
                "yes (timeout)"
            } else {
                "no"
            }
            .to_string()
        });
    }
    if rows.iter().any(|(_, c)| c.min_interval.is_some()) {
        line(&mut o, "duty cycle: every", &|c| {
            c.min_interval
                .map_or("-".into(), |t| format!("{:.1} s", t.as_secs()))
        });
        line(&mut o, "max per hour", &|c| {
            c.max_per_hour.map_or("-".into(), |n| n.to_string())
        });
    }
    if let Some(s) = sealed {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "  sealing adds {} B on air and {:.3} ms of time on air per message",
            s.on_air_bytes as i64 - plain.on_air_bytes as i64,
            ms(s.airtime) - ms(plain.airtime)
        );
    }
    let mut warnings: Vec<String> = Vec::new();
    for (label, c) in &rows {
        for w in &c.warnings {
            warnings.push(format!("{label}: {w}"));
        }
        if c.last_waits_timeout {
            warnings.push(format!(
                "{label}: the last packet is partial and goes out only after the timeout (try --pad-to-packet)"
            ));
        }
    }
    for w in &warnings {
        let _ = writeln!(o, "  warning: {w}");
    }
    let _ = writeln!(o, "  source: {}", spec.source);
    o
}

pub fn cost_json(spec: &LinkSpec, c: &LinkCost) -> Value {
    json!({
        "link": spec.name,
        "title": spec.title,
        "kind": spec.kind(),
        "message_bytes": c.message_bytes,
        "padding_bytes": c.padding,
        "on_air_bytes": c.on_air_bytes,
        "frames": c.frames,
        "frame_capacity": c.frame_capacity,
        "airtime_ms": ms(c.airtime),
        "rx_ms": ms(c.rx_time),
        "delivery_ms": ms(c.delivery),
        "last_waits_timeout": c.last_waits_timeout,
        "min_interval_s": c.min_interval.map(|t| t.as_secs()),
        "max_messages_per_hour": c.max_per_hour,
        "warnings": c.warnings,
        "source": spec.source,
    })
}

pub fn cost_text(spec: &LinkSpec, c: &LinkCost) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "{} — {}", spec.name, spec.title);
    let _ = writeln!(
        o,
        "  message            {} B{}",
        c.message_bytes,
        if c.padding > 0 {
            format!(" + {} B padding", c.padding)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        o,
        "  on air             {} B in {} frame(s) of at most {} B",
        c.on_air_bytes, c.frames, c.frame_capacity
    );
    let _ = writeln!(o, "  time on air (TX)   {}", c.airtime);
    if c.rx_time > Micros::ZERO {
        let _ = writeln!(o, "  receiver on (RX)   {}", c.rx_time);
    }
    if c.delivery != c.airtime {
        let _ = writeln!(o, "  delivered after    {}", c.delivery);
    }
    if spec.serial.is_some() {
        let _ = writeln!(
            o,
            "  last packet waits  {}",
            if c.last_waits_timeout {
                "yes: it is partial, so it goes out only after the timeout (try --pad-to-packet)"
            } else {
                "no"
            }
        );
    }
    if let (Some(iv), Some(n)) = (c.min_interval, c.max_per_hour) {
        let _ = writeln!(
            o,
            "  duty cycle         next message after {:.1} s at the earliest; at most {n} per hour",
            iv.as_secs()
        );
    }
    for w in &c.warnings {
        let _ = writeln!(o, "  warning: {w}");
    }
    let _ = writeln!(o, "  source: {}", spec.source);
    o
}

//! What one message costs on a link, as `link` shows it: bytes on air,
//! frames or packets, time on air, duty cycle and whether the last packet
//! waits for a timeout; for a real reading, the plaintext beside the sealed
//! message.

use link::{LinkCost, LinkSpec, Micros, SendOptions};
use serde_json::{Value, json};

use crate::Error;
use crate::data::ms;
use crate::lorawan_view;
use crate::message::{Message, MessageSpec, message_len};

/// The serialized reading and, with a scheme, the sealed one, costed on `spec`.
pub struct MessageCosts {
    pub message: Message,
    pub plain: LinkCost,
    pub sealed: Option<LinkCost>,
    /// On a LoRaWAN link, the real uplinks that carry the message sent (the
    /// sealed one when there is one), built and counted by `lorawan_frame`.
    pub frames: Vec<Vec<u8>>,
}

/// A byte count as typed (`--bytes`): a non-negative integer.
pub fn parse_bytes(text: &str) -> Result<u32, Error> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(Error::invalid(format!(
            "--bytes: a message size must not be negative (got '{text}')"
        )));
    }
    t.parse::<u32>()
        .map_err(|_| Error::invalid(format!("--bytes: '{text}' is not a byte count")))
}

/// How a message is sent beyond its size (`--pad-to-packet`, `--f-opts HEX`).
pub fn send_options(pad_to_packet: bool, f_opts: &str) -> Result<SendOptions, Error> {
    Ok(SendOptions {
        pad_to_packet,
        f_opts: lorawan_view::f_opts(f_opts)?,
    })
}

/// Costs the reading (and its sealed form) on `spec`, sent as `options` say.
pub fn cost_message(
    spec: &LinkSpec,
    message: &MessageSpec,
    options: &SendOptions,
) -> Result<MessageCosts, Error> {
    let msg = Message::build(message)?;
    let cost = |len: usize| {
        spec.cost_with(message_len(len)?, options)
            .map_err(Error::invalid)
    };
    let plain = cost(msg.plaintext.len())?;
    let sealed = msg
        .sealed
        .as_ref()
        .map(|s| crate::message::sealed_cost(spec, s, options))
        .transpose()?;
    let compressed = msg.sealed.as_ref().is_some_and(|s| s.schc.is_some());
    let frames = match &spec.lorawan {
        // A SCHC packet's frames are RFC 9011's, not built here.
        Some(_) if compressed => Vec::new(),
        Some(w) => {
            let (bytes, c) = match (&msg.sealed, &sealed) {
                (Some(s), Some(c)) => (&s.bytes, c),
                _ => (&msg.plaintext, &plain),
            };
            let mut sent = bytes.clone();
            sent.resize(bytes.len() + c.padding as usize, 0);
            let rate = w.region.data_rate(w.dr).map_err(Error::invalid)?;
            lorawan_view::message_frames(&sent, &rate, &options.f_opts)?
        }
        None => Vec::new(),
    };
    Ok(MessageCosts {
        message: msg,
        plain,
        sealed,
        frames,
    })
}

/// The bytes each layer adds for security: the link's own integrity (the
/// LoRaWAN MIC) and the application's sealing (nonce, tag, key id, container).
pub fn security_overhead(plain: &LinkCost, sealed: Option<&LinkCost>) -> Value {
    let sent = sealed.unwrap_or(plain);
    let application = sealed.map(|s| s.message_bytes as i64 - plain.message_bytes as i64);
    let total = sent.network_mic_bytes.map(i64::from).unwrap_or(0) + application.unwrap_or(0);
    json!({
        "network_bytes": sent.network_mic_bytes,
        "network_what": sent.network_mic_bytes.map(|_| "LoRaWAN MIC, 4 B per frame (AES-CMAC with the NwkSKey)"),
        "application_bytes": application,
        "total_bytes": total,
        "on_air_bytes": sent.on_air_bytes,
        "share_of_on_air": total as f64 / f64::from(sent.on_air_bytes.max(1)),
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
            if let Some(p) = &s.schc {
                sealed_json["compression"] = p.json();
            }
            out["sealed"] = sealed_json;
            out["added_bytes"] = json!(c.message_bytes as i64 - plain.message_bytes as i64);
            out["added_airtime_ms"] = json!(ms(c.airtime) - ms(plain.airtime));
        }
        out["security_overhead"] = security_overhead(plain, self.sealed.as_ref());
        if !self.frames.is_empty() {
            out["lorawan_frames"] = json!(
                self.frames
                    .iter()
                    .map(hex::encode_upper)
                    .collect::<Vec<_>>()
            );
        }
        out
    }

    pub fn text(&self, spec: &LinkSpec) -> String {
        let mut o = comparison_text(spec, &self.message, &self.plain, self.sealed.as_ref());
        o.push_str(&security_text(&security_overhead(
            &self.plain,
            self.sealed.as_ref(),
        )));
        if !self.frames.is_empty() {
            let lens: Vec<String> = self.frames.iter().map(|f| f.len().to_string()).collect();
            o.push_str(&format!(
                "  real LoRaWAN uplinks built (FPort 1, random session keys): {} B\n",
                lens.join(" + ")
            ));
        }
        o
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
        line(&mut o, "limits: every", &|c| {
            c.min_interval.map_or("-".into(), |t| {
                let by = c.limited_by().map_or("", |l| l.short());
                format!("{:.1} s ({by})", t.as_secs())
            })
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

/// One line: what each layer adds for security.
fn security_text(v: &Value) -> String {
    let part = |key: &str, what: &str| v[key].as_i64().map(|n| format!("{n} B {what}"));
    let parts: Vec<String> = [
        part("network_bytes", "network (LoRaWAN MIC)"),
        part("application_bytes", "application (sealing)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        return "  security overhead: none on this link without a scheme\n".into();
    }
    format!(
        "  security overhead: {} = {} B of {} B on air ({:.0} %)\n",
        parts.join(" + "),
        v["total_bytes"],
        v["on_air_bytes"],
        100.0 * v["share_of_on_air"].as_f64().unwrap_or(0.0)
    )
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
        // The frame a longer message is cut at (`send --link`, the C
        // library's `frame_len`); none on a serial radio's stream.
        "fragment_frame_bytes": spec.fragments().then_some(c.frame_capacity),
        "airtime_ms": ms(c.airtime),
        "rx_ms": ms(c.rx_time),
        "delivery_ms": ms(c.delivery),
        "last_waits_timeout": c.last_waits_timeout,
        "min_interval_s": c.min_interval.map(|t| t.as_secs()),
        "max_messages_per_hour": c.max_per_hour,
        "f_opts_bytes": c.fopts,
        "network_mic_bytes": c.network_mic_bytes,
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
    if let Some(mic) = c.network_mic_bytes {
        let _ = writeln!(
            o,
            "  security overhead  {mic} B network (LoRaWAN MIC); FOpts {} B",
            c.fopts
        );
    }
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
            "  limits             next message after {:.1} s at the earliest, set by {} ({}); at most {n} per hour",
            iv.as_secs(),
            c.limited_by().map_or("the duty cycle", |l| l.words()),
            crate::duty_cycle::rule(spec).unwrap_or_default()
        );
    }
    for w in &c.warnings {
        let _ = writeln!(o, "  warning: {w}");
    }
    let _ = writeln!(o, "  source: {}", spec.source);
    o
}

/// `link --list`: every link in the catalogue.
pub fn list_json(cat: &link::Catalogue) -> Value {
    Value::Array(
        cat.links()
            .iter()
            .map(|l| json!({"name": l.name, "kind": l.kind(), "title": l.title, "radio": l.radio, "tx_power_dbm": l.tx_power_dbm, "source": l.source}))
            .collect(),
    )
}

pub fn list_text(cat: &link::Catalogue) -> String {
    cat.links()
        .iter()
        .map(|l| format!("{:<22} {:<8} {}\n", l.name, l.kind(), l.title))
        .collect()
}

#[cfg(test)]
mod flag_tests {
    use super::*;

    #[test]
    fn byte_counts_and_send_options_are_read_or_refused_with_the_flag() {
        assert_eq!(parse_bytes(" 100 ").unwrap(), 100);
        let err = parse_bytes("-1").unwrap_err().to_string();
        assert_eq!(
            err,
            "--bytes: a message size must not be negative (got '-1')"
        );
        assert_eq!(
            parse_bytes("lots").unwrap_err().to_string(),
            "--bytes: 'lots' is not a byte count"
        );
        let o = send_options(true, "0203").unwrap();
        assert!(o.pad_to_packet);
        assert_eq!(o.f_opts, [2, 3]);
        assert!(send_options(false, "zz").is_err());
    }
}

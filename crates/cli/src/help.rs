//! `ciphermeter --help` lists the commands by what a user comes to do, the
//! three the README starts with first, not clap's one flat list.

/// Each command's group and its commands (space-separated), in the order the help shows them.
pub const GROUPS: &[(&str, &str)] = &[
    (
        "Ask what to use (start here)",
        "recommend energy link run explore",
    ),
    (
        "Seal, send and receive",
        "keygen seal open send gateway device-send radio-emulator lorawan",
    ),
    (
        "Measure and reproduce",
        "mcu ct bench frame-bench reproduce runs compare import report",
    ),
    ("Links and handshakes", "airtime handshake update-cost"),
    (
        "One algorithm",
        "list encrypt decrypt digest sign verify encapsulate decapsulate",
    ),
];

/// `cmd` with its top-level help grouped (subcommands keep their own).
pub fn grouped(cmd: clap::Command) -> clap::Command {
    let about = |name: &str| {
        cmd.find_subcommand(name)
            .and_then(|c| c.get_about())
            .map(|a| a.to_string())
            .unwrap_or_default()
    };
    let mut text = format!(
        "{}\n\nUsage: ciphermeter <COMMAND>\n",
        cmd.get_about().map(|a| a.to_string()).unwrap_or_default()
    );
    for (group, names) in GROUPS {
        text.push_str(&format!("\n{group}:\n"));
        for name in names.split(' ') {
            text.push_str(&format!("  {name:<15} {}\n", about(name)));
        }
    }
    text.push_str(
        "\n`ciphermeter help COMMAND` or `COMMAND --help` for one command's options.\n\nOptions:\n  -h, --help     Print help\n  -V, --version  Print version\n",
    );
    cmd.override_help(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command is in exactly one group, and every grouped name is a command.
    #[test]
    fn every_command_is_in_one_group() {
        use clap::CommandFactory;
        let cmd = crate::Cli::command();
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.split(' ')).collect();
        for sub in cmd.get_subcommands() {
            let n = grouped.iter().filter(|g| **g == sub.get_name()).count();
            assert_eq!(n, 1, "{} is in {n} groups", sub.get_name());
        }
        for name in &grouped {
            assert!(cmd.find_subcommand(name).is_some(), "{name} is no command");
        }
    }
}

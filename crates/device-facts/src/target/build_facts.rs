// What the build scripts need of a target's file (data/targets/NAME.toml):
// its linker script, board cfg, C flags and core. `include!`d by the build
// scripts of firmware, firmware-schc, firmware-verify, crates/clib and
// crates/primitives, so a target's build settings live in its file and no
// build script matches on a triple; a module of device-facts too, whose test
// holds this line reader to the real parser (target/facts.rs) for every
// file. std only (a build script's dependencies are compiled for every
// firmware target directory), and outer comments only (an `include!`d file
// cannot carry inner ones).

/// A target file's build settings, as the build scripts read them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BuildFacts {
    /// The file's name: the target's.
    pub name: String,
    /// `[core] family`: avr, arm or riscv.
    pub family: String,
    pub rust_target: String,
    /// `[core] target_cpu`: the core rustc must be told (absent: the triple says it).
    pub target_cpu: Option<String>,
    /// `[core] dsp`: ARM's DSP extension (UMAAL).
    pub dsp: bool,
    /// `[memory] linker_script`, from the repository's root.
    pub linker_script: Option<String>,
    /// `[build] c_flags`: the core's flags for the cross C compiler.
    pub c_flags: Vec<String>,
    /// `[build] c_fpu`: the FPU a hard-float ABI (`eabihf`) names.
    pub c_fpu: Option<String>,
    /// `[build] board_cfg`: the cfg the firmware's platform code selects the board by.
    pub board_cfg: Option<String>,
}

impl BuildFacts {
    /// Whether a build with these rustflags (cargo's `CARGO_ENCODED_RUSTFLAGS`,
    /// 0x1f-separated) is built for the target's core: it names no core, or
    /// the flags name it.
    pub fn core_is_built(&self, encoded_rustflags: &str) -> bool {
        self.target_cpu.as_ref().is_none_or(|cpu| {
            let wanted = format!("target-cpu={cpu}");
            let mut flags = encoded_rustflags.split('\x1f').peekable();
            let mut found = false;
            while let Some(f) = flags.next() {
                // `-Ctarget-cpu=X`, or `-C` then `target-cpu=X`.
                if f.trim_start_matches("-C") == wanted
                    || (f == "-C" && flags.peek() == Some(&wanted.as_str()))
                {
                    found = true;
                }
            }
            found
        })
    }
}

/// Reads one target file's build settings.
pub fn read_build_facts(name: &str, text: &str) -> BuildFacts {
    let mut facts = BuildFacts {
        name: name.to_string(),
        ..BuildFacts::default()
    };
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(s) = line.strip_prefix('[') {
            section = s.trim_end_matches(']').to_string();
            continue;
        }
        let Some((key, value)) = line.split_once(" = ") else {
            continue;
        };
        let string = || value.trim().trim_matches('"').to_string();
        match (section.as_str(), key.trim()) {
            ("core", "family") => facts.family = string(),
            ("core", "rust_target") => facts.rust_target = string(),
            ("core", "target_cpu") => facts.target_cpu = Some(string()),
            ("core", "dsp") => facts.dsp = value.trim() == "true",
            ("memory", "linker_script") => facts.linker_script = Some(string()),
            ("build", "c_fpu") => facts.c_fpu = Some(string()),
            ("build", "board_cfg") => facts.board_cfg = Some(string()),
            ("build", "c_flags") => {
                facts.c_flags = value
                    .trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|f| f.trim().trim_matches('"').to_string())
                    .filter(|f| !f.is_empty())
                    .collect()
            }
            _ => {}
        }
    }
    facts
}

/// Every target file in `targets_dir` (data/targets), by name.
pub fn all_build_facts(targets_dir: &std::path::Path) -> Vec<BuildFacts> {
    let mut all: Vec<BuildFacts> = std::fs::read_dir(targets_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", targets_dir.display()))
        .map(|entry| entry.expect("a readable data/targets entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            read_build_facts(&name, &text)
        })
        .collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// The target a Rust triple builds: the file whose `rust_target` has the
/// triple's architecture (`thumbv7em` of `thumbv7em-none-eabi` too), the
/// exact triple first. None for a triple no target has (the host, a board's
/// Linux). Two files on one architecture are told apart by the core the
/// rustflags name; a tie is an error naming both.
pub fn build_facts_for(
    targets_dir: &std::path::Path,
    triple: &str,
    encoded_rustflags: &str,
) -> Result<Option<BuildFacts>, String> {
    let arch = |t: &str| t.split('-').next().unwrap_or("").to_string();
    let mut found: Vec<BuildFacts> = all_build_facts(targets_dir)
        .into_iter()
        .filter(|f| arch(&f.rust_target) == arch(triple))
        .collect();
    if found.len() > 1 {
        found.retain(|f| f.target_cpu.is_some() && f.core_is_built(encoded_rustflags));
    }
    if found.len() > 1 {
        found.retain(|f| f.rust_target == triple);
    }
    match found.len() {
        0 | 1 => Ok(found.pop()),
        _ => Err(format!(
            "{triple}: the target files {} all build it; give the core with -C target-cpu",
            found
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    }
}

/// For a build script: the target this build is for (cargo's `TARGET` and
/// `CARGO_ENCODED_RUSTFLAGS`), from the files under `root`/data/targets,
/// telling cargo to run the script again when they change. None for a
/// triple no target builds.
pub fn build_facts_for_this_build(root: &std::path::Path) -> Option<BuildFacts> {
    let targets = root.join("data/targets");
    println!("cargo:rerun-if-changed={}", targets.display());
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let triple = std::env::var("TARGET").expect("cargo sets TARGET");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    build_facts_for(&targets, &triple, &flags).unwrap_or_else(|e| panic!("{e}"))
}

impl BuildFacts {
    /// Puts the target's linker script (from `root`) where the link finds
    /// it: on ARM the memory map that cortex-m-rt's link.x includes as
    /// memory.x, elsewhere the whole script, linked by its name.
    pub fn place_linker_script(&self, root: &std::path::Path, out: &std::path::Path) {
        let Some(script) = &self.linker_script else {
            return;
        };
        println!("cargo:rerun-if-changed={}", root.join(script).display());
        let file = std::path::Path::new(script)
            .file_name()
            .expect("a file name");
        let copy = if self.family == "arm" {
            out.join("memory.x")
        } else {
            println!("cargo:rustc-link-arg=-T{}", file.to_string_lossy());
            out.join(file)
        };
        std::fs::copy(root.join(script), &copy)
            .unwrap_or_else(|e| panic!("{}: {e}", root.join(script).display()));
        println!("cargo:rustc-link-search={}", out.display());
    }
}

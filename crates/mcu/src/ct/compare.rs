//! Compares the runs of one operation: the same instructions, the same count
//! and the same data addresses in every run, or where they first part.

pub use device_facts::constant_time::{Difference, Place};

use super::conditional::Conditional;
use super::latency::Latency;
use crate::elf::{Function, function_at};

/// What one run of an operation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// Cycles (AVR) or instructions (QEMU), as the region counted them.
    pub count: u64,
    /// Every instruction's address, in order.
    pub path: Vec<u32>,
    /// Each load or store through a pointer: (instruction, data address).
    /// Empty where the simulator does not show them.
    pub data: Vec<(u32, u32)>,
    /// Each variable-latency instruction that ran, priced by its operands.
    pub latencies: Vec<Latency>,
    /// Each instruction of an IT block that came up, run or skipped.
    pub conditions: Vec<Conditional>,
}

/// Each difference found across the runs: control flow first (it decides
/// everything after it), then counts, then data addresses on one path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Differences {
    pub path: Option<Place>,
    pub count: Option<[usize; 2]>,
    pub data: Option<Place>,
    /// A variable-latency instruction whose operands differ in what its time follows.
    pub latency: Option<Place>,
    /// An instruction of an IT block run in one run and skipped in another,
    /// which takes other cycles run than skipped (not a MOVNE or an EORNE,
    /// which compilers make of masks: one cycle either way).
    pub conditional: Option<Place>,
}

pub fn compare(runs: &[Observed], functions: &[Function]) -> Differences {
    let mut found = Differences::default();
    let Some(first) = runs.first() else {
        return found;
    };
    if let Some((j, other)) = runs.iter().enumerate().find(|(_, r)| r.path != first.path) {
        let i = first
            .path
            .iter()
            .zip(&other.path)
            .position(|(a, b)| a != b)
            .unwrap_or(first.path.len().min(other.path.len()));
        // The last instruction both ran decided where they went.
        let decided = i.checked_sub(1).map_or(first.path[0], |k| first.path[k]);
        found.path = Some(place(
            Difference::Branch,
            decided,
            &first.path[..i],
            functions,
            [0, j],
        ));
    }
    if let Some(j) = runs.iter().position(|r| r.count != first.count) {
        found.count = Some([0, j]);
    }
    // Other instructions touch other addresses: only on one path do they say more.
    if found.path.is_some() {
        return found;
    }
    if let Some((j, other)) = runs.iter().enumerate().find(|(_, r)| r.data != first.data) {
        let i = first.data.iter().zip(&other.data).position(|(a, b)| a != b);
        if let Some(&(pc, _)) = i.and_then(|i| first.data.get(i)) {
            // The path up to that access, to find its caller.
            let upto = first
                .path
                .iter()
                .position(|&a| a == pc)
                .map_or(0, |k| k + 1);
            found.data = Some(place(
                Difference::DataAddress,
                pc,
                &first.path[..upto],
                functions,
                [0, j],
            ));
        }
    }
    conditions(runs, functions, &mut found);
    let classes = |r: &Observed| r.latencies.iter().map(|l| l.class).collect::<Vec<_>>();
    let first_classes = classes(first);
    if let Some((j, other)) = runs
        .iter()
        .enumerate()
        .find(|(_, r)| classes(r) != first_classes)
    {
        let i = first
            .latencies
            .iter()
            .zip(&other.latencies)
            .position(|(a, b)| a.class != b.class);
        if let Some((a, b)) = i.map(|i| (first.latencies[i], other.latencies[i])) {
            let upto = first
                .path
                .iter()
                .position(|&x| x == a.pc)
                .map_or(0, |k| k + 1);
            let mut p = place(
                Difference::OperandLatency,
                a.pc,
                &first.path[..upto],
                functions,
                [0, j],
            );
            p.instruction = Some(a.instruction.to_string());
            p.latency = a.cycles.zip(b.cycles).map(|(x, y)| [x, y]);
            found.latency = Some(p);
        }
    }
    found
}

/// Where an instruction of an IT block that takes other cycles run than
/// skipped first ran in one run and not in another, on one path.
fn conditions(runs: &[Observed], functions: &[Function], found: &mut Differences) {
    let first = &runs[0];
    for (j, other) in runs.iter().enumerate().skip(1) {
        let parted = first
            .conditions
            .iter()
            .zip(&other.conditions)
            .find(|(a, b)| a.pc == b.pc && a.passed != b.passed && !a.same_either_way());
        if let Some((a, b)) = parted {
            let upto = first
                .path
                .iter()
                .position(|&x| x == a.pc)
                .map_or(0, |k| k + 1);
            let mut p = place(
                Difference::ConditionalExecution,
                a.pc,
                &first.path[..upto],
                functions,
                [0, j],
            );
            p.instruction = Some(a.instruction.clone());
            p.latency = Some([a.took(), b.took()]);
            found.conditional = Some(p);
            return;
        }
    }
}

/// The deepest call chain [`Place::called_from`] follows.
const CALLERS: usize = 4;

/// Names the function holding `address`, and the chain of functions that
/// entered it, each found where the path `before` last entered its callee.
pub fn place(
    what: Difference,
    address: u32,
    before: &[u32],
    functions: &[Function],
    runs: [usize; 2],
) -> Place {
    let function = function_at(functions, address);
    let mut called_from = Vec::new();
    let (mut callee, mut upto) = (function, before.len());
    while let Some(f) = callee.filter(|_| called_from.len() < CALLERS) {
        let Some(entry) = before[..upto].iter().rposition(|&a| a == f.start) else {
            break;
        };
        let Some(caller) = entry
            .checked_sub(1)
            .and_then(|k| function_at(functions, before[k]))
            .filter(|g| g.start != f.start)
        else {
            break;
        };
        called_from.push(caller.name.clone());
        (callee, upto) = (Some(caller), entry);
    }
    Place {
        what,
        address,
        function: function.map(|f| f.name.clone()),
        called_from,
        runs,
        instruction: None,
        latency: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(count: u64, path: &[u32], data: &[(u32, u32)]) -> Observed {
        Observed {
            count,
            path: path.to_vec(),
            data: data.to_vec(),
            latencies: Vec::new(),
            conditions: Vec::new(),
        }
    }

    fn functions() -> Vec<Function> {
        let f = |start, size, name: &str| Function {
            start,
            size,
            name: name.into(),
        };
        vec![
            f(0x100, 0x20, "caller"),
            f(0x200, 0x20, "__udivmodsi4"),
            f(0x300, 0x20, "u32_div_rem"),
        ]
    }

    #[test]
    fn identical_runs_differ_nowhere() {
        let a = run(10, &[0x100, 0x102], &[(0x102, 0x400)]);
        assert_eq!(
            compare(&[a.clone(), a], &functions()),
            Differences::default()
        );
    }

    #[test]
    fn a_branch_is_placed_at_the_last_shared_instruction_with_its_caller() {
        let a = run(10, &[0x100, 0x102, 0x200, 0x202, 0x204, 0x104], &[]);
        let b = run(12, &[0x100, 0x102, 0x200, 0x202, 0x206, 0x208, 0x104], &[]);
        let d = compare(&[a.clone(), a, b], &functions());
        let p = d.path.unwrap();
        assert_eq!(
            (p.what, p.address, p.runs),
            (Difference::Branch, 0x202, [0, 2])
        );
        assert_eq!(p.function.as_deref(), Some("__udivmodsi4"));
        assert_eq!(p.called_from, ["caller"]);
        assert!(p.names("caller") && p.names("udivmodsi4") && !p.names("other"));
        assert_eq!(d.count, Some([0, 2]));
    }

    #[test]
    fn the_chain_of_callers_reaches_the_code_that_called_the_helper() {
        let a = run(10, &[0x100, 0x102, 0x200, 0x202, 0x300, 0x302, 0x304], &[]);
        let b = run(10, &[0x100, 0x102, 0x200, 0x202, 0x300, 0x302, 0x306], &[]);
        let p = compare(&[a, b], &functions()).path.unwrap();
        assert_eq!(p.function.as_deref(), Some("u32_div_rem"));
        assert_eq!(p.called_from, ["__udivmodsi4", "caller"]);
        assert!(
            p.describe()
                .ends_with("(called from __udivmodsi4 ← caller)")
        );
    }

    #[test]
    fn a_secret_address_on_the_same_path_is_placed_at_its_instruction() {
        let a = run(10, &[0x100, 0x102, 0x104], &[(0x102, 0x400)]);
        let b = run(10, &[0x100, 0x102, 0x104], &[(0x102, 0x4a7)]);
        let d = compare(&[a, b], &functions());
        assert_eq!((d.path, d.count), (None, None));
        let p = d.data.unwrap();
        assert_eq!((p.what, p.address), (Difference::DataAddress, 0x102));
        assert_eq!(p.function.as_deref(), Some("caller"));
        assert!(p.called_from.is_empty());
    }

    #[test]
    fn operands_of_another_size_are_placed_at_their_instruction() {
        let udiv = |class, cycles| Latency {
            pc: 0x102,
            instruction: "UDIV",
            class,
            cycles: Some(cycles),
        };
        let mut a = run(10, &[0x100, 0x102, 0x104], &[]);
        let mut b = a.clone();
        a.latencies = vec![udiv([20, 20], 3), udiv([16, 20], 4)];
        b.latencies = vec![udiv([20, 20], 3), udiv([18, 20], 4)];
        let d = compare(&[a.clone(), a.clone(), b], &functions());
        assert_eq!((d.path, d.count, d.data), (None, None, None));
        let p = d.latency.unwrap();
        assert_eq!(
            (p.what, p.address, p.runs),
            (Difference::OperandLatency, 0x102, [0, 2])
        );
        assert_eq!(
            p.latency,
            Some([4, 4]),
            "same cycles under the model, other class"
        );
        assert!(
            p.describe().contains("(UDIV: 4 vs 4 cycles)"),
            "{}",
            p.describe()
        );
        assert_eq!(compare(&[a.clone(), a], &functions()).latency, None);
    }

    #[test]
    fn a_condition_that_follows_the_secret_is_placed_at_its_instruction() {
        let conditional = |pc, instruction: &str, passed, cycles| Conditional {
            pc,
            instruction: instruction.into(),
            passed,
            cycles,
        };
        let mut a = run(10, &[0x100, 0x102, 0x104, 0x106], &[]);
        let mut b = a.clone();
        a.conditions = vec![
            conditional(0x104, "MOVNE", true, [1, 1]),
            conditional(0x106, "UDIVNE", true, [7, 1]),
        ];
        b.conditions = vec![
            conditional(0x104, "MOVNE", false, [1, 1]),
            conditional(0x106, "UDIVNE", false, [7, 1]),
        ];
        let d = compare(&[a.clone(), a.clone(), b], &functions());
        assert_eq!((d.path, d.count, d.data), (None, None, None));
        let p = d.conditional.unwrap();
        assert_eq!(
            (p.what, p.address, p.runs, p.latency),
            (
                Difference::ConditionalExecution,
                0x106,
                [0, 2],
                Some([7, 1])
            )
        );
        assert!(
            p.describe()
                .contains("(UDIVNE: 7 vs 1 cycles) at 0x106 in caller"),
            "{}",
            p.describe()
        );
        // A MOVNE run or skipped takes one cycle: not even a warning.
        let mut c = a.clone();
        c.conditions[0].passed = false;
        assert_eq!(compare(&[a.clone(), c], &functions()).conditional, None);
        // The same pattern in every run: nothing.
        assert_eq!(compare(&[a.clone(), a], &functions()).conditional, None);
    }
}

//! The one machine vocabulary: the CPU architecture a library member, object, DLL, PDB, link log
//! or symbol name is for. The index reads it from COFF headers, the log parser from `/machine:`
//! and compiler banners, the symbol stage from name decorations.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The machine (CPU architecture) a member, object, DLL or PDB was built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Machine {
    /// AMD64 (`IMAGE_FILE_MACHINE_AMD64`); the default `--arch`.
    #[default]
    X64,
    /// i386 (`IMAGE_FILE_MACHINE_I386`).
    X86,
    /// ARM64 (`IMAGE_FILE_MACHINE_ARM64`).
    Arm64,
    /// ARM64EC (`IMAGE_FILE_MACHINE_ARM64EC`), also ARM64X.
    Arm64ec,
    /// 32-bit ARM Thumb-2 (`IMAGE_FILE_MACHINE_ARMNT`).
    Arm,
    /// Itanium (`IMAGE_FILE_MACHINE_IA64`): named in old linkers' messages, never linked here.
    Ia64,
    /// Machine 0: usable by every link, e.g. the alias objects of `oldnames.lib`, or a `.def` file.
    Any,
    /// Any other machine number, kept as stored.
    Unknown(u16),
}

impl Machine {
    /// The machine of a COFF `Machine` field.
    pub fn from_coff(machine: u16) -> Machine {
        match machine {
            0x8664 => Machine::X64,
            0x014c => Machine::X86,
            0xaa64 => Machine::Arm64,
            0xa641 | 0xa64e => Machine::Arm64ec,
            0x01c4 => Machine::Arm,
            0x0200 => Machine::Ia64,
            0 => Machine::Any,
            other => Machine::Unknown(other),
        }
    }

    /// Parses an `--arch` value: `x64` (also `amd64`, `x86_64`), `x86` (`i386`, `i686`),
    /// `arm64` (`aarch64`), `arm64ec`, `arm`.
    pub fn parse_arch(text: &str) -> Option<Machine> {
        match text.to_ascii_lowercase().as_str() {
            "x64" | "amd64" | "x86_64" | "x86-64" => Some(Machine::X64),
            "x86" | "i386" | "i686" | "win32" => Some(Machine::X86),
            "arm64" | "aarch64" => Some(Machine::Arm64),
            "arm64ec" => Some(Machine::Arm64ec),
            "arm" | "armnt" | "thumb" => Some(Machine::Arm),
            _ => None,
        }
    }

    /// Any machine name a linker or a build writes (`x86`, `80x86`, `AMD64`, `ARM64EC`, `ARM64X`,
    /// `IA64`, any case), including those no link here is for: [`Machine::parse_arch`]'s names,
    /// ARM64X as ARM64EC (a hybrid ARM64X image holds ARM64EC code; its COFF number reads the
    /// same), and Itanium.
    pub fn from_name(text: &str) -> Option<Machine> {
        match text.to_ascii_lowercase().as_str() {
            "80x86" | "ix86" => Some(Machine::X86),
            "arm64x" => Some(Machine::Arm64ec),
            "ia64" => Some(Machine::Ia64),
            other => Machine::parse_arch(other),
        }
    }

    /// Whether code of machine `self` can be linked into a `target` link: the same machine, machine
    /// 0, or (for ARM64EC links) x64 and ARM64 members of ARM64X libraries.
    pub fn links_into(self, target: Machine) -> bool {
        match (self, target) {
            (Machine::Any, _) | (_, Machine::Any) => true,
            (a, b) if a == b => true,
            (Machine::X64 | Machine::Arm64, Machine::Arm64ec) => true,
            (Machine::Arm64ec, Machine::Arm64) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Machine::X64 => f.write_str("x64"),
            Machine::X86 => f.write_str("x86"),
            Machine::Arm64 => f.write_str("arm64"),
            Machine::Arm64ec => f.write_str("arm64ec"),
            Machine::Arm => f.write_str("arm"),
            Machine::Ia64 => f.write_str("ia64"),
            Machine::Any => f.write_str("any"),
            Machine::Unknown(number) => write!(f, "machine 0x{number:04x}"),
        }
    }
}

impl Serialize for Machine {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Machine {
    /// Reads back what [`Machine`]'s `Display` (and JSON) writes: `x64`, `x86`, `arm64`,
    /// `arm64ec`, `arm`, `any`, `machine 0x1234`; also every `--arch` spelling.
    pub fn from_display(text: &str) -> Option<Machine> {
        if text == "any" {
            return Some(Machine::Any);
        }
        if let Some(hex) = text.strip_prefix("machine 0x") {
            return u16::from_str_radix(hex, 16).ok().map(Machine::from_coff);
        }
        Machine::from_name(text)
    }
}

impl<'de> Deserialize<'de> for Machine {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Machine, D::Error> {
        let text = String::deserialize(deserializer)?;
        Machine::from_display(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown machine `{text}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::Machine;

    #[test]
    fn display_reads_back() {
        for m in [
            Machine::X64,
            Machine::X86,
            Machine::Arm64,
            Machine::Arm64ec,
            Machine::Arm,
            Machine::Ia64,
            Machine::Any,
            Machine::Unknown(0x0166),
        ] {
            assert_eq!(Machine::from_display(&m.to_string()), Some(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<Machine>(&json).unwrap(), m);
        }
        assert_eq!(serde_json::to_string(&Machine::X86).unwrap(), "\"x86\"");
    }
}

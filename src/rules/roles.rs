//! What each file in a real library directory is for: `symbol-db/roles.json`.
//!
//! A Visual C++ lib directory holds far more than the default-library chain: other builds of the
//! CRT (iterator-debug variants, the Concurrency Runtime, the OS-mode UCRT), the C++/CLI and
//! C++/CX runtimes, optional add-ons (legacy stdio, delay-load, sanitizers, OpenMP), loose
//! link-option objects and type-only PDBs; a Windows Kits `um` directory holds umbrella libraries
//! and special runtimes (VBS enclaves, the native API) beside the ordinary import libraries. Many
//! of them define the same names as the chain (`vertdll.lib` exports `memcpy`, `msvcmrt.lib`
//! defines `_tls_index`), so a provider is ranked by its role before anything else (see
//! [`crate::resolve::providers::rank`]). A file no entry names is [`LibraryRole::ThirdParty`]: the
//! project's own or a vendor's library, ranked as an ordinary one.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

use super::Flavour;

/// The shipped role file.
const BUILTIN_ROLES: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/symbol-db/roles.json"));

/// What a library file is for. Serialised in kebab-case (`import-library`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LibraryRole {
    /// A member of a default-library chain (the CRT flavour's libraries, oldnames, kernel32).
    Chain,
    /// An ordinary import library of a DLL.
    ImportLibrary,
    /// An ordinary static SDK library (GUIDs, helpers).
    StaticLibrary,
    /// Not a file lnkfix knows: the project's own library, or a third party's.
    ThirdParty,
    /// An SDK umbrella library (`OneCore.lib`, `WindowsApp.lib`, `*_apiset`, `*_downlevel`).
    Umbrella,
    /// An optional library linked on purpose for one feature (legacy stdio, delay-load, ...).
    AddOn,
    /// A runtime for a special environment (VBS enclaves, the native API).
    SpecialRuntime,
    /// Another build of a CRT library (iterator-debug variants, ConcRT, OS-mode UCRT).
    CrtVariant,
    /// A loose object that changes one CRT behaviour (`chkstk.obj`, `setargv.obj`).
    LinkOption,
    /// A C++/CLI or C++/CX runtime (`msvcmrt.lib`, `vccorlib.lib`).
    ManagedRuntime,
    /// A compiler PDB holding only types (`libcmt.amd64.pdb`): not a link input.
    TypeOnlyPdb,
    /// A COM type library (`.tlb`): not a link input.
    TypeLibrary,
}

impl LibraryRole {
    /// The name used in JSON and in reports.
    pub fn name(self) -> &'static str {
        match self {
            LibraryRole::Chain => "chain",
            LibraryRole::ImportLibrary => "import-library",
            LibraryRole::StaticLibrary => "static-library",
            LibraryRole::ThirdParty => "third-party",
            LibraryRole::Umbrella => "umbrella",
            LibraryRole::AddOn => "add-on",
            LibraryRole::SpecialRuntime => "special-runtime",
            LibraryRole::CrtVariant => "crt-variant",
            LibraryRole::LinkOption => "link-option",
            LibraryRole::ManagedRuntime => "managed-runtime",
            LibraryRole::TypeOnlyPdb => "type-only-pdb",
            LibraryRole::TypeLibrary => "type-library",
        }
    }

    /// Whether a provider with this role is an ordinary answer: the chain, import and static
    /// libraries, and files lnkfix does not know. The others are chosen only when nothing
    /// ordinary defines a name.
    pub fn is_ordinary(self) -> bool {
        matches!(
            self,
            LibraryRole::Chain
                | LibraryRole::ImportLibrary
                | LibraryRole::StaticLibrary
                | LibraryRole::ThirdParty
        )
    }
}

impl std::fmt::Display for LibraryRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The role of one file, and what the role file says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleOf {
    /// The role.
    pub role: LibraryRole,
    /// Its rank among providers: lower is preferred (from the role file).
    pub rank: u8,
    /// What the file is for, for people (`C++/CLI runtime: only for /clr builds`); `None` for a
    /// third-party file.
    pub purpose: Option<&'static str>,
    /// The CRT flavours the file belongs to, when it belongs to some and not to all: a provider
    /// outside the chosen flavour is never chosen. `None`: any flavour.
    pub flavours: Option<&'static [Flavour]>,
    /// Whether an entry of the role file names the file (false: the third-party fallback).
    pub explicit: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RoleFile {
    schema_version: u32,
    #[allow(dead_code)]
    about: String,
    roles: std::collections::BTreeMap<LibraryRole, RoleInfo>,
    files: Vec<FileEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RoleInfo {
    rank: u8,
    #[allow(dead_code)]
    description: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    role: LibraryRole,
    names: Vec<String>,
    purpose: String,
    #[serde(default)]
    flavours: Option<Vec<Flavour>>,
}

/// One compiled entry: lower-case exact names and `*` patterns.
struct Entry {
    role: LibraryRole,
    rank: u8,
    exact: Vec<String>,
    patterns: Vec<String>,
    purpose: &'static str,
    flavours: Option<&'static [Flavour]>,
}

/// The loaded role file.
pub struct Roles {
    entries: Vec<Entry>,
    /// Lower-case exact name → the first entry naming it (hundreds of SDK names: one probe).
    exact: std::collections::HashMap<String, usize>,
    third_party_rank: u8,
}

/// Case-insensitive match of `name` (lower case) against a pattern (lower case) where `*` matches
/// any run of characters.
fn glob_match(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

impl Roles {
    /// The shipped role file, parsed once.
    pub fn builtin() -> &'static Roles {
        static ROLES: OnceLock<Roles> = OnceLock::new();
        ROLES.get_or_init(|| {
            Roles::parse(BUILTIN_ROLES)
                .expect("the shipped symbol-db/roles.json is valid (checked by tests)")
        })
    }

    fn parse(text: &'static str) -> Result<Roles, String> {
        let file: RoleFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.schema_version != 1 {
            return Err(format!("unknown schema_version {}", file.schema_version));
        }
        let rank_of = |role: LibraryRole| -> Result<u8, String> {
            file.roles
                .get(&role)
                .map(|info| info.rank)
                .ok_or_else(|| format!("role {role} has no entry under \"roles\""))
        };
        let mut entries = Vec::with_capacity(file.files.len());
        for entry in &file.files {
            let (mut exact, mut patterns) = (Vec::new(), Vec::new());
            for name in &entry.names {
                let lower = name.to_ascii_lowercase();
                if lower.contains('*') {
                    patterns.push(lower);
                } else {
                    exact.push(lower);
                }
            }
            entries.push(Entry {
                role: entry.role,
                rank: rank_of(entry.role)?,
                exact,
                patterns,
                purpose: Box::leak(entry.purpose.clone().into_boxed_str()),
                flavours: entry
                    .flavours
                    .clone()
                    .map(|f| &*Box::leak(f.into_boxed_slice())),
            });
        }
        let mut exact = std::collections::HashMap::new();
        for (at, entry) in entries.iter().enumerate() {
            for name in &entry.exact {
                exact.entry(name.clone()).or_insert(at);
            }
        }
        Ok(Roles {
            entries,
            exact,
            third_party_rank: rank_of(LibraryRole::ThirdParty)?,
        })
    }

    /// The role of a file, by its file name (any case; a path's directories are ignored).
    pub fn role_of(&self, file_name: &str) -> RoleOf {
        let base = file_name.rsplit(['\\', '/']).next().unwrap_or(file_name);
        let lower = base.to_ascii_lowercase();
        // The first entry that names the file, by exact name (one probe) or by pattern.
        let by_name = self.exact.get(&lower).copied();
        let by_pattern = self
            .entries
            .iter()
            .take(by_name.unwrap_or(self.entries.len()))
            .position(|e| e.patterns.iter().any(|p| glob_match(p, &lower)));
        if let Some(entry) = by_pattern.or(by_name).map(|at| &self.entries[at]) {
            return RoleOf {
                role: entry.role,
                rank: entry.rank,
                purpose: Some(entry.purpose),
                flavours: entry.flavours,
                explicit: true,
            };
        }
        RoleOf {
            role: LibraryRole::ThirdParty,
            rank: self.third_party_rank,
            purpose: None,
            flavours: None,
            explicit: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("clang_rt.*.lib", "clang_rt.asan-x86_64.lib"));
        assert!(!glob_match("clang_rt.*.lib", "clang_rt.lib.x"));
        assert!(glob_match("*.amd64.pdb", "libcmt.amd64.pdb"));
        assert!(glob_match("*.tlb", "stdole2.tlb"));
        assert!(!glob_match("*.tlb", "stdole2.lib"));
        assert!(glob_match("hip*.lib", "hipblas.lib"));
        assert!(glob_match("a*b*c", "abc"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(!glob_match("ab*ba", "aba"));
    }

    #[test]
    fn roles_of_known_files() {
        let roles = Roles::builtin();
        let rows = [
            ("libcmt.lib", LibraryRole::Chain),
            ("C:\\VS\\lib\\x64\\MSVCRT.lib", LibraryRole::Chain),
            ("kernel32.Lib", LibraryRole::Chain),
            ("AdvAPI32.Lib", LibraryRole::ImportLibrary),
            ("Uuid.Lib", LibraryRole::StaticLibrary),
            ("msvcmrt.lib", LibraryRole::ManagedRuntime),
            ("vccorlib.lib", LibraryRole::ManagedRuntime),
            ("vertdll.lib", LibraryRole::SpecialRuntime),
            ("ntdll.lib", LibraryRole::SpecialRuntime),
            ("ucrt.osmode.lib", LibraryRole::CrtVariant),
            ("libcpmt1.lib", LibraryRole::CrtVariant),
            (
                "clang_rt.asan_static_runtime_thunk-x86_64.lib",
                LibraryRole::AddOn,
            ),
            ("legacy_stdio_definitions.lib", LibraryRole::AddOn),
            ("chkstk.obj", LibraryRole::LinkOption),
            ("libcmt.amd64.pdb", LibraryRole::TypeOnlyPdb),
            ("OneCore.Lib", LibraryRole::Umbrella),
            ("WindowsApp.lib", LibraryRole::Umbrella),
            ("amdhip64.lib", LibraryRole::ImportLibrary),
            ("StdOle2.Tlb", LibraryRole::TypeLibrary),
            ("rocksdb.lib", LibraryRole::ThirdParty),
        ];
        let mut failures = Vec::new();
        for (file, want) in rows {
            let got = roles.role_of(file);
            if got.role != want {
                failures.push(format!("{file}: want {want}, got {}", got.role));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        let third = roles.role_of("rocksdb.lib");
        assert!(!third.explicit && third.purpose.is_none());
        let chain = roles.role_of("msvcrt.lib");
        assert!(chain.rank < roles.role_of("msvcmrt.lib").rank);
        assert_eq!(
            roles.role_of("msvcmrt.lib").flavours,
            Some(&[Flavour::Dynamic][..])
        );
    }
}

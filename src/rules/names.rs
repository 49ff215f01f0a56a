//! Generated name tables (placeholder until the tables land).

/// Which table a name was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameTable {
    /// Windows API.
    WindowsApi,
    /// HIP runtime.
    HipRuntime,
    /// UCRT.
    Ucrt,
    /// vcruntime.
    Vcruntime,
    /// msvcp.
    Msvcp,
}

impl NameTable {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            NameTable::WindowsApi => "windows-api",
            NameTable::HipRuntime => "hip-runtime",
            NameTable::Ucrt => "ucrt",
            NameTable::Vcruntime => "vcruntime",
            NameTable::Msvcp => "msvcp",
        }
    }
}

/// One hit.
#[derive(Debug, Clone, Copy)]
pub struct NameHit {
    /// Table.
    pub table: NameTable,
    /// Library.
    pub library: &'static str,
    /// DLL.
    pub dll: &'static str,
}

/// Lookup.
pub fn lookup(_name: &str) -> Vec<NameHit> {
    Vec::new()
}

//! COFF objects (regular and bigobj): the header and section table read in the member walk, and
//! the symbol table (definitions, weak externals, references, `.idata$7` strings) read when needed.

use object::pe;
use object::read::coff::{CoffFile, CoffHeader, Symbol};

use super::super::{text, Machine};
use super::member::{classify, MemberKind};

/// What the symbol table of one object says.
#[derive(Default)]
pub(super) struct ObjectFacts<'a> {
    /// External definitions: name, section name.
    pub(super) defined: Vec<(&'a [u8], &'a [u8])>,
    /// Weak externals: name, the default it resolves to.
    pub(super) aliases: Vec<(&'a [u8], &'a [u8])>,
    pub(super) undefined: Vec<&'a [u8]>,
    /// For a symbol defined in `.idata$7`: the NUL-terminated string there (dlltool's DLL name).
    pub(super) idata7_strings: Vec<(&'a [u8], &'a [u8])>,
}

/// Reads the symbol table of a regular or bigobj COFF object.
fn read_symbols<'a, Coff: CoffHeader>(
    data: &'a [u8],
    facts: &mut ObjectFacts<'a>,
) -> Result<(), String> {
    let file = CoffFile::<&[u8], Coff>::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let sections = file.coff_section_table();
    let symbols = file.coff_symbol_table();
    let strings = symbols.strings();
    let section_name = |number: i32| -> &'a [u8] {
        if number <= 0 {
            return b"";
        }
        sections
            .section(object::SectionIndex(number as usize))
            .ok()
            .and_then(|s| s.name(strings).ok())
            .unwrap_or(b"")
    };
    for (index, symbol) in symbols.iter() {
        let class = symbol.storage_class();
        let section = symbol.section_number().0;
        if class == pe::IMAGE_SYM_CLASS_WEAK_EXTERNAL
            || (class == pe::IMAGE_SYM_CLASS_EXTERNAL
                && section == 0
                && symbol.value() == 0
                && symbol.number_of_aux_symbols() > 0)
        {
            let Ok(name) = symbol.name(strings) else {
                continue;
            };
            let target = symbols
                .aux_weak_external(index)
                .ok()
                .and_then(|aux| symbols.symbol(aux.default_symbol()).ok())
                .and_then(|target| target.name(strings).ok())
                .unwrap_or(b"");
            facts.aliases.push((name, target));
        } else if class == pe::IMAGE_SYM_CLASS_EXTERNAL {
            let Ok(name) = symbol.name(strings) else {
                continue;
            };
            if section == 0 && symbol.value() == 0 {
                facts.undefined.push(name);
            } else {
                let section_text = section_name(section);
                if section_text == b".idata$7" {
                    let value = symbol.value() as usize;
                    let string = sections
                        .section(object::SectionIndex(section as usize))
                        .ok()
                        .and_then(|s| s.coff_data(data).ok())
                        .and_then(|bytes| bytes.get(value..))
                        .map(|bytes| {
                            let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
                            &bytes[..end]
                        });
                    if let Some(string) = string.filter(|s| !s.is_empty()) {
                        facts.idata7_strings.push((name, string));
                    }
                }
                facts.defined.push((name, section_text));
            }
        }
    }
    Ok(())
}

/// Reads the symbol table of an object member of any kind (none for unreadable ones).
pub(super) fn read_member_symbols<'a>(
    data: &'a [u8],
    facts: &mut ObjectFacts<'a>,
) -> Result<(), String> {
    match classify(data) {
        Some(MemberKind::Object) => read_symbols::<pe::ImageFileHeader>(data, facts),
        Some(MemberKind::BigObject) => read_symbols::<pe::AnonObjectHeaderBigobj>(data, facts),
        _ => Ok(()),
    }
}

/// The facts of many objects in shared vectors (one allocation each, not four per object), and
/// where each object's part ends.
#[derive(Default)]
pub(super) struct AllFacts<'a> {
    pub(super) facts: ObjectFacts<'a>,
    /// Per object: end of its defined, aliases, undefined, `.idata$7` entries.
    pub(super) ends: Vec<[usize; 4]>,
}

impl<'a> AllFacts<'a> {
    pub(super) fn push(&mut self, data: &'a [u8]) -> Result<(), String> {
        let result = read_member_symbols(data, &mut self.facts);
        if result.is_err() {
            // Nothing of a broken object counts.
            let [defined, aliases, undefined, idata7] = self.ends.last().copied().unwrap_or([0; 4]);
            self.facts.defined.truncate(defined);
            self.facts.aliases.truncate(aliases);
            self.facts.undefined.truncate(undefined);
            self.facts.idata7_strings.truncate(idata7);
        }
        self.ends.push([
            self.facts.defined.len(),
            self.facts.aliases.len(),
            self.facts.undefined.len(),
            self.facts.idata7_strings.len(),
        ]);
        result
    }

    /// Object `number`'s (defined, aliases, undefined, `.idata$7` strings).
    #[allow(clippy::type_complexity)]
    pub(super) fn get(
        &self,
        number: usize,
    ) -> (
        &[(&'a [u8], &'a [u8])],
        &[(&'a [u8], &'a [u8])],
        &[&'a [u8]],
        &[(&'a [u8], &'a [u8])],
    ) {
        let start = number
            .checked_sub(1)
            .and_then(|previous| self.ends.get(previous))
            .copied()
            .unwrap_or([0; 4]);
        let end = self.ends.get(number).copied().unwrap_or(start);
        let facts = &self.facts;
        (
            &facts.defined[start[0]..end[0]],
            &facts.aliases[start[1]..end[1]],
            &facts.undefined[start[2]..end[2]],
            &facts.idata7_strings[start[3]..end[3]],
        )
    }
}

/// The weak externals (name, default) of an object member, for a lookup that needs to know
/// whether a name the symbol map lists is an alias.
pub(crate) fn weak_externals(data: &[u8]) -> Vec<(String, String)> {
    let mut facts = ObjectFacts::default();
    // A member that broke since the build gives the aliases read before the damage.
    let _ = read_member_symbols(data, &mut facts);
    facts
        .aliases
        .iter()
        .map(|(name, target)| (text(name), text(target)))
        .collect()
}

/// What the header and section table of an object say.
pub(super) struct ObjectHeader<'a> {
    pub(super) machine: Machine,
    /// Whether it has `.idata$N` sections (a long-form import object, or its head or tail).
    pub(super) idata: bool,
    /// The data of its `.drectve` sections.
    pub(super) directives: Vec<&'a [u8]>,
}

/// Reads the header and section table of an object (and checks that its symbol table is where the
/// header says), without reading the symbols.
pub(super) fn read_header<Coff: CoffHeader>(data: &[u8]) -> Result<ObjectHeader<'_>, String> {
    let file = CoffFile::<&[u8], Coff>::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let mut header = ObjectHeader {
        machine: Machine::from_coff(file.coff_header().machine().0),
        idata: false,
        directives: Vec::new(),
    };
    for section in file.coff_section_table().iter() {
        let name = section.raw_name();
        if name.starts_with(b".idata$") {
            header.idata = true;
        } else if name == b".drectve" {
            header.directives.extend(section.coff_data(data).ok());
        }
    }
    Ok(header)
}

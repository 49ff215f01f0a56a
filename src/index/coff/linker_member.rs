//! The first linker member (`/`): the symbol map that says which member defines which name.

use super::super::store;

/// The first linker member (`/`, big-endian offsets in member order, then NUL-terminated names),
/// if the archive starts with one; an error if it claims more bytes than the file has.
pub(super) fn first_linker_member(data: &[u8]) -> Option<Result<&[u8], String>> {
    let header = data.get(8..68)?;
    if &header[..16] != b"/               " || &header[58..60] != b"`\n" {
        return None;
    }
    // Like `object` (and the linkers): the digits up to the first space.
    let digits = header[48..58].split(|&b| b == b' ').next().unwrap_or(&[]);
    let size = std::str::from_utf8(digits)
        .ok()
        .and_then(|size| size.parse::<usize>().ok());
    Some(match size {
        None => Err("unreadable size".to_string()),
        Some(size) => data
            .get(68..68usize.saturating_add(size))
            .ok_or_else(|| format!("{size} bytes do not fit in the file")),
    })
}

/// A first linker member: big-endian member offsets, then as many NUL-terminated names.
pub(super) struct SymbolMap<'a> {
    offsets: &'a [u8],
    names: &'a [u8],
}

/// One symbol map entry: member header offset, name, name hash, whether the name is ASCII.
pub(super) type MapEntry<'a> = (u32, &'a [u8], u64, bool);

impl<'a> SymbolMap<'a> {
    /// Splits a first linker member, or says why it is broken.
    pub(super) fn parse(map: &'a [u8]) -> Result<SymbolMap<'a>, String> {
        let count = map
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("too short for a symbol count")?;
        let offsets = count
            .checked_mul(4)
            .and_then(|length| map.get(4..4 + length))
            .ok_or_else(|| format!("{count} symbols do not fit in {} bytes", map.len()))?;
        Ok(SymbolMap {
            offsets,
            names: &map[4 + offsets.len()..],
        })
    }

    /// The number of entries (bounded by the member's size, so safe to allocate for).
    pub(super) fn len(&self) -> usize {
        self.offsets.len() / 4
    }

    pub(super) fn offsets(&self) -> impl Iterator<Item = u32> + 'a {
        self.offsets
            .chunks_exact(4)
            .map(|o| u32::from_be_bytes([o[0], o[1], o[2], o[3]]))
    }

    /// Whether there are as many names as offsets.
    pub(super) fn names_complete(&self) -> bool {
        memchr::memchr_iter(0, self.names).take(self.len()).count() == self.len()
    }

    /// The entries, each name scanned and hashed in one pass.
    pub(super) fn entries(&self) -> impl Iterator<Item = Result<MapEntry<'a>, &'static str>> + 'a {
        let mut names = self.names;
        self.offsets().map(move |offset| {
            let (length, hash, ascii) =
                store::scan_name(names).ok_or("missing archive symbol name")?;
            let name = &names[..length];
            names = &names[length + 1..];
            Ok((offset, name, hash, ascii))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_map_entries_are_bounded() {
        let mut map = 2u32.to_be_bytes().to_vec();
        map.extend(100u32.to_be_bytes());
        map.extend(200u32.to_be_bytes());
        map.extend(b"a\0bc\0");
        let entries = |map: &[u8]| -> Result<Vec<(u32, Vec<u8>)>, String> {
            let map = SymbolMap::parse(map)?;
            map.entries()
                .map(|e| e.map(|(offset, name, _, _)| (offset, name.to_vec())))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            entries(&map),
            Ok(vec![(100, b"a".to_vec()), (200, b"bc".to_vec())])
        );
        assert!(entries(&map[..map.len() - 1]).is_err());
        assert!(!SymbolMap::parse(&map[..map.len() - 1])
            .unwrap()
            .names_complete());
        let mut huge = u32::MAX.to_be_bytes().to_vec();
        huge.extend([0; 16]);
        assert!(SymbolMap::parse(&huge).is_err());
        assert!(SymbolMap::parse(b"\0\0").is_err());
    }
}

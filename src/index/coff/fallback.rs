//! Reading an archive whose member walk broke at a linker member: a second linker member (or a
//! long-names member) with a damaged size hides every member after it from the walk, though the
//! first linker member still says where each member starts; a damaged first linker member hides
//! everything, though the second (Microsoft's, little-endian offsets of every member) is intact.
//! The members are then read at the offsets the sound one gives, and the archive is read as if
//! walked (with a warning naming the file).

use super::linker_member::SymbolMap;

/// The size of an archive member header.
const HEADER: usize = 60;

/// A member header at `offset`: its raw 16-byte name field and its data.
pub(super) fn member_at(data: &[u8], offset: usize) -> Option<(&[u8], &[u8])> {
    let header = data.get(offset..offset.checked_add(HEADER)?)?;
    if &header[58..60] != b"`\n" {
        return None;
    }
    let digits = header[48..58].split(|&b| b == b' ').next()?;
    let size: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
    let start = offset + HEADER;
    let body = data.get(start..start.checked_add(size)?)?;
    Some((&header[..16], body))
}

/// The long-names member (`//`), found by its header at an even offset between the first linker
/// member and the first member the map names (where linkers put it).
fn long_names(data: &[u8], from: usize, to: usize) -> Option<&[u8]> {
    let mut at = from;
    while at + HEADER <= to.min(data.len()) {
        if data[at..].starts_with(b"//              ") {
            if let Some((_, body)) = member_at(data, at) {
                return Some(body);
            }
        }
        at += 2;
    }
    None
}

/// A member's name from its header name field: `name/` as is, `/N` from the long names.
fn member_name<'a>(field: &'a [u8], long_names: Option<&'a [u8]>) -> &'a [u8] {
    let trimmed = {
        let end = field.iter().rposition(|&b| b != b' ').map_or(0, |e| e + 1);
        &field[..end]
    };
    if let Some(number) = trimmed.strip_prefix(b"/") {
        let offset = std::str::from_utf8(number)
            .ok()
            .and_then(|n| n.parse::<usize>().ok());
        if let (Some(offset), Some(names)) = (offset, long_names) {
            if let Some(rest) = names.get(offset..) {
                let end = rest
                    .iter()
                    .position(|&b| b == 0 || b == b'\n')
                    .unwrap_or(rest.len());
                return rest[..end].strip_suffix(b"/").unwrap_or(&rest[..end]);
            }
        }
        return trimmed;
    }
    trimmed.strip_suffix(b"/").unwrap_or(trimmed)
}

/// The members from the first of `offsets` (header offsets a linker member gives) to the end of
/// the archive, walked header by header (members that define nothing are in no linker member, so
/// the walk, not the list, finds them all): (header offset, name, data). The long-names member is
/// looked for from `search_from` to the first member.
pub(super) fn members_at(
    data: &[u8],
    offsets: Vec<u32>,
    search_from: usize,
) -> Vec<(u32, &[u8], &[u8])> {
    let Some(first) = offsets.into_iter().min().map(|o| o as usize) else {
        return Vec::new();
    };
    let names = long_names(data, search_from, first);
    let mut members = Vec::new();
    let mut at = first;
    while let Some((field, body)) = member_at(data, at) {
        let Ok(offset) = u32::try_from(at) else {
            break;
        };
        members.push((offset, member_name(field, names), body));
        at += HEADER + body.len() + (body.len() & 1);
    }
    members
}

/// The member offsets of the first linker member.
pub(super) fn first_map_offsets(map: &SymbolMap<'_>) -> Vec<u32> {
    map.offsets().collect()
}

/// The member offsets of the second linker member (Microsoft's: a count and little-endian
/// offsets of every member), found by its header at an even offset after the first linker
/// member's header, for when the first one's size is damaged. Returns where it ends too.
pub(super) fn second_map_offsets(data: &[u8]) -> Option<(Vec<u32>, usize)> {
    let limit = data.len().min(68 + (64 << 20));
    let mut at = 68;
    while at + HEADER <= limit {
        if data[at..].starts_with(b"/               ") {
            if let Some((_, body)) = member_at(data, at) {
                let count = u32::from_le_bytes(body.get(..4)?.try_into().ok()?) as usize;
                let offsets = body.get(4..4 + count.checked_mul(4)?)?;
                let offsets: Vec<u32> = offsets
                    .chunks_exact(4)
                    .map(|o| u32::from_le_bytes([o[0], o[1], o[2], o[3]]))
                    .collect();
                let sound = offsets
                    .iter()
                    .all(|&o| member_at(data, o as usize).is_some());
                return (sound && !offsets.is_empty())
                    .then_some((offsets, at + HEADER + body.len()));
            }
        }
        at += 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_short_and_long() {
        let names = b"a-long-member-name.obj/\n";
        assert_eq!(member_name(b"x.dll/          ", None), b"x.dll");
        assert_eq!(
            member_name(b"/0              ", Some(names)),
            b"a-long-member-name.obj"
        );
        assert_eq!(member_name(b"/99             ", Some(names)), b"/99");
        let mut data = b"!<arch>\n".to_vec();
        data.extend_from_slice(format!("{:<16}{:<32}{:<10}`\n", "x.dll/", "", 3).as_bytes());
        data.extend_from_slice(b"abc");
        assert_eq!(
            member_at(&data, 8),
            Some((&b"x.dll/          "[..], &b"abc"[..]))
        );
        assert_eq!(member_at(&data, 9), None);
        data.truncate(data.len() - 1);
        assert_eq!(member_at(&data, 8), None);
    }
}

//! What a member is, from its first bytes: a short import member, a regular or bigobj COFF object,
//! or one whose symbols cannot be read (a `/GL` LTCG object, LLVM bitcode).

use object::pe;

use super::super::Machine;

/// What one member turned out to be.
pub(super) enum MemberKind {
    /// A short import member (`00 00 FF FF`, version 0).
    Import,
    /// A regular COFF object.
    Object,
    /// A bigobj COFF object (`/bigobj`).
    BigObject,
    /// A `/GL` (LTCG) object: an anonymous object header with a class id other than bigobj.
    Ltcg,
    /// LLVM bitcode (`-flto`), raw or in a wrapper.
    Bitcode,
}

/// Classifies member data by its first bytes.
pub(super) fn classify(data: &[u8]) -> Option<MemberKind> {
    if data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(MemberKind::Bitcode);
    }
    if data.len() < 20 {
        return None;
    }
    let sig1 = u16::from_le_bytes([data[0], data[1]]);
    let sig2 = u16::from_le_bytes([data[2], data[3]]);
    if sig1 == 0 && sig2 == 0xFFFF {
        let version = u16::from_le_bytes([data[4], data[5]]);
        if version == 0 {
            return Some(MemberKind::Import);
        }
        if data.len() >= 28 && data[12..28] == pe::ANON_OBJECT_HEADER_BIGOBJ_CLASS_ID.0 {
            return Some(MemberKind::BigObject);
        }
        return Some(MemberKind::Ltcg);
    }
    Some(MemberKind::Object)
}

/// Whether a whole file looks like a COFF object or a short import object.
pub(crate) fn looks_like_object(data: &[u8]) -> bool {
    if data.len() < 20 {
        return false;
    }
    let machine = u16::from_le_bytes([data[0], data[1]]);
    let sig2 = u16::from_le_bytes([data[2], data[3]]);
    (machine == 0 && sig2 == 0xFFFF)
        || matches!(
            Machine::from_coff(machine),
            Machine::X64 | Machine::X86 | Machine::Arm64 | Machine::Arm64ec | Machine::Arm
        )
        || (machine == 0 && data.len() >= 20)
}

/// The offset of a member's bytes in the file (0 when they are not part of it).
pub(super) fn offset_of(data: &[u8], bytes: &[u8]) -> u32 {
    (bytes.as_ptr() as usize)
        .checked_sub(data.as_ptr() as usize)
        .filter(|start| start + bytes.len() <= data.len())
        .and_then(|start| u32::try_from(start).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_by_signature() {
        assert!(classify(b"BC\xC0\xDE1234").is_some_and(|k| matches!(k, MemberKind::Bitcode)));
        assert!(classify(&[0; 4]).is_none());
        let mut ltcg = vec![0u8; 64];
        ltcg[2] = 0xFF;
        ltcg[3] = 0xFF;
        ltcg[4] = 1;
        assert!(classify(&ltcg).is_some_and(|k| matches!(k, MemberKind::Ltcg)));
        ltcg[12..28].copy_from_slice(&pe::ANON_OBJECT_HEADER_BIGOBJ_CLASS_ID.0);
        assert!(classify(&ltcg).is_some_and(|k| matches!(k, MemberKind::BigObject)));
    }
}

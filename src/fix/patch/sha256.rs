//! SHA-256 of an `extension.py`: the diagnosis JSON records the hash of the file it was made
//! against, and `--apply` refuses when the file no longer matches. The digest is the `sha2`
//! crate's; this module only gives it the hex form the JSON and the refusal message use.

use sha2::{Digest, Sha256};

/// The SHA-256 digest of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sha256_hex;

    #[test]
    fn known_vectors() {
        let cases: [(&[u8], &str); 4] = [
            (
                b"",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                &[b'a'; 1000],
                "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3",
            ),
        ];
        let failures: Vec<String> = cases
            .iter()
            .filter(|(input, expected)| sha256_hex(input) != *expected)
            .map(|(input, expected)| {
                format!(
                    "{} bytes: expected {expected}, got {}",
                    input.len(),
                    sha256_hex(input)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{failures:#?}");
    }
}

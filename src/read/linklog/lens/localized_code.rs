//! A link.exe message without its code: the Visual Studio Error List's Description column, or a
//! message quoted on its own, starts with the unresolved-symbol phrase of its language.
//!
//! A real paste (zh-CN, the Description column copied alone):
//!
//! ```text
//! 无法解析的外部符号 __std_search_1，函数 "char const * __cdecl std::_Search_vectorized<...>(...)" (??$_Search_vectorized@...) 中引用了该符号
//! ```
//!
//! becomes `error LNK2019: 无法解析的外部符号 __std_search_1，...` (LNK2019: the message names the
//! referencing function; LNK2001 when it names none). Only a line that starts with the phrase,
//! followed by a name, qualifies: prose that mentions the phrase ("I get 无法解析的外部符号") does
//! not, so no word of a sentence becomes a symbol.

use super::find_code;
use crate::read::linklog::trim::TrimWhitespace;

/// The unresolved-symbol phrases, as substrings without their first letter's case (for the
/// line filter: one of them is in every line this lens turns into a record).
pub const PHRASES: &[&str] = &[
    "nresolved external symbol",
    // zh-CN 无法解析的外部符号 and zh-TW 無法解析的外部符號
    "法解析的外部符",
    "未解決の外部シンボル",
    "aufgelöstes externes Symbol",
    "ymbole externe non r",
    // es and pt-BR símbolo externo, it simbolo esterno
    "mbolo e",
    "еразрешенный внешний символ",
    "ozpoznaný externí symbol",
];

/// The phrases a message starts with, lowercase (the first letter may be either case).
const STARTS: &[&str] = &[
    "unresolved external symbol ",
    "无法解析的外部符号",
    "無法解析的外部符號",
    "未解決の外部シンボル",
    "verweis auf nicht aufgelöstes externes symbol",
    "nicht aufgelöstes externes symbol",
    "symbole externe non résolu",
    "símbolo externo",
    "simbolo esterno",
    "ссылка на неразрешенный внешний символ",
    "неразрешенный внешний символ",
    "nerozpoznaný externí symbol",
];

/// Words that introduce the referencing function: the message is an LNK2019.
const FUNCTION_WORDS: &[&str] = &[
    "referenced in function",
    "函数",
    "函式",
    "関数",
    "funktion",
    "fonction",
    "función",
    "funzione",
    "função",
    "функции",
    "funkci",
];

/// Whether `text` (trimmed at the start) may start with a phrase: every phrase starts with one
/// of these bytes, in either case.
pub(super) fn may_apply(text: &str) -> bool {
    text.as_bytes().first().is_some_and(|first| {
        matches!(
            first,
            b'u' | b'U' | b'v' | b'V' | b'n' | b'N' | b's' | b'S' | 0xe4..=0xe8 | 0xd0 | 0xd1
        )
    })
}

/// Gives a code to a message that starts with an unresolved-symbol phrase and has none.
pub fn apply(line: &str) -> Option<String> {
    let text = line.trim_ws_start();
    if !may_apply(text) {
        return None;
    }
    if find_code(text).is_some() {
        return None;
    }
    let head: String = text.chars().take(48).collect::<String>().to_lowercase();
    let phrase = STARTS.iter().find(|p| head.starts_with(*p))?;
    // The phrase's length in `text`: lowercasing kept these characters' lengths.
    let after = text
        .get(phrase.len()..)?
        .trim_start_matches([' ', '\u{a0}']);
    let named = after.starts_with(|c: char| {
        c == '"' || c == '_' || c == '?' || c == '@' || c == '$' || c.is_ascii_alphabetic()
    });
    if !named || !names_a_symbol(after) {
        return None;
    }
    let lowercase = text.to_lowercase();
    let code = if FUNCTION_WORDS.iter().any(|w| lowercase.contains(w)) {
        "LNK2019"
    } else {
        "LNK2001"
    };
    Some(format!("error {code}: {text}"))
}

/// Whether the text after the phrase starts with a name rather than a word of a sentence: a
/// quoted name, a token that looks like a linker name (`_`, `@`, `?`, `$`, a digit or a capital
/// letter in it), or a plain word that ends the message or is followed by its punctuation or its
/// referencing function.
fn names_a_symbol(after: &str) -> bool {
    if after.starts_with('"') {
        return true;
    }
    let end = after
        .find(|c: char| c.is_whitespace() || !c.is_ascii())
        .unwrap_or(after.len());
    let token = after[..end].trim_end_matches(['.', ',', ';']);
    let name_like = token.chars().any(|c| {
        matches!(c, '_' | '@' | '?' | '$') || c.is_ascii_digit() || c.is_ascii_uppercase()
    });
    let rest = after[end..].trim_ws_start().to_lowercase();
    name_like
        || rest.is_empty()
        || rest.starts_with(['，', ',', '.', '。', '"', '('])
        || FUNCTION_WORDS.iter().any(|w| rest.starts_with(w))
        || [
            "referenced",
            "sin resolver",
            "non risolto",
            "odkazovaný",
            "в функции",
            "が",
            "で",
        ]
        .iter()
        .any(|w| rest.starts_with(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_without_a_code() {
        // https://github.com/MiroKaku/Musa.Runtime/issues/17
        assert_eq!(
            apply("无法解析的外部符号 __std_search_1，函数 \"f\" (?f@@YAXXZ) 中引用了该符号").as_deref(),
            Some("error LNK2019: 无法解析的外部符号 __std_search_1，函数 \"f\" (?f@@YAXXZ) 中引用了该符号")
        );
        assert_eq!(
            apply("unresolved external symbol us_internal_socket_is_closed").as_deref(),
            Some("error LNK2001: unresolved external symbol us_internal_socket_is_closed")
        );
        assert_eq!(
            apply("Nicht aufgelöstes externes Symbol \"_tls_index\".").as_deref(),
            Some("error LNK2001: Nicht aufgelöstes externes Symbol \"_tls_index\".")
        );
    }

    #[test]
    fn prose_and_records_are_left_alone() {
        assert_eq!(apply("我遇到了无法解析的外部符号的错误"), None);
        assert_eq!(
            apply("unresolved external symbol errors everywhere, why?"),
            None
        );
        assert!(apply("unresolved external symbol main referenced in function f").is_some());
        assert_eq!(apply("无法解析的外部符号？"), None);
        assert_eq!(
            apply("a.obj : error LNK2001: unresolved external symbol x"),
            None
        );
        assert_eq!(apply("LNK2001\t无法解析的外部符号 x"), None);
    }

    #[test]
    fn every_phrase_is_in_the_line_filter_list() {
        for start in STARTS {
            assert!(
                PHRASES.iter().any(|p| start.contains(&p.to_lowercase())),
                "{start}"
            );
            assert!(PHRASES.iter().all(|p| p.len() >= 3));
        }
    }
}

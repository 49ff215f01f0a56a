//! Typographic and full-width quotes around names and file names: what a word processor, a
//! chat client or a localized Visual Studio puts where link.exe's text has `'` or `"`.
//!
//! A real line of a zh-CN Visual Studio (its LNK2038 text quotes with “ ”):
//!
//! ```text
//! ortools.lib(gflags.cc.obj) : error LNK2038: 检测到“RuntimeLibrary”的不匹配项: 值“MD_DynamicRelease”不匹配值“MDd_DynamicDebug”(costas_array.obj 中)
//! LINK : fatal error LNK1104: 无法打开文件“spirv-cross-cored.lib”
//! ```
//!
//! becomes `检测到"RuntimeLibrary"的不匹配项: 值"MD_DynamicRelease"...` and `无法打开文件"spirv-cross-cored.lib"`.
//! Double quotes of every kind (“ ” „ ‟ ＂ « » 「 」 『 』 〝 〞) become `"`, single ones
//! (‘ ’ ‚ ‛ ＇ ‹ ›) become `'`.

/// The ASCII quote a typographic or full-width one stands for.
fn ascii_quote(c: char) -> Option<char> {
    match c {
        '“' | '”' | '„' | '‟' | '＂' | '«' | '»' | '「' | '」' | '『' | '』' | '〝' | '〞' => {
            Some('"')
        }
        '‘' | '’' | '‚' | '‛' | '＇' | '‹' | '›' => Some('\''),
        _ => None,
    }
}

/// Replaces typographic and full-width quotes by ASCII ones.
pub fn apply(line: &str) -> Option<String> {
    if line.is_ascii() || !line.chars().any(|c| ascii_quote(c).is_some()) {
        return None;
    }
    Some(line.chars().map(|c| ascii_quote(c).unwrap_or(c)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_of_every_kind() {
        assert_eq!(
            apply("无法打开文件“spirv-cross-cored.lib”").as_deref(),
            Some("无法打开文件\"spirv-cross-cored.lib\"")
        );
        assert_eq!(
            apply("‘x.lib’ «y» 「z」 ＂w＂").as_deref(),
            Some("'x.lib' \"y\" \"z\" \"w\"")
        );
        assert_eq!(apply("plain 'ascii'"), None);
        assert_eq!(apply("无法解析的外部符号 x"), None);
    }
}

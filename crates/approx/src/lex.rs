//! A small CUDA C lexer: enough to find functions, calls and operators in kernel source while
//! keeping every byte of the original text (tokens are spans into it).

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    /// String or character literal.
    Literal,
    Punct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

const PUNCT3: [&str; 3] = ["<<=", ">>=", "..."];
const PUNCT2: [&str; 19] = [
    "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "::",
];

/// Tokens of `src`, skipping whitespace, comments and preprocessor lines. An unterminated
/// comment or literal is an error naming its line.
pub fn tokens(src: &str) -> Result<Vec<Token>, String> {
    let b = src.as_bytes();
    let line_of = |i: usize| src[..i].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' && line_start {
            // A directive runs to the end of the line, with backslash continuations.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\n' {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        line_start = false;
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(b.len(), |e| i + e);
            continue;
        }
        if src[i..].starts_with("/*") {
            let end = src[i + 2..]
                .find("*/")
                .ok_or_else(|| format!("line {}: unterminated /* comment", line_of(i)))?;
            i += end + 4;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit()
            || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            i = number_end(src, start);
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            i = literal_end(b, start)
                .ok_or_else(|| format!("line {}: unterminated literal", line_of(start)))?;
            Kind::Literal
        } else {
            i += punct_len(&src[i..]);
            Kind::Punct
        };
        out.push(Token {
            kind,
            start,
            end: i,
        });
    }
    Ok(out)
}

/// The end of the number starting at `start`: digits, letters (suffixes, hex digits,
/// exponents), dots, and the sign after an exponent letter (`e`/`E` in decimal, `p`/`P`).
fn number_end(src: &str, start: usize) -> usize {
    let b = src.as_bytes();
    let mut i = start;
    while i < b.len() {
        let d = b[i];
        let hex = src[start..i].starts_with("0x") || src[start..i].starts_with("0X");
        let exp_sign = (d == b'+' || d == b'-')
            && match b[i - 1] {
                b'p' | b'P' => true,
                b'e' | b'E' => !hex,
                _ => false,
            };
        if d.is_ascii_alphanumeric() || d == b'.' || exp_sign {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The end (past the closing quote) of the string or character literal opening at `start`,
/// or `None` when the line or the source ends first.
fn literal_end(b: &[u8], start: usize) -> Option<usize> {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() && b[i] != quote {
        if b[i] == b'\\' {
            i += 1;
        }
        if i < b.len() && b[i] == b'\n' {
            break;
        }
        i += 1;
    }
    (i < b.len() && b[i] == quote).then_some(i + 1)
}

/// The length of the punctuator `rest` starts with: the longest of three, two or one.
fn punct_len(rest: &str) -> usize {
    if PUNCT3.iter().any(|p| rest.starts_with(p)) {
        3
    } else if PUNCT2.iter().any(|p| rest.starts_with(p)) {
        2
    } else {
        rest.chars().next().map_or(1, char::len_utf8)
    }
}

/// The three bracket pairs, open first.
const BRACKETS: [(&str, &str); 3] = [("(", ")"), ("[", "]"), ("{", "}")];

/// Index of the token closing the bracket opened at `open` (`(`, `[` or `{`).
pub fn matching_close(src: &str, toks: &[Token], open: usize) -> Option<usize> {
    let &(o, c) = BRACKETS.iter().find(|b| b.0 == toks[open].text(src))?;
    balance(src, toks, open..toks.len(), o, c)
}

/// Index of the token opening the bracket closed at `close`.
pub fn matching_open(src: &str, toks: &[Token], close: usize) -> Option<usize> {
    let &(o, c) = BRACKETS.iter().find(|b| b.1 == toks[close].text(src))?;
    balance(src, toks, (0..=close).rev(), c, o)
}

/// Walks `order` from the bracket `enter` until the depth it opened returns to 0 at `leave`.
fn balance(
    src: &str,
    toks: &[Token],
    order: impl Iterator<Item = usize>,
    enter: &str,
    leave: &str,
) -> Option<usize> {
    let mut depth = 0usize;
    for k in order {
        let s = toks[k].text(src);
        if s == enter {
            depth += 1;
        } else if s == leave {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_numbers_operators_and_skips_comments() {
        let src = "#include <x.h>\nfloat a = 1.5e-3f / b; // c / d\n/* e / f */ x /= 0x1Ep+2;";
        let t: Vec<&str> = tokens(src).unwrap().iter().map(|t| t.text(src)).collect();
        assert_eq!(
            t,
            ["float", "a", "=", "1.5e-3f", "/", "b", ";", "x", "/=", "0x1Ep+2", ";"]
        );
        assert!(tokens("a /* open").unwrap_err().contains("line 1"));
    }

    #[test]
    fn matches_brackets() {
        let src = "f(a[(1)], (b))";
        let t = tokens(src).unwrap();
        assert_eq!(matching_close(src, &t, 1), Some(t.len() - 1));
        assert_eq!(matching_open(src, &t, t.len() - 1), Some(1));
    }
}

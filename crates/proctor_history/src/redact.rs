//! Masks secret-looking values in the command line and selection before
//! they are stored: `--token=abc`, `--password abc`, `API_KEY=abc` and the
//! password in `https://user:pass@host` all become `***`. The history is a
//! file that gets cached and shared between CI jobs; a credential passed on
//! a command line must not end up in it. The reports (JSON, HTML) mask
//! their command line and selection with the same functions.

/// Words that make an option or variable name secret-looking.
const SECRET_WORDS: [&str; 8] = [
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "credential",
];

/// What replaces a secret value.
const MASK: &str = "***";

/// Whether `name` (an option or variable name) looks like it holds a secret.
fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|word| name.contains(word))
}

/// `args` with secret-looking values masked.
#[must_use]
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next {
            out.push(MASK.to_owned());
            mask_next = false;
            continue;
        }
        if arg.starts_with('-') && !arg.contains('=') && is_secret_name(arg) {
            mask_next = true;
            out.push(arg.clone());
            continue;
        }
        out.push(redact_word(arg));
    }
    out
}

/// `text` with each whitespace-separated word's secret-looking value masked.
#[must_use]
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            out.push_str(&redact_word(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&redact_word(&word));
    out
}

/// One word with a `NAME=value` secret or a URL password masked.
fn redact_word(word: &str) -> String {
    if let Some((name, _)) = word.split_once('=') {
        if is_secret_name(name) {
            return format!("{name}={MASK}");
        }
    }
    if let Some(scheme_end) = word.find("://") {
        let rest = &word[scheme_end + 3..];
        let authority_end = rest.find('/').unwrap_or(rest.len());
        if let Some(at) = rest[..authority_end].rfind('@') {
            if let Some(colon) = rest[..at].find(':') {
                let start = scheme_end + 3 + colon + 1;
                let end = scheme_end + 3 + at;
                return format!("{}{MASK}{}", &word[..start], &word[end..]);
            }
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|&w| w.to_owned()).collect()
    }

    #[test]
    fn masks_secret_options_and_variables() {
        let given = args(&[
            "proctor",
            "run",
            "--token=abc",
            "--db-password",
            "hunter2",
            "OPENAI_API_KEY=sk-1",
            "-m",
            "unit",
        ]);
        assert_eq!(
            redact_args(&given),
            args(&[
                "proctor",
                "run",
                "--token=***",
                "--db-password",
                "***",
                "OPENAI_API_KEY=***",
                "-m",
                "unit"
            ])
        );
    }

    #[test]
    fn masks_url_passwords_only() {
        assert_eq!(
            redact_word("--db=postgres://me:pw@host:5432/x"),
            "--db=postgres://me:***@host:5432/x"
        );
        assert_eq!(redact_word("https://host/a@b:c"), "https://host/a@b:c");
        assert_eq!(redact_word("https://user@host/"), "https://user@host/");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        assert_eq!(redact_text("unit and not slow"), "unit and not slow");
        assert_eq!(redact_text("-k test_x  SECRET=1"), "-k test_x  SECRET=***");
        assert_eq!(redact_args(&args(&["-k", "token"])), args(&["-k", "token"]));
    }
}

//! Lexing: a DiskSim parameter file and the files it `source`s, read into
//! one stream of tokens, each with its file and line.

use std::path::{Path, PathBuf};

use crate::disk::DiskError;

/// How deep `source` files may nest (DiskSim's own limit is 32 open files).
const MAX_SOURCE_DEPTH: usize = 32;

/// A place in the file tree: the file (an index into [`Files::paths`]) and
/// the line, from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pos {
    pub(super) file: usize,
    pub(super) line: u32,
}

/// The files read so far.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub(super) paths: Vec<PathBuf>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Open,
    Close,
    LBracket,
    RBracket,
    Comma,
    Equals,
    Text(String),
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Open => "`{`".into(),
            Tok::Close => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Equals => "`=`".into(),
            Tok::Text(t) => format!("`{t}`"),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) at: Pos,
}

impl Files {
    pub(super) fn path(&self, at: Pos) -> &Path {
        &self.paths[at.file]
    }

    pub(super) fn error(
        &self,
        at: Pos,
        parameter: Option<&str>,
        message: impl Into<String>,
    ) -> DiskError {
        DiskError::Disksim {
            path: self.path(at).to_path_buf(),
            line: at.line,
            parameter: parameter.map(str::to_string),
            message: message.into(),
        }
    }

    /// Resolves `name`, written in the file of `at`, as DiskSim does:
    /// absolute as it is, relative from the directory of that file.
    pub(super) fn resolve(&self, at: Pos, name: &str) -> PathBuf {
        let name = Path::new(name);
        if name.is_absolute() {
            name.to_path_buf()
        } else {
            self.path(at).parent().unwrap_or(Path::new("")).join(name)
        }
    }

    /// Reads `path` (named by a `source` at `from`, if any) into tokens,
    /// splicing in the files it sources.
    pub(super) fn lex(
        &mut self,
        path: &Path,
        from: Option<Pos>,
        depth: usize,
    ) -> Result<Vec<Token>, DiskError> {
        let text = crate::text_input::read_text(path).map_err(|source| {
            // Text that is not UTF-8 is the file's own fault, at its line;
            // a file that cannot be read is the fault of the line naming it.
            match (crate::text_input::not_utf8(&source), from) {
                (Some(bad), _) => DiskError::Disksim {
                    path: path.to_path_buf(),
                    line: bad.line,
                    parameter: None,
                    message: format!("not UTF-8 text (byte {})", bad.byte),
                },
                (None, None) => DiskError::Io {
                    path: path.to_path_buf(),
                    source,
                },
                (None, Some(at)) => self.error(
                    at,
                    None,
                    format!(
                        "`source {}`: cannot read {}: {source}",
                        path.display(),
                        path.display()
                    ),
                ),
            }
        })?;
        let file = self.paths.len();
        self.paths.push(path.to_path_buf());
        let mut tokens = Vec::new();
        // The blocks and lists open in this file: each file closes what it
        // opens, so that a sourced `.model` cut short is blamed on its own
        // last line rather than on a token of the file that sourced it.
        let mut open: Vec<Token> = Vec::new();
        let mut last = Pos { file, line: 0 };
        for (i, line) in text.lines().enumerate() {
            let at = Pos {
                file,
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
            };
            last = at;
            let line = line.split('#').next().unwrap_or("");
            let mut word = String::new();
            for c in line.chars() {
                let tok = match c {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ',' => Tok::Comma,
                    '=' => Tok::Equals,
                    c => {
                        word.push(c);
                        continue;
                    }
                };
                self.text(&mut word, at, depth, &mut tokens)?;
                if matches!(tok, Tok::Open | Tok::LBracket) {
                    open.push(Token {
                        tok: tok.clone(),
                        at,
                    });
                } else if matches!(tok, Tok::Close | Tok::RBracket)
                    && open.pop().is_none()
                    && from.is_some()
                {
                    return Err(self.error(
                        at,
                        None,
                        format!(
                            "{} closes a block or list this file did not open (a sourced file closes what it opens)",
                            tok.describe()
                        ),
                    ));
                }
                tokens.push(Token { tok, at });
            }
            self.text(&mut word, at, depth, &mut tokens)?;
        }
        if let Some(unclosed) = open.last()
            && from.is_some()
        {
            return Err(self.error(
                last,
                None,
                format!(
                    "the file ends inside the {} opened at line {} (a sourced file closes what it opens)",
                    unclosed.tok.describe(),
                    unclosed.at.line
                ),
            ));
        }
        Ok(tokens)
    }

    /// Ends a run of text: a `source FILE` directive is replaced by the
    /// file's tokens, any other text becomes one token, its white space
    /// collapsed.
    fn text(
        &mut self,
        word: &mut String,
        at: Pos,
        depth: usize,
        tokens: &mut Vec<Token>,
    ) -> Result<(), DiskError> {
        let words: Vec<&str> = word.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["source", name] => {
                if depth + 1 >= MAX_SOURCE_DEPTH {
                    return Err(self.error(
                        at,
                        None,
                        format!("`source {name}`: files nest more than {MAX_SOURCE_DEPTH} deep (a file sources itself?)"),
                    ));
                }
                let path = self.resolve(at, name);
                tokens.extend(self.lex(&path, Some(at), depth + 1)?);
            }
            words => tokens.push(Token {
                tok: Tok::Text(words.join(" ")),
                at,
            }),
        }
        word.clear();
        Ok(())
    }
}

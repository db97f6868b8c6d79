//! Parsing: tokens into DiskSim's blocks, `instantiate` lines and
//! topologies (the `libparam` syntax).

use crate::disk::DiskError;

use super::lex::{Files, Pos, Tok, Token};

/// A value: a word or number, a list, a block, or a named list (`TYPE NAME
/// [ … ]`, a node of a topology).
#[derive(Clone, Debug)]
pub(super) enum Value {
    Text(String),
    List(Vec<Node>),
    Block(Block),
    Named(String, Vec<Node>),
}

/// A value and where it starts.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) value: Value,
    pub(super) at: Pos,
}

/// `Name = value`.
#[derive(Clone, Debug)]
pub(super) struct Param {
    pub(super) name: String,
    pub(super) value: Node,
    pub(super) at: Pos,
}

/// What a file tree defines: its blocks, its instances (the names, or
/// ranges of names, each `instantiate` gives copies of a block) and its
/// topologies (`Named` values).
#[derive(Debug, Default)]
pub(super) struct Tree {
    pub(super) blocks: Vec<Block>,
    pub(super) instances: Vec<(Vec<String>, String)>,
    pub(super) topology: Vec<Value>,
}

/// `kind name { params }` (a top-level definition) or `kind { params }` (a
/// value).
#[derive(Clone, Debug)]
pub(super) struct Block {
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) params: Vec<Param>,
    pub(super) at: Pos,
}

pub(super) struct Parser<'a> {
    tokens: &'a [Token],
    next: usize,
    files: &'a Files,
    /// Blocks and lists open around the current token.
    depth: usize,
}

/// How deep blocks and lists may nest.
const MAX_NESTING: usize = 64;

impl<'a> Parser<'a> {
    /// A parser at the first of `tokens`, read from `files`.
    pub(super) fn new(tokens: &'a [Token], files: &'a Files) -> Self {
        Parser {
            tokens,
            next: 0,
            files,
            depth: 0,
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.next).cloned();
        self.next += 1;
        t
    }

    /// Where the text ends: the last token's place.
    fn end(&self) -> Pos {
        self.tokens
            .last()
            .map_or(Pos { file: 0, line: 0 }, |t| t.at)
    }

    fn unexpected(&self, t: &Token, wanted: &str) -> DiskError {
        let message = match t.tok {
            Tok::Close => format!("unbalanced braces: `}}` closes nothing (expected {wanted})"),
            Tok::RBracket => format!("unbalanced brackets: `]` closes nothing (expected {wanted})"),
            _ => format!("expected {wanted}, found {}", t.tok.describe()),
        };
        self.files.error(t.at, None, message)
    }

    /// The top level: block definitions, `instantiate [ … ] as NAME`,
    /// `topology TYPE NAME [ … ]`.
    pub(super) fn top(&mut self) -> Result<Tree, DiskError> {
        let mut tree = Tree::default();
        while let Some(t) = self.bump() {
            let Tok::Text(head) = &t.tok else {
                return Err(self.unexpected(&t, "a block definition"));
            };
            match self.peek().map(|n| &n.tok) {
                Some(Tok::Open) => {
                    self.next += 1;
                    let (kind, name) = head.split_once(' ').unwrap_or((head, ""));
                    tree.blocks.push(self.block(kind, name, t.at)?);
                }
                Some(Tok::LBracket) => {
                    self.next += 1;
                    let items = self.list(t.at)?;
                    if let Some(root) = head.strip_prefix("topology ") {
                        tree.topology.push(Value::Named(root.to_string(), items));
                    } else if head == "instantiate" {
                        match self.bump() {
                            Some(Token {
                                tok: Tok::Text(text),
                                ..
                            }) if text.starts_with("as ") => {
                                let names = items.into_iter().filter_map(|n| match n.value {
                                    Value::Text(name) => Some(name),
                                    _ => None,
                                });
                                tree.instances
                                    .push((names.collect(), text[3..].to_string()));
                            }
                            Some(other) => return Err(self.unexpected(&other, "`as NAME`")),
                            None => {
                                return Err(self.files.error(
                                    self.end(),
                                    None,
                                    "the text ends inside an `instantiate` (expected `as NAME`)",
                                ));
                            }
                        }
                    }
                }
                _ => {
                    return Err(self.files.error(
                        t.at,
                        None,
                        format!("expected `{{` or `[` after `{head}`"),
                    ));
                }
            }
        }
        Ok(tree)
    }

    /// The parameters of a block whose `{` (at `at`) has been read, through
    /// its `}`.
    fn block(&mut self, kind: &str, name: &str, at: Pos) -> Result<Block, DiskError> {
        let unclosed = |files: &Files| {
            files.error(
                at,
                None,
                format!("unbalanced braces: the `{{` of `{kind} {name}` is never closed"),
            )
        };
        let mut params = Vec::new();
        loop {
            let Some(t) = self.bump() else {
                return Err(unclosed(self.files));
            };
            let names = match t.tok {
                Tok::Close => break,
                Tok::Text(name) => vec![name],
                // `[ a, b ] = value` gives several parameters one value.
                Tok::LBracket => {
                    let mut names = Vec::new();
                    for node in self.list(t.at)? {
                        match node.value {
                            Value::Text(name) => names.push(name),
                            _ => {
                                return Err(self.files.error(
                                    node.at,
                                    None,
                                    "expected a parameter name in the list",
                                ));
                            }
                        }
                    }
                    names
                }
                _ => return Err(self.unexpected(&t, "a parameter name or `}`")),
            };
            match self.bump() {
                Some(Token {
                    tok: Tok::Equals, ..
                }) => {}
                Some(other) => {
                    return Err(self.files.error(
                        other.at,
                        Some(&names.join(", ")),
                        format!("expected `=`, found {}", other.tok.describe()),
                    ));
                }
                None => return Err(unclosed(self.files)),
            }
            let value = match self.value()? {
                Some(value) => value,
                None => {
                    return Err(self.files.error(
                        t.at,
                        Some(&names.join(", ")),
                        "no value after `=`",
                    ));
                }
            };
            for name in names {
                params.push(Param {
                    name,
                    value: value.clone(),
                    at: t.at,
                });
            }
            match self.bump() {
                Some(Token {
                    tok: Tok::Comma, ..
                }) => {}
                Some(Token {
                    tok: Tok::Close, ..
                }) => break,
                Some(other) => {
                    return Err(self.unexpected(&other, "`,` or `}` after a parameter"));
                }
                None => return Err(unclosed(self.files)),
            }
        }
        Ok(Block {
            kind: kind.to_string(),
            name: name.to_string(),
            params,
            at,
        })
    }

    /// A value, or `None` where a value should start but none does.
    fn value(&mut self) -> Result<Option<Node>, DiskError> {
        if self.depth >= MAX_NESTING {
            let at = self.peek().map_or(self.end(), |t| t.at);
            return Err(self.files.error(
                at,
                None,
                format!("blocks and lists nest more than {MAX_NESTING} deep"),
            ));
        }
        self.depth += 1;
        let value = self.nested_value();
        self.depth -= 1;
        value
    }

    fn nested_value(&mut self) -> Result<Option<Node>, DiskError> {
        let Some(t) = self.peek().cloned() else {
            return Ok(None);
        };
        let value = match t.tok {
            Tok::LBracket => {
                self.next += 1;
                Value::List(self.list(t.at)?)
            }
            Tok::Text(text) => {
                self.next += 1;
                match self.peek().map(|n| &n.tok) {
                    Some(Tok::Open) => {
                        self.next += 1;
                        let (kind, name) = text.split_once(' ').unwrap_or((&text, ""));
                        Value::Block(self.block(kind, name, t.at)?)
                    }
                    // `disksim_bus bus0 [ … ]` in a topology.
                    Some(Tok::LBracket) => {
                        self.next += 1;
                        Value::Named(text, self.list(t.at)?)
                    }
                    _ => Value::Text(text),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(Node { value, at: t.at }))
    }

    /// The items of a list whose `[` (at `at`) has been read, through its
    /// `]`; commas between items are optional.
    fn list(&mut self, at: Pos) -> Result<Vec<Node>, DiskError> {
        let mut items = Vec::new();
        loop {
            match self.peek().map(|t| &t.tok) {
                None => {
                    return Err(self.files.error(
                        at,
                        None,
                        "unbalanced brackets: this `[` is never closed",
                    ));
                }
                Some(Tok::RBracket) => {
                    self.next += 1;
                    return Ok(items);
                }
                Some(Tok::Comma) => self.next += 1,
                Some(_) => match self.value()? {
                    Some(node) => items.push(node),
                    None => {
                        let t = self.bump().expect("peeked");
                        return Err(self.unexpected(&t, "a list item or `]`"));
                    }
                },
            }
        }
    }
}

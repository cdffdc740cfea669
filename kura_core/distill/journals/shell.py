"""What a shell command line says about provenance, read without running it.

A command an agent typed is an action (ACT), but parts of it are the agent's own prose:
the text it ``echo``es or ``printf``s to the terminal, a here-document it ``cat``s into a
Markdown file, the message it gives ``git commit -m``. When the command does nothing but
print text the agent typed, its output repeats the agent's words and vouches no more than
they do. This module lexes a POSIX-shell command line (quotes, escapes, expansions,
here-documents, pipes and redirections) and reports:

* ``self_texts`` -- literal text the agent wrote that goes to the terminal, into a prose
  document or into a prose sink (a commit or pull-request message);
* ``literal_output`` -- every command only prints literal text (or is silent), so the
  output is the agent's own words;
* ``prose_writes`` -- prose documents the command filled with literal text;
* ``reads`` / ``only_reads`` -- files printed by ``cat``-like commands, and whether that is
  all the command does (so the output repeats those files).

Text sent into a configuration, code or data file (``echo X=1 >> app.conf``,
``cat > unit.service <<EOF``) is not prose: it stays ACT evidence of what was set, and no
SELF copy is made. Anything the lexer cannot follow yields no claims at all (the output
then stays TOOL), so a malformed command never turns machine output into SELF.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

from .paths import is_prose_path, resolve

# --------------------------------------------------------------------------- lexer


@dataclass
class Word:
    parts: list[tuple[str, bool]] = field(default_factory=list)  # (text, is_expansion)
    quoted: bool = False

    @property
    def text(self) -> str:
        return "".join(t for t, _ in self.parts)

    @property
    def literal(self) -> bool:
        return not any(e for _, e in self.parts)

    def pieces(self) -> list[str]:
        """Literal stretches of the word, split at every expansion."""
        out: list[str] = []
        cur: list[str] = []
        for t, e in self.parts:
            if e:
                out.append("".join(cur))
                cur = []
            else:
                cur.append(t)
        out.append("".join(cur))
        return [p for p in out if p]


@dataclass
class Op:
    value: str


@dataclass
class Heredoc:
    body: str
    quoted: bool


class LexError(ValueError):
    pass


_OPS = sorted(
    [
        ";;",
        ";",
        "&&",
        "&",
        "||",
        "|&",
        "|",
        "(",
        ")",
        "<<<",
        "<<-",
        "<<",
        "<>",
        "<&",
        "<",
        ">>",
        ">|",
        ">&",
        ">",
        "&>>",
        "&>",
    ],
    key=len,
    reverse=True,
)
_REDIRECTS = {"<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">", "&>>", "&>"}


_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!$-]")
_DELIMITER = re.compile(r"""(['"]?)([^\s'";&|<>()]+)\1""")


def _expansion_end(s: str, i: int) -> int:
    """Index just past the expansion starting with ``$`` or a backtick at *i*."""
    if s[i] == "`":
        j = i + 1
        while j < len(s) and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= len(s):
            raise LexError("unterminated backquote")
        return j + 1
    nxt = s[i + 1] if i + 1 < len(s) else ""
    if nxt in "({":
        close = ")" if nxt == "(" else "}"
        depth, j = 0, i + 1
        while j < len(s):
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c == "'" and close == ")":
                k = s.find("'", j + 1)
                if k < 0:
                    raise LexError("unterminated quote")
                j = k + 1
                continue
            if c == nxt:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise LexError("unterminated expansion")
    m = _PARAMETER.match(s, i + 1)  # matched in place: no copy of the rest of the line
    if not m:
        return -1  # a lone "$" is literal
    return m.end()


_PLAIN = re.compile(r"[^\s'\"\\$`;&|()<>#]+")
_ANSI_C = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
}


def lex(s: str) -> list[Word | Op | Heredoc]:
    """Tokens of a shell command line; here-document bodies follow their operator."""
    return _Lexer(s).run()


class _Lexer:
    """One pass over a command line: each kind of character read by its own step."""

    def __init__(self, s: str) -> None:
        self.s, self.i, self.n = s, 0, len(s)
        self.toks: list[Word | Op | Heredoc] = []
        self.pending: list[tuple[Heredoc, str, bool]] = []  # (document, delimiter, strip tabs)
        self.word: Word | None = None

    def run(self) -> list[Word | Op | Heredoc]:
        s, n = self.s, self.n
        while self.i < n:
            m = _PLAIN.match(s, self.i)
            if m:
                self.lit(m.group())
                self.i = m.end()
                continue
            c = s[self.i]
            if c == "\n":
                self.newline()
            elif c in " \t\r":
                self.flush()
                self.i += 1
            elif c == "#" and self.word is None:
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j
            elif c == "\\":
                self.backslash()
            elif c == "'":
                self.single_quoted()
            elif c == "$" and self.i + 1 < n and s[self.i + 1] == "'":
                self.ansi_c_quoted()
            elif c == '"':
                self.double_quoted()
            elif c in "$`":
                self.expansion(c)
            elif not self.operator(c):
                self.lit(c)
                self.i += 1
        self.flush()
        return self.toks

    def flush(self) -> None:
        if self.word is not None:
            self.toks.append(self.word)
            self.word = None

    def lit(self, text: str, quoted: bool = False) -> None:
        if self.word is None:
            self.word = Word()
        self.word.parts.append((text, False))
        self.word.quoted = self.word.quoted or quoted

    def newline(self) -> None:
        """End of a line: the bodies of the here-documents it opened follow it."""
        s, n = self.s, self.n
        self.flush()
        self.toks.append(Op("\n"))
        self.i += 1
        for doc, delim, strip in self.pending:
            body_lines = []
            while self.i < n:
                j = s.find("\n", self.i)
                line = s[self.i :] if j < 0 else s[self.i : j]
                self.i = n if j < 0 else j + 1
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                body_lines.append(line.lstrip("\t") if strip else line)
            body = "\n".join(body_lines)
            doc.body = body + ("\n" if body_lines else "")
        self.pending = []

    def backslash(self) -> None:
        s, i = self.s, self.i
        if i + 1 < self.n and s[i + 1] == "\n":
            self.i += 2
            return
        self.lit(s[i + 1] if i + 1 < self.n else "", True)
        self.i += 2

    def single_quoted(self) -> None:
        j = self.s.find("'", self.i + 1)
        if j < 0:
            raise LexError("unterminated single quote")
        self.lit(self.s[self.i + 1 : j], True)
        self.i = j + 1

    def ansi_c_quoted(self) -> None:
        s, n = self.s, self.n
        j, out = self.i + 2, []
        while j < n and s[j] != "'":
            if s[j] == "\\" and j + 1 < n:
                out.append(_ANSI_C.get(s[j + 1], "\\" + s[j + 1]))
                j += 2
            else:
                out.append(s[j])
                j += 1
        if j >= n:
            raise LexError("unterminated $'' quote")
        self.lit("".join(out), True)
        self.i = j + 1

    def double_quoted(self) -> None:
        s, n = self.s, self.n
        j = self.i + 1
        if self.word is None:
            self.word = Word()
        word = self.word
        word.quoted = True
        buf: list[str] = []
        while j < n and s[j] != '"':
            ch = s[j]
            if ch == "\\" and j + 1 < n and s[j + 1] in '$`"\\\n':
                if s[j + 1] != "\n":
                    buf.append(s[j + 1])
                j += 2
                continue
            if ch in "$`":
                end = _expansion_end(s, j)
                if end > 0:
                    if buf:
                        word.parts.append(("".join(buf), False))
                        buf = []
                    word.parts.append((s[j:end], True))
                    j = end
                    continue
            buf.append(ch)
            j += 1
        if j >= n:
            raise LexError("unterminated double quote")
        if buf or not word.parts:
            word.parts.append(("".join(buf), False))
        self.i = j + 1

    def expansion(self, c: str) -> None:
        end = _expansion_end(self.s, self.i)
        if end > 0:
            if self.word is None:
                self.word = Word()
            self.word.parts.append((self.s[self.i : end], True))
            self.i = end
            return
        self.lit(c)
        self.i += 1

    def operator(self, c: str) -> bool:
        """Read an operator at the cursor; False when there is none."""
        s, n = self.s, self.n
        op = next((o for o in _OPS if s.startswith(o, self.i)), None) if c in ";&|()<>" else None
        if op is None:
            return False
        # an IO number glued to a redirection (2>, 1>>) belongs to the operator
        if (
            op in _REDIRECTS
            and self.word is not None
            and self.word.text.isdigit()
            and not self.word.quoted
        ):
            self.word = None
        self.flush()
        self.toks.append(Op(op))
        self.i += len(op)
        if op in ("<<", "<<-"):
            # the delimiter word follows; read it now
            while self.i < n and s[self.i] in " \t":
                self.i += 1
            m = _DELIMITER.match(s, self.i)
            if not m:
                raise LexError("here-document without a delimiter")
            # the body is filled in when its line ends (an unclosed one stays empty)
            doc = Heredoc("", bool(m.group(1)) or "\\" in m.group(0))
            self.toks.append(doc)
            self.pending.append((doc, m.group(2), op == "<<-"))
            self.i = m.end()
        return True


# --------------------------------------------------------------------------- commands


@dataclass
class Command:
    words: list[Word] = field(default_factory=list)
    redirects: list[tuple[str, Word | Heredoc]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return os.path.basename(self.words[0].text) if self.words else ""


_SEPARATORS = {";", ";;", "&", "&&", "||", "\n", "(", ")"}
_KEYWORDS = {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"}
_WRAPPERS = {"sudo", "command", "builtin", "nohup", "env", "exec", "nice", "doas", "stdbuf"}


def pipelines(toks: list[Word | Op | Heredoc]) -> list[list[Command]]:
    out: list[list[Command]] = []
    pipe: list[Command] = []
    cmd = Command()
    i = 0
    while i < len(toks):
        t = toks[i]
        if isinstance(t, Op) and t.value in _SEPARATORS | {"|", "|&"}:
            if cmd.words or cmd.redirects:
                pipe.append(cmd)
            cmd = Command()
            if t.value not in ("|", "|&") and pipe:
                out.append(pipe)
                pipe = []
            i += 1
            continue
        if isinstance(t, Op):  # a redirection: its target follows
            target = toks[i + 1] if i + 1 < len(toks) else None
            if isinstance(target, (Word, Heredoc)):
                cmd.redirects.append((t.value, target))
                i += 2
            else:
                i += 1
            continue
        if isinstance(t, Heredoc):
            i += 1
            continue
        if (
            not cmd.words
            and t.literal
            and (t.text in _KEYWORDS or re.match(r"^[A-Za-z_]\w*=", t.text))
        ):
            i += 1  # a keyword or an assignment before the command word
            continue
        cmd.words.append(t)
        i += 1
    if cmd.words or cmd.redirects:
        pipe.append(cmd)
    if pipe:
        out.append(pipe)
    for p in out:
        for c in p:
            _unwrap(c)
    return out


def _unwrap(cmd: Command) -> None:
    """Drop ``sudo``-style wrappers (and their options) in front of the real command."""
    words, i = cmd.words, 0
    while i < len(words) and words[i].literal and os.path.basename(words[i].text) in _WRAPPERS:
        wrapper = os.path.basename(words[i].text)
        i += 1
        while (
            i < len(words)
            and words[i].literal
            and (words[i].text.startswith("-") or (wrapper == "env" and "=" in words[i].text))
        ):
            flag = words[i].text
            i += 1
            if wrapper in ("sudo", "doas") and flag in ("-u", "-g", "-C", "-D", "-p"):
                i += 1
    if i:
        del words[:i]


# --------------------------------------------------------------------------- facts

_LITERAL = {"echo", "printf", "print"}
_SILENT = {
    "cd",
    "mkdir",
    "touch",
    "export",
    "set",
    "unset",
    "sleep",
    "true",
    "false",
    ":",
    "exit",
    "wait",
    "sync",
    "chmod",
    "chown",
    "cp",
    "mv",
    "ln",
    "rm",
    "rmdir",
    "fi",
    "done",
    "esac",
    "}",
    "clear",
    "umask",
    "shopt",
    "trap",
    "return",
    "local",
}
_READERS = {"cat", "head", "tail", "less", "more", "bat", "batcat", "nl", "tac"}
#: Commands whose text input is prose someone will read (commit and review messages).
_PROSE_SINKS = {
    "git",
    "gh",
    "glab",
    "hub",
    "mail",
    "mailx",
    "sendmail",
    "wall",
    "logger",
    "notify-send",
    "osascript",
}
_PROSE_OPTIONS = {
    "-m",
    "--message",
    "--title",
    "-t",
    "--body",
    "-b",
    "--notes",
    "--subject",
    "-s",
    "--description",
    "--comment",
    "--summary",
}


@dataclass
class ShellFacts:
    literal_output: bool = False
    self_texts: list[str] = field(default_factory=list)
    prose_writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    only_reads: bool = False
    parsed: bool = True


def _printf_pieces(args: list[Word]) -> list[str]:
    if not args:
        return []
    out: list[str] = []
    fmt = args[0]
    for piece in fmt.pieces():
        piece = re.sub(r"\\(.)", lambda m: _ANSI_C.get(m.group(1), m.group(1)), piece)
        out.extend(
            p for p in re.split(r"%[-+ 0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]", piece) if p
        )
    for w in args[1:]:
        out.extend(w.pieces())
    return out


def _echo_pieces(args: list[Word]) -> list[str]:
    i = 0
    escapes = False
    while i < len(args) and args[i].literal and re.fullmatch(r"-[neE]+", args[i].text):
        escapes = escapes or "e" in args[i].text
        i += 1
    out: list[str] = []
    line: list[str] = []
    for w in args[i:]:
        ps = w.pieces()
        if not w.literal:  # an expansion splits the text: keep each literal stretch apart
            if line:
                out.append(" ".join(line))
                line = []
            out.extend(ps)
            continue
        line.extend(ps)
    if line:
        out.append(" ".join(line))
    if escapes:
        out = [re.sub(r"\\(.)", lambda m: _ANSI_C.get(m.group(1), m.group(1)), p) for p in out]
    return out


def _heredoc_pieces(doc: Heredoc) -> list[str]:
    if doc.quoted:
        return [doc.body]
    try:
        word = Word()
        s, i, buf = doc.body, 0, []
        while i < len(s):
            if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "$`\\":
                buf.append(s[i + 1])
                i += 2
                continue
            if s[i] in "$`":
                end = _expansion_end(s, i)
                if end > 0:
                    word.parts.append(("".join(buf), False))
                    buf = []
                    word.parts.append((s[i:end], True))
                    i = end
                    continue
            buf.append(s[i])
            i += 1
        word.parts.append(("".join(buf), False))
        return word.pieces()
    except LexError:
        return []


def _heredoc_expands(doc: Heredoc) -> bool:
    if doc.quoted:
        return False
    body = re.sub(r"\\[$`\\]", "", doc.body)
    return bool(re.search(r"`|\$(?:[A-Za-z_{(0-9@*#?!$-])", body))


def _worth(text: str) -> bool:
    return sum(ch.isalnum() for ch in text) >= 3


def analyze(command: str, cwd: str = "") -> ShellFacts:
    """Provenance facts of one shell command line (see the module docstring).

    The result is shared between calls with the same arguments: do not modify it."""
    return _analyze(command, cwd)


@functools.lru_cache(maxsize=4096)
def _analyze(command: str, cwd: str) -> ShellFacts:
    facts = ShellFacts()
    try:
        pipes = pipelines(lex(command))
    except (LexError, IndexError, RecursionError):
        facts.parsed = False
        return facts
    analysis = _Analysis(facts, cwd)
    for pipe in pipes:
        for idx in range(len(pipe)):
            analysis.command(pipe, idx)
    facts.literal_output = analysis.literal_only and analysis.any_stdout
    facts.only_reads = analysis.reads_only and bool(facts.reads)
    return facts


_OUT_REDIRECTS = (">", ">>", ">|", "&>", "&>>")


class _Analysis:
    """What the commands of one line add up to, command by command: whether all it does is
    print literal text (``literal_only``, ``any_stdout``) or read files (``reads_only``)."""

    def __init__(self, facts: ShellFacts, cwd: str) -> None:
        self.facts, self.cwd = facts, cwd
        self.literal_only, self.any_stdout, self.reads_only = True, False, True

    def opaque(self) -> None:
        """The command does something beyond printing literal text or reading files."""
        self.literal_only = self.reads_only = False

    def command(self, pipe: list[Command], idx: int) -> None:
        cmd = pipe[idx]
        outs = [t for op, t in cmd.redirects if op in _OUT_REDIRECTS and isinstance(t, Word)]
        source = self._source(cmd, idx, outs)
        if source is None:
            return
        texts, expands, tee_files = source
        if expands:
            self.opaque()
        # a literal source: where does its text go?
        dests, to_stdout, consumed = self._destinations(pipe, idx, outs, tee_files)
        paths = [resolve(w.text, self.cwd) for w in dests if w.literal]
        paths = [p for p in paths if p not in ("/dev/null", "/dev/stdout", "/dev/stderr")]
        if to_stdout:
            self.any_stdout = True
        if consumed or any(not is_prose_path(p) for p in paths):
            # configuration, code or data written: ACT evidence, not prose; whatever
            # the command prints repeats that action and stays machine output
            self.literal_only = False
            return
        self.facts.prose_writes.extend(paths)
        self.facts.self_texts.extend(t for t in texts if _worth(t))

    def _source(
        self, cmd: Command, idx: int, outs: list[Word]
    ) -> tuple[list[str], bool, list[Word]] | None:
        """The text a command writes from its own words (echo, printf, a here-document),
        whether any of it expands, and the files ``tee`` copies it to; None for any other
        command, whose bearing on the facts is recorded here."""
        name, args = cmd.name, cmd.words[1:]
        ins = [t for op, t in cmd.redirects if op in ("<<", "<<-", "<<<")]
        files_in = [t for op, t in cmd.redirects if op == "<" and isinstance(t, Word)]
        if name in ("echo", "print"):
            return _echo_pieces(args), any(not a.literal for a in args), []
        if name == "printf":
            return _printf_pieces(args), any(not a.literal for a in args), []
        if (
            name in ("cat", "tee")
            and (ins or (name == "tee" and idx == 0))
            and not files_in
            and (name == "tee" or all(a.text.startswith("-") for a in args))
        ):
            return _fed_text(name, args, ins)
        if name in _PROSE_SINKS:
            self.facts.self_texts.extend(t for t in _sink_texts(cmd, ins) if _worth(t))
            self.opaque()
        elif name in _READERS and not ins:
            files = _operands(name, args) + files_in
            if files and all(a.literal for a in files) and not outs:
                self.facts.reads.extend(resolve(a.text, self.cwd) for a in files)
            else:
                self.reads_only = False
            self.literal_only = False
        elif name == "tee" and idx > 0:
            pass  # the destination of the command before it (handled there)
        elif name in _SILENT or not cmd.words:
            if any(a.text in ("-v", "--verbose") for a in args) or not all(a.literal for a in args):
                self.opaque()
        else:
            self.opaque()
        return None

    def _destinations(
        self, pipe: list[Command], idx: int, outs: list[Word], tee_files: list[Word]
    ) -> tuple[list[Word], bool, bool]:
        """Where a literal source's text goes: the files, whether it reaches the screen,
        and whether another program consumes it (or a file named only at run time)."""
        dests = list(outs) + tee_files
        to_stdout = consumed = False
        nxt = pipe[idx + 1] if idx + 1 < len(pipe) else None
        if not outs and nxt is None:
            to_stdout = True
        elif not outs and nxt is not None:
            if nxt.name == "tee":
                dests += [a for a in nxt.words[1:] if not a.text.startswith("-")]
                tee_outs = [t for op, t in nxt.redirects if op in _OUT_REDIRECTS]
                dests += [t for t in tee_outs if isinstance(t, Word)]
                to_stdout = not tee_outs and idx + 2 >= len(pipe)
                if idx + 2 < len(pipe):
                    consumed = True
                    self.opaque()
            elif nxt.name not in _PROSE_SINKS:
                consumed = True  # input to another program (code, SQL, a password…)
                self.opaque()
        if any(not w.literal for w in dests):
            consumed = True  # a file whose name is only known at run time
        return dests, to_stdout, consumed


def _fed_text(
    name: str, args: list[Word], ins: list[Word | Heredoc]
) -> tuple[list[str], bool, list[Word]]:
    """``cat`` or ``tee`` fed a here-document or here-string: its text, whether it
    expands, and the files ``tee`` writes it to."""
    texts: list[str] = []
    expands = False
    for doc in ins:
        if isinstance(doc, Heredoc):
            texts.extend(_heredoc_pieces(doc))
            expands = expands or _heredoc_expands(doc)
        else:
            texts.extend(doc.pieces())
            expands = expands or not doc.literal
    tee_files = [a for a in args if not a.text.startswith("-")] if name == "tee" else []
    return texts, expands, tee_files


_VALUED = {
    "head": {"-n", "-c", "--lines", "--bytes"},
    "tail": {"-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"},
    "bat": {"-l", "--language", "-r", "--line-range", "--style", "-H", "--highlight-line"},
    "batcat": {"-l", "--language", "-r", "--line-range", "--style"},
}


def _operands(name: str, args: list[Word]) -> list[Word]:
    """The file operands of a ``cat``-like command (options and their values left out)."""
    out: list[Word] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        t = a.text
        if t.startswith("-") and t != "-":
            skip = t in _VALUED.get(name, set())
            continue
        out.append(a)
    return out


def _sink_texts(cmd: Command, ins: list[Word | Heredoc]) -> list[str]:
    out: list[str] = []
    words = cmd.words
    for i, w in enumerate(words):
        t = w.text
        if t in _PROSE_OPTIONS and i + 1 < len(words):
            out.extend(words[i + 1].pieces())
        elif "=" in t and t.split("=", 1)[0] in _PROSE_OPTIONS:
            out.append(t.split("=", 1)[1])
    for doc in ins:
        out.extend(_heredoc_pieces(doc) if isinstance(doc, Heredoc) else doc.pieces())
    return out

"""The command line's plumbing on the standard library's argparse (click cost ~18 ms of every
start-up, argparse ~2 ms): commands and groups declared by decorators beside their code, a parser
built only for the command that runs, `echo`, and the errors a command raises.

    @command("rules")
    @option("--format", dest="fmt", choices=["text", "json"], default="text")
    def rules_cmd(fmt): ...

`option` and `argument` take argparse's `add_argument` keywords, plus `show_default=True` (the
help ends with `[default: X]`); an argument's metavar is its name in capitals (or its choices).
Options may come before, between or after the arguments; `--` ends the options. A command's
help is its docstring: paragraphs are rewrapped, except one whose first line is `\\b` (kept as
written).

A usage error (`UsageError`, `BadParameter`, or argparse's own) prints the usage and
`PROG: error: MESSAGE` on standard error and exits 2; `CommandError` prints `error: MESSAGE` and
exits 1. A command that returns exits 0.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import stat
import sys


class UsageError(Exception):
    """The command line asks for something wrong: exit 2 with the usage."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def format_message(self) -> str:
        return self.message


class BadParameter(UsageError, argparse.ArgumentTypeError):
    """A wrong value: raised by an option's `type` (argparse names the option), or by a command
    (`param_hint` names the option)."""

    def __init__(self, message: str, param_hint: str | None = None):
        super().__init__(message)
        self.param_hint = param_hint

    def format_message(self) -> str:
        if self.param_hint:
            return f"argument {self.param_hint}: {self.message}"
        return f"invalid value: {self.message}"


class CommandError(Exception):
    """The command failed (a bad instruction, a file it cannot open): `error: MESSAGE`, exit 1."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def show(self) -> None:
        echo(f"error: {self.message}", err=True)


class FileError(CommandError):
    def __init__(self, filename: str, hint: str | None = None):
        super().__init__(f"could not open file {filename!r}: {hint or 'unknown error'}")


_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def echo(message=None, err: bool = False, nl: bool = True, color: bool | None = None) -> None:
    """Write MESSAGE and a newline to standard output (standard error with `err`) and flush, as
    click.echo did. ANSI styles are dropped where the stream is not a terminal, unless `color`
    is True (a user's explicit `--color`: kept through a pipe, as `ls --color=always` and
    `ruff --color always` keep them); `color=False` drops them everywhere."""
    file = sys.stderr if err else sys.stdout
    if file is None:
        return
    out = "" if message is None else str(message)
    if nl:
        out += "\n"
    if "\033" in out and (color is False or (color is None and not _isatty(file))):
        out = _ANSI.sub("", out)
    file.write(out)
    file.flush()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Path:
    """An argparse `type` that checks a path as click.Path did: with `exists` it must exist; an
    existing path must be a file (`dir_okay=False`) or a directory (`file_okay=False`), readable,
    and with `writable` writable; `-` passes with `allow_dash`."""

    def __init__(self, exists=False, file_okay=True, dir_okay=True, writable=False, readable=True,
                 allow_dash=False):
        self.exists, self.file_okay, self.dir_okay = exists, file_okay, dir_okay
        self.writable, self.readable, self.allow_dash = writable, readable, allow_dash
        self.kind = "file" if not dir_okay else "directory" if not file_okay else "path"
        self.__name__ = self.kind

    def __call__(self, value: str) -> str:
        if self.allow_dash and value == "-":
            return value
        try:
            st = os.stat(value)
        except OSError:
            if self.exists:
                raise BadParameter(f"{self.kind} {value!r} does not exist")
            return value
        if not self.file_okay and stat.S_ISREG(st.st_mode):
            raise BadParameter(f"{self.kind} {value!r} is a file")
        if not self.dir_okay and stat.S_ISDIR(st.st_mode):
            raise BadParameter(f"{self.kind} {value!r} is a directory")
        if self.readable and not os.access(value, os.R_OK):
            raise BadParameter(f"{self.kind} {value!r} is not readable")
        if self.writable and not os.access(value, os.W_OK):
            raise BadParameter(f"{self.kind} {value!r} is not writable")
        return value


# ------------------------------------------------------------------ declaring commands

def option(*flags: str, **kwargs):
    """An option of the command below (argparse's `add_argument` keywords)."""
    def decorate(fn):
        _params(fn).insert(0, (flags, kwargs))
        return fn
    return decorate


def argument(name: str, **kwargs):
    """A positional argument of the command below (argparse's `add_argument` keywords)."""
    def decorate(fn):
        _params(fn).insert(0, ((name,), kwargs))
        return fn
    return decorate


def _params(fn) -> list:
    if "__cli_params__" not in fn.__dict__:
        fn.__cli_params__ = []
    return fn.__cli_params__


def command(name: str | None = None, cls=None, **kwargs):
    """Make the function below a command (its docstring is the help)."""
    def decorate(fn):
        return (cls or Command)(fn, name or fn.__name__.lower().replace("_", "-"), **kwargs)
    return decorate


def group(name: str | None = None, cls=None, **kwargs):
    """Make the function below a group of commands (its docstring is the help)."""
    return command(name, cls=cls or Group, **kwargs)


def program_name() -> str:
    """The name the program was started by, as click gave it (`ptxld`, `python -m ptxld.cli`)."""
    path = sys.argv[0] if sys.argv and sys.argv[0] else "ptxld"
    package = getattr(sys.modules.get("__main__"), "__package__", None)
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    return f"python -m {package}" + (f".{name}" if name != "__main__" else "")


def _cleandoc(doc: str) -> str:
    lines = doc.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents, default=0)
    return "\n".join([lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]).strip() \
        if lines else ""


class _Formatter(argparse.HelpFormatter):
    """argparse's layout; a description's paragraphs are rewrapped unless they start with `\\b`."""

    def __init__(self, prog, **kwargs):
        super().__init__(prog, max_help_position=32, **kwargs)

    def _fill_text(self, text, width, indent):
        out = []
        for para in text.split("\n\n"):
            if para.startswith("\b\n"):
                out.append("\n".join(indent + line for line in para[2:].splitlines()))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


class _Parser(argparse.ArgumentParser):
    shown = None  # the parser whose usage and help this one prints (a parsing pass: the command's)

    def format_usage(self):
        return self.shown.format_usage() if self.shown is not None else super().format_usage()

    def format_help(self):
        return self.shown.format_help() if self.shown is not None else super().format_help()

    def print_help(self, file=None):
        echo(self.format_help(), err=file is sys.stderr, nl=False)


_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


class Command:
    """A command: its function, name, help and parameters ((flags, add_argument keywords), in
    the order the help shows them)."""

    def __init__(self, callback, name: str, help: str | None = None):
        self.callback = callback
        self.name = name
        self.help = help if help is not None else _cleandoc(callback.__doc__ or "")
        self.params = list(callback.__dict__.get("__cli_params__", ()))

    @property
    def short_help(self) -> str:
        return " ".join(self.help.split("\n\n")[0].split())

    def __call__(self, args=None, prog_name: str | None = None):
        return self.main(args, prog_name)

    def main(self, args=None, prog_name: str | None = None):
        """Run with ARGS (default: the program's), then exit 0; errors exit as the module says."""
        self.run(sys.argv[1:] if args is None else list(args), prog_name or program_name())
        sys.exit(0)

    def run(self, args: list, prog: str) -> None:
        shown = self.parser(prog)
        kwargs = self.parse(shown, args, prog)
        try:
            self.callback(**kwargs)
        except UsageError as e:
            shown.error(e.format_message())
        except CommandError as e:
            e.show()
            sys.exit(e.exit_code)

    # -------------------------------------------------------------- parsing

    def _add(self, parser, flags, kwargs) -> None:
        kwargs = dict(kwargs)
        show_default = kwargs.pop("show_default", False)
        help = kwargs.get("help")
        if show_default:
            help = f"{help}  [default: {kwargs.get('default')}]" if help else \
                f"[default: {kwargs.get('default')}]"
        if help:
            kwargs["help"] = help.replace("%", "%%")
        if not flags[0].startswith("-"):  # an argument
            kwargs.setdefault("metavar", None if "choices" in kwargs else flags[0].upper().rstrip("_"))
            if kwargs.get("nargs") == "*":
                kwargs.setdefault("default", [])  # else argparse counts it as required
        elif isinstance(kwargs.get("type"), Path) and "metavar" not in kwargs:
            kwargs["metavar"] = kwargs["type"].kind.upper()
        parser.add_argument(*flags, **kwargs)

    def _usage(self) -> str:
        parts = ["%(prog)s [OPTIONS]"]
        for flags, kw in self.params:
            if flags[0].startswith("-"):
                continue
            meta = kw.get("metavar") or ("{%s}" % ",".join(kw["choices"]) if "choices" in kw
                                         else flags[0].upper().rstrip("_"))
            forms = {"?": f"[{meta}]", "*": f"[{meta} ...]", "+": f"{meta} [{meta} ...]"}
            parts.append(forms.get(kw.get("nargs"), meta))
        return " ".join(parts)

    def parser(self, prog: str, which: str = "all", **kwargs) -> argparse.ArgumentParser:
        """The parser of the help and the usage (`which`: "all"), or of one of the two parsing
        passes: "options" or "arguments"."""
        if which == "all":
            kwargs.update(usage=self._usage(), description=self.help)
        p = _Parser(prog=prog, formatter_class=_Formatter, allow_abbrev=False,
                    add_help=which != "arguments", **kwargs)
        for flags, kw in self.params:
            is_option = flags[0].startswith("-")
            if which == "all" and not is_option and not kw.get("help"):
                kw = dict(kw, help=argparse.SUPPRESS)  # the usage line names it; nothing more to say
            if which == "all" or is_option == (which == "options"):
                self._add(p, flags, kw)
        return p

    def parse(self, shown, args: list, prog: str) -> dict:
        """The keyword arguments of the callback. Two passes, the options then the arguments, so
        that options may follow arguments of any number (`run FILE ARGS... --out DIR`), which
        argparse's own intermixed parsing gets wrong around `--` in Python 3.11."""
        cut = args.index("--") if "--" in args else len(args)
        options = self.parser(prog, "options")
        options.shown = shown
        required = [a for a in options._actions if a.required]
        for action in required:  # checked after the arguments: a missing FILE is named first
            action.required = False
        namespace, rest = options.parse_known_args(args[:cut])
        unknown = [a for a in rest if a.startswith("-") and a != "-" and " " not in a
                   and not _NEGATIVE_NUMBER.match(a)]
        if unknown:
            shown.error("unrecognized arguments: " + " ".join(unknown))
        # prefix_chars no argument starts with: everything here is an argument, `--:-:6:-:1` too
        arguments = self.parser(prog, "arguments", prefix_chars="\0")
        arguments.shown = shown
        arguments.parse_args(rest + args[cut + 1:], namespace)
        missing = ["/".join(a.option_strings) for a in required if getattr(namespace, a.dest) is None]
        if missing:
            shown.error("the following arguments are required: " + ", ".join(missing))
        return vars(namespace)


class Group(Command):
    """Commands under one name (`ptxld sass asm`). `lazy`: name -> ("module:attribute", one-line
    help), commands imported only when they run (start-up time); `version`: a function giving
    the version `--version` prints."""

    def __init__(self, callback, name: str, help: str | None = None, lazy: dict | None = None,
                 version=None):
        super().__init__(callback, name, help)
        self.commands: dict[str, Command] = {}
        self.lazy = dict(lazy or {})
        self.version = version

    def command(self, name: str | None = None, cls=None, **kwargs):
        def decorate(fn):
            cmd = command(name, cls=cls, **kwargs)(fn)
            self.add_command(cmd)
            return cmd
        return decorate

    def add_command(self, cmd: Command, name: str | None = None) -> None:
        self.commands[name or cmd.name] = cmd

    def list_commands(self) -> list[str]:
        return sorted(set(self.commands) | set(self.lazy))

    def get_command(self, name: str) -> Command | None:
        if name in self.lazy and name not in self.commands:
            module, attr = self.lazy[name][0].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return self.commands.get(name)

    def parser(self, prog: str, which: str = "all", **kwargs) -> argparse.ArgumentParser:
        p = _Parser(prog=prog, usage="%(prog)s [OPTIONS] COMMAND [ARGS]...", description=self.help,
                    formatter_class=_Formatter, allow_abbrev=False)
        if self.version is not None:
            p.add_argument("--version", action="store_true", help="show the version and exit")
        rows = p.add_argument_group("commands")
        for name in self.list_commands():  # shown only: the group parses its options itself
            short = self.lazy[name][1] if name in self.lazy else self.commands[name].short_help
            rows.add_argument(name, help=short.replace("%", "%%"))
        return p

    def run(self, args: list, prog: str) -> None:
        parser = self.parser(prog)
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "-":
            if args[i] in ("-h", "--help"):
                parser.print_help()
                sys.exit(0)
            if args[i] == "--version" and self.version is not None:
                echo(f"{prog}, version {self.version()}")
                sys.exit(0)
            if args[i] == "--":
                i += 1
                break
            parser.error(f"unrecognized arguments: {args[i]}")
        if i == len(args):
            parser.print_help(sys.stderr)
            sys.exit(2)
        name = args[i]
        cmd = self.get_command(name)
        if cmd is None:
            choices = ", ".join(repr(n) for n in self.list_commands())
            parser.error(f"argument COMMAND: invalid choice: {name!r} (choose from {choices})")
        self.invoke(cmd, args[i + 1:], f"{prog} {name}")

    def invoke(self, cmd: Command, args: list, prog: str) -> None:
        cmd.run(args, prog)

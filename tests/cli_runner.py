"""Run a ptxld command in this process, as click.testing.CliRunner did: standard input from
`input`, standard output and error captured, the command's SystemExit caught.

    r = CliRunner().invoke(main, ["check", "-"], input=text)
    r.exit_code, r.stdout, r.stderr, r.output   # output: stdout and stderr as they were written

With the streams replaced, `ptxld check` ends with sys.exit, not os._exit (its guard)."""
from __future__ import annotations

import io
import sys


class _Capture(io.TextIOBase):
    """A text stream that keeps what is written, in its own list and in the mixed one."""

    def __init__(self, own: list, mixed: list):
        self._own, self._mixed = own, mixed

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def write(self, s):
        self._own.append(s)
        self._mixed.append(s)
        return len(s)

    def isatty(self):
        return False


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str, output: str, exception=None,
                 exc_info=None):
        self.exit_code, self.stdout, self.stderr, self.output = exit_code, stdout, stderr, output
        self.exception, self.exc_info = exception, exc_info

    def __repr__(self):
        return f"<Result exit_code={self.exit_code} {self.exception or 'okay'}>"


class CliRunner:
    def invoke(self, cli, args=(), input: str | bytes | None = None) -> Result:
        """Run command or group `cli` with ARGS; an exception other than SystemExit is exit 1,
        kept in `.exception`."""
        data = input.encode("utf-8") if isinstance(input, str) else (input or b"")
        out, err, mixed = [], [], []
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        sys.stdout, sys.stderr = _Capture(out, mixed), _Capture(err, mixed)
        exception = exc_info = None
        try:
            cli.main(list(args), prog_name=cli.name)
            code = 0
        except SystemExit as e:
            code = e.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                sys.stdout.write(f"{code}\n")
                code = 1
        except Exception as e:
            code, exception, exc_info = 1, e, sys.exc_info()
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
        return Result(code, "".join(out), "".join(err), "".join(mixed), exception, exc_info)

"""The commands' shared frame, written once for scripts/plot, compare, run,
collect, project, trace, fleet and the integrations' parsers: argument
parsing whose usage errors are one line, bad input as one line
'<prog>: <message>' and exit status 2, a bug as its traceback and exit
status 2, a stop signal N (SIGINT, SIGTERM, SIGHUP) as exit status 128 + N
after what runs has stopped its children, a closed pipe quietly.
"""

import argparse
import os
import signal
import sys
import traceback

from mdb_dump import DumpError, printable


def die(prog, msg):
	print(f"{prog}: {printable(msg)}", file=sys.stderr)
	sys.exit(2)


class ArgumentParser(argparse.ArgumentParser):
	"""argparse whose usage errors are one '<prog>: <message>' line, exit 2."""

	def __init__(self, **kw):
		kw.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
		super().__init__(**kw)

	def error(self, message):
		die(self.prog, message)


def margin_arg(text):
	"""--margin of the scripts that give verdicts: a fraction, 0.05 for 5%."""
	try:
		v = float(text)
	except ValueError:
		v = None
	if v is None or not 0 < v < 1:
		raise DumpError(f"--margin {text!r}: want a fraction between 0 and 1, e.g. 0.05 for 5%")
	return v


def error_line(e):
	"""The one line for an exception that is bad input or the world's doing
	(a dump, a file, a command, memory); None for a bug, which cli() shows
	with its traceback."""
	if isinstance(e, DumpError):
		return str(e)
	import subprocess
	if isinstance(e, subprocess.CalledProcessError):
		cmd = e.cmd if isinstance(e.cmd, str) else " ".join(map(str, e.cmd))
		return f"{cmd}: exit status {e.returncode}"
	if isinstance(e, OSError):
		return f"{e.filename or ''}: {e.strerror or e}" if e.filename else str(e.strerror or e)
	if isinstance(e, MemoryError):
		return "out of memory"
	return None


class Stopped(KeyboardInterrupt):
	"""SIGINT, SIGTERM or SIGHUP stopping a command (catch_stop_signals()):
	it ends with exit status 128 + signum, as a shell reports a command a
	signal ended."""

	def __init__(self, signum):
		super().__init__()
		self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum, frame):
	raise Stopped(signum)


def catch_stop_signals():
	"""SIGINT, SIGTERM and SIGHUP raise Stopped in the main thread (even
	where SIGINT started out ignored, in the background): what runs stops
	its children and keeps what finished."""
	for s in STOP_SIGNALS:
		signal.signal(s, _stop)


def ignore_stop_signals():
	"""While what finished is packed: a second signal must not cut it short."""
	for s in STOP_SIGNALS:
		signal.signal(s, signal.SIG_IGN)


def stop_signal(e):
	"""The signal behind a KeyboardInterrupt: its own, else SIGINT (Ctrl-C)."""
	return getattr(e, "signum", signal.SIGINT)


def cli(prog, main, argv=None):
	"""Runs main(argv) as a command: warnings silenced (the figures and
	tables say what they need to), bad input as one line '<prog>: ...' and
	exit status 2, a bug as its traceback and exit status 2, Ctrl-C or
	another stop signal N as 128 + N, a closed pipe quietly."""
	import warnings
	warnings.simplefilter("ignore")
	os.environ.setdefault("MPLCONFIGDIR", os.path.join(
		os.environ.get("TMPDIR", "/tmp"), f"mdbench-mpl-{os.getuid()}"))
	try:
		rc = main(sys.argv[1:] if argv is None else argv)
		sys.stdout.flush()
		sys.exit(rc or 0)
	except KeyboardInterrupt as e:
		sig = stop_signal(e)
		print(f"{prog}: interrupted ({signal.Signals(sig).name})", file=sys.stderr)
		sys.exit(128 + sig)
	except BrokenPipeError:
		os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
		sys.exit(0)
	except ImportError as e:
		die(prog, f"{e} (scripts/setup installs python3-matplotlib and python3-scipy)")
	except Exception as e:  # noqa: BLE001 - every exception ends in exit status 2
		line = error_line(e)
		if line is None:	# a bug: where it is matters more than one tidy line
			traceback.print_exc()
			sys.exit(2)
		die(prog, line)

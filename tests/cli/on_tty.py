"""Runs a command with a terminal for stdin, stdout and stderr (python's pty module plays the
terminal) and prints everything it wrote there. With --input, types that text, waits half a
second for the answer, then types Ctrl-D.

Usage: python3 on_tty.py [--input TEXT] COMMAND [ARG...]
"""
import os
import pty
import sys
import time

args = sys.argv[1:]
typed = None
if args[:1] == ["--input"]:
    typed, args = args[1].encode(), args[2:]

pid, fd = pty.fork()
if pid == 0:
    os.execv(args[0], args)
if typed is not None:
    os.write(fd, typed)
    time.sleep(0.5)
    os.write(fd, b"\x04")
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # the child has gone and closed the terminal
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))

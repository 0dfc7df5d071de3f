"""Runs a command on a real pseudo-terminal and relays bytes both ways.

Usage: python3 pty-driver.py COMMAND [ARGS...]

What the test writes to this process's stdin reaches the command as keystrokes on its terminal
(\\x03 is Ctrl+C, \\x1b is Esc, \\r is Enter); what the command writes to its terminal comes out on
stdout. Ends with the command's exit code (128+N when a signal killed it).
"""
import os
import pty
import select
import sys

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

stdin_open = True
while True:
    watched = [fd] + ([0] if stdin_open else [])
    try:
        ready, _, _ = select.select(watched, [], [], 0.05)
    except InterruptedError:
        continue
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)
    if stdin_open and 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False

_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))

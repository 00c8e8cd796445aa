"""Holds one of SQLite's WAL locks from another process, as a second program would.

Usage: hold_wal_lock.py <database>-shm <lock index>

SQLite's unix VFS takes its WAL locks as fcntl byte locks on the -shm file, from byte
120: 120 + 0 is the write lock, 120 + 1 the checkpoint lock, 120 + 3 + i read lock i.
Takes the lock exclusively (retrying for ten seconds while SQLite holds it), prints
LOCKED, and keeps it until its standard input closes (the test releases it, or died).
"""
import fcntl
import os
import sys
import time

path, index = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDWR)
deadline = time.monotonic() + 10
while True:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 120 + index, os.SEEK_SET)
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.005)
print("LOCKED", flush=True)
sys.stdin.read()

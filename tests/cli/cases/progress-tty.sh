# Progress lines are drawn on a terminal only. scan, fastdl and check run with
# stderr on a pseudo-terminal (Python's pty module): the line counts the maps
# as they finish ("[k/N] ... maps/s, ... s left", each redrawn with a
# carriage return) and is cleared before the summary; with stderr on a
# file, as in the other scenarios, nothing of it appears.
set -e
mkdir in
cp "$GEN"/source-room.bsp "$GEN"/source-room-be.bsp "$GEN"/goldsrc-room.bsp "$GEN"/quake-room.bsp in/
mkdir many  # check draws its line above ten maps
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cp "$GEN"/goldsrc-room.bsp "many/m$i.bsp"; done
python3 - "$BSPKIT" <<'PY'
import os, pty, re, subprocess, sys
bspkit = sys.argv[1]

def on_tty(args):
    master, slave = pty.openpty()
    p = subprocess.Popen([bspkit] + args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    data = b''
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the child has closed its end
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    assert p.wait() == 0, args
    return data.decode()

many = sorted('many/' + f for f in os.listdir('many'))
for name, args, total in (('scan', ['scan', '-j', '1', 'in'], 4), ('fastdl', ['fastdl', 'in', '-o', 'web', '-q'], 4),
                          ('check', ['check', '-j', '2'] + many, 12)):
    err = on_tty(args)
    seen = [int(k) for k, n in re.findall(r'\r\[(\d+)/(\d+)\] [0-9.]+ maps/s, [0-9]+ s left', err) if int(n) == total]
    assert seen and seen[-1] == total and seen == sorted(seen), (name, err)
    assert err.endswith('\r\x1b[K') or 'checked 12 maps' in err.rsplit('\r\x1b[K', 1)[-1], (name, err[-60:])
    print(name, 'progress reached', seen[-1], 'of', total)

# Not a terminal: no progress line.
r = subprocess.run([bspkit, 'fastdl', 'in', '-o', 'web2', '-q'], capture_output=True)
assert r.returncode == 0 and b'maps/s' not in r.stderr and b'\r' not in r.stderr, r.stderr
print('no progress line without a terminal')
PY

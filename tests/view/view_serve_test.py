#!/usr/bin/env python3
"""bspkit view --serve: started on a free port (--serve 0), it answers GET /
and /index.html with the bytes `bspkit view -o` writes for the same map,
404 for every other path (files beside the map among them), listens on
127.0.0.1 only (the kernel's socket table, and no answer on another local
address), and exits 0 when interrupted.

    view_serve_test.py BSPKIT
Exit 77 (skipped) when this bspkit was built without the viewer script.
"""
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile

failures = 0


def check(ok, what):
    global failures
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok:
        failures += 1


def get(port, path, method='GET'):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    c.request(method, path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def listening_addresses(port):
    """Local addresses of sockets listening on `port`, from /proc/net/tcp and tcp6."""
    found = []
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            addr, p = local.split(':')
            if state == '0A' and int(p, 16) == port:
                found.append(addr)
    return found


def other_local_address():
    """An address of this machine that is not loopback, or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(('192.0.2.1', 9))  # no packet is sent for a UDP connect
        addr = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if addr.startswith('127.') else addr


def main():
    bspkit = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='bspkit-view-serve-') as work:
        bsp = os.path.join(work, 'goldsrc-room.bsp')
        html = os.path.join(work, 'room.html')
        subprocess.run([bspkit, 'generate', 'goldsrc-room', '-o', bsp], check=True, stdout=subprocess.DEVNULL)
        r = subprocess.run([bspkit, 'view', bsp, '-o', html], capture_output=True, text=True)
        if r.returncode != 0 and 'without the viewer script' in r.stderr:
            print('skipped: ' + r.stderr.strip())
            return 77
        check(r.returncode == 0, 'view -o writes the page')
        with open(html, 'rb') as f:
            page = f.read()

        proc = subprocess.Popen([bspkit, 'view', bsp, '--serve', '0'], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            url = None
            for line in proc.stdout:
                m = re.search(r'http://127\.0\.0\.1:(\d+)/', line)
                if m:
                    url, port = m.group(0), int(m.group(1))
                    break
            check(url is not None, f'--serve prints the URL ({url})')
            if url is None:
                return 1
            status, headers, body = get(port, '/')
            check(status == 200 and body == page, f'GET / is the page -o writes ({len(body)} bytes)')
            check(headers.get('content-type', '').startswith('text/html'), 'served as text/html')
            status, _, body = get(port, '/index.html?x=1')
            check(status == 200 and body == page, 'GET /index.html is the page')
            status, headers, body = get(port, '/', 'HEAD')
            check(status == 200 and body == b'' and headers.get('content-length') == str(len(page)), 'HEAD / has no body')
            for path in ('/goldsrc-room.bsp', '/room.html', '/../', '/%2e%2e/etc/passwd', '/index.htm', '//',
                         '/index.html/', '/favicon.ico'):
                status, _, body = get(port, path)
                check(status == 404 and page not in body, f'GET {path} is 404')
            status, _, _ = get(port, '/', 'POST')
            check(status == 405, 'POST / is refused')
            addrs = listening_addresses(port)
            check(addrs == ['0100007F'], f'listens on 127.0.0.1 only ({addrs})')
            other = other_local_address()
            if other:
                s = socket.socket()
                s.settimeout(3)
                try:
                    s.connect((other, port))
                    reached = True
                except OSError:
                    reached = False
                finally:
                    s.close()
                check(not reached, f'nothing answers on {other}:{port}')
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                rc = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = None
        check(rc == 0, f'stops with exit 0 when interrupted ({rc})')
    print(f'{failures} checks failed' if failures else 'all checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""The shared library's ABI is its public headers.

Every function declared at file scope in include/bspkit/*.h must be named
bspkit_*, marked BSPKIT_API and exported by the shared library, and the
library must export nothing else (no internal bk_* helper).

    check_exports.py LIBBSPKIT.so INCLUDE_DIR
"""
import glob
import os
import re
import subprocess
import sys


def declarations(text):
    """(name, marked) for each file-scope function declaration (not static inline)."""
    # C++ guards: extern "C" { ... } wraps the whole header.
    text = re.sub(r'#ifdef __cplusplus\s*extern "C" \{\s*#endif', ' ', text)
    text = re.sub(r'#ifdef __cplusplus\s*\}\s*#endif', ' ', text)
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'^[ \t]*#[^\n]*(\\\n[^\n]*)*', ' ', text, flags=re.M)
    out = []
    braces = parens = 0
    start = 0  # where the current file-scope declaration began
    for m in re.finditer(r'[A-Za-z_]\w*|[{}();]', text):
        tok = m.group(0)
        if tok == '{':
            braces += 1
        elif tok == '}':
            braces -= 1
            if braces == 0:
                start = m.end()
        elif tok == '(':
            parens += 1
        elif tok == ')':
            parens -= 1
        elif tok == ';':
            if braces == 0 and parens == 0:
                start = m.end()
        elif braces == 0 and parens == 0 and text[m.end():].lstrip().startswith('('):
            head = text[start:m.start()].split()
            if 'typedef' in head or 'static' in head or not head:
                continue
            if tok == 'extern' or tok.startswith('__') or tok.isupper():
                continue  # keywords and attribute macros (BSPKIT_DEPRECATED(...))
            out.append((tok, 'BSPKIT_API' in head))
    return out


def main():
    lib, include = sys.argv[1], sys.argv[2]
    declared = {}
    for path in sorted(glob.glob(os.path.join(include, 'bspkit', '*.h'))):
        with open(path) as f:
            for name, marked in declarations(f.read()):
                declared[name] = (marked, os.path.basename(path))
    nm = subprocess.run(['nm', '-D', '--defined-only', lib], check=True, capture_output=True, text=True)
    exported = {line.split()[-1].split('@')[0] for line in nm.stdout.splitlines() if line.strip()}

    problems = []
    for name, (marked, header) in sorted(declared.items()):
        if not name.startswith('bspkit_'):
            problems.append(f'{header}: public function {name} is not named bspkit_*')
        if not marked:
            problems.append(f'{header}: {name} is not marked BSPKIT_API')
        if name not in exported:
            problems.append(f'{header}: {name} is declared but not exported')
    for name in sorted(exported - set(declared)):
        problems.append(f'exported but not a public declaration: {name}')
    for p in problems:
        print('FAIL', p)
    print(f'{len(exported)} symbols exported, {len(declared)} public functions declared, '
          f'{len(problems)} problems')
    return 1 if problems or not declared else 0


if __name__ == '__main__':
    sys.exit(main())

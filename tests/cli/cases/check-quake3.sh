{ printf 'IBSP\056\000\000\000'; head -c 136 /dev/zero; } >q3.bsp
"$BSPKIT" check --json q3.bsp

# "IBSP", version 46, then a zeroed directory of 17 lumps.
{ printf 'IBSP\056\000\000\000'; head -c 136 /dev/zero; } >q3.bsp
"$BSPKIT" info q3.bsp

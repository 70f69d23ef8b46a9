# A local file header signature followed by zeros.
{ printf 'PK\003\004'; head -c 200 /dev/zero; } >archive.bsp
"$BSPKIT" info archive.bsp

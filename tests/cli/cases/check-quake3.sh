# A Quake 3 map whose SURFACES lump (index 13) holds 100 bytes, not a whole
# number of the format's 104-byte dsurface_t records: refused at open.
{
    printf 'IBSP\056\000\000\000'
    head -c 104 /dev/zero                        # entries 0-12
    printf '\220\000\000\000\144\000\000\000'    # SURFACES: offset 144, length 100
    head -c 24 /dev/zero                         # entries 14-16
    head -c 100 /dev/zero
} >q3.bsp
"$BSPKIT" check --json q3.bsp

# The summary line: atlas size, faces placed / lit / in the map, occupancy;
# --hdr on a Source map says so; a style slot the samples lack places nothing.
"$BSPKIT" generate goldsrc-room -o g.bsp >/dev/null || exit 1
"$BSPKIT" generate source-room -o s.bsp >/dev/null || exit 1
"$BSPKIT" lightmap g.bsp -o g.png
"$BSPKIT" lightmap s.bsp --output=s.png --hdr --max-width 64 --padding 2
"$BSPKIT" lightmap s.bsp -o s1.png --style 1

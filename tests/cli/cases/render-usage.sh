# Bad render arguments are usage errors (64) naming what is wrong; a map
# without a player spawn cannot give the spawn view (1).
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o x.png --size 0x10; echo "exit $?"
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o x.png --camera "0 0 0 0 0 180"; echo "exit $?"
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o x.png --view side; echo "exit $?"
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o x.png --overview --view iso; echo "exit $?"
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --delete classname=info_player_start -o nospawn.bsp >/dev/null
"$BSPKIT" render nospawn.bsp -o x.png; echo "exit $?"
test -e x.png || echo "no x.png"

# A missing map exits 2 naming it; bad arguments exit 64.
"$BSPKIT" tex no-such.bsp list; echo "missing: $?"
"$BSPKIT" tex "$GEN/quake-room.bsp" extract; echo "no -o: $?"
"$BSPKIT" tex "$GEN/quake-room.bsp" frobnicate; echo "bad subcommand: $?"
"$BSPKIT" wad no-such.wad list; echo "missing wad: $?"
"$BSPKIT" wad "$GEN/quake-room.bsp" list; echo "not a wad: $?"
"$BSPKIT" wad x.wad list --bogus; echo "bad option: $?"

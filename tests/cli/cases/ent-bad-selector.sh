# A condition without '=' is a usage error.
"$BSPKIT" ent "$GEN/source-room.bsp" --delete classname --dry-run

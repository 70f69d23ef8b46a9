# --dry-run prints the resulting text and writes nothing.
"$BSPKIT" ent "$GEN/quake-room.bsp" --delete 'classname=info_player_*' --set classname=light light=150 --dry-run
ls

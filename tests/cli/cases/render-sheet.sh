# --sheet: one PNG of the requested size holding four views; odd sizes keep
# their last row and column as background.
"$BSPKIT" render "$GEN/source-room.bsp" -o sheet.png --sheet --size 641x361 >/dev/null
od -An -tx1 -j16 -N8 sheet.png | tr -d ' \n'
echo
"$BSPKIT" render "$GEN/source-room.bsp" -o x.png --sheet --view top; echo "exit $?"

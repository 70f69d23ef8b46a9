# A pakfile made with Info-ZIP's zip (deflated entries, and time-stamp
# extra fields longer in the local headers than in the central directory,
# which shifts where Valve's reader looks for the data) is listed with every
# entry marked; repack stores the entries without extra fields, and the
# marks go away while the contents stay the same.
source "$CASES/pak-lib.bash"
mkdir -p src/scripts && seq 1 5000 > src/scripts/a.nut && seq 7 3000 > src/b.txt
(cd src && zip -q ../info.zip scripts/a.nut b.txt) || exit 1
"$BSPKIT" lump "$GEN/source-room.bsp" replace PAKFILE info.zip -o info.bsp > /dev/null || exit 1
zip_walk info.zip | while read -r name method flags csize usize extra lextra data; do
    [ "$method" = 8 ] && [ "$lextra" != "$extra" ] && echo "$name: deflated, extra fields $lextra/$extra"
done
"$BSPKIT" pak info.bsp list > before.txt
echo "before: $(grep -cE '^\* +[0-9]+ +[0-9]+ ' before.txt) marked; $(grep -o '^\* [0-9]* entries the Source engine would misread' before.txt)"
"$BSPKIT" pak info.bsp repack -o fixed.bsp > /dev/null || exit 1
pak_zip fixed.bsp fixed.zip
zip_check_layout fixed.zip
unzip -p fixed.zip scripts/a.nut | cmp - src/scripts/a.nut || echo "a.nut differs"
unzip -p fixed.zip b.txt | cmp - src/b.txt || echo "b.txt differs"
"$BSPKIT" pak fixed.bsp list > after.txt
echo "after: $(grep -c '^\*' after.txt) marked"

# remove drops the entries a glob matches (case-insensitive, '*' across
# '/'); a glob matching nothing is an error and nothing is written.
source "$CASES/pak-lib.bash"
mkdir -p materials/a sound
echo one > materials/a/x.vmt
echo two > materials/a/y.vtf
echo three > sound/z.wav
"$BSPKIT" pak "$GEN/source-room.bsp" add materials/a/x.vmt materials/a/y.vtf sound/z.wav -o three.bsp > /dev/null || exit 1
"$BSPKIT" pak three.bsp remove 'MATERIALS/*.vtf' 'sound/*' -o one.bsp || exit 1
pak_zip one.bsp one.zip
unzip -tqq one.zip > /dev/null || echo "unzip -t failed"
zipinfo -1 one.zip
unzip -p one.zip materials/a/x.vmt | cmp - materials/a/x.vmt || echo "x.vmt differs"
zip_check_layout one.zip
"$BSPKIT" pak one.bsp remove '*' -o none.bsp > /dev/null || exit 1
pak_zip none.bsp none.zip
# An archive without entries is the 22-byte end record alone.
[ "$(file_size none.zip)" = 22 ] && [ "$(rd_u32 none.zip 0)" = 101010256 ] && echo "empty archive"
"$BSPKIT" pak one.bsp remove 'nothing/*' -o never.bsp
status=$?
[ -e never.bsp ] && echo "never.bsp was written"
exit $status

# A missing map, a file that is no map, and an output directory that does
# not exist all exit 2 with an error naming the file.
"$BSPKIT" export missing.bsp -o out.glb; echo "exit $?"
printf 'not a map at all' > junk.bsp
"$BSPKIT" export junk.bsp -o out.glb; echo "exit $?"
"$BSPKIT" export "$GEN/source-room.bsp" -o no/such/dir/out.glb; echo "exit $?"
"$BSPKIT" export "$GEN/source-room.bsp" -o no/such/dir/out.gltf; echo "exit $?"

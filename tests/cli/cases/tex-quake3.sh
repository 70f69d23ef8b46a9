# Quake 3 sample room: its four shaders, named as the generator writes them,
# listed in SHADERS order; the images live in the game's .pk3 files, so each
# is missing.
"$BSPKIT" generate quake3-room -o room.bsp >/dev/null || exit 1
"$BSPKIT" tex room.bsp list --json | jq -r '"\(.count) \(.missing)", (.textures[] | "\(.index) \(.name) \(.source)")'

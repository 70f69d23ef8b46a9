# GoldSrc: the room's textures are embedded; after naming two WADs (one in
# the game directory, in another case than written) and adding a model, a
# sprite and a sound, the missing ones are listed and the exit status is 1.
mkdir -p game/models game/sound/ambience
printf 'WAD3' >game/HALFLIFE.WAD
printf 'IDST' >game/models/barney.mdl
printf 'RIFF' >game/sound/ambience/wind1.wav
printf '{ "classname" "monster_barney" "model" "models/barney.mdl" "origin" "0 0 0" }\n' >add.txt
printf '{ "classname" "env_sprite" "model" "sprites/glow01.spr" }\n' >>add.txt
printf '{ "classname" "ambient_generic" "message" "ambience/wind1.wav" }\n' >>add.txt
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --set classname=worldspawn 'wad=\half-life\valve\halflife.wad;\sierra\decals.wad' \
    --add add.txt -o room.bsp 2>/dev/null || echo "ent exit $?"
"$BSPKIT" deps room.bsp --game game
echo "exit $?"

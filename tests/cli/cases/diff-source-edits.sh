# Edits made with `bspkit ent` on the Source room, listed by `bspkit diff`
# (the expected lines below are written from the edits), then a Stripper
# config from the room to the edited copy that, applied to the room, gives
# the edited copy's entity text (read from the files' bytes, not by bspkit).
source "$CASES/ent-lib.bash"
printf '{ "classname" "logic_relay" "targetname" "relay1" "OnTrigger" "lamp,TurnOff,,0,-1" }\n' >add.txt
"$BSPKIT" ent "$GEN/source-room.bsp" --set classname=light "_light=255 0 0 200" --set classname=light targetname=lamp \
    --delete classname=info_player_start --add add.txt -o b.bsp || echo "ent exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" b.bsp | sed "s#^a: $GEN/#a: #"
echo "exit ${PIPESTATUS[0]}"
"$BSPKIT" diff "$GEN/source-room.bsp" "$GEN/source-room.bsp" >/dev/null
echo "same map: exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" b.bsp --stripper -o room.cfg
echo "stripper: exit $?"
"$BSPKIT" ent "$GEN/source-room.bsp" --stripper room.cfg -o c.bsp || echo "ent exit $?"
ent_load source little b.bsp
ent_text b.bsp >b.txt
ent_load source little c.bsp
ent_text c.bsp >c.txt
if cmp -s b.txt c.txt; then echo "applied config: entity text equal to b.bsp's"; else diff b.txt c.txt; fi

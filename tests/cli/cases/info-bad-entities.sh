# A copy of goldsrc-room.bsp whose entity text opens with a stray '}': the
# entity text is read as the engines' tokenizer reads it (the damaged block
# skipped, the other two entities kept) with a warning naming line 1.
source "$CASES/lib.bash"
cp "$GEN/goldsrc-room.bsp" bad-entities.bsp && chmod u+w bad-entities.bsp || exit 1
ents=$(rd_u32 bad-entities.bsp 4)    # ENTITIES directory entry: offset
[ "$(rd_magic bad-entities.bsp "$ents" | head -c 1)" = "{" ] || { echo "entity text does not start with '{'"; exit 1; }
patch_bytes bad-entities.bsp "$ents" '}'
"$BSPKIT" info --json bad-entities.bsp

# --add from JSON (an array value for a repeated key, an integer) and from
# entity text, in command-line order, then --unset; on the Quake room.
source "$CASES/ent-lib.bash"
cat >add.json <<'JSON'
[
  {"classname": "info_notnull", "targetname": "n1", "spawnflags": 3},
  {"classname": "trigger_relay", "target": ["a", "b"], "delay": "0.5"}
]
JSON
printf '// text form\n{ "classname" "info_null" "targetname" "n2" }\n' >add.txt
"$BSPKIT" ent "$GEN/quake-room.bsp" --add add.json --add add.txt --unset classname=info_player_start angle \
    -o out.bsp || echo "exit $?"
"$BSPKIT" ent out.bsp
check_map out.bsp
other_lumps_same quake little "$GEN/quake-room.bsp" out.bsp

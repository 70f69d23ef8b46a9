# --stripper: a Stripper:Source config with filter, add and modify
# (match/replace/delete/insert, regular expressions, comments).
source "$CASES/ent-lib.bash"
cat >map.cfg <<'CFG'
; remove the light (a regex, compared without regard to case)
filter:
{
	"classname" "/^LIGHT$/"
}
# a relay with two outputs
add:
{
	"classname" "logic_relay"
	"targetname" "relay1"
	"OnTrigger" "brush,Enable,,0,-1"
	"OnTrigger" "brush,Disable,,5,-1"
}
// change the brush entity
modify:
{
	match:
	{
		"classname" "func_brush"
		"model" "*1"
	}
	replace:
	{
		"StartDisabled" "1"
		"wait" "2"
	}
	delete:
	{
		"rendermode" "0"
		"renderamt" "/^2\d\d$/"
		"rendercolor" "0 0 0"
	}
	insert:
	{
		"targetname" "brush"
	}
}
CFG
"$BSPKIT" ent "$GEN/source-room.bsp" --stripper map.cfg -o out.bsp || echo "exit $?"
"$BSPKIT" ent out.bsp
check_map out.bsp
other_lumps_same source little "$GEN/source-room.bsp" out.bsp
source_crc_same little "$GEN/source-room.bsp" out.bsp

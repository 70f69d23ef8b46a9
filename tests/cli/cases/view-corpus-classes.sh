# The face kinds the viewer toggles come from material extras.class, written
# only when tool/sky/nodraw faces are kept: a Source map's tools/* materials
# are "tool", a GoldSrc map's "sky" is "sky", no other material has a class,
# and a default export (those faces left out) has none at all.
source_map="$MAPS/lanofdoom+counterstrikesource-maps/nightly/cstrike/maps/gg_autumn.bsp"
goldsrc_map="$MAPS/barnuri+cs1.6-server/maps/de_complex.bsp"
[ -f "$source_map" ] && [ -f "$goldsrc_map" ] || { echo "skipped: corpus maps not found under $MAPS"; exit 77; }
classes() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
family = sys.argv[2]
bad = []
named = 0
for m in d.get('materials', []):
    name, cls = m['name'], m.get('extras', {}).get('class')
    if family == 'source':
        want = 'tool' if re.match(r'(?i)tools/', name) else None
    elif family == 'goldsrc':
        want = 'sky' if name.lower() == 'sky' else None
    else:
        want = None
    named += want is not None
    if cls != want:
        bad.append(f'{name}: {cls} (expected {want})')
print(f'{named} classed materials, {len(bad)} wrong' + (': ' + '; '.join(bad) if bad else ''))
PY
}
for pair in "source:$source_map" "goldsrc:$goldsrc_map"; do
    family=${pair%%:*} map=${pair#*:}
    "$BSPKIT" export "$map" -o all.gltf --keep all --no-textures --no-lightmaps >/dev/null || echo "export --keep all failed"
    "$BSPKIT" export "$map" -o default.gltf --no-textures --no-lightmaps >/dev/null || echo "export failed"
    echo "$family keep all: $(classes all.gltf "$family")"
    echo "$family default: $(classes default.gltf none)"
done
